package shard

import (
	"fmt"
	"hash/fnv"
	"slices"

	"github.com/coordsim/coordsim/kerr"
)

// The classic JoinGroup, read top to bottom as Kafka's
// GroupMetadataManager.classicGroupJoin and its helpers: validate, get or
// create the group, accept the member (GROUP_MAX_SIZE_REACHED), a new
// member (MEMBER_ID_REQUIRED, KIP-394; static members) or an existing one,
// then prepare the rebalance or complete the join phase. Kafka mutates its
// ClassicGroup in place and parks response futures on its members; here an
// operation edits a working copy (classicOp), writes it as one
// ClassicGroupState record (after Kafka's GroupMetadata where Kafka writes
// one), and parks a request as its caller's Handle on the member: the
// responses of parked requests come back as Completions.

// classicOp is one classic operation in progress: the working state and
// what the operation will return.
type classicOp struct {
	s           *Shard
	nowMs       int64
	st          *ClassicGroupState
	isNew       bool // the group does not exist yet
	changed     bool
	records     []Record
	timers      []TimerOp
	completions []Completion
}

func (s *Shard) newClassicOp(nowMs int64, groupID string) *classicOp {
	op := &classicOp{s: s, nowMs: nowMs}
	g := s.lookup(groupID)
	switch {
	case g == nil:
		op.isNew = true
		op.st = newClassicGroupState(groupID, nowMs)
	case g.classic == nil:
		// A simple group (offsets only): what its GroupMetadata gave.
		op.st = &ClassicGroupState{Group: groupID, State: StateEmpty, PreviousState: StateEmpty, Generation: g.epoch,
			ProtocolType: g.protocolType, CurrentStateTimestampMs: g.currentStateTimestampMs}
	default:
		op.st = g.classic.clone()
	}
	return op
}

// newClassicGroupState is a new classic group's state: Empty since nowMs
// (ClassicGroup's constructor sets its state timestamp to the time).
func newClassicGroupState(groupID string, nowMs int64) *ClassicGroupState {
	return &ClassicGroupState{Group: groupID, State: StateEmpty, PreviousState: StateEmpty, CurrentStateTimestampMs: nowMs}
}

// finish returns the records (the state snapshot last), timers and
// completions of the operation.
func finish[T any](op *classicOp, resp T) Result[T] {
	res := Result[T]{Response: resp, Timers: op.timers, Completions: op.completions}
	res.Records = op.records
	if op.changed || op.isNew {
		snap := op.st.clone()
		res.Records = append(res.Records, snap)
	}
	return res
}

// writeGroupMetadata appends Kafka's GroupMetadata record of the working
// state, as Kafka writes it at this point.
func (op *classicOp) writeGroupMetadata() {
	op.records = append(op.records, op.st.groupMetadataRecord())
	op.changed = true
}

func (op *classicOp) transitionTo(state GroupState) {
	op.st.PreviousState, op.st.State = op.st.State, state
	op.st.CurrentStateTimestampMs = op.nowMs
	op.changed = true
}

func (op *classicOp) schedule(key string, afterMs int64, t Task) {
	op.timers = append(op.timers, TimerOp{Key: key, DeadlineMs: op.nowMs + afterMs, Task: t})
}

func (op *classicOp) cancel(key string) {
	op.timers = append(op.timers, TimerOp{Key: key, Cancel: true})
}

// rescheduleHeartbeat is rescheduleClassicGroupMemberHeartbeat: the
// member's session timer restarts at its session timeout.
func (op *classicOp) rescheduleHeartbeat(m *ClassicMember) {
	op.rescheduleHeartbeatAfter(m.MemberID, int64(m.SessionTimeoutMs))
}

func (op *classicOp) rescheduleHeartbeatAfter(memberID string, afterMs int64) {
	op.schedule(ClassicHeartbeatKey(op.st.Group, memberID), afterMs,
		Task{Kind: TaskClassicHeartbeat, Type: Classic, GroupID: op.st.Group, MemberID: memberID})
}

