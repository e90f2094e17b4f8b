package refmodel_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/offsets"
	"github.com/coordsim/coordsim/shard"
	"github.com/coordsim/coordsim/sim/refmodel"
)

func fold(t *testing.T, records ...shard.Record) refmodel.Facts {
	t.Helper()
	m := refmodel.New()
	require.NoError(t, m.Fold(0, records))
	assert.Equal(t, int64(len(records)), m.Next())
	return m.Facts()
}

func val(offset int64) offsets.OffsetAndMetadata {
	return offsets.OffsetAndMetadata{Offset: offset, LeaderEpoch: offsets.NoLeaderEpoch, ExpireTimestampMs: offsets.NoExpireTimestamp}
}

func commit(group string, p int32, offset, producer int64) *shard.OffsetCommit {
	return &shard.OffsetCommit{Group: group, Topic: "t", Partition: p, Value: val(offset), ProducerID: producer}
}

func key(group string, p int32) offsets.Key {
	return offsets.Key{Group: group, Topic: "t", Partition: p}
}

func tps(ps ...int32) []shard.TopicPartitions {
	return []shard.TopicPartitions{{Topic: "t", Partitions: ps}}
}

// TestConsumerGroup: the latest record per key wins, a member's facts come
// from its three records, and the tombstones remove what they name.
func TestConsumerGroup(t *testing.T) {
	f := fold(t,
		&shard.ConsumerGroupMetadata{Group: "g", Epoch: 2},
		&shard.ConsumerGroupMemberMetadata{Group: "g", MemberID: "b"},
		&shard.ConsumerGroupMemberMetadata{Group: "g", MemberID: "a"},
		&shard.ConsumerGroupTargetAssignmentMember{Group: "g", MemberID: "a", Partitions: tps(1, 0)},
		&shard.ConsumerGroupTargetAssignmentMetadata{Group: "g", AssignmentEpoch: 2},
		&shard.ConsumerGroupCurrentMemberAssignment{Group: "g", MemberID: "a", MemberEpoch: 2, Partitions: tps(0), PartitionsPendingRevocation: tps(2)},
		&shard.ConsumerGroupMetadata{Group: "g", Epoch: 3},
	)
	assert.Equal(t, []refmodel.Group{{ID: "g", Type: shard.Consumer, Epoch: 3, AssignmentEpoch: 2, Members: []refmodel.Member{
		{ID: "a", Epoch: 2, Assigned: []string{"t-0"}, Revoking: []string{"t-2"}, Target: []string{"t-0", "t-1"}},
		{ID: "b"},
	}}}, f.Groups)

	f = fold(t,
		&shard.ConsumerGroupMetadata{Group: "g", Epoch: 2},
		&shard.ConsumerGroupMemberMetadata{Group: "g", MemberID: "a"},
		&shard.ConsumerGroupCurrentMemberAssignment{Group: "g", MemberID: "a", MemberEpoch: 2, Partitions: tps(0)},
		&shard.ConsumerGroupCurrentMemberAssignment{Group: "g", MemberID: "a", Tombstone: true},
		&shard.ConsumerGroupTargetAssignmentMember{Group: "g", MemberID: "a", Tombstone: true},
		&shard.ConsumerGroupMemberMetadata{Group: "g", MemberID: "a", Tombstone: true},
	)
	assert.Equal(t, []refmodel.Group{{ID: "g", Type: shard.Consumer, Epoch: 2, AssignmentEpoch: refmodel.InitialAssignmentEpoch}}, f.Groups)

	f = fold(t,
		&shard.ConsumerGroupMetadata{Group: "g", Epoch: 2},
		&shard.ConsumerGroupTargetAssignmentMetadata{Group: "g", Tombstone: true},
		&shard.ConsumerGroupMetadata{Group: "g", Tombstone: true},
	)
	assert.Empty(t, f.Groups)
}

