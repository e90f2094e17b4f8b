package shard

// The classic protocol's timers, keyed as Kafka keys them: a member's
// session ("heartbeat-<group>-<member>", also the new-member join timeout
// and a KIP-394 pending member's session), the join phase
// ("join-<group>": the initial rebalance delay or the rebalance timeout)
// and the pending sync ("sync-<group>").

// classicTaskKey is Task.Key for the classic tasks.
func classicTaskKey(t Task) (string, bool) {
	switch t.Kind {
	case TaskClassicHeartbeat:
		return ClassicHeartbeatKey(t.GroupID, t.MemberID), true
	case TaskClassicJoin, TaskClassicInitialJoin:
		return ClassicJoinKey(t.GroupID), true
	case TaskClassicSync:
		return ClassicSyncKey(t.GroupID), true
	case TaskClassicMemberJoin:
		return ClassicMemberJoinKey(t.GroupID, t.MemberID), true
	case TaskClassicMemberSync:
		return ClassicMemberSyncKey(t.GroupID, t.MemberID), true
	}
	return "", false
}

// runClassicTimer runs a fired classic timer; ok is false for another kind.
func (s *Shard) runClassicTimer(nowMs int64, t Task) (Result[struct{}], bool) {
	if _, ok := classicTaskKey(t); !ok {
		return Result[struct{}]{}, false
	}
	if t.Kind == TaskClassicMemberJoin || t.Kind == TaskClassicMemberSync {
		// consumerGroupFenceMemberOperation: a no-op once the group is not
		// a consumer group or the member is gone.
		res, _ := s.fenceMember(nowMs, Consumer, t.GroupID, t.MemberID, -1)
		return res, true
	}
	g := s.lookup(t.GroupID)
	if g == nil || g.typ != Classic || g.classic == nil {
		return Result[struct{}]{}, true
	}
	op := s.newClassicOp(nowMs, t.GroupID)
	switch t.Kind {
	case TaskClassicHeartbeat:
		op.expireHeartbeat(t.MemberID)
	case TaskClassicJoin:
		if op.st.State == StatePreparingRebalance {
			op.completeClassicGroupJoin()
		}
	case TaskClassicInitialJoin:
		op.tryCompleteInitialRebalanceElseSchedule(t.DelayMs, t.RemainingMs)
	case TaskClassicSync:
		op.expirePendingSync(t.MemberEpoch)
	}
	return finish(op, struct{}{}), true
}

// expireHeartbeat is expireClassicGroupMemberHeartbeat.
func (op *classicOp) expireHeartbeat(memberID string) {
	st := op.st
	if st.State == StateDead {
		return
	}
	if st.isPendingMember(memberID) {
		// removePendingMemberAndUpdateClassicGroup: the join phase
		// completes once every member joined, the initial rebalance's too
		// (no previous-state check, unlike maybeCompleteJoinPhase).
		op.remove(memberID)
		if st.State == StatePreparingRebalance && st.hasAllMembersJoined() {
			op.completeClassicGroupJoin()
		}
		return
	}
	m := st.member(memberID)
	if m == nil || m.HasSatisfiedHeartbeat() {
		return
	}
	op.removeMemberAndUpdateGroup(memberID)
}

// HasSatisfiedHeartbeat is ClassicGroupMember.hasSatisfiedHeartbeat: a new
// member can expire while parked; any other parked member is alive. Its
// heartbeat timer firing then does nothing and is not re-armed, as in
// Kafka: the group's join or sync phase answers the parked request and
// re-arms it (completeClassicGroupJoin, propagateAssignment).
func (m *ClassicMember) HasSatisfiedHeartbeat() bool {
	if m.IsNew {
		return false
	}
	return m.JoinHandle != 0 || m.SyncHandle != 0
}

