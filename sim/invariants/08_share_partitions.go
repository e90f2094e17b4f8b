package invariants

// SharePartitions is invariant 8-share-partitions.
const SharePartitions = "8-share-partitions"

func sharePartitions() Invariant {
	return Invariant{
		Name:    SharePartitions,
		Promise: "For Connect workloads, a record is acquired by at most one consumer at a time, within the delivery limit, acknowledged only by its holder, and every record of a running share sink ends acknowledged or archived, each offset classified exactly once.",
		Rule:    "KIP-932's share-partition state machine (SharePartition: acquisition locks, group.share.delivery.count.limit, SPSO never moving back) and KIP-1302's sink outcome rules.",
		Check:   "share/invariants.go: SharePartition.CheckInvariants, and sim/connectsim/check.go: Sim.AfterEvent and the end-of-run accounting",
		Mutants: []string{"ShareSinkAckBeforePut", "ShareAckIgnoresOwner"},
	}
}
