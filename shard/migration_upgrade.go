package shard

import (
	"github.com/coordsim/coordsim/kerr"
)

// The online upgrade (KIP-848): a consumer-protocol member joining a
// classic group that has members converts it into a consumer group, then
// joins that group, as GroupMetadataManager.getOrMaybeCreateConsumerGroup
// does with validateOnlineUpgrade and convertToConsumerGroup
// (ConsumerGroup.fromClassicGroup, createConsumerGroupRecords). Every
// classic member becomes a consumer group member that keeps speaking the
// classic protocol (migration_members.go), STABLE at the classic
// generation with its last assignment as both its target and its current
// assignment; the joining member's heartbeat then bumps the group epoch and
// the classic members are told to rejoin (REBALANCE_IN_PROGRESS).

// classicUpgrades are the group types a heartbeat can upgrade a classic
// group with members into; only consumer groups upgrade (a streams or
// share join finds a group of another type).
var classicUpgrades = [numGroupTypes]func(s *Shard, nowMs int64, g *group) (*view, error){
	Consumer: (*Shard).convertToConsumerGroup,
}

// validateOnlineUpgrade is Kafka's validateOnlineUpgrade: the policy, the
// embedded protocol and group.consumer.max.size decide.
func (s *Shard) validateOnlineUpgrade(g *group) error {
	st := g.classic
	switch {
	case !s.cfg.Classic.MigrationPolicy.upgradeEnabled():
		return kerr.GroupIDNotFound.WithMessage("Cannot upgrade classic group %s to consumer group because online upgrade is disabled.", g.id)
	case st.ProtocolType != ConsumerProtocolType:
		return kerr.GroupIDNotFound.WithMessage("Cannot upgrade classic group %s to consumer group because the group does not use the consumer embedded protocol.", g.id)
	case len(st.Members) > s.cfg.ConsumerMaxSize:
		return kerr.GroupIDNotFound.WithMessage("Cannot upgrade classic group %s to consumer group because the group size exceeds the consumer group maximum size.", g.id)
	}
	return nil
}

// convertToConsumerGroup is Kafka's convertToConsumerGroup: the parked
// JoinGroup and SyncGroup requests are answered REBALANCE_IN_PROGRESS, the
// classic group is tombstoned, and the consumer group is written as
// createConsumerGroupRecords writes it (every member's metadata, the group
// epoch, every member's target, the target epoch, every member's current
// assignment). The returned view holds the converted group, not yet in the
// shard, with those records, for the joining heartbeat to go on from.
//
// Kafka answers the parked requests first, so a conversion that fails
// after validateOnlineUpgrade (a malformed embedded protocol, a custom
// assignor, a partition assigned twice), or a joining heartbeat that fails
// after it, has answered them all the same: the view, returned with the
// error too, then carries the answers and the classic group's state
// without them (answeredUpgrade).
func (s *Shard) convertToConsumerGroup(nowMs int64, g *group) (*view, error) {
	if err := s.validateOnlineUpgrade(g); err != nil {
		return nil, err
	}
	answered := s.answerParkedRequests(nowMs, g.id)
	fail := func(err error) (*view, error) {
		v := s.newView(g, Consumer, g.id)
		v.completions, v.answeredUpgrade = answered.Completions, answered.Records
		return v, err
	}
	st := g.classic
	cg := newGroup(g.id, Consumer)
	cg.epoch, cg.assignmentEpoch = st.Generation, st.Generation
	cg.partitionEpochs = map[topicPartition]int32{}
	cg.members = map[string]*member{}
	members := make([]*member, 0, len(st.Members))
	for i := range st.Members {
		m, err := s.memberFromClassic(g.id, st, &st.Members[i])
		if err != nil {
			return fail(err)
		}
		s.mutateUpgradedMember(i, m)
		for _, tp := range m.assigned {
			for _, p := range tp.Partitions {
				k := topicPartition{tp.Topic, p}
				if _, taken := cg.partitionEpochs[k]; taken {
					// ConsumerGroup.updateMember's IllegalStateException: a
					// leader gave one partition to two members.
					return fail(kerr.UnknownServerError.WithMessage("Cannot upgrade classic group %s: partition %s-%d is assigned to two members.", g.id, tp.Topic, p))
				}
				cg.partitionEpochs[k] = st.Generation
			}
		}
		cg.members[m.id] = m
		members = append(members, m)
	}
	v := s.newView(cg, Consumer, g.id)
	v.records = make([]Record, 0, 3*len(members)+3)
	v.records = append(v.records, &GroupMetadata{Group: g.id, Tombstone: true})
	for _, m := range members {
		v.records = append(v.records, v.memberMetadataRecord(m, false))
	}
	// The new group's metadata hash is not computed yet (0): the joining
	// member's heartbeat computes it and bumps the epoch.
	v.records = append(v.records, &ConsumerGroupMetadata{Group: g.id, Epoch: cg.epoch})
	for _, m := range members {
		v.records = append(v.records, v.targetRecord(m))
	}
	v.records = append(v.records, v.targetEpochRecord())
	for _, m := range members {
		v.records = append(v.records, v.currentAssignmentRecord(m, false))
	}

	// The parked requests' answers; the classic timers are cancelled
	// (Kafka leaves them to find the group converted), the members'
	// sessions restart under the consumer group's keys with their classic
	// session timeouts.
	v.completions, v.answeredUpgrade = answered.Completions, answered.Records
	for i := range st.Members {
		v.timers = append(v.timers, TimerOp{Key: ClassicHeartbeatKey(g.id, st.Members[i].MemberID), Cancel: true})
	}
	for _, id := range st.PendingMembers {
		v.timers = append(v.timers, TimerOp{Key: ClassicHeartbeatKey(g.id, id), Cancel: true})
	}
	v.timers = append(v.timers, TimerOp{Key: ClassicJoinKey(g.id), Cancel: true}, TimerOp{Key: ClassicSyncKey(g.id), Cancel: true})
	for _, m := range members {
		v.timers = append(v.timers, s.classicSessionTimer(nowMs, g.id, m))
	}
	return v, nil
}