// completeJoin answers a member's parked JoinGroup (Kafka's
// completeJoinFuture); false if it had none.
func (op *classicOp) completeJoin(m *ClassicMember, resp JoinGroupResponse) bool {
	if m.JoinHandle == 0 {
		return false
	}
	op.completions = append(op.completions, Completion{Handle: m.JoinHandle, Join: &resp})
	m.JoinHandle = 0
	op.changed = true
	return true
}

// completeSync answers a member's parked SyncGroup (completeSyncFuture).
func (op *classicOp) completeSync(m *ClassicMember, resp SyncGroupResponse) bool {
	if m.SyncHandle == 0 {
		return false
	}
	op.completions = append(op.completions, Completion{Handle: m.SyncHandle, Sync: &resp})
	m.SyncHandle = 0
	op.changed = true
	return true
}

// add is ClassicGroup.add: the first member sets the protocol type and
// becomes the leader.
func (op *classicOp) add(m ClassicMember, protocolType string) {
	st := op.st
	if len(st.Members) == 0 {
		st.ProtocolType = protocolType
	}
	st.Members = append(st.Members, ClassicMember{})
	i := len(st.Members) - 1
	for i > 0 && st.Members[i-1].MemberID > m.MemberID {
		st.Members[i] = st.Members[i-1]
		i--
	}
	st.Members[i] = m
	if st.Leader == "" {
		st.Leader = m.MemberID
	}
	st.PendingMembers = removeSorted(st.PendingMembers, m.MemberID)
	op.changed = true
}

// remove is ClassicGroup.remove. A parked SyncGroup of the removed member
// is answered REBALANCE_IN_PROGRESS (Kafka drops the future; its client
// would wait for its request timeout). A new leader is the smallest
// remaining member id (Kafka takes the first of a HashMap).
func (op *classicOp) remove(id string) {
	st := op.st
	if m := st.member(id); m != nil {
		op.completeSync(m, SyncGroupResponse{Err: rebalanceInProgress()})
		for i := range st.Members {
			if st.Members[i].MemberID == id {
				st.Members = append(st.Members[:i:i], st.Members[i+1:]...)
				break
			}
		}
	}
	if st.Leader == id {
		st.Leader = ""
		if len(st.Members) > 0 {
			st.Leader = st.Members[0].MemberID
		}
	}
	st.PendingMembers = removeSorted(st.PendingMembers, id)
	st.PendingSyncMembers = removeSorted(st.PendingSyncMembers, id)
	op.changed = true
}

// ClassicHeartbeatKey is Kafka's classicGroupHeartbeatKey.
func ClassicHeartbeatKey(groupID, memberID string) string {
	return "heartbeat-" + groupID + "-" + memberID
}

// ClassicJoinKey is Kafka's classicGroupJoinKey.
func ClassicJoinKey(groupID string) string { return "join-" + groupID }

// ClassicSyncKey is Kafka's classicGroupSyncKey.
func ClassicSyncKey(groupID string) string { return "sync-" + groupID }

func rebalanceInProgress() error {
	return kerr.RebalanceInProgress.WithMessage("The group is rebalancing, so a rejoin is needed.")
}

func unknownMember() error {
	return kerr.UnknownMemberID.WithMessage("The coordinator is not aware of this member.")
}

func fencedInstance() error {
	return kerr.FencedInstanceID.WithMessage("The broker rejected this static consumer since another consumer with the same group.instance.id has registered with a different member.id.")
}

func inconsistentProtocol() error {
	return kerr.InconsistentGroupProtocol.WithMessage("The group member's supported protocols are incompatible with those of existing members or first group member tried to join with empty protocol type or empty protocol list.")
}

func coordinatorNotAvailable() error {
	return kerr.CoordinatorNotAvailable.WithMessage("The coordinator is not available.")
}

// validateMember is ClassicGroup.validateMember.
func (st *ClassicGroupState) validateMember(memberID, instanceID string) error {
	if instanceID != "" {
		existing := st.staticMemberID(instanceID)
		if existing == "" {
			return unknownMember()
		}
		if existing != memberID {
			return fencedInstance()
		}
		return nil
	}
	if st.member(memberID) == nil {
		return unknownMember()
	}
	return nil
}