// tryCompleteInitialRebalanceElseSchedule is Kafka's helper of that name:
// while members keep joining and time remains, the initial delay is
// extended.
func (op *classicOp) tryCompleteInitialRebalanceElseSchedule(delayMs, remainingMs int64) {
	st := op.st
	if st.State != StatePreparingRebalance {
		return
	}
	if st.NewMemberAdded && remainingMs != 0 {
		st.NewMemberAdded = false
		op.changed = true
		cfgDelay := int64(op.s.cfg.Classic.InitialRebalanceDelayMs)
		newDelay := min(cfgDelay, remainingMs)
		newRemaining := max(remainingMs-cfgDelay, 0)
		op.schedule(ClassicJoinKey(st.Group), newDelay, Task{Kind: TaskClassicInitialJoin, Type: Classic, GroupID: st.Group,
			DelayMs: newDelay, RemainingMs: newRemaining})
		return
	}
	op.completeClassicGroupJoin()
}

// expirePendingSync is Kafka's expirePendingSync: members that have not
// synced in the generation are removed and the group rebalances.
func (op *classicOp) expirePendingSync(generation int32) {
	st := op.st
	if generation != st.Generation {
		return
	}
	if st.State != StateCompletingRebalance && st.State != StateStable {
		return
	}
	if len(st.PendingSyncMembers) == 0 {
		return
	}
	for _, id := range append([]string(nil), st.PendingSyncMembers...) {
		op.remove(id)
		op.cancel(ClassicHeartbeatKey(st.Group, id))
	}
	op.prepareRebalance()
}

// classicGroupTimers are the timers a classic group's state needs when no
// operation armed them: after a load (Kafka's onLoaded) and after a
// rollback undid the writes that armed or cancelled them.
//   - Every member's heartbeat at its session timeout
//     (rescheduleClassicGroupMemberHeartbeat, as onLoaded does).
//   - A KIP-394 pending member's heartbeat now: Kafka keeps pending members
//     in memory only and forgets them on a load, and the session timeout
//     their JoinGroup asked for is not recorded, so they expire at once
//     (a later join with the id is UNKNOWN_MEMBER_ID, as in Kafka).
//   - The join timer of a group still preparing a rebalance and the sync
//     timer of one waiting for SyncGroups. Kafka rebuilds a loaded group
//     from GroupMetadata, Empty or Stable, so it has neither; coordsim's
//     ClassicGroupState snapshot keeps the rebalance in progress, and
//     without these timers it would wait forever on members whose parked
//     requests died with the previous owner. They are armed as
//     prepareRebalance and completeClassicGroupJoin arm them.
func (s *Shard) classicGroupTimers(nowMs int64, g *group) []TimerOp {
	st := g.classic
	if g.typ != Classic || st == nil || st.State == StateDead {
		return nil
	}
	heartbeat := func(memberID string, deadlineMs int64) TimerOp {
		t := Task{Kind: TaskClassicHeartbeat, Type: Classic, GroupID: st.Group, MemberID: memberID}
		return TimerOp{Key: t.Key(), DeadlineMs: deadlineMs, Task: t}
	}
	var ops []TimerOp
	for i := range st.Members {
		ops = append(ops, heartbeat(st.Members[i].MemberID, nowMs+int64(st.Members[i].SessionTimeoutMs)))
	}
	for _, id := range st.PendingMembers {
		ops = append(ops, heartbeat(id, nowMs))
	}
	switch {
	case st.State == StatePreparingRebalance && st.PreviousState == StateEmpty:
		delay := int64(s.cfg.Classic.InitialRebalanceDelayMs)
		t := Task{Kind: TaskClassicInitialJoin, Type: Classic, GroupID: st.Group,
			DelayMs: delay, RemainingMs: max(st.rebalanceTimeoutMs()-delay, 0)}
		ops = append(ops, TimerOp{Key: t.Key(), DeadlineMs: nowMs + delay, Task: t})
	case st.State == StatePreparingRebalance:
		t := Task{Kind: TaskClassicJoin, Type: Classic, GroupID: st.Group}
		ops = append(ops, TimerOp{Key: t.Key(), DeadlineMs: nowMs + st.rebalanceTimeoutMs(), Task: t})
	case len(st.PendingSyncMembers) > 0 && (st.State == StateCompletingRebalance || st.State == StateStable):
		t := Task{Kind: TaskClassicSync, Type: Classic, GroupID: st.Group, MemberEpoch: st.Generation}
		ops = append(ops, TimerOp{Key: t.Key(), DeadlineMs: nowMs + st.rebalanceTimeoutMs(), Task: t})
	}
	return ops
}
