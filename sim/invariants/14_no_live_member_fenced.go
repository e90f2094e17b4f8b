package invariants

// NoLiveMemberFenced is invariant 14-no-live-member-fenced.
const NoLiveMemberFenced = "14-no-live-member-fenced"

func noLiveMemberFenced() Invariant {
	return Invariant{
		Name:    NoLiveMemberFenced,
		Promise: "A member whose heartbeat the coordinator accepted within its session timeout is never removed by its session timer: a KIP-848 member, a classic group's member (its heartbeat timer) or a classic member of a consumer group.",
		Rule:    "Every accepted heartbeat reschedules the member's session timeout: GroupMetadataManager.scheduleConsumerGroupSessionTimeout and its streams and share counterparts; a classic Heartbeat, rescheduleClassicGroupMemberHeartbeat in a classic group and scheduleConsumerGroupSessionTimeout at the JoinGroup's session timeout in a consumer group.",
		Check:   "sim/invariant_live_members.go: checker.checkNoLiveMemberFenced, on session-timeout writes (members an online downgrade moves to the classic group are not removed) and classic heartbeat-timer writes",
		Mutants: []string{"HeartbeatKeepsSessionTimer", "ClassicHeartbeatKeepsTimer"},
	}
}
