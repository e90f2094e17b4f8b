package shard

import (
	"encoding/base64"
	"fmt"
	"hash/fnv"
	"slices"

	"github.com/coordsim/coordsim/kerr"
)

// Classic members inside a consumer group: JoinGroup, SyncGroup, Heartbeat
// and LeaveGroup to a consumer group that has members, as Kafka's
// classicGroupJoinToConsumerGroup, classicGroupSyncToConsumerGroup,
// classicGroupHeartbeatToConsumerGroup and classicGroupLeaveToConsumerGroup
// answer them. The member is a consumer group member with
// ClassicMemberMetadata: its JoinGroup updates it and runs the group's
// assignment and its reconciliation as a heartbeat would, with the owned
// partitions of its subscription, and is answered at once with its member
// epoch as the generation; its SyncGroup returns its current assignment;
// its Heartbeat answers REBALANCE_IN_PROGRESS while it must rejoin (the
// group epoch moved past it, it must revoke, or partitions it waits for
// were released). A member told to rejoin must do so within its rebalance
// timeout ("join-<group>-<member>"), and sync within it after a join
// ("sync-<group>-<member>"), or it is fenced.

// ClassicMemberJoinKey is Kafka's consumerGroupJoinKey.
func ClassicMemberJoinKey(groupID, memberID string) string { return "join-" + groupID + "-" + memberID }

// ClassicMemberSyncKey is Kafka's consumerGroupSyncKey.
func ClassicMemberSyncKey(groupID, memberID string) string { return "sync-" + groupID + "-" + memberID }

// classicMemberTimerCancels cancels a classic member's join and sync
// timeouts (cancelConsumerGroupJoinTimeout, cancelConsumerGroupSyncTimeout).
func classicMemberTimerCancels(groupID, memberID string) []TimerOp {
	return []TimerOp{{Key: ClassicMemberJoinKey(groupID, memberID), Cancel: true}, {Key: ClassicMemberSyncKey(groupID, memberID), Cancel: true}}
}

// classicMemberTimeout arms a classic member's join or sync timeout; the
// join timeout only if absent (scheduleConsumerGroupJoinTimeoutIfAbsent).
func classicMemberTimeout(nowMs int64, kind TaskKind, groupID, memberID string, afterMs int32) TimerOp {
	t := Task{Kind: kind, Type: Consumer, GroupID: groupID, MemberID: memberID}
	return TimerOp{Key: t.Key(), DeadlineMs: nowMs + int64(afterMs), Task: t, IfAbsent: kind == TaskClassicMemberJoin}
}