// JoinGroup handles a classic JoinGroup (GroupCoordinatorService.joinGroup
// and GroupMetadataManager.classicGroupJoin). Every answer is in the
// response; a Pending one comes later as a Completion of req.Handle. The
// returned error is for input the shard refuses outright (a zero Handle);
// it changes nothing.
func (s *Shard) JoinGroup(nowMs int64, req JoinGroupRequest) (Result[JoinGroupResponse], error) {
	if req.Handle == 0 {
		return Result[JoinGroupResponse]{}, kerr.InvalidRequest.WithMessage("JoinGroup needs a handle")
	}
	fail := func(memberID string, err error) (Result[JoinGroupResponse], error) {
		return Result[JoinGroupResponse]{Response: JoinGroupResponse{MemberID: memberID, Err: err}}, nil
	}
	if err := ValidateGroupID(req.GroupID); err != nil {
		return fail(req.MemberID, err)
	}
	if err := validateMemberID(req.MemberID); err != nil {
		return fail(req.MemberID, err)
	}
	c := s.cfg.Classic
	if req.SessionTimeoutMs < c.MinSessionTimeoutMs || (c.MaxSessionTimeoutMs > 0 && req.SessionTimeoutMs > c.MaxSessionTimeoutMs) {
		return fail(req.MemberID, kerr.InvalidSessionTimeout.WithMessage("The session timeout is not within the range allowed by the broker (as configured by group.min.session.timeout.ms and group.max.session.timeout.ms)."))
	}
	isUnknown := req.MemberID == ""
	// classicGroupJoin: a consumer group with members takes the member
	// (migration_members.go); an empty consumer or streams group is
	// tombstoned and replaced by a new classic group; any other group is
	// INCONSISTENT_GROUP_PROTOCOL.
	var replaced *group
	if g := s.lookup(req.GroupID); g != nil && g.typ != Classic {
		switch {
		case g.typ == Consumer && g.notEmpty():
			return s.classicJoinToConsumerGroup(nowMs, g, req), nil
		case (g.typ == Consumer || g.typ == Streams) && !g.notEmpty():
			replaced = g
		default:
			return fail("", inconsistentProtocol())
		}
	}
	if (s.lookup(req.GroupID) == nil || replaced != nil) && !isUnknown {
		// getOrMaybeCreateClassicGroup: a known member id for a group that
		// does not exist.
		return fail(req.MemberID, kerr.UnknownMemberID)
	}
	op := s.newClassicOp(nowMs, req.GroupID)
	if replaced != nil {
		op.isNew, op.st = true, newClassicGroupState(req.GroupID, nowMs)
	}
	var resp JoinGroupResponse
	switch {
	case !op.acceptJoiningMember(req.MemberID):
		if op.st.member(req.MemberID) != nil || op.st.isPendingMember(req.MemberID) {
			op.remove(req.MemberID)
			op.cancel(ClassicHeartbeatKey(req.GroupID, req.MemberID))
		}
		resp = JoinGroupResponse{Err: kerr.GroupMaxSizeReached.WithMessage("The consumer group has reached its max size.")}
	case isUnknown:
		resp = op.joinNewMember(req)
	default:
		resp = op.joinExistingMember(req)
	}
	if op.isNew && len(op.records) == 0 {
		// A new group is committed with its empty GroupMetadata
		// (newEmptyGroupMetadataRecord).
		// Its protocol type is "" and its state timestamp the group's, as
		// newEmptyGroupMetadataRecord writes them.
		op.records = append(op.records, &GroupMetadata{Group: req.GroupID, CurrentStateTimestampMs: op.st.CurrentStateTimestampMs})
	}
	res := finish(op, resp)
	if replaced != nil {
		// "Converted the empty <type> group to a classic group": its
		// tombstones first (maybeDeleteEmptyConsumerGroup,
		// maybeDeleteEmptyStreamsGroup).
		res.Records = append(s.appendGroupTombstones(nil, replaced), res.Records...)
		res.Timers = append(appendGroupTimerCancels(nil, replaced), res.Timers...)
	}
	return res, nil
}

