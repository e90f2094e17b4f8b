package invariants

// NoLiveMemberFenced is invariant 14-no-live-member-fenced.
const NoLiveMemberFenced = "14-no-live-member-fenced"

func noLiveMemberFenced() Invariant {
	return Invariant{
		Name:    NoLiveMemberFenced,
		Promise: "A member whose heartbeat the coordinator accepted within its session timeout is never fenced by the session timer.",
		Rule:    "Every accepted heartbeat reschedules the member's session timeout (GroupMetadataManager.scheduleConsumerGroupSessionTimeout and its streams and share counterparts).",
		Check:   "sim/invariants_rules.go: checker.onWriteRules, on session-timeout writes",
		Mutants: []string{"HeartbeatKeepsSessionTimer"},
	}
}