// classicJoinToConsumerGroup is classicGroupJoinToConsumerGroup. Errors are
// the response's, with the request's member id, as
// GroupCoordinatorService.joinGroup answers a failed operation.
func (s *Shard) classicJoinToConsumerGroup(nowMs int64, g *group, req JoinGroupRequest) Result[JoinGroupResponse] {
	fail := func(err error) Result[JoinGroupResponse] {
		return Result[JoinGroupResponse]{Response: JoinGroupResponse{MemberID: req.MemberID, Err: err}}
	}
	v := s.newView(g, Consumer, g.id)
	memberID, unknown := req.MemberID, req.MemberID == ""
	if unknown {
		memberID = consumerMemberID(g, req.Handle, nowMs)
	}
	if _, m := v.find(memberID); len(v.members) >= s.cfg.ConsumerMaxSize && (req.MemberID == "" || m == nil) {
		return fail(groupFull(Consumer, s.cfg.ConsumerMaxSize))
	}
	if !v.supportsClassicProtocols(req.ProtocolType, req.Protocols) {
		return fail(kerr.InconsistentGroupProtocol.WithMessage("Member %s's protocols are not supported.", memberID))
	}
	if req.RequireKnownMemberID && unknown && req.InstanceID == "" {
		// JoinGroupRequest.requiresKnownMemberId: no member is created.
		return Result[JoinGroupResponse]{Response: JoinGroupResponse{MemberID: memberID,
			Err: kerr.MemberIDRequired.WithMessage("The group member needs to have a valid member id before actually entering a consumer group.")}}
	}
	// validateOnlineDowngradeWithReplacedMember: a classic member taking
	// the instance id of the group's last consumer-protocol member turns
	// the group back into a classic group.
	downgrade := false
	if req.InstanceID != "" {
		if _, sm := staticMemberOf(v.members, req.InstanceID); sm != nil {
			downgrade = s.validateOnlineDowngradeWithReplacedMember(v, sm)
		}
	}
	created := false
	if req.InstanceID == "" {
		// getOrMaybeSubscribeDynamicConsumerGroupMember(create, classic):
		// no epoch check, an unknown id is created.
		_, m := v.find(memberID)
		created = m == nil
	} else {
		si, sm := staticMemberOf(v.members, req.InstanceID)
		switch {
		case unknown && sm == nil:
			created = true
		case unknown:
			// A classic member replaces a static member whatever its epoch.
			v.replaceStaticMember(si, memberID)
		case sm == nil:
			return fail(instanceUnknown(req.InstanceID))
		case sm.id != memberID:
			return fail(instanceFenced(memberID, req.InstanceID, sm.id))
		}
	}
	sub, err := decodeSubscription(firstProtocolMetadata(req.Protocols))
	if err != nil {
		return fail(kerr.UnknownServerError.WithMessage("Malformed embedded consumer protocol in subscription deserialization."))
	}
	i, _ := v.find(memberID)
	if created {
		v.members = slices.Insert(v.members, i, &member{id: memberID, hasMetadata: true, previousMemberEpoch: -1})
	}

	// 1. Create or update the member.
	m := v.own(i)
	old := *m
	// A classic member names no server assignor; the target is computed
	// with the stored counts all the same (computePreferredServerAssignor).
	v.assignorChange = assignorChange{old: m.consumerPart().serverAssignor, new: m.consumerPart().serverAssignor, set: true}
	if req.InstanceID != "" {
		m.setInstanceID(req.InstanceID)
	}
	if sub.rackID != "" {
		m.rackID = sub.rackID
	}
	if req.RebalanceTimeoutMs > 0 {
		m.rebalanceTimeoutMs = req.RebalanceTimeoutMs
	}
	m.clientID, m.clientHost = req.ClientID, req.ClientHost
	m.classic = &ClassicMemberMetadata{SessionTimeoutMs: req.SessionTimeoutMs, SupportedProtocols: req.Protocols}
	subsChanged := !slices.Equal(sub.topics, m.subscribedTopics)
	m.subscribedTopics = sub.topics
	// Regex subscription is not supported for classic members: a static
	// member's regex it replaces goes (and with it, when no one else uses
	// it, the group's resolved regex), which bumps the epoch. Kafka runs
	// maybeUpdateRegularExpressions here as on a consumer heartbeat, so the
	// join may also schedule a refresh of the other members' regexes.
	var noRegex *string
	if m.consumerPart().topicRegex != "" {
		noRegex = new(string)
	}
	regexRecords, _, regexBump, err := v.updateRegularExpressions(nowMs, i, noRegex)
	if err != nil {
		return fail(err)
	}
	m = v.members[i]
	if created || subsChanged || !sameMemberMetadata(&old, m) {
		v.records = append(v.records, v.memberMetadataRecord(m, false))
	}
	v.records = append(v.records, regexRecords...) // after the member record, as Kafka writes them
	// A created member bumps only through its names, as a blank member's
	// are empty (hasMemberSubscriptionChanged).
	v.maybeBumpGroupEpoch(subsChanged || regexBump)
	if downgrade {
		return s.classicJoinDowngrade(nowMs, v, i, subsChanged, req)
	}

	// 2. The target assignment; 3. the member's reconciliation, with the
	// partitions its subscription says it owns.
	v.maybeAssign(nowMs)
	if v.assignErr != nil {
		return fail(v.assignErr)
	}
	owned := s.knownPartitions(sub.owned)
	if owned == nil {
		owned = []TopicPartitions{}
	}
	if err := v.reconcileConsumer(nowMs, i, owned, subsChanged); err != nil {
		return fail(err)
	}
	m = v.members[i]
	v.timers = append(v.timers, classicMemberTimerCancels(g.id, memberID)[0],
		s.classicSessionTimer(nowMs, g.id, m),
		classicMemberTimeout(nowMs, TaskClassicMemberSync, g.id, memberID, req.RebalanceTimeoutMs))
	resp := JoinGroupResponse{MemberID: memberID, GenerationID: m.memberEpoch, ProtocolType: ConsumerProtocolType,
		ProtocolName: m.classic.protocolName()}
	return Result[JoinGroupResponse]{Response: resp, Records: v.records, Timers: v.timers}
}

