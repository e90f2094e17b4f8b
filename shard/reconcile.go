package shard

import (
	"slices"
)

// MemberState is a KIP-848 member's reconciliation state, Kafka's
// org.apache.kafka.coordinator.group.modern.MemberState with its byte values.
type MemberState int8

// Member states.
const (
	// MemberStable: the member is reconciled to its target at its epoch.
	MemberStable MemberState = 0
	// MemberUnrevokedPartitions: the member must revoke partitions before
	// it may move to the next epoch; it stays at its epoch until its
	// heartbeat's owned partitions no longer list them.
	MemberUnrevokedPartitions MemberState = 1
	// MemberUnreleasedPartitions: the member is at the target epoch but
	// waits for partitions other members have not revoked yet.
	MemberUnreleasedPartitions MemberState = 2
	// MemberUnknown is any value this version does not know (a record from
	// a newer coordinator). Such a member is fenced unless it owns nothing.
	MemberUnknown MemberState = 127
)

// memberStateFromValue is Kafka's MemberState.fromValue.
func memberStateFromValue(v MemberState) MemberState {
	switch v {
	case MemberStable, MemberUnrevokedPartitions, MemberUnreleasedPartitions:
		return v
	}
	return MemberUnknown
}

func (s MemberState) String() string {
	switch s {
	case MemberStable:
		return "STABLE"
	case MemberUnrevokedPartitions:
		return "UNREVOKED_PARTITIONS"
	case MemberUnreleasedPartitions:
		return "UNRELEASED_PARTITIONS"
	}
	return "UNKNOWN"
}

// memberAssignment is the part of a member that reconciliation reads and
// writes: the fields of Kafka's ConsumerGroupCurrentMemberAssignmentValue.
// Partitions are topic-partitions for consumer groups; a streams caller may
// put tasks in them (subtopology id as the topic), as the target assignment
// already does.
type memberAssignment struct {
	state         MemberState
	epoch         int32
	previousEpoch int32
	assigned      []TopicPartitions
	pending       []TopicPartitions // partitions pending revocation
}

// isReconciledTo is Kafka's ModernGroupMember.isReconciledTo.
func (a *memberAssignment) isReconciledTo(targetEpoch int32) bool {
	return a.state == MemberStable && a.epoch == targetEpoch
}

// withEpoch is ConsumerGroupMember.Builder.updateMemberEpoch: the previous
// epoch becomes the current one only when the epoch is set this way.
func (a memberAssignment) withEpoch(epoch int32) memberAssignment {
	a.previousEpoch, a.epoch = a.epoch, epoch
	return a
}

func (a *memberAssignment) equal(b *memberAssignment) bool {
	return a.state == b.state && a.epoch == b.epoch && a.previousEpoch == b.previousEpoch &&
		equalAssignment(a.assigned, b.assigned) && equalAssignment(a.pending, b.pending)
}

// currentAssignmentBuilder is Kafka's CurrentAssignmentBuilder
// (org.apache.kafka.coordinator.group.modern.consumer): given a member's
// current state and the group's target, it takes the one step that moves
// the member toward the target without ever letting two members own a
// partition. It is pure: build returns the next state and never writes.
type currentAssignmentBuilder struct {
	member      memberAssignment
	targetEpoch int32
	target      []TopicPartitions
	// subscribed reports whether the member still subscribes to a topic; a
	// topic it left is treated as having an empty target.
	subscribed func(topic string) bool
	// enforceSubscriptionConsistency is withHasSubscriptionChanged: strip
	// unsubscribed topics even when the member is at the target epoch.
	enforceSubscriptionConsistency bool
	// partitionOwned reports whether another member (or this one) holds a
	// partition in the group: Kafka's currentPartitionEpoch != -1.
	partitionOwned func(topic string, partition int32) bool
	// owned is the heartbeat's TopicPartitions; nil means the request did
	// not carry the field (Kafka's null).
	owned []TopicPartitions
	// skipRevocation is mutant.SkipRevocation: the member drops the
	// partitions it must revoke without waiting for the acknowledgement.
	skipRevocation bool
}

