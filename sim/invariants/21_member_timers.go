package invariants

// MemberTimers is invariant 21-member-timers.
const MemberTimers = "21-member-timers"

func memberTimers() Invariant {
	return Invariant{
		Name:    MemberTimers,
		Promise: "After a shard loads or rolls back, every member of every group has its session timer (a classic member its heartbeat timer, or, parked in JoinGroup or SyncGroup, its group's join or sync timer), and every consumer or streams member still revoking has its rebalance timer.",
		Rule:    "GroupMetadataManager.onLoaded schedules scheduleConsumerGroupSessionTimeout, scheduleStreamsGroupSessionTimeout, scheduleShareGroupSessionTimeout or rescheduleClassicGroupMemberHeartbeat for every member, and the rebalance timeout for a member in UNREVOKED_PARTITIONS (UNREVOKED_TASKS); coordsim re-arms them after a rollback too (Coordinator.reconcileSessionTimers), so a rolled-back leave cannot leave a member no timer fences. A classic member parked in JoinGroup or SyncGroup (hasSatisfiedHeartbeat) whose heartbeat expired is left without one, in Kafka too (expireClassicGroupMemberHeartbeat arms nothing): completeClassicGroupJoin or propagateAssignment answers it and re-arms it.",
		Check:   "sim/invariant_member_timers.go: checker.checkMemberTimers, after the event in which a shard loaded or rolled back (an append failure)",
		Mutants: []string{"LoadDropsShareTimers"},
	}
}