// sameMemberMetadata reports whether the fields of the member's metadata
// record are unchanged (Kafka compares the members: ConsumerGroupMember.equals).
func sameMemberMetadata(a, b *member) bool {
	ac, bc := a.consumerPart(), b.consumerPart()
	return ac.instanceID == bc.instanceID && a.rackID == b.rackID && a.rebalanceTimeoutMs == b.rebalanceTimeoutMs &&
		a.clientID == b.clientID && a.clientHost == b.clientHost && ac.topicRegex == bc.topicRegex && ac.serverAssignor == bc.serverAssignor &&
		slices.Equal(a.subscribedTopics, b.subscribedTopics) && sameClassicMetadata(a.classic, b.classic)
}

func sameClassicMetadata(a, b *ClassicMemberMetadata) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.SessionTimeoutMs == b.SessionTimeoutMs && slices.EqualFunc(a.SupportedProtocols, b.SupportedProtocols,
		func(x, y ClassicProtocol) bool { return x.Name == y.Name && string(x.Metadata) == string(y.Metadata) })
}

func firstProtocolMetadata(ps []ClassicProtocol) []byte {
	if len(ps) == 0 {
		return nil
	}
	return ps[0].Metadata
}

// consumerMemberID is the member id a consumer group gives a classic member
// that joins without one: a UUID in Kafka's Uuid.toString form (22
// characters of URL-safe base64). Kafka draws it at random; the shard is
// pure, so it hashes the group, the request's handle and the time,
// skipping ids in use.
func consumerMemberID(g *group, handle uint64, nowMs int64) string {
	for salt := uint64(0); ; salt++ {
		h := fnv.New128a()
		fmt.Fprintf(h, "%s\x00%d\x00%d\x00%d", g.id, handle, nowMs, salt)
		id := base64.RawURLEncoding.EncodeToString(h.Sum(nil))
		if _, taken := g.members[id]; !taken {
			return id
		}
	}
}