// errUnknownMemberState is build's FencedMemberEpochException for a member
// in the UNKNOWN state that still owns partitions.
type errUnknownMemberState struct{}

func (errUnknownMemberState) Error() string {
	return "The consumer group member is in a unknown state. The member must abandon all its partitions and rejoin."
}

// build is CurrentAssignmentBuilder.build.
func (b *currentAssignmentBuilder) build() (memberAssignment, error) {
	m := &b.member
	switch m.state {
	case MemberStable:
		if m.epoch != b.targetEpoch {
			return b.computeNextAssignment(m.epoch, m.assigned), nil
		}
		if b.enforceSubscriptionConsistency {
			return b.updateCurrentAssignment(m.epoch, m.assigned), nil
		}
		return *m, nil
	case MemberUnrevokedPartitions:
		// Revoked partitions count as revoked once the heartbeat's owned
		// partitions no longer list them.
		if b.ownsRevokedPartitions(m.pending) {
			if b.enforceSubscriptionConsistency {
				return b.updateCurrentAssignment(m.epoch, m.assigned), nil
			}
			return *m, nil
		}
		return b.computeNextAssignment(m.epoch, m.assigned), nil
	case MemberUnreleasedPartitions:
		return b.computeNextAssignment(m.epoch, m.assigned), nil
	}
	// UNKNOWN: a newer coordinator wrote a state this one does not know;
	// the member must start over without partitions.
	if b.owned == nil || len(b.owned) > 0 {
		return *m, errUnknownMemberState{}
	}
	return b.computeNextAssignment(b.targetEpoch, m.assigned), nil
}

// ownsRevokedPartitions is CurrentAssignmentBuilder.ownsRevokedPartitions:
// without the owned field the member is assumed to still own them.
func (b *currentAssignmentBuilder) ownsRevokedPartitions(revoked []TopicPartitions) bool {
	if b.skipRevocation {
		return false
	}
	if b.owned == nil {
		return true
	}
	for _, tp := range b.owned {
		for _, p := range tp.Partitions {
			if containsPartition(revoked, tp.Topic, p) {
				return true
			}
		}
	}
	return false
}

// updateCurrentAssignment is CurrentAssignmentBuilder.updateCurrentAssignment:
// drop the topics the member no longer subscribes to, asking for their
// revocation if the member still owns them.
func (b *currentAssignmentBuilder) updateCurrentAssignment(epoch int32, assigned []TopicPartitions) memberAssignment {
	m := b.member
	var kept, dropped []TopicPartitions
	for _, tp := range assigned {
		if b.subscribed(tp.Topic) {
			kept = append(kept, tp)
		} else {
			dropped = append(dropped, tp)
		}
	}
	if len(dropped) == 0 {
		return m
	}
	pending := mergeAssignments(m.pending, dropped)
	next := m.withEpoch(epoch)
	next.assigned = kept
	if b.ownsRevokedPartitions(pending) {
		next.state, next.pending = MemberUnrevokedPartitions, pending
	}
	return next
}

