package assignor_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/assignor"
	"github.com/coordsim/coordsim/kerr"
)

// Ported from Kafka's UniformHeterogeneousAssignmentBuilderTest, whose
// TestGroupSpecImpl sorts members by id and whose topic ids sort like the
// names here, so the expected outputs are Kafka's own.

func heterogeneous(topics []assignor.Topic, members ...assignor.Member) assignor.Spec {
	return assignor.Spec{Topics: topics, Members: members, SubscriptionType: assignor.Heterogeneous}
}

func TestUniformHeterogeneousAssignmentBuilder_TwoMembersNoTopicSubscription(t *testing.T) {
	// Nobody subscribes to anything: nobody gets anything.
	got := assign(t, uniform, heterogeneous([]assignor.Topic{topic("topic1", 3)}, member("A", nil), member("B", nil)))
	assertAssignment(t, expect{}, got)
}

func TestUniformHeterogeneousAssignmentBuilder_TwoMembersSubscribedToNonexistentTopics(t *testing.T) {
	// A topic missing from the metadata fails the assignment.
	spec := heterogeneous([]assignor.Topic{topic("topic1", 3)}, member("A", subs("topic3")), member("B", subs("topic2")))
	_, err := uniform.Assign(&spec)
	require.ErrorIs(t, err, kerr.UnknownServerError)
}

func TestUniformHeterogeneousAssignmentBuilder_FirstAssignmentTwoMembersTwoTopics(t *testing.T) {
	// topic3 (6 partitions over 2 subscribers) goes first, then topic1 to
	// its only subscriber, then one topic3 partition moves to balance 4/5.
	got := assign(t, uniform, heterogeneous([]assignor.Topic{topic("topic1", 3), topic("topic3", 6)},
		member("A", subs("topic1", "topic3")),
		member("B", subs("topic3"))))
	assertAssignment(t, expect{
		"A": {tp("topic1", 0, 1, 2), tp("topic3", 4)},
		"B": {tp("topic3", 0, 1, 2, 3, 5)},
	}, got)
}

func TestUniformHeterogeneousAssignmentBuilder_FirstAssignmentNumMembersGreaterThanTotalNumPartitions(t *testing.T) {
	// topic3 has one partition and two subscribers: one goes without.
	got := assign(t, uniform, heterogeneous([]assignor.Topic{topic("topic3", 1), topic("topic1", 2)},
		member("A", subs("topic3")), member("B", subs("topic3")), member("C", subs("topic1"))))
	assertAssignment(t, expect{"A": {tp("topic3", 0)}, "C": {tp("topic1", 0, 1)}}, got)
}

func TestUniformHeterogeneousAssignmentBuilder_ReassignmentForTwoMembersThreeTopicsGivenUnbalancedPrevAssignment(t *testing.T) {
	// C held 9 of 14: topic2 moves to B and topic1-5 to A, C keeps topic3.
	got := assign(t, uniform, heterogeneous([]assignor.Topic{topic("topic1", 6), topic("topic2", 4), topic("topic3", 4)},
		member("A", subs("topic1"), tp("topic1", 0, 1, 2)),
		member("B", subs("topic1", "topic2"), tp("topic1", 3), tp("topic2", 0)),
		member("C", subs("topic1", "topic2", "topic3"), tp("topic1", 4, 5), tp("topic2", 1, 2, 3), tp("topic3", 0, 1, 2, 3))))
	assertAssignment(t, expect{
		"A": {tp("topic1", 0, 1, 2, 5)},
		"B": {tp("topic1", 3), tp("topic2", 0, 1, 2, 3)},
		"C": {tp("topic1", 4), tp("topic3", 0, 1, 2, 3)},
	}, got)
}

func TestUniformHeterogeneousAssignmentBuilder_ReassignmentWhenPartitionsAreAddedForTwoMembers(t *testing.T) {
	// New partitions go to the subscriber they balance best.
	got := assign(t, uniform, heterogeneous([]assignor.Topic{topic("topic1", 6), topic("topic2", 5), topic("topic3", 3), topic("topic4", 3)},
		member("A", subs("topic1", "topic3"), tp("topic1", 0, 1, 2, 3), tp("topic3", 0, 1)),
		member("B", subs("topic1", "topic2", "topic3", "topic4"), tp("topic2", 0, 1, 2), tp("topic4", 0, 1, 2))))
	assertAssignment(t, expect{
		"A": {tp("topic1", 0, 1, 2, 3, 4, 5), tp("topic3", 0, 1, 2)},
		"B": {tp("topic2", 0, 1, 2, 3, 4), tp("topic4", 0, 1, 2)},
	}, got)
}

