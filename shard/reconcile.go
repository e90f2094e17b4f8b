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

// StreamsMemberState is a KIP-1071 member's reconciliation state as its
// record stores it: Kafka's org.apache.kafka.coordinator.group.streams.
// MemberState with its byte values, which start at 1 where the consumer
// ones start at 0. In memory a streams member's state is a MemberState
// (the same three phases); the record converts.
type StreamsMemberState int8

// Streams member states.
const (
	StreamsMemberStable          StreamsMemberState = 1
	StreamsMemberUnrevokedTasks  StreamsMemberState = 2
	StreamsMemberUnreleasedTasks StreamsMemberState = 3
	StreamsMemberUnknown         StreamsMemberState = 127
)

func (s StreamsMemberState) String() string {
	switch s {
	case StreamsMemberStable:
		return "STABLE"
	case StreamsMemberUnrevokedTasks:
		return "UNREVOKED_TASKS"
	case StreamsMemberUnreleasedTasks:
		return "UNRELEASED_TASKS"
	}
	return "UNKNOWN"
}

// streamsState is the record value of a streams member's in-memory state.
func streamsState(s MemberState) StreamsMemberState {
	switch s {
	case MemberStable:
		return StreamsMemberStable
	case MemberUnrevokedPartitions:
		return StreamsMemberUnrevokedTasks
	case MemberUnreleasedPartitions:
		return StreamsMemberUnreleasedTasks
	}
	return StreamsMemberUnknown
}

// memberStateFromStreams is Kafka's streams MemberState.fromValue, mapped
// onto the in-memory phases.
func memberStateFromStreams(s StreamsMemberState) MemberState {
	switch s {
	case StreamsMemberStable:
		return MemberStable
	case StreamsMemberUnrevokedTasks:
		return MemberUnrevokedPartitions
	case StreamsMemberUnreleasedTasks:
		return MemberUnreleasedPartitions
	}
	return MemberUnknown
}

// taskRole indexes the task sets of a streams member, Kafka's TaskRole.
// Consumer members use only roleActive, for their partitions.
type taskRole int

// Task roles, in Kafka's TasksTuple order.
const (
	roleActive taskRole = iota
	roleStandby
	roleWarmup
	numTaskRoles
)

// taskSets is Kafka's TasksTuple: a member's active, standby and warm-up
// tasks, each a sorted list with the subtopology id in the Topic field.
// A consumer member's partitions sit in roleActive; the other two are empty.
type taskSets [numTaskRoles][]TopicPartitions

func (t *taskSets) empty() bool {
	for _, a := range t {
		if len(a) > 0 {
			return false
		}
	}
	return true
}

func (t *taskSets) equal(u *taskSets) bool {
	for r := range t {
		if !equalAssignment(t[r], u[r]) {
			return false
		}
	}
	return true
}

// containsAny is TasksTuple.containsAny: some role of t shares a task with
// the same role of u.
func (t *taskSets) containsAny(u *taskSets) bool {
	for r := range t {
		for _, tp := range t[r] {
			for _, p := range tp.Partitions {
				if containsPartition(u[r], tp.Topic, p) {
					return true
				}
			}
		}
	}
	return false
}

// memberAssignment is the part of a member that reconciliation reads and
// writes: the fields of Kafka's ConsumerGroupCurrentMemberAssignmentValue
// and StreamsGroupCurrentMemberAssignmentValue.
type memberAssignment struct {
	state         MemberState
	epoch         int32
	previousEpoch int32
	assigned      taskSets
	pending       taskSets // pending revocation
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
		a.assigned.equal(&b.assigned) && a.pending.equal(&b.pending)
}