// acceptJoiningMember is Kafka's acceptJoiningMember (group.classic.max.size).
func (op *classicOp) acceptJoiningMember(memberID string) bool {
	st, limit := op.st, op.s.cfg.Classic.maxSize()
	m := st.member(memberID)
	switch st.State {
	case StatePreparingRebalance:
		return (m != nil && m.JoinHandle != 0) || st.numAwaitingJoin() < limit
	case StateCompletingRebalance, StateStable:
		return m != nil || len(st.Members) < limit
	}
	return true
}

// joinNewMember is classicGroupJoinNewMember.
func (op *classicOp) joinNewMember(req JoinGroupRequest) JoinGroupResponse {
	st := op.st
	if st.State == StateDead {
		return JoinGroupResponse{Err: coordinatorNotAvailable()}
	}
	if !st.supportsProtocols(req.ProtocolType, req.Protocols) {
		return JoinGroupResponse{Err: inconsistentProtocol()}
	}
	newID := op.generateMemberID(req)
	if req.InstanceID != "" {
		return op.joinNewStaticMember(req, newID)
	}
	if req.RequireKnownMemberID {
		st.PendingMembers = insertSorted(st.PendingMembers, newID)
		op.changed = true
		op.rescheduleHeartbeatAfter(newID, int64(req.SessionTimeoutMs))
		return JoinGroupResponse{MemberID: newID, Err: kerr.MemberIDRequired.WithMessage("The group member needs to have a valid member id before actually entering a consumer group.")}
	}
	return op.addMemberThenRebalanceOrCompleteJoin(req, newID)
}

