package shard

import (
	"slices"

	"github.com/coordsim/coordsim/assignor/taskassignor"
)

// shareSteps is the share group's entry of groupKinds: the KIP-932 simple
// assignor and the ShareGroup* records.
type shareSteps struct{}

func (shareSteps) title() string { return "Share" }

func (shareSteps) assign(v *view) {
	in := make([]assignee, 0, len(v.members))
	for _, m := range v.members {
		in = append(in, assignee{id: m.id, subs: m.subscribedTopics, previous: m.target})
	}
	st := v.shareState()
	assignable := func(topic string, p int32) bool {
		_, ok := slices.BinarySearch(st.initializedPartitions(topic), p)
		return ok
	}
	// Kafka numbers the members in the order of a java.util.HashMap of
	// their ids (TargetAssignmentBuilder's member specs, filled in member
	// id order here: only ids sharing a bucket depend on it), and that
	// numbering breaks the assignor's ties.
	ids := make([]string, len(in))
	for i, a := range in {
		ids[i] = a.id
	}
	order := taskassignor.JavaHashMapPutOrder(ids)
	numbered := make([]assignee, len(in))
	for i, j := range order {
		numbered[i] = in[j]
	}
	got := assignShareSimple(numbered, v.s.TopicPartitions, assignable, v.s.topicID)
	targets := make([][]TopicPartitions, len(in))
	for i, j := range order {
		targets[j] = got[i]
	}
	v.setTargets(activeOnly(targets))
}

func (shareSteps) memberMetadataRecord(v *view, m *member, tombstone bool) Record {
	return &ShareGroupMemberMetadata{Group: v.id, MemberID: m.id, ClientID: m.clientID, ClientHost: m.clientHost,
		RackID: m.rackID, SubscribedTopics: m.subscribedTopics, Tombstone: tombstone}
}

func (shareSteps) groupEpochRecord(v *view) Record {
	return &ShareGroupMetadata{Group: v.id, Epoch: v.epoch, MetadataHash: v.hash}
}

func (shareSteps) targetRecord(v *view, m *member) Record {
	return v.targetMemberRecord(m.id, m.target, false)
}

func (shareSteps) targetMemberRecord(v *view, id string, target []TopicPartitions, tombstone bool) Record {
	return &ShareGroupTargetAssignmentMember{Group: v.id, MemberID: id, Partitions: target, Tombstone: tombstone}
}

func (shareSteps) targetEpochRecord(v *view) Record {
	return &ShareGroupTargetAssignmentMetadata{Group: v.id, AssignmentEpoch: v.aEpoch, AssignmentTimestampMs: v.aTimestampMs}
}

func (shareSteps) currentAssignmentRecord(v *view, m *member, tombstone bool) Record {
	return &ShareGroupCurrentMemberAssignment{Group: v.id, MemberID: m.id, MemberEpoch: m.memberEpoch,
		PreviousMemberEpoch: m.previousMemberEpoch, Partitions: m.assigned, Tombstone: tombstone}
}

func (shareSteps) subscribesTo(g *group, topic string) bool { return anyMemberSubscribes(g, topic) }

// expiresOffsets: never asked (shouldExpire is false), present as Kafka's
// ShareGroup.offsetExpirationCondition is.
func (shareSteps) expiresOffsets(*group) bool { return true }

// earlyState: a share group with members is STABLE (share groups are EMPTY
// or STABLE only).
func (shareSteps) earlyState(*group, readiness) (GroupState, bool) {
	return StateStable, true
}

func (shareSteps) setting(_, share, _ int32) int32 { return share }

func (shareSteps) readsTopology() bool { return false }

func (shareSteps) rebalanceTimeouts() bool { return false }

// steadyChanged: a share member whose client id or host changed writes its
// member record (share_heartbeat.go).
func (shareSteps) steadyChanged(_ *Shard, g *group, m *member, h *heartbeat) bool {
	// The shareSettled flag refresh derives (share_init.go): the steady
	// path has already checked that the group's metadata hash, and so its
	// subscribed topics' partition counts, are unchanged since.
	return h.clientID != m.clientID || h.clientHost != m.clientHost || !g.shareSettled
}

func (shareSteps) checkMemberRemoval(Record, *group, *member) error { return nil }

func (shareSteps) forgetMember(*group, *member) {}

func (shareSteps) checkRequest(_ *Shard, h *heartbeat) error {
	return CheckShareHeartbeat(ShareHeartbeatCheck{
		GroupID: h.groupID, MemberID: h.memberID, RackID: nullIfEmpty(h.rackID), MemberEpoch: h.memberEpoch,
		SubscribedTopicNames: h.subscribedTopics,
	})
}

func (shareSteps) convertsEmptyClassic() bool { return false }

func (shareSteps) deriveState(g *group, ready readiness) GroupState { return g.modernState(ready) }

// initialEpoch: a share group is a ModernGroup too, at epochs 1 before its
// first member.
func (shareSteps) initialEpoch() int32 { return 1 }

func (shareSteps) describeMember(*MemberDescription, *member) {}

// A share group serves none of a consumer group's offset requests.
func (shareSteps) validateOffsetCommit(g *group, _ commitRequest) (partitionValidator, error) {
	return nil, notConsumerGroup(g.id)
}

func (shareSteps) validateOffsetFetch(g *group, _ string, _ int32) error {
	return notConsumerGroup(g.id)
}

func (shareSteps) validateOffsetDelete(g *group) error { return notConsumerGroup(g.id) }

func (shareSteps) appendTombstones(records []Record, id string) []Record {
	// ShareGroup.createGroupTombstoneRecords: the share-state metadata's
	// tombstone too, whether or not the group has any.
	return append(records,
		&ShareGroupTargetAssignmentMetadata{Group: id, Tombstone: true},
		&ShareGroupStatePartitionMetadata{Group: id, Tombstone: true},
		&ShareGroupMetadata{Group: id, Tombstone: true})
}

func (shareSteps) appendTimerCancels(ops []TimerOp, _ string) []TimerOp { return ops }

// shouldExpire is ShareGroup.shouldExpire: false.
func (shareSteps) shouldExpire() bool { return false }

func (shareSteps) keepsDescriptionEpochs() bool { return false }

func (shareSteps) convertTo(*Shard, int64, *group, *heartbeat) (*view, bool, error) {
	return nil, false, nil
}
