package assignor_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/assignor"
	"github.com/coordsim/coordsim/kerr"
)

// Ported from Kafka's RangeAssignorTest (server side). Range orders members
// by instance id and member id, never by topic, so the expected outputs are
// Kafka's own.

var rangeA = assignor.Range{}

// withRacks is MetadataImageBuilder.addRacks: four brokers on rack0..rack3,
// partition p on brokers p%4 and (p+1)%4.
func withRacks(tm assignor.Topic) assignor.Topic {
	tm.Racks = make([][]string, tm.Partitions)
	for p := range tm.Racks {
		tm.Racks[p] = []string{fmt.Sprintf("rack%d", p%4), fmt.Sprintf("rack%d", (p+1)%4)}
	}
	return tm
}

func racked(id, rack string, topics []string) assignor.Member {
	m := member(id, topics)
	m.Rack = rack
	return m
}

func static(id, instance string, topics []string) assignor.Member {
	m := member(id, topics)
	m.InstanceID = instance
	return m
}

func TestRangeAssignor_OneMemberNoTopic(t *testing.T) {
	// No subscription, no partitions.
	got := assign(t, rangeA, assignor.Spec{Members: []assignor.Member{member("A", nil)}})
	assertAssignment(t, expect{}, got)
}

func TestRangeAssignor_OneMemberSubscribedToNonExistentTopic(t *testing.T) {
	// Kafka's message for range differs from uniform's.
	_, err := rangeA.Assign(&assignor.Spec{Topics: []assignor.Topic{topic("topic1", 3)}, Members: []assignor.Member{member("A", subs("topic2"))}})
	require.ErrorIs(t, err, kerr.UnknownServerError)
	require.EqualError(t, err, "UNKNOWN_SERVER_ERROR: Member is subscribed to a non-existent topic")
}

func TestRangeAssignor_FirstAssignmentTwoMembersTwoTopicsSameSubscriptions(t *testing.T) {
	// Ranges per topic: the first member takes the extra partition of each.
	got := assign(t, rangeA, assignor.Spec{
		Topics:  []assignor.Topic{topic("topic1", 3), topic("topic3", 2)},
		Members: []assignor.Member{member("A", subs("topic1", "topic3")), member("B", subs("topic1", "topic3"))},
	})
	assertAssignment(t, expect{
		"A": {tp("topic1", 0, 1), tp("topic3", 0)},
		"B": {tp("topic1", 2), tp("topic3", 1)},
	}, got)
}

func TestRangeAssignor_FirstAssignmentThreeMembersThreeTopicsDifferentSubscriptions(t *testing.T) {
	// Each topic is split among its own subscribers only.
	got := assign(t, rangeA, assignor.Spec{
		Topics: []assignor.Topic{topic("topic1", 3), topic("topic2", 3), topic("topic3", 2)},
		Members: []assignor.Member{
			member("A", subs("topic1", "topic2")), member("B", subs("topic3")), member("C", subs("topic2", "topic3")),
		},
	})
	assertAssignment(t, expect{
		"A": {tp("topic1", 0, 1, 2), tp("topic2", 0, 1)},
		"B": {tp("topic3", 0)},
		"C": {tp("topic2", 2), tp("topic3", 1)},
	}, got)
}

func TestRangeAssignor_FirstAssignmentNumMembersGreaterThanNumPartitions(t *testing.T) {
	// topic3 has two partitions for three members: the last goes without.
	got := assign(t, rangeA, assignor.Spec{
		Topics: []assignor.Topic{topic("topic1", 3), topic("topic3", 2)},
		Members: []assignor.Member{
			member("A", subs("topic1", "topic3")), member("B", subs("topic1", "topic3")), member("C", subs("topic1", "topic3")),
		},
	})
	assertAssignment(t, expect{
		"A": {tp("topic1", 0), tp("topic3", 0)},
		"B": {tp("topic1", 1), tp("topic3", 1)},
		"C": {tp("topic1", 2)},
	}, got)
}

func TestRangeAssignor_StaticMembership(t *testing.T) {
	// A static member that rejoins under a new member id keeps its ranges.
	topics := []assignor.Topic{topic("topic1", 3)}
	first := assign(t, rangeA, assignor.Spec{Topics: topics, Members: []assignor.Member{
		static("A", "instanceA", subs("topic1")), static("B", "instanceB", subs("topic1")),
	}})
	second := assign(t, rangeA, assignor.Spec{Topics: topics, Members: []assignor.Member{
		static("memberA1", "instanceA", subs("topic1")), static("B", "instanceB", subs("topic1")),
	}})
	require.Equal(t, first.Of("A"), second.Of("memberA1"))
	require.Equal(t, first.Of("B"), second.Of("B"))
}

