package invariants

// OffsetRetention is invariant 5-offset-retention.
const OffsetRetention = "5-offset-retention"

func offsetRetention() Invariant {
	return Invariant{
		Name:    OffsetRetention,
		Promise: "No offset expires before its retention, nor while a member of its group subscribes to its topic.",
		Rule:    "OffsetMetadataManager.cleanupExpiredOffsets: isExpired decides the deadline, and a group that subscribes to the topic (isSubscribedToTopic) keeps the offset.",
		Check:   "sim/invariants_rules.go: checker.checkSweep, with the checker's own expiry predicate",
		Mutants: []string{"ExpireEarly", "ExpireSubscribed"},
	}
}
