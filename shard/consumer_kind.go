package shard

import "slices"

// consumerSteps is the consumer group's entry of groupKinds: the broker's
// server assignors and the ConsumerGroup* records.
type consumerSteps struct{}

func (consumerSteps) title() string { return "Consumer" }

func (consumerSteps) assign(v *view) { assignConsumerTargets(v) }

func (consumerSteps) memberMetadataRecord(v *view, m *member, tombstone bool) Record {
	if tombstone {
		return &ConsumerGroupMemberMetadata{Group: v.id, MemberID: m.id, Tombstone: true}
	}
	return &ConsumerGroupMemberMetadata{Group: v.id, MemberID: m.id, InstanceID: m.instanceID(), ClientID: m.clientID, ClientHost: m.clientHost,
		RackID: m.rackID, ServerAssignor: m.consumerPart().serverAssignor, SubscribedTopics: m.subscribedTopics, SubscribedTopicRegex: m.consumerPart().topicRegex,
		RebalanceTimeoutMs: m.rebalanceTimeoutMs, Classic: m.classic}
}

func (consumerSteps) groupEpochRecord(v *view) Record {
	return &ConsumerGroupMetadata{Group: v.id, Epoch: v.epoch, MetadataHash: v.hash}
}

func (consumerSteps) targetRecord(v *view, m *member) Record {
	return v.targetMemberRecord(m.id, m.target, false)
}

func (consumerSteps) targetMemberRecord(v *view, id string, target []TopicPartitions, tombstone bool) Record {
	return &ConsumerGroupTargetAssignmentMember{Group: v.id, MemberID: id, Partitions: target, Tombstone: tombstone}
}

func (consumerSteps) targetEpochRecord(v *view) Record {
	return &ConsumerGroupTargetAssignmentMetadata{Group: v.id, AssignmentEpoch: v.aEpoch, AssignmentTimestampMs: v.aTimestampMs}
}

func (consumerSteps) currentAssignmentRecord(v *view, m *member, tombstone bool) Record {
	if tombstone {
		return &ConsumerGroupCurrentMemberAssignment{Group: v.id, MemberID: m.id, Tombstone: true}
	}
	return &ConsumerGroupCurrentMemberAssignment{Group: v.id, MemberID: m.id, MemberEpoch: m.memberEpoch,
		PreviousMemberEpoch: m.previousMemberEpoch, State: m.state, Partitions: m.assigned, PartitionsPendingRevocation: m.pending}
}

// assignConsumerTargets computes a consumer group's new target and writes
// its records: a target record per member whose target changed, then the
// epoch record. The target records of one computation share one array:
// they are written, replayed and superseded together.
func assignConsumerTargets(v *view) {
	active, err := v.assignConsumer()
	if v.assignErr = err; err != nil {
		return
	}
	// A target record per member at most, the epoch record, and the
	// heartbeat's own member's current assignment.
	v.records = slices.Grow(v.records, len(v.members)+2)
	changed := 0
	for i, m := range v.members {
		if cur := m.targets(); !cur.equal(&taskSets{roleActive: active[i]}) {
			changed++
		}
	}
	slab := make([]ConsumerGroupTargetAssignmentMember, changed)
	for i, m := range v.members {
		if cur := m.targets(); cur.equal(&taskSets{roleActive: active[i]}) {
			continue
		}
		m = v.own(i)
		m.target = active[i]
		m.setTargetRoles(nil, nil)
		slab[0] = ConsumerGroupTargetAssignmentMember{Group: v.id, MemberID: m.id, Partitions: m.target}
		v.records = append(v.records, &slab[0])
		slab = slab[1:]
	}
	v.aEpoch = v.epoch
	v.records = append(v.records, v.targetEpochRecord())
}

func (consumerSteps) subscribesTo(g *group, topic string) bool { return anyMemberSubscribes(g, topic) }

// expiresOffsets: a consumer group's offsets expire by their commit time
// (ConsumerGroup.offsetExpirationCondition is always present).
func (consumerSteps) expiresOffsets(*group) bool { return true }

func (consumerSteps) earlyState(*group, readiness) (GroupState, bool) { return 0, false }