// TestStreamsAndShare: a streams member's tasks by role; a share member's
// partitions.
func TestStreamsAndShare(t *testing.T) {
	f := fold(t,
		&shard.StreamsGroupMetadata{Group: "s", Epoch: 4},
		&shard.StreamsGroupMemberMetadata{Group: "s", MemberID: "m"},
		&shard.StreamsGroupCurrentMemberAssignment{Group: "s", MemberID: "m", MemberEpoch: 4,
			ActiveTasks: []shard.TaskIDs{{SubtopologyID: "0", Partitions: []int32{1}}}, StandbyTasks: []shard.TaskIDs{{SubtopologyID: "1", Partitions: []int32{0}}},
			WarmupTasksPendingRevocation: []shard.TaskIDs{{SubtopologyID: "0", Partitions: []int32{2}}}},
		&shard.ShareGroupMetadata{Group: "h", Epoch: 1},
		&shard.ShareGroupMemberMetadata{Group: "h", MemberID: "x"},
		&shard.ShareGroupTargetAssignmentMember{Group: "h", MemberID: "x", Partitions: tps(3)},
		&shard.ShareGroupCurrentMemberAssignment{Group: "h", MemberID: "x", MemberEpoch: 1, Partitions: tps(3)},
	)
	assert.Equal(t, []refmodel.Group{
		{ID: "h", Type: shard.Share, Epoch: 1, AssignmentEpoch: 1, Members: []refmodel.Member{{ID: "x", Epoch: 1, Assigned: []string{"t-3"}, Target: []string{"t-3"}}}},
		{ID: "s", Type: shard.Streams, Epoch: 4, AssignmentEpoch: 1, Members: []refmodel.Member{
			{ID: "m", Epoch: 4, Assigned: []string{"active:0-1", "standby:1-0"}, Revoking: []string{"warmup:0-2"}}}},
	}, f.Groups)
}

// TestOffsets: a commit creates the simple group, which only a
// GroupMetadata tombstone deletes; an offset tombstone deletes the offset.
func TestOffsets(t *testing.T) {
	f := fold(t, commit("c", 0, 5, shard.NoProducerID), commit("c", 0, 7, shard.NoProducerID), commit("c", 1, 1, shard.NoProducerID),
		&shard.OffsetCommit{Group: "c", Topic: "t", Partition: 1, Tombstone: true})
	assert.Equal(t, []refmodel.Group{{ID: "c", Type: shard.Classic}}, f.Groups)
	assert.Equal(t, []refmodel.Offset{{Key: key("c", 0), Value: val(7)}}, f.Offsets)

	f = fold(t, commit("c", 0, 5, shard.NoProducerID), &shard.OffsetCommit{Group: "c", Topic: "t", Partition: 0, Tombstone: true},
		&shard.GroupMetadata{Group: "c", Tombstone: true})
	assert.Empty(t, f.Groups)
	assert.Empty(t, f.Offsets)

	// A commit of an existing group creates nothing; a classic group's
	// generation is its latest record's.
	f = fold(t, &shard.ConsumerGroupMetadata{Group: "g", Epoch: 2}, commit("g", 0, 1, shard.NoProducerID),
		&shard.GroupMetadata{Group: "k", Generation: 3}, &shard.ClassicGroupState{Group: "k", Generation: 4})
	assert.Equal(t, []refmodel.Group{{ID: "g", Type: shard.Consumer, Epoch: 2, AssignmentEpoch: 1}, {ID: "k", Type: shard.Classic, Epoch: 4}}, f.Groups)
}

// TestForgetAsLoaded: a load keeps a classic group's last GroupMetadata
// generation, the simple group an offset commit made, and nothing of a
// group that only ever lived in memory.
func TestForgetAsLoaded(t *testing.T) {
	m := refmodel.New()
	require.NoError(t, m.Fold(0, []shard.Record{
		&shard.GroupMetadata{Group: "k", Generation: 3}, &shard.ClassicGroupState{Group: "k", Generation: 4},
		&shard.ClassicGroupState{Group: "s", Generation: 2}, commit("s", 0, 1, shard.NoProducerID),
		&shard.ClassicGroupState{Group: "x", Generation: 1},
		&shard.ClassicGroupState{Group: "y", Generation: 1},
	}))
	m.ForgetAsLoaded([]string{"k", "s", "x"})
	assert.Equal(t, []refmodel.Group{{ID: "k", Type: shard.Classic, Epoch: 3}, {ID: "s", Type: shard.Classic},
		{ID: "y", Type: shard.Classic, Epoch: 1}}, m.Facts().Groups)
}

