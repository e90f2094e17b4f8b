package shard

import "github.com/coordsim/coordsim/kerr"

// SyncGroup, Heartbeat and LeaveGroup of the classic protocol, as Kafka's
// classicGroupSync, classicGroupHeartbeat and classicGroupLeave.

// SyncGroup handles a classic SyncGroup. Every answer is in the response;
// a Pending one (a follower before the leader's assignment, or the leader
// while its assignment is written) comes later as a Completion of
// req.Handle. The returned error is for input refused outright (a zero
// Handle); it changes nothing.
func (s *Shard) SyncGroup(nowMs int64, req SyncGroupRequest) (Result[SyncGroupResponse], error) {
	if req.Handle == 0 {
		return Result[SyncGroupResponse]{}, kerr.InvalidRequest.WithMessage("SyncGroup needs a handle")
	}
	answer := func(err error) (Result[SyncGroupResponse], error) {
		return Result[SyncGroupResponse]{Response: SyncGroupResponse{Err: err}}, nil
	}
	if err := ValidateGroupID(req.GroupID); err != nil {
		return answer(err)
	}
	g := s.lookup(req.GroupID)
	if g != nil && g.typ == Consumer && g.notEmpty() {
		return s.classicSyncToConsumerGroup(nowMs, g, req), nil
	}
	if g == nil || !g.notEmpty() || g.typ != Classic {
		// Kafka: a group not found, an empty group, and a group of another
		// type are all UNKNOWN_MEMBER_ID.
		return answer(unknownMember())
	}
	op := s.newClassicOp(nowMs, req.GroupID)
	st := op.st
	if err := validateSyncGroup(st, req); err != nil {
		return answer(err)
	}
	switch st.State {
	case StatePreparingRebalance:
		return answer(rebalanceInProgress())
	case StateCompletingRebalance:
		m := st.member(req.MemberID)
		if m.SyncHandle != 0 && m.SyncHandle != req.Handle {
			op.completeSync(m, SyncGroupResponse{Err: rebalanceInProgress()})
		}
		m.SyncHandle = req.Handle
		st.PendingSyncMembers = removeSorted(st.PendingSyncMembers, req.MemberID)
		op.changed = true
		if st.Leader == req.MemberID {
			op.setAndPropagateAssignment(req.Assignments)
		}
		return finish(op, SyncGroupResponse{Pending: true}), nil
	}
	// Stable: the current assignment.
	st.PendingSyncMembers = removeSorted(st.PendingSyncMembers, req.MemberID)
	op.changed = len(st.PendingSyncMembers) != len(g.classic.PendingSyncMembers)
	m := st.member(req.MemberID)
	return finish(op, SyncGroupResponse{ProtocolType: st.ProtocolType, ProtocolName: st.ProtocolName, Assignment: m.Assignment}), nil
}

// validateSyncGroup is Kafka's validateSyncGroup.
func validateSyncGroup(st *ClassicGroupState, req SyncGroupRequest) error {
	if st.State == StateDead {
		return coordinatorNotAvailable()
	}
	if err := st.validateMember(req.MemberID, req.InstanceID); err != nil {
		return err
	}
	if req.GenerationID != st.Generation {
		return errIllegalGeneration()
	}
	if protocolInconsistent(req.ProtocolType, st.ProtocolType) || protocolInconsistent(req.ProtocolName, st.ProtocolName) {
		return inconsistentProtocol()
	}
	return nil
}

// protocolInconsistent is Kafka's isProtocolInconsistent ("" is null).
func protocolInconsistent(got, want string) bool {
	return got != "" && want != "" && got != want
}

// setAndPropagateAssignment stores the leader's assignment (an empty one
// for a member it left out), writes GroupMetadata, moves the group to
// Stable and answers every parked SyncGroup. Kafka does the last two in
// the append's callback; here they are records and completions released at
// commit, and a failed append rolls the whole back.
func (op *classicOp) setAndPropagateAssignment(assignments []SyncGroupAssignment) {
	st := op.st
	for i := range st.Members {
		st.Members[i].Assignment = []byte{}
	}
	for _, a := range assignments {
		if m := st.member(a.MemberID); m != nil {
			m.Assignment = a.Assignment
		}
	}
	op.writeGroupMetadata()
	op.transitionTo(StateStable)
	op.propagateAssignment(nil)
	// The record above was built before the transition; Kafka's carries
	// the state timestamp of the group at the time, which is the same
	// CompletingRebalance moment.
}

