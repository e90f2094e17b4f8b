package assignor_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/assignor"
	"github.com/coordsim/coordsim/kerr"
)

// Ported from Kafka's UniformHomogeneousAssignmentBuilderTest. Kafka keys
// topics by id and visits them in HashSet order; we visit them by name.
// Where that order decides which member receives which new partitions the
// test says so and expects the name order's answer; sizes and stickiness
// are the same as Kafka's.

var uniform = assignor.Uniform{}

func TestUniformHomogeneousAssignmentBuilder_OneMemberNoTopicSubscription(t *testing.T) {
	// A member that subscribes to nothing gets nothing.
	got := assign(t, uniform, assignor.Spec{
		Topics:  []assignor.Topic{topic("topic1", 3)},
		Members: []assignor.Member{member("A", nil)},
	})
	assertAssignment(t, expect{}, got)
}

func TestUniformHomogeneousAssignmentBuilder_OneMemberSubscribedToNonexistentTopic(t *testing.T) {
	// A subscription to a topic missing from the metadata is Kafka's
	// PartitionAssignorException, reported as UNKNOWN_SERVER_ERROR.
	_, err := uniform.Assign(&assignor.Spec{
		Topics:  []assignor.Topic{topic("topic1", 3)},
		Members: []assignor.Member{member("A", subs("topic2"))},
	})
	require.ErrorIs(t, err, kerr.UnknownServerError)
	require.EqualError(t, err, "UNKNOWN_SERVER_ERROR: Members are subscribed to topic topic2 which doesn't exist in the topic metadata.")
}

func TestUniformHomogeneousAssignmentBuilder_FirstAssignmentTwoMembersTwoTopicsNoMemberRacks(t *testing.T) {
	// Five partitions, two members: one gets three. KAFKA-18688 gives the
	// extra partition to the last unfilled member. Kafka's hash order handed
	// out topic3 first (A: topic3 0-1); by name topic1 comes first.
	got := assign(t, uniform, assignor.Spec{
		Topics: []assignor.Topic{topic("topic1", 3), topic("topic3", 2)},
		Members: []assignor.Member{
			member("A", subs("topic1", "topic3")),
			member("B", subs("topic1", "topic3")),
		},
	})
	assertAssignment(t, expect{
		"A": {tp("topic1", 0, 1)},
		"B": {tp("topic1", 2), tp("topic3", 0, 1)},
	}, got)
	checkBalanced(t, got)
}

func TestUniformHomogeneousAssignmentBuilder_FirstAssignmentNumMembersGreaterThanTotalNumPartitions(t *testing.T) {
	// Two partitions, three members: the first member goes without.
	got := assign(t, uniform, assignor.Spec{
		Topics: []assignor.Topic{topic("topic3", 2)},
		Members: []assignor.Member{
			member("A", subs("topic3")), member("B", subs("topic3")), member("C", subs("topic3")),
		},
	})
	assertAssignment(t, expect{"B": {tp("topic3", 0)}, "C": {tp("topic3", 1)}}, got)
	checkBalanced(t, got)
}

func TestUniformHomogeneousAssignmentBuilder_ValidityAndBalanceForLargeSampleSet(t *testing.T) {
	// 100 topics of 3 partitions over 49 members: valid and balanced.
	var topics []assignor.Topic
	var names []string
	for i := 1; i < 101; i++ {
		name := fmt.Sprintf("topic-%d", i)
		topics = append(topics, topic(name, 3))
		names = append(names, name)
	}
	var members []assignor.Member
	for i := 1; i < 50; i++ {
		members = append(members, member(fmt.Sprintf("member%d", i), names))
	}
	checkBalanced(t, assign(t, uniform, assignor.Spec{Topics: topics, Members: members}))
}

func TestUniformHomogeneousAssignmentBuilder_ReassignmentForTwoMembersTwoTopicsGivenUnbalancedPrevAssignment(t *testing.T) {
	// A had four of six: it keeps its quota of three, B takes the fourth.
	got := assign(t, uniform, assignor.Spec{
		Topics: []assignor.Topic{topic("topic1", 3), topic("topic2", 3)},
		Members: []assignor.Member{
			member("A", subs("topic1", "topic2"), tp("topic1", 0, 1), tp("topic2", 0, 1)),
			member("B", subs("topic1", "topic2"), tp("topic1", 2), tp("topic2", 2)),
		},
	})
	assertAssignment(t, expect{
		"A": {tp("topic1", 0, 1), tp("topic2", 0)},
		"B": {tp("topic1", 2), tp("topic2", 1, 2)},
	}, got)
	checkBalanced(t, got)
}