func TestUniformHeterogeneousAssignmentBuilder_ReassignmentWhenOneMemberAddedAndPartitionsAddedTwoMembersTwoTopics(t *testing.T) {
	// C joins while both topics grow; A dropped topic2.
	got := assign(t, uniform, heterogeneous([]assignor.Topic{topic("topic1", 6), topic("topic2", 7)},
		member("A", subs("topic1"), tp("topic1", 0, 2), tp("topic2", 0)),
		member("B", subs("topic1", "topic2"), tp("topic1", 1), tp("topic2", 1, 2)),
		member("C", subs("topic1", "topic2"))))
	assertAssignment(t, expect{
		"A": {tp("topic1", 0, 2, 3, 4, 5)},
		"B": {tp("topic1", 1), tp("topic2", 1, 2, 6)},
		"C": {tp("topic2", 0, 3, 4, 5)},
	}, got)
}

func TestUniformHeterogeneousAssignmentBuilder_ReassignmentWhenOneMemberRemovedAfterInitialAssignmentWithThreeMembersThreeTopics(t *testing.T) {
	// C left: each remaining member takes the orphaned partitions of the
	// topics it alone subscribes to.
	got := assign(t, uniform, heterogeneous([]assignor.Topic{topic("topic1", 3), topic("topic2", 8), topic("topic3", 3)},
		member("A", subs("topic1", "topic3"), tp("topic1", 0, 1, 2), tp("topic3", 0, 1)),
		member("B", subs("topic2"), tp("topic2", 3, 4, 5, 6))))
	assertAssignment(t, expect{
		"A": {tp("topic1", 0, 1, 2), tp("topic3", 0, 1, 2)},
		"B": {tp("topic2", 0, 1, 2, 3, 4, 5, 6, 7)},
	}, got)
}

func TestUniformHeterogeneousAssignmentBuilder_ReassignmentWhenOneSubscriptionRemovedAfterInitialAssignmentWithTwoMembersTwoTopics(t *testing.T) {
	// A dropped topic2: B takes all of it, A takes topic1 back from B.
	got := assign(t, uniform, heterogeneous([]assignor.Topic{topic("topic1", 3), topic("topic2", 5)},
		member("A", subs("topic1"), tp("topic1", 0, 2), tp("topic2", 1, 3)),
		member("B", subs("topic1", "topic2"), tp("topic1", 1), tp("topic2", 0, 2, 4))))
	assertAssignment(t, expect{
		"A": {tp("topic1", 0, 1, 2)},
		"B": {tp("topic2", 0, 1, 2, 3, 4)},
	}, got)
}

func TestUniformHeterogeneousAssignmentBuilder_ReassignmentWhenTopicPartitionsRunOutAndMembersHaveNoPartitions(t *testing.T) {
	// The per-topic loop stops when the most loaded member has nothing of
	// the topic left to give.
	got := assign(t, uniform, heterogeneous([]assignor.Topic{topic("topic1", 2), topic("topic2", 2), topic("topic3", 2)},
		member("A", subs("topic1", "topic2", "topic3"), tp("topic1", 0, 1), tp("topic2", 0, 1), tp("topic3", 0, 1)),
		member("B", subs("topic1", "topic2", "topic3"))))
	assertAssignment(t, expect{
		"A": {tp("topic2", 0), tp("topic3", 0, 1)},
		"B": {tp("topic1", 0, 1), tp("topic2", 1)},
	}, got)
}

func TestUniformHeterogeneousAssignmentBuilder_FirstAssignmentWithTwoMembersIncludingOneWithoutSubscriptions(t *testing.T) {
	// A member without subscriptions gets nothing; the other gets all.
	got := assign(t, uniform, heterogeneous([]assignor.Topic{topic("topic1", 3)},
		member("A", subs("topic1")), member("B", nil)))
	assertAssignment(t, expect{"A": {tp("topic1", 0, 1, 2)}}, got)
}
