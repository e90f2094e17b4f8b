package invariants

// RevocationBounded is invariant 25-revocation-bounded.
const RevocationBounded = "25-revocation-bounded"

func revocationBounded() Invariant {
	return Invariant{
		Name:    RevocationBounded,
		Promise: "A consumer or streams member asked to revoke is fenced if it stays revoking at the same epoch past its rebalance timeout (counted from the last write of its assignment, or from its shard's load), give or take a minute of commit delays and retried timer writes.",
		Rule:    "GroupMetadataManager.scheduleConsumerGroupRebalanceTimeout (streams: scheduleStreamsGroupRebalanceTimeout) arms a timer at rebalance.timeout.ms whenever a member is left in UNREVOKED_PARTITIONS (UNREVOKED_TASKS), and its expiry fences the member if it is still at that epoch; onLoaded re-arms it.",
		Check:   "sim/invariant_revocation_bounded.go: checker.checkRevocationBounded, when the earliest recorded deadline passes",
		Mutants: []string{"RebalanceTimerTooLate"},
	}
}