// TestTransactions: pending until the marker; a commit marker commits
// unless a newer record set the offset, an abort drops; a tombstone drops
// pending offsets too.
func TestTransactions(t *testing.T) {
	f := fold(t, commit("g", 0, 1, 7), commit("g", 1, 1, 7))
	assert.Empty(t, f.Offsets)
	assert.Equal(t, []offsets.Key{key("g", 0), key("g", 1)}, f.Pending)
	assert.Equal(t, []string{"g"}, f.OpenTxn)

	f = fold(t, commit("g", 0, 1, 7), commit("g", 0, 2, 7), &shard.EndTransactionMarker{Group: "g", ProducerID: 7, Commit: true})
	assert.Equal(t, []refmodel.Offset{{Key: key("g", 0), Value: val(2)}}, f.Offsets)
	assert.Empty(t, f.Pending)
	assert.Empty(t, f.OpenTxn)

	f = fold(t, commit("g", 0, 3, shard.NoProducerID), commit("g", 0, 9, 7), &shard.EndTransactionMarker{Group: "g", ProducerID: 7})
	assert.Equal(t, []refmodel.Offset{{Key: key("g", 0), Value: val(3)}}, f.Offsets, "an abort drops the pending offset")
	assert.Empty(t, f.Pending)

	f = fold(t, commit("g", 0, 9, 7), commit("g", 0, 3, shard.NoProducerID), &shard.EndTransactionMarker{Group: "g", ProducerID: 7, Commit: true})
	assert.Equal(t, []refmodel.Offset{{Key: key("g", 0), Value: val(3)}}, f.Offsets, "the newer plain commit wins")

	f = fold(t, commit("g", 0, 9, 7), commit("g", 0, 3, 8), &shard.EndTransactionMarker{Group: "g", ProducerID: 8, Commit: true})
	assert.Equal(t, []refmodel.Offset{{Key: key("g", 0), Value: val(3)}}, f.Offsets, "another producer's pending offset stays pending")
	assert.Equal(t, []offsets.Key{key("g", 0)}, f.Pending)

	f = fold(t, commit("g", 0, 9, 7), &shard.OffsetCommit{Group: "g", Topic: "t", Tombstone: true}, &shard.EndTransactionMarker{Group: "g", ProducerID: 7, Commit: true})
	assert.Empty(t, f.Offsets)
	assert.Empty(t, f.Pending)
}

// TestFoldOrder: records are read once, in order.
func TestFoldOrder(t *testing.T) {
	m := refmodel.New()
	require.NoError(t, m.Fold(0, []shard.Record{commit("g", 0, 1, shard.NoProducerID)}))
	require.Error(t, m.Fold(2, []shard.Record{commit("g", 0, 2, shard.NoProducerID)}))
	require.Error(t, m.Fold(1, []shard.Record{&shard.StreamsGroupMetadata{Group: "g", Epoch: 1}, nil}))
}

// TestDiff names the first difference.
func TestDiff(t *testing.T) {
	want := refmodel.Facts{Groups: []refmodel.Group{{ID: "g", Type: shard.Consumer, Epoch: 2, AssignmentEpoch: 2,
		Members: []refmodel.Member{{ID: "a", Epoch: 2, Assigned: []string{"t-0"}}}}},
		Offsets: []refmodel.Offset{{Key: key("g", 0), Value: val(1)}}}
	assert.Empty(t, refmodel.Diff(want, want))
	got := refmodel.Facts{Groups: []refmodel.Group{{ID: "g", Type: shard.Consumer, Epoch: 2, AssignmentEpoch: 2,
		Members: []refmodel.Member{{ID: "a", Epoch: 2}}}}, Offsets: want.Offsets}
	assert.Contains(t, refmodel.Diff(want, got), "member a")
	got = refmodel.Facts{Groups: want.Groups, Offsets: []refmodel.Offset{{Key: key("g", 0), Value: val(2)}}}
	assert.Contains(t, refmodel.Diff(want, got), "offset")
	assert.Contains(t, refmodel.Diff(want, refmodel.Facts{}), "missing")
	assert.Contains(t, refmodel.Diff(refmodel.Facts{}, want), "should not exist")
}