func TestRangeAssignor_MixedStaticMembership(t *testing.T) {
	// Static members come first, so a dynamic member's id never reorders
	// them: memberA1 (instanceA) takes A's range back, B and C keep theirs.
	topics := []assignor.Topic{topic("topic1", 5)}
	first := assign(t, rangeA, assignor.Spec{Topics: topics, Members: []assignor.Member{
		static("A", "instanceA", subs("topic1")), static("C", "instanceC", subs("topic1")), member("B", subs("topic1")),
	}})
	second := assign(t, rangeA, assignor.Spec{Topics: topics, Members: []assignor.Member{
		static("memberA1", "instanceA", subs("topic1")), static("C", "instanceC", subs("topic1")), member("B", subs("topic1")),
	}})
	require.Equal(t, first.Of("A"), second.Of("memberA1"))
	require.Equal(t, first.Of("B"), second.Of("B"))
	require.Equal(t, first.Of("C"), second.Of("C"))
	assertAssignment(t, expect{"A": {tp("topic1", 0, 1)}, "C": {tp("topic1", 2, 3)}, "B": {tp("topic1", 4)}}, first)
}

func TestRangeAssignor_ReassignmentNumMembersGreaterThanNumPartitionsWhenOneMemberAdded(t *testing.T) {
	// C joins two topics of two partitions each: A and B keep theirs.
	got := assign(t, rangeA, assignor.Spec{
		Topics: []assignor.Topic{topic("topic1", 2), topic("topic2", 2)},
		Members: []assignor.Member{
			member("A", subs("topic1", "topic2"), tp("topic1", 0), tp("topic2", 0)),
			member("B", subs("topic1", "topic2"), tp("topic1", 1), tp("topic2", 1)),
			member("C", subs("topic1", "topic2")),
		},
	})
	assertAssignment(t, expect{
		"A": {tp("topic1", 0), tp("topic2", 0)},
		"B": {tp("topic1", 1), tp("topic2", 1)},
	}, got)
}

func TestRangeAssignor_ReassignmentWhenOnePartitionAddedForTwoMembersTwoTopics(t *testing.T) {
	// Both topics grew to four partitions: two each, co-partitioned.
	got := assign(t, rangeA, assignor.Spec{
		Topics: []assignor.Topic{topic("topic1", 4), topic("topic2", 4)},
		Members: []assignor.Member{
			member("A", subs("topic1", "topic2"), tp("topic1", 0, 1), tp("topic2", 0, 1)),
			member("B", subs("topic1", "topic2"), tp("topic1", 2), tp("topic2", 2)),
		},
	})
	assertAssignment(t, expect{
		"A": {tp("topic1", 0, 1), tp("topic2", 0, 1)},
		"B": {tp("topic1", 2, 3), tp("topic2", 2, 3)},
	}, got)
}

func TestRangeAssignor_ReassignmentWhenOneMemberAddedAfterInitialAssignmentWithTwoMembersTwoTopics(t *testing.T) {
	// C joins: ranges are recomputed in member order, not kept.
	got := assign(t, rangeA, assignor.Spec{
		Topics: []assignor.Topic{topic("topic1", 3), topic("topic2", 3)},
		Members: []assignor.Member{
			member("A", subs("topic1", "topic2"), tp("topic1", 0, 1), tp("topic2", 0, 1)),
			member("B", subs("topic1", "topic2"), tp("topic1", 2), tp("topic2", 2)),
			member("C", subs("topic1", "topic2")),
		},
	})
	assertAssignment(t, expect{
		"A": {tp("topic1", 0), tp("topic2", 0)},
		"B": {tp("topic1", 1), tp("topic2", 1)},
		"C": {tp("topic1", 2), tp("topic2", 2)},
	}, got)
}