// currentAssignmentBuilder is Kafka's CurrentAssignmentBuilder, both of
// them: org.apache.kafka.coordinator.group.modern.consumer's for partitions
// and org.apache.kafka.coordinator.group.streams' for tasks. Given a
// member's current state and the group's target, it takes the one step that
// moves the member toward the target without ever letting two members own a
// partition or an active task. It is pure: build returns the next state and
// never writes.
//
// The two Kafka builders differ in three places, which are fields here:
// the consumer one filters by subscription, the streams one asks per task
// role whether a task is still held (unreleased), and the streams one moves
// a member that finished revoking to its epoch + 1 (advanceOnRevocation)
// where the consumer one keeps its epoch.
type currentAssignmentBuilder struct {
	member      memberAssignment
	targetEpoch int32
	target      taskSets
	// subscribed reports whether the member still subscribes to a topic; a
	// topic it left is treated as having an empty target. nil (streams):
	// every subtopology counts.
	subscribed func(topic string) bool
	// enforceSubscriptionConsistency is withHasSubscriptionChanged: strip
	// unsubscribed topics even when the member is at the target epoch.
	enforceSubscriptionConsistency bool
	// unreleased reports, per role, whether a task (partition) of the target
	// that the member does not hold yet must be withheld: Kafka's
	// isUnreleasedTask predicates (consumer: currentPartitionEpoch != -1).
	// nil withholds nothing.
	unreleased unreleasedTasks
	// owned is the heartbeat's owned partitions or tasks; ownedSent is
	// false when the request did not carry them (Kafka's null).
	owned     taskSets
	ownedSent bool
	// advanceOnRevocation: a member that acknowledged its revocation
	// reconciles from its epoch + 1 (the streams builder).
	advanceOnRevocation bool
	// streams selects the streams wording of the UNKNOWN-state fence.
	streams bool
	// skipRevocation is mutant.SkipRevocation: the member drops the
	// partitions (tasks) it must revoke without waiting for the
	// acknowledgement.
	skipRevocation bool
	// revokingGetsTarget is mutant.RevokingMemberGetsTargetEpoch.
	revokingGetsTarget bool
}

// errUnknownMemberState is build's FencedMemberEpochException for a member
// in the UNKNOWN state that still owns partitions or tasks.
type errUnknownMemberState struct{ streams bool }

func (e errUnknownMemberState) Error() string {
	if e.streams {
		return "The streams group member is in a unknown state. The member must abandon all its tasks and rejoin."
	}
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
		if b.ownsRevokedPartitions(&m.pending) {
			if b.enforceSubscriptionConsistency {
				return b.updateCurrentAssignment(m.epoch, m.assigned), nil
			}
			return *m, nil
		}
		if b.advanceOnRevocation {
			return b.computeNextAssignment(m.epoch+1, m.assigned), nil
		}
		return b.computeNextAssignment(m.epoch, m.assigned), nil
	case MemberUnreleasedPartitions:
		return b.computeNextAssignment(m.epoch, m.assigned), nil
	}
	// UNKNOWN: a newer coordinator wrote a state this one does not know;
	// the member must start over without partitions.
	if !b.ownedSent || !b.owned.empty() {
		return *m, errUnknownMemberState{streams: b.streams}
	}
	return b.computeNextAssignment(b.targetEpoch, m.assigned), nil
}

// ownsRevokedPartitions is CurrentAssignmentBuilder.ownsRevokedPartitions
// (streams: ownedTasks.containsAny): without the owned field the member is
// assumed to still own them.
func (b *currentAssignmentBuilder) ownsRevokedPartitions(revoked *taskSets) bool {
	if b.skipRevocation {
		return false
	}
	if !b.ownedSent {
		return true
	}
	return b.owned.containsAny(revoked)
}

// updateCurrentAssignment is CurrentAssignmentBuilder.updateCurrentAssignment:
// drop the topics the member no longer subscribes to, asking for their
// revocation if the member still owns them. Consumer groups only.
func (b *currentAssignmentBuilder) updateCurrentAssignment(epoch int32, assigned taskSets) memberAssignment {
	m := b.member
	var kept, dropped []TopicPartitions
	for _, tp := range assigned[roleActive] {
		if b.subscribed(tp.Topic) {
			kept = append(kept, tp)
		} else {
			dropped = append(dropped, tp)
		}
	}
	if len(dropped) == 0 {
		return m
	}
	pending := m.pending
	pending[roleActive] = mergeAssignments(m.pending[roleActive], dropped)
	next := m.withEpoch(epoch)
	next.assigned[roleActive] = kept
	if b.ownsRevokedPartitions(&pending) {
		next.state, next.pending = MemberUnrevokedPartitions, pending
	}
	return next
}

// unreleasedTasks is Kafka's isUnreleasedTask predicates behind one
// method: whether a task (partition) of role r must be withheld because
// another member still holds it. One value serves every role, so a
// reconciliation builds one object, not a closure per role.
type unreleasedTasks interface {
	unreleased(r taskRole, topic string, p int32) bool
}

// unreleasedFuncs is unreleasedTasks as one predicate per role; a nil entry
// withholds nothing.
type unreleasedFuncs [numTaskRoles]func(topic string, p int32) bool

func (f unreleasedFuncs) unreleased(r taskRole, topic string, p int32) bool {
	return f[r] != nil && f[r](topic, p)
}

