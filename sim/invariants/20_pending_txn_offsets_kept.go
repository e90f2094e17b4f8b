package invariants

// PendingTxnOffsetsKept is invariant 20-pending-txn-offsets-kept.
const PendingTxnOffsetsKept = "20-pending-txn-offsets-kept"

func pendingTxnOffsetsKept() Invariant {
	return Invariant{
		Name:    PendingTxnOffsetsKept,
		Promise: "The sweep never expires an offset whose partition has a pending transactional offset.",
		Rule:    "OffsetMetadataManager.cleanupExpiredOffsets skips partitions with hasPendingTransactionalOffsets: the transaction's commit marker must find the offset it completes.",
		Check:   "sim/invariants_kept.go: checker.checkPendingTxnKept, on the sweep's records",
		Mutants: []string{"ExpirePendingTxnOffsets"},
	}
}