func TestRangeAssignor_ReassignmentWhenOneMemberAddedAndOnePartitionAfterInitialAssignmentWithTwoMembersTwoTopics(t *testing.T) {
	// Heterogeneous: topic1 (4 partitions) among three, topic2 among two.
	got := assign(t, rangeA, assignor.Spec{
		Topics: []assignor.Topic{topic("topic1", 4), topic("topic2", 3)},
		Members: []assignor.Member{
			member("A", subs("topic1", "topic2"), tp("topic1", 0, 1), tp("topic2", 0, 1)),
			member("B", subs("topic1", "topic2"), tp("topic1", 2), tp("topic2", 2)),
			member("C", subs("topic1")),
		},
	})
	assertAssignment(t, expect{
		"A": {tp("topic1", 0, 1), tp("topic2", 0, 1)},
		"B": {tp("topic1", 2), tp("topic2", 2)},
		"C": {tp("topic1", 3)},
	}, got)
}

func TestRangeAssignor_ReassignmentWhenOneMemberRemovedAfterInitialAssignmentWithTwoMembersTwoTopics(t *testing.T) {
	// A left: B takes everything.
	got := assign(t, rangeA, assignor.Spec{
		Topics: []assignor.Topic{topic("topic1", 3), topic("topic2", 3)},
		Members: []assignor.Member{
			member("B", subs("topic1", "topic2"), tp("topic1", 2), tp("topic2", 2)),
		},
	})
	assertAssignment(t, expect{"B": {tp("topic1", 0, 1, 2), tp("topic2", 0, 1, 2)}}, got)
}

func TestRangeAssignor_ReassignmentWhenMultipleSubscriptionsRemovedAfterInitialAssignmentWithThreeMembersTwoTopics(t *testing.T) {
	// Subscriptions change from A:{1,2} B:{2} C:{2,3} to A:{1} B:{1,2,3} C:{2}.
	got := assign(t, rangeA, assignor.Spec{
		Topics: []assignor.Topic{topic("topic1", 3), topic("topic2", 3), topic("topic3", 2)},
		Members: []assignor.Member{
			member("A", subs("topic1"), tp("topic1", 0, 1, 2), tp("topic2", 0)),
			member("B", subs("topic1", "topic2", "topic3"), tp("topic2", 1)),
			member("C", subs("topic2"), tp("topic2", 2), tp("topic3", 0, 1)),
		},
	})
	assertAssignment(t, expect{
		"A": {tp("topic1", 0, 1)},
		"B": {tp("topic1", 2), tp("topic2", 0, 1), tp("topic3", 0, 1)},
		"C": {tp("topic2", 2)},
	}, got)
}

func TestRangeAssignor_RackAwareAssignmentWithCoPartitionedTopics(t *testing.T) {
	// Co-partitioned topics: each member takes the partition number whose
	// replicas share its rack, in both topics.
	got := assign(t, rangeA, assignor.Spec{
		Topics: []assignor.Topic{withRacks(topic("topic1", 3)), withRacks(topic("topic2", 3))},
		Members: []assignor.Member{
			racked("A", "rack0", subs("topic1", "topic2")),
			racked("B", "rack1", subs("topic1", "topic2")),
			racked("C", "rack2", subs("topic1", "topic2")),
		},
	})
	assertAssignment(t, expect{
		"A": {tp("topic1", 0), tp("topic2", 0)},
		"B": {tp("topic1", 1), tp("topic2", 1)},
		"C": {tp("topic1", 2), tp("topic2", 2)},
	}, got)
}

func TestRangeAssignor_RackAwareAssignmentWithCoPartitionedTopicsNoConsumerRackMatch(t *testing.T) {
	// Every partition on rack0 and rack1: racks cannot make a difference,
	// so plain ranges, and no partition twice.
	t1, t2 := topic("topic1", 4), topic("topic2", 4)
	for _, x := range []*assignor.Topic{&t1, &t2} {
		x.Racks = [][]string{{"rack0", "rack1"}, {"rack0", "rack1"}, {"rack0", "rack1"}, {"rack0", "rack1"}}
	}
	got := assign(t, rangeA, assignor.Spec{
		Topics: []assignor.Topic{t1, t2},
		Members: []assignor.Member{
			racked("A", "rack0", subs("topic1", "topic2")),
			racked("B", "rack1", subs("topic1", "topic2")),
			racked("C", "rack2", subs("topic1", "topic2")),
		},
	})
	assertAssignment(t, expect{
		"A": {tp("topic1", 0, 1), tp("topic2", 0, 1)},
		"B": {tp("topic1", 2), tp("topic2", 2)},
		"C": {tp("topic1", 3), tp("topic2", 3)},
	}, got)
}