// Heartbeat handles a classic Heartbeat (classicGroupHeartbeat): errors
// are returned (and change nothing); REBALANCE_IN_PROGRESS, which tells a
// member to rejoin with its session restarted, is in the response.
func (s *Shard) Heartbeat(nowMs int64, req HeartbeatRequest) (Result[HeartbeatResponse], error) {
	if err := ValidateGroupID(req.GroupID); err != nil {
		return Result[HeartbeatResponse]{}, err
	}
	g := s.lookup(req.GroupID)
	if g == nil {
		return Result[HeartbeatResponse]{}, kerr.UnknownMemberID.WithMessage("Group %s not found.", req.GroupID)
	}
	if g.typ != Classic {
		// A consumer group's classic members (migration_members.go).
		if g.typ == Consumer {
			return s.classicHeartbeatToConsumerGroup(nowMs, g, req)
		}
		return Result[HeartbeatResponse]{}, kerr.UnknownMemberID.WithMessage("Group %s not found.", req.GroupID)
	}
	op := s.newClassicOp(nowMs, req.GroupID)
	st := op.st
	if st.State == StateDead {
		return Result[HeartbeatResponse]{}, coordinatorNotAvailable()
	}
	if err := st.validateMember(req.MemberID, req.InstanceID); err != nil {
		return Result[HeartbeatResponse]{}, err
	}
	if req.GenerationID != st.Generation {
		return Result[HeartbeatResponse]{}, errIllegalGeneration()
	}
	switch st.State {
	case StateEmpty:
		return Result[HeartbeatResponse]{}, unknownMember()
	case StatePreparingRebalance:
		// The session restarts and the member is told to rejoin: an
		// answer, not a refusal, so it is the response's.
		op.rescheduleHeartbeat(st.member(req.MemberID))
		return Result[HeartbeatResponse]{Timers: op.timers, Response: HeartbeatResponse{Err: rebalanceInProgress()}}, nil
	}
	if !s.cfg.Mutants.ClassicHeartbeatKeepsTimer {
		op.rescheduleHeartbeat(st.member(req.MemberID))
	}
	return Result[HeartbeatResponse]{Timers: op.timers}, nil
}

// HeartbeatResponse is a classic Heartbeat's answer when the member is
// valid: Err is REBALANCE_IN_PROGRESS while the group rebalances, nil
// otherwise.
type HeartbeatResponse struct {
	Err error
}

// LeaveGroup handles a classic LeaveGroup (classicGroupLeave): each member
// gets its own answer; the group then rebalances (or completes its join
// phase) if any left.
func (s *Shard) LeaveGroup(nowMs int64, req LeaveGroupRequest) (Result[LeaveGroupResponse], error) {
	if err := ValidateGroupID(req.GroupID); err != nil {
		return Result[LeaveGroupResponse]{}, err
	}
	g := s.lookup(req.GroupID)
	if g != nil && g.typ == Consumer {
		return s.classicLeaveToConsumerGroup(nowMs, g, req), nil
	}
	if g == nil || g.typ != Classic {
		return Result[LeaveGroupResponse]{}, kerr.UnknownMemberID.WithMessage("Group %s not found.", req.GroupID)
	}
	op := s.newClassicOp(nowMs, req.GroupID)
	st := op.st
	if st.State == StateDead {
		return Result[LeaveGroupResponse]{}, coordinatorNotAvailable()
	}
	var resp LeaveGroupResponse
	var left []string
	for _, lm := range req.Members {
		row := LeaveGroupMemberResponse{MemberID: lm.MemberID, InstanceID: lm.InstanceID}
		switch {
		case lm.MemberID == "":
			// Removal by instance id (an admin's, KIP-345).
			if id := st.staticMemberID(lm.InstanceID); lm.InstanceID != "" && id != "" {
				op.removeCurrentMember(id)
			} else {
				row.Err = unknownMember()
			}
		case st.isPendingMember(lm.MemberID):
			op.remove(lm.MemberID)
			op.cancel(ClassicHeartbeatKey(st.Group, lm.MemberID))
		default:
			if err := st.validateMember(lm.MemberID, lm.InstanceID); err != nil {
				row.Err = err
			} else {
				op.removeCurrentMember(lm.MemberID)
			}
		}
		if row.Err == nil {
			left = append(left, row.MemberID)
		}
		resp.Members = append(resp.Members, row)
	}
	if len(left) > 0 {
		switch st.State {
		case StateStable, StateCompletingRebalance:
			op.maybePrepareRebalanceOrCompleteJoin()
		case StatePreparingRebalance:
			op.maybeCompleteJoinPhase()
		}
	}
	return finish(op, resp), nil
}

// removeCurrentMember is removeCurrentMemberFromClassicGroup: a parked
// JoinGroup of the member is answered UNKNOWN_MEMBER_ID first.
func (op *classicOp) removeCurrentMember(id string) {
	op.cancel(ClassicHeartbeatKey(op.st.Group, id))
	op.completeJoin(op.st.member(id), JoinGroupResponse{MemberID: "", Err: unknownMember()})
	op.remove(id)
}

// removeMemberAndUpdateGroup is removeMemberAndUpdateClassicGroup.
func (op *classicOp) removeMemberAndUpdateGroup(id string) {
	op.completeJoin(op.st.member(id), JoinGroupResponse{MemberID: "", Err: unknownMember()})
	op.remove(id)
	switch op.st.State {
	case StateStable, StateCompletingRebalance:
		op.maybePrepareRebalanceOrCompleteJoin()
	case StatePreparingRebalance:
		if op.st.hasAllMembersJoined() {
			op.completeClassicGroupJoin()
		}
	}
}