// memberFromClassic is one member of ConsumerGroup.fromClassicGroup: the
// subscription of the group's protocol and the last assignment decoded,
// the member STABLE at the generation. Partitions of topics the metadata
// image does not hold are dropped, as Kafka's topic-id conversion drops
// them.
func (s *Shard) memberFromClassic(groupID string, st *ClassicGroupState, cm *ClassicMember) (*member, error) {
	assigned, userData, err := decodeAssignment(cm.Assignment)
	if err != nil {
		return nil, malformedUpgrade(groupID)
	}
	if userData {
		return nil, kerr.GroupIDNotFound.WithMessage("Cannot upgrade classic group %s to consumer group because an unsupported custom assignor is in use. Please refer to the documentation or switch to a default assignor before re-attempting the upgrade.", groupID)
	}
	protocol := st.ProtocolName
	if protocol == "" && len(cm.Protocols) > 0 {
		protocol = cm.Protocols[0].Name // a group that never completed a join
	}
	sub, err := decodeSubscription(cm.metadata(protocol))
	if err != nil {
		return nil, malformedUpgrade(groupID)
	}
	assigned = s.knownPartitions(assigned)
	return &member{
		id: cm.MemberID, sessionKey: SessionTimeoutKey(groupID, cm.MemberID), hasMetadata: true,
		memberEpoch: st.Generation, previousMemberEpoch: st.Generation, state: MemberStable,
		consumer: consumerOf(cm.InstanceID), rackID: sub.rackID, rebalanceTimeoutMs: cm.RebalanceTimeoutMs, clientID: cm.ClientID,
		clientHost: cm.ClientHost, subscribedTopics: sub.topics, assigned: assigned, target: assigned,
		classic: &ClassicMemberMetadata{SessionTimeoutMs: cm.SessionTimeoutMs, SupportedProtocols: cm.Protocols},
	}, nil
}

// consumerOf is the rarer consumer fields of a converted classic member:
// its instance id, if any.
func consumerOf(instanceID string) *consumerMember {
	if instanceID == "" {
		return nil // setConsumer's rule: no consumer part when all is empty
	}
	return &consumerMember{instanceID: instanceID}
}

func malformedUpgrade(groupID string) error {
	return kerr.GroupIDNotFound.WithMessage("Cannot upgrade classic group %s to consumer group because the embedded consumer protocol is malformed.", groupID)
}

// knownPartitions keeps the partitions the metadata image holds.
func (s *Shard) knownPartitions(in []TopicPartitions) []TopicPartitions {
	var out []TopicPartitions
	for _, tp := range in {
		n := s.TopicPartitions(tp.Topic)
		var ps []int32
		for _, p := range tp.Partitions {
			if p < n {
				ps = append(ps, p)
			}
		}
		if len(ps) > 0 {
			out = append(out, TopicPartitions{Topic: tp.Topic, Partitions: ps})
		}
	}
	return out
}

// classicSessionTimer arms a classic member's session in a consumer group
// at its classic session timeout (scheduleConsumerGroupSessionTimeout with
// classicProtocolSessionTimeout).
func (s *Shard) classicSessionTimer(nowMs int64, groupID string, m *member) TimerOp {
	return TimerOp{Key: m.timerKey(groupID), DeadlineMs: nowMs + int64(m.classic.SessionTimeoutMs),
		Task: Task{Kind: TaskSessionTimeout, Type: Consumer, GroupID: groupID, MemberID: m.id}}
}

// answerParkedRequests is convertToConsumerGroup's completeAllJoinFutures
// and completeAllSyncFutures with REBALANCE_IN_PROGRESS: the answers of
// the classic group's parked JoinGroup and SyncGroup requests, and, when
// there were any, the group's state without them, which is what stays if
// the upgrade then fails (Kafka's ClassicGroup keeps its members with no
// future to complete; nothing re-arms their heartbeats, as in Kafka).
func (s *Shard) answerParkedRequests(nowMs int64, groupID string) Result[struct{}] {
	op := s.newClassicOp(nowMs, groupID)
	for i := range op.st.Members {
		m := &op.st.Members[i]
		op.completeJoin(m, JoinGroupResponse{MemberID: m.MemberID, Err: rebalanceInProgress()})
		op.completeSync(m, SyncGroupResponse{Err: rebalanceInProgress()})
	}
	return finish(op, struct{}{})
}