// supportsClassicProtocols is ConsumerGroup.supportsClassicProtocols: the
// consumer protocol type, and a protocol every classic member supports
// (any, when the group has no classic member).
func (v *view) supportsClassicProtocols(protocolType string, protocols []ClassicProtocol) bool {
	if protocolType != ConsumerProtocolType {
		return false
	}
	if len(v.members) == 0 {
		return len(protocols) > 0
	}
	for _, p := range protocols {
		all := true
		for _, m := range v.members {
			if m.classic != nil && !slices.ContainsFunc(m.classic.SupportedProtocols, func(q ClassicProtocol) bool { return q.Name == p.Name }) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// classicMemberOf is validateConsumerGroupMember and
// throwIfMemberDoesNotUseClassicProtocol: the member by id, or by instance
// id for a static one, which must use the classic protocol.
func classicMemberOf(g *group, memberID, instanceID string) (*member, error) {
	var m *member
	if instanceID == "" {
		if m = g.members[memberID]; m == nil {
			return nil, memberUnknown(memberID, g.id)
		}
	} else {
		m = g.staticMember(instanceID)
		if m == nil {
			return nil, instanceUnknown(instanceID)
		}
		if m.id != memberID {
			return nil, instanceFenced(memberID, instanceID, m.id)
		}
	}
	if m.classic == nil {
		return nil, kerr.UnknownMemberID.WithMessage("Member %s does not use the classic protocol.", m.id)
	}
	return m, nil
}

// throwIfGenerationIdUnmatched.
func classicGenerationErr(m *member, generation int32) error {
	if generation != m.memberEpoch {
		return kerr.IllegalGeneration.WithMessage("The request generation id %d is not equal to the member epoch %d of member %s.",
			generation, m.memberEpoch, m.id)
	}
	return nil
}

// classicSyncToConsumerGroup is classicGroupSyncToConsumerGroup: the
// member's current assignment, encoded at its subscription's version,
// unless the group moved on (REBALANCE_IN_PROGRESS, and the member must
// rejoin within its rebalance timeout).
func (s *Shard) classicSyncToConsumerGroup(nowMs int64, g *group, req SyncGroupRequest) Result[SyncGroupResponse] {
	// Kafka's classicGroupSyncToConsumerGroup throws each of these.
	answer := func(err error, timers ...TimerOp) Result[SyncGroupResponse] {
		return Result[SyncGroupResponse]{Response: SyncGroupResponse{Err: err}, Timers: timers}
	}
	m, err := classicMemberOf(g, req.MemberID, req.InstanceID)
	if err == nil {
		err = classicGenerationErr(m, req.GenerationID)
	}
	if err != nil {
		return answer(err)
	}
	// throwIfClassicProtocolUnmatched
	name := m.classic.protocolName()
	if req.ProtocolType != "" && req.ProtocolType != ConsumerProtocolType {
		return answer(kerr.InconsistentGroupProtocol.WithMessage("The protocol type %s from member %s request is not equal to the group protocol type %s.",
			req.ProtocolType, m.id, ConsumerProtocolType))
	}
	if req.ProtocolName != "" && req.ProtocolName != name {
		return answer(kerr.InconsistentGroupProtocol.WithMessage("The protocol name %s from member %s request is not equal to the protocol name %s returned in the join response.",
			req.ProtocolName, m.id, name))
	}
	// throwIfRebalanceInProgress: a member behind the group's assignment
	// epoch (not its group epoch: a leave bumps that before the next
	// target exists) must rejoin; a member revoking keeps its epoch and
	// syncs to get what it keeps.
	if g.assignmentEpoch > m.memberEpoch && m.state != MemberUnrevokedPartitions {
		return answer(kerr.RebalanceInProgress.WithMessage("A new rebalance is triggered in group %s and member %s should rejoin to catch up.", g.id, m.id),
			classicMemberTimeout(nowMs, TaskClassicMemberJoin, g.id, m.id, m.rebalanceTimeoutMs))
	}
	return Result[SyncGroupResponse]{
		Response: SyncGroupResponse{ProtocolType: req.ProtocolType, ProtocolName: req.ProtocolName,
			Assignment: encodeAssignment(m.assigned, subscriptionVersion(firstProtocolMetadata(m.classic.SupportedProtocols)))},
		Timers: []TimerOp{classicMemberTimerCancels(g.id, m.id)[1], s.classicSessionTimer(nowMs, g.id, m)},
	}
}

// classicHeartbeatToConsumerGroup is classicGroupHeartbeatToConsumerGroup:
// the session restarts; the member must rejoin when the assignment epoch passed
// its epoch, when it must revoke, or when the partitions it waited for are
// free.
func (s *Shard) classicHeartbeatToConsumerGroup(nowMs int64, g *group, req HeartbeatRequest) (Result[HeartbeatResponse], error) {
	m, err := classicMemberOf(g, req.MemberID, req.InstanceID)
	if err == nil {
		err = classicGenerationErr(m, req.GenerationID)
	}
	if err != nil {
		return Result[HeartbeatResponse]{}, err
	}
	res := Result[HeartbeatResponse]{Timers: []TimerOp{s.classicSessionTimer(nowMs, g.id, m)}}
	if m.memberEpoch < g.assignmentEpoch || m.state == MemberUnrevokedPartitions ||
		m.state == MemberUnreleasedPartitions && !waitingOnUnreleasedPartition(g, m) {
		res.Response.Err = kerr.RebalanceInProgress.WithMessage("The group is rebalancing, so a rejoin is needed.")
		res.Timers = append(res.Timers, classicMemberTimeout(nowMs, TaskClassicMemberJoin, g.id, m.id, m.rebalanceTimeoutMs))
	}
	return res, nil
}

// waitingOnUnreleasedPartition is ConsumerGroup.waitingOnUnreleasedPartition:
// a partition of the member's target that it does not hold is still owned
// by another member.
func waitingOnUnreleasedPartition(g *group, m *member) bool {
	for _, tp := range m.target {
		for _, p := range tp.Partitions {
			if !containsPartition(m.assigned, tp.Topic, p) && g.partitionOwned(tp.Topic, p) {
				return true
			}
		}
	}
	return false
}

// classicLeaveToConsumerGroup is classicGroupLeaveToConsumerGroup: each
// member is looked up (by instance id alone for an admin's removal) and
// must use the classic protocol; the valid ones are fenced together, which
// may downgrade the group.
func (s *Shard) classicLeaveToConsumerGroup(nowMs int64, g *group, req LeaveGroupRequest) Result[LeaveGroupResponse] {
	var resp LeaveGroupResponse
	var leaving []string
	for _, lm := range req.Members {
		row := LeaveGroupMemberResponse{MemberID: lm.MemberID, InstanceID: lm.InstanceID}
		var m *member
		var err error
		switch {
		case lm.InstanceID == "":
			m, err = classicMemberOf(g, lm.MemberID, "")
		case lm.MemberID == "":
			if m = g.staticMember(lm.InstanceID); m == nil {
				err = instanceUnknown(lm.InstanceID)
			}
		default:
			m, err = classicMemberOf(g, lm.MemberID, lm.InstanceID)
		}
		// The same member twice leaves once and is answered twice:
		// Kafka collects the leaving members in a HashSet.
		if row.Err = err; err == nil && !slices.Contains(leaving, m.id) {
			leaving = append(leaving, m.id)
		}
		resp.Members = append(resp.Members, row)
	}
	res := Result[LeaveGroupResponse]{Response: resp}
	if len(leaving) > 0 {
		v := s.newView(g, Consumer, g.id)
		v.fenceMembers(nowMs, leaving...)
		res.Records, res.Timers = v.records, v.timers
	}
	return res
}

// classicJoinDowngrade is classicGroupJoinToConsumerGroup's downgrade
// branch: without a new subscription the joining member first reconciles
// with the assignment it took over; then the group becomes a classic group
// (convertToClassicGroup with the joining member), rebalancing only if the
// subscription changed. The JoinGroup is answered at once, as the
// consumer group answers it.
func (s *Shard) classicJoinDowngrade(nowMs int64, v *view, i int, subsChanged bool, req JoinGroupRequest) Result[JoinGroupResponse] {
	if !subsChanged {
		owned, _ := decodeSubscription(firstProtocolMetadata(req.Protocols))
		known := s.knownPartitions(owned.owned)
		if known == nil {
			known = []TopicPartitions{}
		}
		if err := v.reconcileConsumer(nowMs, i, known, false); err != nil {
			return Result[JoinGroupResponse]{Response: JoinGroupResponse{MemberID: req.MemberID, Err: err}}
		}
	}
	m := v.members[i]
	resp := JoinGroupResponse{MemberID: m.id, GenerationID: m.memberEpoch, ProtocolType: ConsumerProtocolType,
		ProtocolName: m.classic.protocolName()}
	// The classic group's generation is the stored group's epoch: Kafka
	// converts the group as it was, before this join's records.
	s.convertToClassicGroup(nowMs, v, nil, v.g.epoch, subsChanged)
	return Result[JoinGroupResponse]{Response: resp, Records: v.records, Timers: v.timers}
}
