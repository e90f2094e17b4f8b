package shard

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tps builds an assignment from topic → partitions pairs: tps("foo", 1, 2).
func tps(topic string, partitions ...int32) TopicPartitions {
	return TopicPartitions{Topic: topic, Partitions: partitions}
}

// act is a consumer member's assignment: its partitions in roleActive.
func act(a ...TopicPartitions) taskSets { return taskSets{asg(a...)} }

// asg is an assignment (never nil: an empty one is a sent, empty list).
func asg(a ...TopicPartitions) []TopicPartitions { return append([]TopicPartitions{}, a...) }

// TestCurrentAssignmentBuilder reproduces Kafka's CurrentAssignmentBuilderTest
// case by case: each starts from a member state, a target and the owned
// partitions the heartbeat carries, and checks the single step the builder
// takes. Owners holds partitions other members own (currentPartitionEpoch).
func TestCurrentAssignmentBuilder(t *testing.T) {
	subscribedFooBar := func(topic string) bool { return topic == "foo" || topic == "bar" }
	tests := []struct {
		name        string
		member      memberAssignment
		targetEpoch int32
		target      []TopicPartitions
		owners      []TopicPartitions // held by other members
		owned       []TopicPartitions // nil: not sent
		want        memberAssignment
	}{
		{
			name:   "testStableToStable",
			member: memberAssignment{state: MemberStable, epoch: 10, previousEpoch: 10, assigned: act(tps("bar", 4, 5, 6), tps("foo", 1, 2, 3))},
			target: asg(tps("bar", 4, 5, 6), tps("foo", 1, 2, 3)), targetEpoch: 11,
			owned: asg(),
			want:  memberAssignment{state: MemberStable, epoch: 11, previousEpoch: 10, assigned: act(tps("bar", 4, 5, 6), tps("foo", 1, 2, 3))},
		},
		{
			name:   "testStableToStableWithNewPartitions",
			member: memberAssignment{state: MemberStable, epoch: 10, previousEpoch: 10, assigned: act(tps("bar", 4, 5, 6), tps("foo", 1, 2, 3))},
			target: asg(tps("bar", 4, 5, 6, 7), tps("foo", 1, 2, 3, 4)), targetEpoch: 11,
			owned: asg(),
			want:  memberAssignment{state: MemberStable, epoch: 11, previousEpoch: 10, assigned: act(tps("bar", 4, 5, 6, 7), tps("foo", 1, 2, 3, 4))},
		},
		{
			name:   "testStableToUnrevokedPartitions",
			member: memberAssignment{state: MemberStable, epoch: 10, previousEpoch: 10, assigned: act(tps("bar", 4, 5, 6), tps("foo", 1, 2, 3))},
			target: asg(tps("bar", 5, 6, 7), tps("foo", 2, 3, 4)), targetEpoch: 11,
			owned: asg(tps("bar", 4, 5, 6), tps("foo", 1, 2, 3)),
			want: memberAssignment{state: MemberUnrevokedPartitions, epoch: 10, previousEpoch: 10,
				assigned: act(tps("bar", 5, 6), tps("foo", 2, 3)), pending: act(tps("bar", 4), tps("foo", 1))},
		},
		{
			name:   "testStableToUnreleasedPartitions",
			member: memberAssignment{state: MemberStable, epoch: 10, previousEpoch: 10, assigned: act(tps("bar", 4, 5, 6), tps("foo", 1, 2, 3))},
			target: asg(tps("bar", 4, 5, 6, 7), tps("foo", 1, 2, 3, 4)), targetEpoch: 11,
			owners: asg(tps("bar", 7), tps("foo", 4)),
			owned:  asg(),
			want:   memberAssignment{state: MemberUnreleasedPartitions, epoch: 11, previousEpoch: 10, assigned: act(tps("bar", 4, 5, 6), tps("foo", 1, 2, 3))},
		},
		{
			// Owned partitions that do not include the revoked ones: the
			// member has already revoked, so it moves on at once.
			name:   "testStableToUnreleasedPartitionsWithOwnedPartitionsNotHavingRevokedPartitions",
			member: memberAssignment{state: MemberStable, epoch: 10, previousEpoch: 10, assigned: act(tps("bar", 4, 5, 6), tps("foo", 1, 2, 3))},
			target: asg(tps("bar", 4, 5, 6, 7), tps("foo", 1, 2)), targetEpoch: 11,
			owners: asg(tps("bar", 7)),
			owned:  asg(tps("foo", 1, 2)),
			want:   memberAssignment{state: MemberUnreleasedPartitions, epoch: 11, previousEpoch: 10, assigned: act(tps("bar", 4, 5, 6), tps("foo", 1, 2))},
		},
		{
			name: "testUnrevokedPartitionsToStable",
			member: memberAssignment{state: MemberUnrevokedPartitions, epoch: 10, previousEpoch: 10,
				assigned: act(tps("bar", 5, 6), tps("foo", 2, 3)), pending: act(tps("bar", 4), tps("foo", 1))},
			target: asg(tps("bar", 5, 6), tps("foo", 2, 3)), targetEpoch: 11,
			owned: asg(tps("bar", 5, 6), tps("foo", 2, 3)),
			want:  memberAssignment{state: MemberStable, epoch: 11, previousEpoch: 10, assigned: act(tps("bar", 5, 6), tps("foo", 2, 3))},
		},
		{
			name: "testRemainsInUnrevokedPartitions",
			member: memberAssignment{state: MemberUnrevokedPartitions, epoch: 10, previousEpoch: 10,
				assigned: act(tps("bar", 5, 6), tps("foo", 2, 3)), pending: act(tps("bar", 4), tps("foo", 1))},
			target: asg(tps("bar", 6), tps("foo", 3)), targetEpoch: 12,
			owned: nil, // not sent: the member is assumed to still own them
			want: memberAssignment{state: MemberUnrevokedPartitions, epoch: 10, previousEpoch: 10,
				assigned: act(tps("bar", 5, 6), tps("foo", 2, 3)), pending: act(tps("bar", 4), tps("foo", 1))},
		},
		{
			name: "testUnrevokedPartitionsToUnrevokedPartitions",
			member: memberAssignment{state: MemberUnrevokedPartitions, epoch: 10, previousEpoch: 10,
				assigned: act(tps("bar", 5, 6), tps("foo", 2, 3)), pending: act(tps("bar", 4), tps("foo", 1))},
			target: asg(tps("bar", 6), tps("foo", 3)), targetEpoch: 12,
			owned: asg(tps("bar", 5, 6), tps("foo", 2, 3)),
			want: memberAssignment{state: MemberUnrevokedPartitions, epoch: 10, previousEpoch: 10,
				assigned: act(tps("bar", 6), tps("foo", 3)), pending: act(tps("bar", 5), tps("foo", 2))},
		},
		{
			name: "testUnrevokedPartitionsToUnreleasedPartitions",
			member: memberAssignment{state: MemberUnrevokedPartitions, epoch: 11, previousEpoch: 10,
				assigned: act(tps("bar", 5, 6), tps("foo", 2, 3)), pending: act(tps("bar", 4), tps("foo", 1))},
			target: asg(tps("bar", 5, 6, 7), tps("foo", 2, 3)), targetEpoch: 11,
			owners: asg(tps("bar", 7)),
			owned:  asg(tps("bar", 5, 6), tps("foo", 2, 3)),
			want:   memberAssignment{state: MemberUnreleasedPartitions, epoch: 11, previousEpoch: 11, assigned: act(tps("bar", 5, 6), tps("foo", 2, 3))},
		},
		{
			name:   "testUnreleasedPartitionsToStable",
			member: memberAssignment{state: MemberUnreleasedPartitions, epoch: 11, previousEpoch: 11, assigned: act(tps("bar", 5, 6), tps("foo", 2, 3))},
			target: asg(tps("bar", 5, 6), tps("foo", 2, 3)), targetEpoch: 12,
			owned: asg(tps("bar", 5, 6), tps("foo", 2, 3)),
			want:  memberAssignment{state: MemberStable, epoch: 12, previousEpoch: 11, assigned: act(tps("bar", 5, 6), tps("foo", 2, 3))},
		},
		{
			name:   "testUnreleasedPartitionsToStableWithNewPartitions",
			member: memberAssignment{state: MemberUnreleasedPartitions, epoch: 11, previousEpoch: 11, assigned: act(tps("bar", 5, 6), tps("foo", 2, 3))},
			target: asg(tps("bar", 5, 6, 7), tps("foo", 2, 3)), targetEpoch: 11,
			owned: asg(tps("bar", 5, 6), tps("foo", 2, 3)),
			want:  memberAssignment{state: MemberStable, epoch: 11, previousEpoch: 11, assigned: act(tps("bar", 5, 6, 7), tps("foo", 2, 3))},
		},
		{
			name:   "testUnreleasedPartitionsToUnreleasedPartitions",
			member: memberAssignment{state: MemberUnreleasedPartitions, epoch: 11, previousEpoch: 11, assigned: act(tps("bar", 5, 6), tps("foo", 2, 3))},
			target: asg(tps("bar", 5, 6, 7), tps("foo", 2, 3)), targetEpoch: 11,
			owners: asg(tps("bar", 7)),
			owned:  asg(tps("bar", 5, 6), tps("foo", 2, 3)),
			want:   memberAssignment{state: MemberUnreleasedPartitions, epoch: 11, previousEpoch: 11, assigned: act(tps("bar", 5, 6), tps("foo", 2, 3))},
		},
		{
			name:   "testUnreleasedPartitionsToUnrevokedPartitions",
			member: memberAssignment{state: MemberUnreleasedPartitions, epoch: 11, previousEpoch: 11, assigned: act(tps("bar", 5, 6), tps("foo", 2, 3))},
			target: asg(tps("bar", 6), tps("foo", 3)), targetEpoch: 12,
			owned: asg(tps("bar", 5, 6), tps("foo", 2, 3)),
			want: memberAssignment{state: MemberUnrevokedPartitions, epoch: 11, previousEpoch: 11,
				assigned: act(tps("bar", 6), tps("foo", 3)), pending: act(tps("bar", 5), tps("foo", 2))},
		},
		{
			// A member that owns nothing in the UNKNOWN state starts over at
			// the target epoch.
			name:   "testUnknownState/owns nothing",
			member: memberAssignment{state: MemberUnknown, epoch: 11, previousEpoch: 11, assigned: act(tps("bar", 5, 6), tps("foo", 2, 3))},
			target: asg(tps("bar", 5, 6), tps("foo", 2, 3)), targetEpoch: 11,
			owned: asg(),
			want:  memberAssignment{state: MemberStable, epoch: 11, previousEpoch: 11, assigned: act(tps("bar", 5, 6), tps("foo", 2, 3))},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := currentAssignmentBuilder{
				member: tc.member, targetEpoch: tc.targetEpoch, target: taskSets{tc.target}, subscribed: subscribedFooBar,
				unreleased: unreleasedFuncs{roleActive: func(topic string, p int32) bool {
					return containsPartition(tc.owners, topic, p) && !containsPartition(tc.member.pending[roleActive], topic, p)
				}},
				owned: taskSets{tc.owned}, ownedSent: tc.owned != nil,
			}
			got, err := b.build()
			require.NoError(t, err)
			assert.True(t, got.equal(&tc.want), "got %+v\nwant %+v", got, tc.want)
		})
	}
}

