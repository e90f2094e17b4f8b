package invariants

// OffsetExpiryOnTime is invariant 12-offset-expiry-on-time.
const OffsetExpiryOnTime = "12-offset-expiry-on-time"

func offsetExpiryOnTime() Invariant {
	return Invariant{
		Name:    OffsetExpiryOnTime,
		Promise: "No offset expires late: the first sweep at or after its deadline removes it, unless a member subscribes to its topic or its group has an open transaction.",
		Rule:    "OffsetMetadataManager.isExpired: a legacy expire timestamp wins, else now - commit timestamp >= offsets.retention.minutes; both inclusive.",
		Check:   "sim/invariants_rules.go: checker.checkSweep, with the checker's own expiry predicate",
		Mutants: []string{"ExpireStrictlyAfter", "IgnoreLegacyExpireTimestamp"},
	}
}