// computeNextAssignment is CurrentAssignmentBuilder.computeNextAssignment.
func (b *currentAssignmentBuilder) computeNextAssignment(epoch int32, assigned []TopicPartitions) memberAssignment {
	m := b.member
	topics := make([]string, 0, len(b.target)+len(assigned))
	for _, tp := range b.target {
		topics = append(topics, tp.Topic)
	}
	for _, tp := range assigned {
		topics = append(topics, tp.Topic)
	}
	slices.Sort(topics)
	topics = slices.Compact(topics)

	hasUnreleased := false
	var newAssigned, newPending, pendingAssignment []TopicPartitions
	for _, topic := range topics {
		var target []int32
		if b.subscribed(topic) {
			target = partitionsOf(b.target, topic)
		}
		current := partitionsOf(assigned, topic)
		// New assigned = current ∩ target; pending revocation = current − target.
		var keep, revoke []int32
		for _, p := range current {
			if _, ok := slices.BinarySearch(target, p); ok {
				keep = append(keep, p)
			} else {
				revoke = append(revoke, p)
			}
		}
		// Pending assignment = target − current − unreleased. A partition
		// this member is itself revoking does not count as unreleased: only
		// one member can own a partition.
		var add []int32
		for _, p := range target {
			if _, ok := slices.BinarySearch(current, p); ok {
				continue
			}
			if b.partitionOwned(topic, p) && !containsPartition(m.pending, topic, p) {
				hasUnreleased = true
				continue
			}
			add = append(add, p)
		}
		if len(keep) > 0 {
			newAssigned = append(newAssigned, TopicPartitions{Topic: topic, Partitions: keep})
		}
		if len(revoke) > 0 {
			newPending = append(newPending, TopicPartitions{Topic: topic, Partitions: revoke})
		}
		if len(add) > 0 {
			pendingAssignment = append(pendingAssignment, TopicPartitions{Topic: topic, Partitions: add})
		}
	}

	switch {
	case len(newPending) > 0 && b.ownsRevokedPartitions(newPending):
		// Revoke first: the member stays at its epoch until it acknowledges.
		next := m.withEpoch(epoch)
		next.state, next.assigned, next.pending = MemberUnrevokedPartitions, newAssigned, newPending
		return next
	case len(pendingAssignment) > 0:
		next := m.withEpoch(b.targetEpoch)
		next.state = MemberStable
		if hasUnreleased {
			next.state = MemberUnreleasedPartitions
		}
		next.assigned, next.pending = mergeAssignments(newAssigned, pendingAssignment), nil
		return next
	default:
		next := m.withEpoch(b.targetEpoch)
		next.state = MemberStable
		if hasUnreleased {
			next.state = MemberUnreleasedPartitions
		}
		next.assigned, next.pending = newAssigned, nil
		return next
	}
}

// partitionsOf returns topic's sorted partitions in a (nil when absent).
func partitionsOf(a []TopicPartitions, topic string) []int32 {
	for _, tp := range a {
		if tp.Topic == topic {
			return tp.Partitions
		}
	}
	return nil
}

func containsPartition(a []TopicPartitions, topic string, p int32) bool {
	_, ok := slices.BinarySearch(partitionsOf(a, topic), p)
	return ok
}

// mergeAssignments returns the union of a and b, topics and partitions
// sorted. Neither input is modified.
func mergeAssignments(a, b []TopicPartitions) []TopicPartitions {
	if len(b) == 0 {
		return a
	}
	if len(a) == 0 {
		return b
	}
	byTopic := map[string][]int32{}
	var topics []string
	for _, x := range [2][]TopicPartitions{a, b} {
		for _, tp := range x {
			if _, ok := byTopic[tp.Topic]; !ok {
				topics = append(topics, tp.Topic)
			}
			byTopic[tp.Topic] = append(byTopic[tp.Topic], tp.Partitions...)
		}
	}
	slices.Sort(topics)
	out := make([]TopicPartitions, 0, len(topics))
	for _, t := range topics {
		ps := slices.Clone(byTopic[t])
		slices.Sort(ps)
		out = append(out, TopicPartitions{Topic: t, Partitions: slices.Compact(ps)})
	}
	return out
}

// isSubset is GroupMetadataManager.isSubset: every owned partition is in
// assigned. A missing owned field (nil) is not a subset.
func isSubset(owned, assigned []TopicPartitions) bool {
	if owned == nil {
		return false
	}
	for _, tp := range owned {
		ps := partitionsOf(assigned, tp.Topic)
		if ps == nil {
			return false
		}
		for _, p := range tp.Partitions {
			if _, ok := slices.BinarySearch(ps, p); !ok {
				return false
			}
		}
	}
	return true
}