// setting: any type without its own keys (classic) reads the consumer's,
// as it did before group configs.
func (consumerSteps) setting(_, _, consumer int32) int32 { return consumer }

func (consumerSteps) readsTopology() bool { return false }

func (consumerSteps) rebalanceTimeouts() bool { return true }

// anyMemberSubscribes is isSubscribedToTopic of consumer and share groups:
// the union of their members' subscriptions (a classic simple group has no
// members, so it subscribes to nothing).
func anyMemberSubscribes(g *group, topic string) bool {
	for _, m := range g.members {
		if m.subscribes(topic) {
			return true
		}
	}
	return false
}

// steadyChanged: a consumer member whose client id or host changed writes
// its member record (consumer.go). A group whose members name several server assignors takes the full path:
// there even a heartbeat that changes nothing can move the preferred
// assignor and bump the epoch (preferredAssignorChanged).
func (consumerSteps) steadyChanged(_ *Shard, g *group, m *member, h *heartbeat) bool {
	return h.clientID != m.clientID || h.clientHost != m.clientHost || g.namesSeveralAssignors()
}

// checkMemberRemoval: Kafka's removeMember drops the member's partition
// epochs too.
func (consumerSteps) checkMemberRemoval(r Record, g *group, old *member) error {
	return checkPartitionEpochs(r, g, old, nil)
}

func (consumerSteps) forgetMember(g *group, old *member) { g.removePartitionEpochs(old) }

func (consumerSteps) checkRequest(s *Shard, h *heartbeat) error {
	return CheckConsumerHeartbeat(ConsumerHeartbeatCheck{
		Version: ConsumerGeneratedMemberIDRequiredVersion, GroupID: h.groupID, MemberID: h.memberID,
		InstanceID: nullIfEmpty(h.instanceID), RackID: nullIfEmpty(h.rackID), MemberEpoch: h.memberEpoch,
		RebalanceTimeoutMs: h.rebalanceTimeoutMs, TopicPartitions: List{Len: len(h.owned)},
		SubscribedTopicNames: h.subscribedTopics, SubscribedTopicRegex: h.topicRegex, ServerAssignor: h.serverAssignor,
	}, s.consumerAssignors())
}

func (consumerSteps) convertsEmptyClassic() bool { return true }

func (consumerSteps) deriveState(g *group, ready readiness) GroupState { return g.modernState(ready) }

// initialEpoch: a new consumer group is at group epoch 1 and assignment
// epoch 1 before its first member (Kafka 4.4's ModernGroup and
// TargetAssignmentMetadata.INITIAL), so its first join lands on epoch 2.
func (consumerSteps) initialEpoch() int32 { return 1 }

func (consumerSteps) describeMember(*MemberDescription, *member) {}

func (consumerSteps) validateOffsetCommit(g *group, req commitRequest) (partitionValidator, error) {
	return validateModernOffsetCommit(g, req, "modern", func(_ *group, m *member, epoch int32) (partitionValidator, error) {
		if req.kind == transactionalCommit && !req.topicIDs {
			// The validator looks partitions up by topic id, and a
			// TxnOffsetCommit by name reaches it with Uuid.ZERO_UUID
			// (KafkaApis resolves no ids for it): no partition is found.
			return unknownTopicIDValidator, nil
		}
		return consumerAssignmentEpochValidator(m, epoch), nil
	})
}

func (consumerSteps) validateOffsetFetch(g *group, memberID string, memberEpoch int32) error {
	return validateModernOffsetFetch(g, memberID, memberEpoch)
}

func (consumerSteps) validateOffsetDelete(*group) error { return nil }

func (consumerSteps) appendTombstones(records []Record, id string) []Record {
	return append(records,
		&ConsumerGroupTargetAssignmentMetadata{Group: id, Tombstone: true},
		&ConsumerGroupMetadata{Group: id, Tombstone: true})
}

func (consumerSteps) appendTimerCancels(ops []TimerOp, _ string) []TimerOp { return ops }

func (consumerSteps) shouldExpire() bool { return true }

func (consumerSteps) keepsDescriptionEpochs() bool { return false }

func (consumerSteps) convertTo(*Shard, int64, *group, *heartbeat) (*view, bool, error) {
	return nil, false, nil
}
