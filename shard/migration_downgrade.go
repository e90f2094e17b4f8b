package shard

import (
	"slices"
)

// The online downgrade (KIP-848): when the members a consumer group fences
// (a leave, a session or rebalance timeout, a classic LeaveGroup) leave
// only members that use the classic protocol, the group turns back into a
// classic group, as GroupMetadataManager.consumerGroupFenceMembers does
// with validateOnlineDowngradeWithFencedMembers and convertToClassicGroup
// (ClassicGroup.fromConsumerGroup, createClassicGroupRecords). The classic
// group starts Stable at the consumer group's epoch with each member's
// target assignment, then prepares a rebalance, so its members rejoin.

// fenceMembers is consumerGroupFenceMembers (and, for streams and share
// groups, the plain removal): the members go, or the group downgrades.
func (v *view) fenceMembers(nowMs int64, ids ...string) {
	if v.typ == Consumer && v.s.validateOnlineDowngrade(v, ids) {
		v.s.convertToClassicGroup(nowMs, v, ids, v.epoch, true)
		return
	}
	v.removeMembers(ids...)
}

// validateOnlineDowngrade is validateOnlineDowngradeWithFencedMembers:
// every member left uses the classic protocol, one is left at least, the
// policy allows a downgrade, and group.classic.max.size holds them.
func (s *Shard) validateOnlineDowngrade(v *view, leaving []string) bool {
	left := 0
	for _, m := range v.members {
		if slices.Contains(leaving, m.id) {
			continue
		}
		if m.classic == nil {
			return false
		}
		left++
	}
	return left > 0 && s.cfg.Classic.MigrationPolicy.downgradeEnabled() && left <= s.cfg.Classic.maxSize()
}

// validateOnlineDowngradeWithReplacedMember is Kafka's check of that name:
// the replaced static member is the group's only consumer-protocol member,
// the policy allows a downgrade, and group.classic.max.size holds the
// group.
func (s *Shard) validateOnlineDowngradeWithReplacedMember(v *view, replaced *member) bool {
	if replaced.classic != nil {
		return false
	}
	for _, m := range v.members {
		if m != replaced && m.classic == nil {
			return false
		}
	}
	return s.cfg.Classic.MigrationPolicy.downgradeEnabled() && len(v.members) <= s.cfg.Classic.maxSize()
}

// convertToClassicGroup is Kafka's convertToClassicGroup: fenced members
// leave (leaving), or a joining static member has replaced the last
// consumer-protocol member in v (its records are in v already, so the
// tombstones name it, as createGroupTombstoneRecordsWithReplacedMember
// does). ConsumerGroup.createGroupTombstoneRecords (every member's
// current assignment, then target, the target epoch, every member's
// metadata, the resolved regular expressions, the group epoch; Kafka's
// ConsumerGroupPartitionMetadata tombstone has no counterpart here), then
// the classic group's GroupMetadata, whose members are the ones left with
// their targets encoded at their subscription's version, the leader the
// smallest member id (Kafka: the first of a HashMap), at generation. The
// classic group then prepares a rebalance if rebalance is set: a member
// left, or the joining member's subscription changed.
func (s *Shard) convertToClassicGroup(nowMs int64, v *view, leaving []string, generation int32, rebalance bool) {
	for _, m := range v.members {
		v.records = append(v.records, v.currentAssignmentRecord(m, true))
	}
	for _, m := range v.members {
		v.records = append(v.records, v.targetMemberRecord(m.id, nil, true))
	}
	v.records = append(v.records, &ConsumerGroupTargetAssignmentMetadata{Group: v.id, Tombstone: true})
	for _, m := range v.members {
		v.records = append(v.records, v.memberMetadataRecord(m, true))
	}
	regexes := make([]string, 0, len(v.regexes))
	for re := range v.regexes {
		regexes = append(regexes, re)
	}
	slices.Sort(regexes)
	for _, re := range regexes {
		v.records = append(v.records, &ConsumerGroupRegularExpression{Group: v.id, Regex: re, Tombstone: true})
	}
	v.records = append(v.records, &ConsumerGroupMetadata{Group: v.id, Tombstone: true})

	st := &ClassicGroupState{Group: v.id, State: StateStable, PreviousState: StateStable, Generation: generation,
		ProtocolType: ConsumerProtocolType, CurrentStateTimestampMs: nowMs}
	targets := map[string][]TopicPartitions{}
	for _, m := range v.members {
		if slices.Contains(leaving, m.id) {
			// Only the leaving member's consumer-group timers go: Kafka's
			// convertToClassicGroup cancels no other. Those of the members
			// that stay fire as no-ops while the group is classic, and
			// fence the member if the group is upgraded again first
			// (consumerGroupFenceMemberOperation).
			v.timers = append(v.timers, TimerOp{Key: SessionTimeoutKey(v.id, m.id), Cancel: true},
				TimerOp{Key: RebalanceTimeoutKey(v.id, m.id), Cancel: true})
			if m.classic != nil {
				v.timers = append(v.timers, classicMemberTimerCancels(v.id, m.id)...)
			}
			continue
		}
		// v.members is sorted by id, so the classic members are too.
		st.Members = append(st.Members, ClassicMember{MemberID: m.id, InstanceID: m.instanceID(), ClientID: m.clientID,
			ClientHost: m.clientHost, RebalanceTimeoutMs: m.rebalanceTimeoutMs, SessionTimeoutMs: m.classic.SessionTimeoutMs,
			Protocols: m.classic.SupportedProtocols})
		// Utils.toConsumerProtocolAssignment names each target topic
		// from the metadata image: a deleted topic's partitions go.
		targets[m.id] = slices.DeleteFunc(slices.Clone(m.target), func(tp TopicPartitions) bool {
			_, ok := s.topics[tp.Topic]
			return !ok
		})
	}
	st.Leader = st.Members[0].MemberID
	st.ProtocolName = st.selectProtocol()
	st.setSubscribedTopics()
	for i := range st.Members {
		cm := &st.Members[i]
		cm.Assignment = encodeAssignment(targets[cm.MemberID], subscriptionVersion(cm.metadata(st.ProtocolName)))
	}
	v.members = nil

	op := &classicOp{s: s, nowMs: nowMs, st: st, isNew: true, records: v.records}
	op.writeGroupMetadata()
	for i := range st.Members {
		op.rescheduleHeartbeat(&st.Members[i])
	}
	if rebalance {
		op.prepareRebalance()
	}
	res := finish(op, struct{}{})
	v.records = res.Records
	v.timers = append(v.timers, res.Timers...)
}