func TestUniformHomogeneousAssignmentBuilder_ReassignmentWhenPartitionsAreAddedForTwoMembersTwoTopics(t *testing.T) {
	// topic1 grew from 3 to 6 and topic2 from 3 to 5: both keep their three,
	// A takes two new partitions and B (last unfilled) three. Kafka's hash
	// order handed out topic2's new partitions first (A: topic2 3-4); by
	// name, topic1's come first.
	got := assign(t, uniform, assignor.Spec{
		Topics: []assignor.Topic{topic("topic1", 6), topic("topic2", 5)},
		Members: []assignor.Member{
			member("A", subs("topic1", "topic2"), tp("topic1", 0, 2), tp("topic2", 0)),
			member("B", subs("topic1", "topic2"), tp("topic1", 1), tp("topic2", 1, 2)),
		},
	})
	assertAssignment(t, expect{
		"A": {tp("topic1", 0, 2, 3, 4), tp("topic2", 0)},
		"B": {tp("topic1", 1, 5), tp("topic2", 1, 2, 3, 4)},
	}, got)
	checkBalanced(t, got)
}

func TestUniformHomogeneousAssignmentBuilder_ReassignmentWhenOneMemberAddedAfterInitialAssignmentWithTwoMembersTwoTopics(t *testing.T) {
	// C joins: A and B give up one partition each, C takes both.
	got := assign(t, uniform, assignor.Spec{
		Topics: []assignor.Topic{topic("topic1", 3), topic("topic2", 3)},
		Members: []assignor.Member{
			member("A", subs("topic1", "topic2"), tp("topic1", 0, 2), tp("topic2", 0)),
			member("B", subs("topic1", "topic2"), tp("topic1", 1), tp("topic2", 1, 2)),
			member("C", subs("topic1", "topic2")),
		},
	})
	assertAssignment(t, expect{
		"A": {tp("topic1", 0, 2)},
		"B": {tp("topic1", 1), tp("topic2", 1)},
		"C": {tp("topic2", 0, 2)},
	}, got)
	checkBalanced(t, got)
}

func TestUniformHomogeneousAssignmentBuilder_ReassignmentWhenOneMemberRemovedAfterInitialAssignmentWithThreeMembersTwoTopics(t *testing.T) {
	// C left: its two partitions go one to A, one to B. Kafka's hash order
	// gave topic2-2 to A; by name A takes topic1-2.
	got := assign(t, uniform, assignor.Spec{
		Topics: []assignor.Topic{topic("topic1", 3), topic("topic2", 3)},
		Members: []assignor.Member{
			member("A", subs("topic1", "topic2"), tp("topic1", 0), tp("topic2", 0)),
			member("B", subs("topic1", "topic2"), tp("topic1", 1), tp("topic2", 1)),
		},
	})
	assertAssignment(t, expect{
		"A": {tp("topic1", 0, 2), tp("topic2", 0)},
		"B": {tp("topic1", 1), tp("topic2", 1, 2)},
	}, got)
	checkBalanced(t, got)
}

func TestUniformHomogeneousAssignmentBuilder_ReassignmentWhenOneSubscriptionRemovedAfterInitialAssignmentWithTwoMembersTwoTopics(t *testing.T) {
	// Both members dropped topic1: its partitions leave their assignments.
	got := assign(t, uniform, assignor.Spec{
		Topics: []assignor.Topic{topic("topic1", 2), topic("topic2", 2)},
		Members: []assignor.Member{
			member("A", subs("topic2"), tp("topic1", 0), tp("topic2", 0)),
			member("B", subs("topic2"), tp("topic1", 1), tp("topic2", 1)),
		},
	})
	assertAssignment(t, expect{"A": {tp("topic2", 0)}, "B": {tp("topic2", 1)}}, got)
}

func TestUniformHomogeneousAssignmentBuilder_BalancedAssignmentNeverMoves(t *testing.T) {
	// KAFKA-18688's point: with 7 partitions over 3 members, the member
	// holding the extra partition keeps it whatever its place in the order.
	got := assign(t, uniform, assignor.Spec{
		Topics: []assignor.Topic{topic("t", 7)},
		Members: []assignor.Member{
			member("A", subs("t"), tp("t", 0, 1)),
			member("B", subs("t"), tp("t", 2, 3)),
			member("C", subs("t"), tp("t", 4, 5, 6)),
		},
	})
	assertAssignment(t, expect{"A": {tp("t", 0, 1)}, "B": {tp("t", 2, 3)}, "C": {tp("t", 4, 5, 6)}}, got)
}