// TestCurrentAssignmentBuilder_UnknownStateFences proves Kafka's
// testUnknownState: a member in a state this version does not know is
// fenced unless its heartbeat says it owns nothing.
func TestCurrentAssignmentBuilder_UnknownStateFences(t *testing.T) {
	for _, owned := range [][]TopicPartitions{nil, asg(tps("foo", 2))} {
		b := currentAssignmentBuilder{
			member: memberAssignment{state: MemberUnknown, epoch: 11, assigned: act(tps("foo", 2))},
			target: taskSets{asg(tps("foo", 2))}, targetEpoch: 11, subscribed: func(string) bool { return true },
			owned: taskSets{owned}, ownedSent: owned != nil,
		}
		_, err := b.build()
		assert.ErrorIs(t, err, errUnknownMemberState{})
	}
}

// TestCurrentAssignmentBuilder_SubscriptionChange proves the
// withHasSubscriptionChanged path (updateCurrentAssignment): a STABLE member
// at the target epoch that unsubscribed from a topic must revoke it before
// anything else, keeping its epoch.
func TestCurrentAssignmentBuilder_SubscriptionChange(t *testing.T) {
	b := currentAssignmentBuilder{
		member: memberAssignment{state: MemberStable, epoch: 10, previousEpoch: 9, assigned: act(tps("bar", 1), tps("foo", 2))},
		target: taskSets{asg(tps("bar", 1), tps("foo", 2))}, targetEpoch: 10,
		subscribed:                     func(topic string) bool { return topic == "foo" },
		enforceSubscriptionConsistency: true,
		owned:                          taskSets{asg(tps("bar", 1), tps("foo", 2))}, ownedSent: true,
	}
	got, err := b.build()
	require.NoError(t, err)
	want := memberAssignment{state: MemberUnrevokedPartitions, epoch: 10, previousEpoch: 10, assigned: act(tps("foo", 2)), pending: act(tps("bar", 1))}
	assert.True(t, got.equal(&want), "got %+v", got)

	// Already revoked (owned no longer lists bar): shrink and stay STABLE.
	b.owned = taskSets{asg(tps("foo", 2))}
	got, err = b.build()
	require.NoError(t, err)
	want = memberAssignment{state: MemberStable, epoch: 10, previousEpoch: 10, assigned: act(tps("foo", 2))}
	assert.True(t, got.equal(&want), "got %+v", got)
}

// TestIsSubset proves the previous-epoch rule's helper: a missing owned
// field is never a subset; an owned partition outside the assignment is not.
func TestIsSubset(t *testing.T) {
	assigned := asg(tps("foo", 1, 2, 3))
	assert.False(t, isSubset(nil, assigned))
	assert.True(t, isSubset(asg(), assigned))
	assert.True(t, isSubset(asg(tps("foo", 3, 1)), assigned))
	assert.False(t, isSubset(asg(tps("foo", 4)), assigned))
	assert.False(t, isSubset(asg(tps("bar", 1)), assigned))
}