// computeNextAssignment is CurrentAssignmentBuilder.computeNextAssignment:
// per role, new assigned = current ∩ target, pending revocation = current −
// target, pending assignment = target − current − unreleased; a streams
// member then converts the roles of tasks it keeps (convertRoles).
func (b *currentAssignmentBuilder) computeNextAssignment(epoch int32, assigned taskSets) memberAssignment {
	newAssigned, newPending, pendingAssignment, hasUnreleased := b.differences(assigned)
	if b.streams {
		b.convertRoles(assigned, &newAssigned, &newPending, &pendingAssignment)
	}
	return b.buildNewMember(epoch, &newAssigned, &newPending, &pendingAssignment, hasUnreleased)
}

// differences is computeAssignmentDifference for every role.
func (b *currentAssignmentBuilder) differences(assigned taskSets) (newAssigned, newPending, pendingAssignment taskSets, hasUnreleased bool) {
	for r := range numTaskRoles {
		var u bool
		newAssigned[r], newPending[r], pendingAssignment[r], u = b.difference(assigned[r], b.target[r], r)
		hasUnreleased = hasUnreleased || u
	}
	return newAssigned, newPending, pendingAssignment, hasUnreleased
}

// buildNewMember is CurrentAssignmentBuilder.buildNewMember: revoke first,
// else grant what is pending assignment at the target epoch.
func (b *currentAssignmentBuilder) buildNewMember(epoch int32, newAssigned, newPending, pendingAssignment *taskSets, hasUnreleased bool) memberAssignment {
	m := b.member
	switch {
	case !newPending.empty() && b.ownsRevokedPartitions(newPending):
		// Revoke first: the member stays at its epoch until it acknowledges.
		next := m.withEpoch(epoch)
		if b.revokingGetsTarget {
			next = m.withEpoch(b.targetEpoch)
		}
		next.state, next.assigned, next.pending = MemberUnrevokedPartitions, *newAssigned, *newPending
		return next
	case !pendingAssignment.empty():
		next := m.withEpoch(b.targetEpoch)
		next.state = MemberStable
		if hasUnreleased {
			next.state = MemberUnreleasedPartitions
		}
		for r := range numTaskRoles {
			next.assigned[r] = mergeAssignments(newAssigned[r], pendingAssignment[r])
		}
		next.pending = taskSets{}
		return next
	default:
		next := m.withEpoch(b.targetEpoch)
		next.state = MemberStable
		if hasUnreleased {
			next.state = MemberUnreleasedPartitions
		}
		next.assigned, next.pending = *newAssigned, taskSets{}
		return next
	}
}

// difference is computeAssignmentDifference for one role.
func (b *currentAssignmentBuilder) difference(assigned, targetAll []TopicPartitions, role taskRole) (keepAll, revokeAll, addAll []TopicPartitions, hasUnreleased bool) {
	if len(assigned) == 0 && len(targetAll) == 0 {
		return nil, nil, nil, false
	}
	topics := make([]string, 0, len(targetAll)+len(assigned))
	for _, tp := range targetAll {
		topics = append(topics, tp.Topic)
	}
	for _, tp := range assigned {
		topics = append(topics, tp.Topic)
	}
	slices.Sort(topics)
	topics = slices.Compact(topics)
	for _, topic := range topics {
		var target []int32
		if b.subscribed == nil || b.subscribed(topic) {
			target = partitionsOf(targetAll, topic)
		}
		current := partitionsOf(assigned, topic)
		var keep, revoke []int32
		for _, p := range current {
			if _, ok := slices.BinarySearch(target, p); ok {
				keep = append(keep, p)
			} else {
				revoke = append(revoke, p)
			}
		}
		var add []int32
		for _, p := range target {
			if _, ok := slices.BinarySearch(current, p); ok {
				continue
			}
			if b.unreleased != nil && b.unreleased.unreleased(role, topic, p) {
				hasUnreleased = true
				continue
			}
			add = append(add, p)
		}
		if len(keep) > 0 {
			keepAll = append(keepAll, TopicPartitions{Topic: topic, Partitions: keep})
		}
		if len(revoke) > 0 {
			revokeAll = append(revokeAll, TopicPartitions{Topic: topic, Partitions: revoke})
		}
		if len(add) > 0 {
			addAll = append(addAll, TopicPartitions{Topic: topic, Partitions: add})
		}
	}
	return keepAll, revokeAll, addAll, hasUnreleased
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