// generateMemberID is ClassicGroup.generateMemberId: the client id (or the
// instance id) and a UUID-shaped suffix. Kafka draws a random UUID; the
// shard is pure, so the suffix hashes the request's handle and the time,
// and skips ids in use.
func (op *classicOp) generateMemberID(req JoinGroupRequest) string {
	prefix := req.ClientID
	if req.InstanceID != "" {
		prefix = req.InstanceID
	}
	for salt := uint64(0); ; salt++ {
		h := fnv.New128a()
		fmt.Fprintf(h, "%s\x00%d\x00%d\x00%d", op.st.Group, req.Handle, op.nowMs, salt)
		b := h.Sum(nil)
		id := fmt.Sprintf("%s-%x-%x-%x-%x-%x", prefix, b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
		if op.st.member(id) == nil && !op.st.isPendingMember(id) {
			return id
		}
	}
}

// joinNewStaticMember is classicGroupJoinNewStaticMember: a known instance
// id replaces its old member id (updateStaticMemberThenRebalanceOrCompleteJoin),
// otherwise the member is added.
func (op *classicOp) joinNewStaticMember(req JoinGroupRequest, newID string) JoinGroupResponse {
	existing := op.st.staticMemberID(req.InstanceID)
	if existing == "" {
		return op.addMemberThenRebalanceOrCompleteJoin(req, newID)
	}
	return op.replaceStaticMember(req, existing, newID)
}

// replaceStaticMember is updateStaticMemberThenRebalanceOrCompleteJoin
// over ClassicGroup.replaceStaticMember: the old member id's parked
// requests are fenced (FENCED_INSTANCE_ID), the member takes the new id
// with its assignment and the request's protocols and timeouts. A Stable
// group whose selected protocol would not change stays Stable: its
// GroupMetadata is rewritten and the member answered at once (the leader
// with the members and SkipAssignment, KIP-814); the old id stays pending
// sync if it was; otherwise a Stable or
// CompletingRebalance group rebalances, and a PreparingRebalance one
// completes its join phase if every member has now joined
// (maybeCompleteJoinPhase).
func (op *classicOp) replaceStaticMember(req JoinGroupRequest, oldID, newID string) JoinGroupResponse {
	st := op.st
	old := st.member(oldID)
	op.completeJoin(old, JoinGroupResponse{MemberID: oldID, Err: fencedInstance()})
	op.completeSync(old, SyncGroupResponse{Err: fencedInstance()})
	m := *old
	m.MemberID, m.JoinHandle, m.SyncHandle = newID, 0, 0
	wasLeader := st.Leader == oldID
	_, pendingSync := slices.BinarySearch(st.PendingSyncMembers, oldID)
	op.remove(oldID)
	if pendingSync {
		// ClassicGroup.replaceStaticMember leaves the old id in the
		// pending-sync set: the new id's SyncGroup does not clear it, so
		// the pending-sync expiry rebalances the group.
		st.PendingSyncMembers = insertSorted(st.PendingSyncMembers, oldID)
	}
	op.add(m, st.ProtocolType)
	if wasLeader {
		st.Leader = newID
	}
	nm := st.member(newID)
	op.rescheduleHeartbeat(nm)
	nm.Protocols, nm.RebalanceTimeoutMs, nm.SessionTimeoutMs = req.Protocols, req.RebalanceTimeoutMs, req.SessionTimeoutMs
	nm.JoinHandle = req.Handle
	switch st.State {
	case StateStable:
		if st.ProtocolName != st.selectProtocol() {
			op.maybePrepareRebalanceOrCompleteJoin()
			return JoinGroupResponse{MemberID: newID, Pending: true}
		}
		op.writeGroupMetadata()
		resp := JoinGroupResponse{MemberID: newID, GenerationID: st.Generation, ProtocolType: st.ProtocolType,
			ProtocolName: st.ProtocolName, Leader: st.Leader, SkipAssignment: st.Leader == newID}
		if st.Leader == newID {
			resp.Members = st.currentMembers()
		}
		nm.JoinHandle = 0
		return resp
	case StateCompletingRebalance:
		op.prepareRebalance()
	case StatePreparingRebalance:
		// The replaced member counts as joined: the join phase may be
		// complete now.
		op.maybeCompleteJoinPhase()
	}
	return JoinGroupResponse{MemberID: newID, Pending: true}
}

// addMemberThenRebalanceOrCompleteJoin is Kafka's helper of that name.
func (op *classicOp) addMemberThenRebalanceOrCompleteJoin(req JoinGroupRequest, memberID string) JoinGroupResponse {
	st := op.st
	m := ClassicMember{MemberID: memberID, InstanceID: req.InstanceID, ClientID: req.ClientID, ClientHost: req.ClientHost,
		RebalanceTimeoutMs: req.RebalanceTimeoutMs, SessionTimeoutMs: req.SessionTimeoutMs, Protocols: req.Protocols,
		JoinHandle: req.Handle, IsNew: true}
	if st.State == StatePreparingRebalance && st.PreviousState == StateEmpty {
		st.NewMemberAdded = true
	}
	op.add(m, req.ProtocolType)
	// New members cannot heartbeat while parked: they are timed out by the
	// new-member join timeout instead.
	op.rescheduleHeartbeatAfter(memberID, op.s.cfg.Classic.newMemberJoinTimeoutMs())
	op.maybePrepareRebalanceOrCompleteJoin()
	return JoinGroupResponse{MemberID: memberID, Pending: true}
}

// joinExistingMember is classicGroupJoinExistingMember.
func (op *classicOp) joinExistingMember(req JoinGroupRequest) JoinGroupResponse {
	st := op.st
	if st.State == StateDead {
		return JoinGroupResponse{MemberID: req.MemberID, Err: coordinatorNotAvailable()}
	}
	if !st.supportsProtocols(req.ProtocolType, req.Protocols) {
		return JoinGroupResponse{MemberID: req.MemberID, Err: inconsistentProtocol()}
	}
	if st.isPendingMember(req.MemberID) {
		// A rejoining pending member (never a static one) is accepted.
		return op.addMemberThenRebalanceOrCompleteJoin(req, req.MemberID)
	}
	if err := st.validateMember(req.MemberID, req.InstanceID); err != nil {
		return JoinGroupResponse{MemberID: req.MemberID, Err: err}
	}
	m := st.member(req.MemberID)
	switch st.State {
	case StatePreparingRebalance:
		return op.updateMemberThenRebalanceOrCompleteJoin(req, m)
	case StateCompletingRebalance:
		if m.matches(req.Protocols) {
			// The same metadata (a lost response): the current generation
			// again.
			resp := op.joinResponse(m)
			return resp
		}
		return op.updateMemberThenRebalanceOrCompleteJoin(req, m)
	case StateStable:
		if st.Leader == m.MemberID || !m.matches(req.Protocols) {
			// The leader's join forces a rebalance (it may have seen a
			// metadata change); so does a follower's new metadata.
			return op.updateMemberThenRebalanceOrCompleteJoin(req, m)
		}
		resp := op.joinResponse(m)
		resp.Members = nil
		return resp
	}
	// Empty: let the member reset its generation and rejoin.
	return JoinGroupResponse{MemberID: req.MemberID, Err: unknownMember()}
}

// joinResponse is the JoinGroup answer of the current generation for m:
// the leader's lists the members.
func (op *classicOp) joinResponse(m *ClassicMember) JoinGroupResponse {
	st := op.st
	resp := JoinGroupResponse{MemberID: m.MemberID, GenerationID: st.Generation, ProtocolType: st.ProtocolType,
		ProtocolName: st.ProtocolName, Leader: st.Leader}
	if st.Leader == m.MemberID {
		resp.Members = st.currentMembers()
	}
	return resp
}

// updateMemberThenRebalanceOrCompleteJoin is Kafka's helper of that name:
// the member's protocols and timeouts are replaced and its request parked.
// A request it had parked already is superseded (Kafka drops that future;
// here it is answered REBALANCE_IN_PROGRESS, so no caller waits for ever).
func (op *classicOp) updateMemberThenRebalanceOrCompleteJoin(req JoinGroupRequest, m *ClassicMember) JoinGroupResponse {
	if m.JoinHandle != 0 && m.JoinHandle != req.Handle {
		op.completeJoin(m, JoinGroupResponse{MemberID: m.MemberID, Err: rebalanceInProgress()})
	}
	m.Protocols, m.RebalanceTimeoutMs, m.SessionTimeoutMs = req.Protocols, req.RebalanceTimeoutMs, req.SessionTimeoutMs
	m.JoinHandle = req.Handle
	op.changed = true
	id := m.MemberID
	op.maybePrepareRebalanceOrCompleteJoin()
	return JoinGroupResponse{MemberID: id, Pending: true}
}

// maybePrepareRebalanceOrCompleteJoin is Kafka's helper of that name.
func (op *classicOp) maybePrepareRebalanceOrCompleteJoin() {
	switch op.st.State {
	case StateStable, StateCompletingRebalance, StateEmpty:
		op.prepareRebalance()
	default:
		op.maybeCompleteJoinPhase()
	}
}

// maybeCompleteJoinPhase is Kafka's helper of that name.
func (op *classicOp) maybeCompleteJoinPhase() {
	st := op.st
	if st.State == StatePreparingRebalance && st.hasAllMembersJoined() && st.PreviousState != StateEmpty {
		op.completeClassicGroupJoin()
	}
}

// prepareRebalance is Kafka's prepareRebalance: parked SyncGroups are
// answered REBALANCE_IN_PROGRESS, the pending-sync timer is cancelled, and
// the group waits for its members: the initial rebalance delay for an
// Empty group, the rebalance timeout otherwise.
func (op *classicOp) prepareRebalance() {
	st := op.st
	if st.State == StateCompletingRebalance {
		op.resetAndPropagateAssignmentWithError(rebalanceInProgress())
	}
	op.cancel(ClassicSyncKey(st.Group))
	initial := st.State == StateEmpty
	if initial {
		delay := int64(op.s.cfg.Classic.InitialRebalanceDelayMs)
		remaining := max(st.rebalanceTimeoutMs()-delay, 0)
		op.schedule(ClassicJoinKey(st.Group), delay, Task{Kind: TaskClassicInitialJoin, Type: Classic, GroupID: st.Group,
			DelayMs: delay, RemainingMs: remaining})
	}
	op.transitionTo(StatePreparingRebalance)
	if !initial {
		op.maybeCompleteJoinElseSchedule()
	}
}

// maybeCompleteJoinElseSchedule is Kafka's helper of that name.
func (op *classicOp) maybeCompleteJoinElseSchedule() {
	st := op.st
	if st.hasAllMembersJoined() {
		op.completeClassicGroupJoin()
		return
	}
	op.schedule(ClassicJoinKey(st.Group), st.rebalanceTimeoutMs(), Task{Kind: TaskClassicJoin, Type: Classic, GroupID: st.Group})
}

// resetAndPropagateAssignmentWithError is Kafka's helper of that name.
func (op *classicOp) resetAndPropagateAssignmentWithError(err error) {
	for i := range op.st.Members {
		op.st.Members[i].Assignment = nil
	}
	op.changed = true
	op.propagateAssignment(err)
}

// propagateAssignment answers every parked SyncGroup with the member's
// assignment (or err) and restarts its session.
func (op *classicOp) propagateAssignment(err error) {
	st := op.st
	for i := range st.Members {
		m := &st.Members[i]
		resp := SyncGroupResponse{Err: err, Assignment: m.Assignment}
		if err == nil {
			resp.ProtocolType, resp.ProtocolName = st.ProtocolType, st.ProtocolName
		} else {
			resp.Assignment = nil
		}
		if op.completeSync(m, resp) {
			op.rescheduleHeartbeat(m)
		}
	}
}

// completeClassicGroupJoin is Kafka's helper of that name: members that
// did not rejoin (dynamic ones) are removed, the next generation starts,
// and every parked JoinGroup is answered; an Empty group writes its
// GroupMetadata.
func (op *classicOp) completeClassicGroupJoin() {
	st := op.st
	op.cancel(ClassicJoinKey(st.Group))
	for _, id := range op.notYetRejoinedDynamicMembers() {
		op.remove(id)
		op.cancel(ClassicHeartbeatKey(st.Group, id))
	}
	if st.State == StateDead {
		return
	}
	if !op.maybeElectNewJoinedLeader() && len(st.Members) > 0 {
		// Only static members that did not rejoin are left: wait again.
		op.schedule(ClassicJoinKey(st.Group), st.rebalanceTimeoutMs(), Task{Kind: TaskClassicJoin, Type: Classic, GroupID: st.Group})
		return
	}
	op.initNextGeneration()
	if st.State == StateEmpty {
		op.writeGroupMetadata()
		return
	}
	for i := range st.Members {
		m := &st.Members[i]
		resp := op.joinResponse(m)
		op.completeJoin(m, resp)
		op.rescheduleHeartbeat(m)
		m.IsNew = false
		st.PendingSyncMembers = insertSorted(st.PendingSyncMembers, m.MemberID)
	}
	op.schedule(ClassicSyncKey(st.Group), st.rebalanceTimeoutMs(), Task{Kind: TaskClassicSync, Type: Classic, GroupID: st.Group,
		MemberEpoch: st.Generation})
}

func (op *classicOp) notYetRejoinedDynamicMembers() []string {
	var out []string
	for i := range op.st.Members {
		m := &op.st.Members[i]
		if m.JoinHandle == 0 && m.InstanceID == "" {
			out = append(out, m.MemberID)
		}
	}
	return out
}

// maybeElectNewJoinedLeader is ClassicGroup.maybeElectNewJoinedLeader.
func (op *classicOp) maybeElectNewJoinedLeader() bool {
	st := op.st
	if st.Leader == "" {
		return false
	}
	if l := st.member(st.Leader); l != nil && l.JoinHandle != 0 {
		return true
	}
	for i := range st.Members {
		if st.Members[i].JoinHandle != 0 {
			st.Leader = st.Members[i].MemberID
			op.changed = true
			return true
		}
	}
	return false
}

// initNextGeneration is ClassicGroup.initNextGeneration.
func (op *classicOp) initNextGeneration() {
	st := op.st
	st.Generation++
	if len(st.Members) > 0 {
		st.ProtocolName = st.selectProtocol()
		op.transitionTo(StateCompletingRebalance)
	} else {
		st.ProtocolName = ""
		op.transitionTo(StateEmpty)
	}
	st.setSubscribedTopics()
	st.PendingSyncMembers = nil
}