func TestRangeAssignor_RackAwareAssignmentWithSingleTopic(t *testing.T) {
	// A (rack0) gets the partitions with a replica on rack0, B (rack2) the
	// ones on rack2.
	got := assign(t, rangeA, assignor.Spec{
		Topics:  []assignor.Topic{withRacks(topic("topic1", 4))},
		Members: []assignor.Member{racked("A", "rack0", subs("topic1")), racked("B", "rack2", subs("topic1"))},
	})
	assertAssignment(t, expect{"A": {tp("topic1", 0, 3)}, "B": {tp("topic1", 1, 2)}}, got)
}

func TestRangeAssignor_RackAwareAssignmentWithHeterogeneousSubscriptions(t *testing.T) {
	// Heterogeneous groups use no racks: each member gets its whole topic.
	got := assign(t, rangeA, assignor.Spec{
		Topics: []assignor.Topic{withRacks(topic("topic1", 3)), withRacks(topic("topic2", 2)), withRacks(topic("topic3", 2))},
		Members: []assignor.Member{
			racked("A", "rack0", subs("topic1")), racked("B", "rack1", subs("topic2")), racked("C", "rack2", subs("topic3")),
		},
	})
	assertAssignment(t, expect{"A": {tp("topic1", 0, 1, 2)}, "B": {tp("topic2", 0, 1)}, "C": {tp("topic3", 0, 1)}}, got)
}

func TestRangeAssignor_NoRackAwareAssignmentWhenNoRackInfo(t *testing.T) {
	// Partitions have racks, members do not: plain ranges.
	got := assign(t, rangeA, assignor.Spec{
		Topics:  []assignor.Topic{withRacks(topic("topic1", 3)), withRacks(topic("topic2", 3))},
		Members: []assignor.Member{member("A", subs("topic1", "topic2")), member("B", subs("topic1", "topic2"))},
	})
	assertAssignment(t, expect{"A": {tp("topic1", 0, 1), tp("topic2", 0, 1)}, "B": {tp("topic1", 2), tp("topic2", 2)}}, got)
}

func TestRangeAssignor_NoRackAwareAssignmentWhenNoPartitionRackInfo(t *testing.T) {
	// Members have racks, partitions do not: plain ranges.
	got := assign(t, rangeA, assignor.Spec{
		Topics:  []assignor.Topic{topic("topic1", 3), topic("topic2", 3)},
		Members: []assignor.Member{racked("A", "rack0", subs("topic1", "topic2")), racked("B", "rack1", subs("topic1", "topic2"))},
	})
	assertAssignment(t, expect{"A": {tp("topic1", 0, 1), tp("topic2", 0, 1)}, "B": {tp("topic1", 2), tp("topic2", 2)}}, got)
}

func TestRangeAssignor_PartialRackMatching(t *testing.T) {
	// Balance first: A matches P0, B matches P1, C (rack5) matches nothing;
	// the rest is handed out by range, A taking the extra partition.
	got := assign(t, rangeA, assignor.Spec{
		Topics: []assignor.Topic{withRacks(topic("topic1", 4))},
		Members: []assignor.Member{
			racked("A", "rack0", subs("topic1")), racked("B", "rack1", subs("topic1")), racked("C", "rack5", subs("topic1")),
		},
	})
	assertAssignment(t, expect{"A": {tp("topic1", 0, 2)}, "B": {tp("topic1", 1)}, "C": {tp("topic1", 3)}}, got)
}

func TestRangeAssignor_RackAwareWithMixedRackInfoMembers(t *testing.T) {
	// A member without a rack matches every partition.
	got := assign(t, rangeA, assignor.Spec{
		Topics: []assignor.Topic{withRacks(topic("topic1", 3)), withRacks(topic("topic2", 3))},
		Members: []assignor.Member{
			racked("A", "rack0", subs("topic1", "topic2")), member("B", subs("topic1", "topic2")), racked("C", "rack2", subs("topic1", "topic2")),
		},
	})
	assertAssignment(t, expect{
		"A": {tp("topic1", 0), tp("topic2", 0)},
		"B": {tp("topic1", 1), tp("topic2", 1)},
		"C": {tp("topic1", 2), tp("topic2", 2)},
	}, got)
}
