package shard

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestShareGroupAssignsOnlyInitializedPartitions follows Kafka 4.4's
// shareGroupHeartbeat and initializeShareGroupState (the
// GroupMetadataManagerTest share-initialisation scenarios): a new share
// group's first member is assigned nothing, the heartbeat records the
// subscribed partitions as initialising and schedules their
// initialisation; once it has run, the member's next heartbeat finds the
// target short of the initialised partitions, bumps the group epoch and
// gets them.
func TestShareGroupAssignsOnlyInitializedPartitions(t *testing.T) {
	h := newHarness(t, testConfig(), map[string]int32{"foo": 3, "bar": 1})
	res, err := h.s.ShareGroupHeartbeat(h.nowMs, ShareGroupHeartbeatRequest{GroupID: "g", MemberID: "m1", SubscribedTopicNames: []string{"foo"}})
	require.NoError(t, err)
	assert.Equal(t, int32(2), res.Response.MemberEpoch)
	assert.Empty(t, res.Response.Assignment)
	init := []TopicPartitions{{Topic: "foo", Partitions: []int32{0, 1, 2}}}
	assert.Contains(t, res.Records, Record(&ShareGroupStatePartitionMetadata{Group: "g", Initializing: init, TimestampMs: h.nowMs}))
	task := Task{Kind: TaskShareInitialize, Type: Share, GroupID: "g", Partitions: init}
	assert.Contains(t, res.Timers, TimerOp{Key: "share-initialize-g-foo-0", DeadlineMs: h.nowMs, Task: task})
	applyResult(h, res)

	// Before the initialisation runs, a heartbeat asks for nothing again.
	again, err := h.s.ShareGroupHeartbeat(h.nowMs, ShareGroupHeartbeatRequest{GroupID: "g", MemberID: "m1", MemberEpoch: 2})
	require.NoError(t, err)
	assert.Empty(t, again.Records)

	h.advance(h.nowMs)
	d, _ := h.s.DescribeGroup("g")
	assert.Equal(t, init, d.ShareInitialized)
	assert.Empty(t, d.ShareInitializing)

	r := h.shareHeartbeat("g", "m1", 2)
	assert.Equal(t, int32(3), r.MemberEpoch, "the initialised partitions bump the group epoch")
	assert.Equal(t, init, r.Assignment)
	requireSnapshotEqual(t, h.s.Snapshot(), h.rebuild().Snapshot(), "rebuild")

	// A new subscription asks for the new topic only; its partitions are
	// not assigned until initialised.
	res, err = h.s.ShareGroupHeartbeat(h.nowMs, ShareGroupHeartbeatRequest{GroupID: "g", MemberID: "m1", MemberEpoch: 3,
		SubscribedTopicNames: []string{"bar", "foo"}})
	require.NoError(t, err)
	assert.Equal(t, init, res.Response.Assignment)
	assert.Contains(t, res.Records, Record(&ShareGroupStatePartitionMetadata{Group: "g",
		Initializing: []TopicPartitions{{Topic: "bar", Partitions: []int32{0}}}, Initialized: init, TimestampMs: h.nowMs}))
	applyResult(h, res)
	h.advance(h.nowMs)
	r = h.shareHeartbeat("g", "m1", res.Response.MemberEpoch)
	assert.Equal(t, []TopicPartitions{{Topic: "bar", Partitions: []int32{0}}, {Topic: "foo", Partitions: []int32{0, 1, 2}}}, r.Assignment)
}

// TestShareInitializationRetriedAfterInterval: an initialisation that
// never completes (its task lost, as an in-flight persister call is when
// the coordinator moves) is asked for again by the first heartbeat after
// group.share.initialize.retry.interval.ms, not before (Kafka's
// subscribedTopicsChangeMap); a load restamps the initialising partitions.
func TestShareInitializationRetriedAfterInterval(t *testing.T) {
	h := newHarness(t, testConfig(), map[string]int32{"foo": 2})
	res, err := h.s.ShareGroupHeartbeat(h.nowMs, ShareGroupHeartbeatRequest{GroupID: "g", MemberID: "m1", SubscribedTopicNames: []string{"foo"}})
	require.NoError(t, err)
	h.replay(res.Records...) // the timer is lost
	h.nowMs += ShareInitializeRetryIntervalMs - 1
	res, err = h.s.ShareGroupHeartbeat(h.nowMs, ShareGroupHeartbeatRequest{GroupID: "g", MemberID: "m1", MemberEpoch: 2})
	require.NoError(t, err)
	assert.Empty(t, res.Timers[1:], "within the interval: only the session timer")

	h.nowMs++
	res, err = h.s.ShareGroupHeartbeat(h.nowMs, ShareGroupHeartbeatRequest{GroupID: "g", MemberID: "m1", MemberEpoch: 2})
	require.NoError(t, err)
	require.Len(t, res.Records, 1)
	assert.Equal(t, &ShareGroupStatePartitionMetadata{Group: "g",
		Initializing: []TopicPartitions{{Topic: "foo", Partitions: []int32{0, 1}}}, TimestampMs: h.nowMs}, res.Records[0])

	// A load restamps: no retry within the interval after it.
	s := h.rebuild()
	s.OnLoaded(h.nowMs + 1_000_000)
	res, err = s.ShareGroupHeartbeat(h.nowMs+1_000_000+ShareInitializeRetryIntervalMs-1, ShareGroupHeartbeatRequest{GroupID: "g", MemberID: "m1", MemberEpoch: 2})
	require.NoError(t, err)
	assert.Empty(t, res.Records)
}

// TestShareStateForgetsDeletedTopics is Kafka's maybeCleanupShareGroupState:
// a deleted topic leaves every share group's state metadata; a topic no
// group knows writes nothing. DeleteGroups tombstones the metadata.
func TestShareStateForgetsDeletedTopics(t *testing.T) {
	h := newHarness(t, testConfig(), map[string]int32{"foo": 2, "bar": 1})
	h.shareJoin("g", "m1", "bar", "foo")
	assert.Empty(t, h.s.MaybeCleanupShareGroupState(h.nowMs, []string{"nope"}).Records)
	res := h.s.MaybeCleanupShareGroupState(h.nowMs, []string{"bar"})
	require.Len(t, res.Records, 1)
	assert.Equal(t, &ShareGroupStatePartitionMetadata{Group: "g", Initialized: []TopicPartitions{{Topic: "foo", Partitions: []int32{0, 1}}},
		TimestampMs: h.nowMs}, res.Records[0])
	applyResult(h, res)

	h.shareHeartbeat("g", "m1", -1)
	del, err := h.s.DeleteGroups([]string{"g"})
	require.NoError(t, err)
	assert.Contains(t, del.Records, Record(&ShareGroupStatePartitionMetadata{Group: "g", Tombstone: true}))
	applyResult(h, del)
	requireSnapshotEqual(t, h.s.Snapshot(), h.rebuild().Snapshot(), "rebuild")
}

// TestShareStatePartitionMetadataReplayRefusesBadLists: replay checks the
// record's lists and changes nothing on a bad one.
func TestShareStatePartitionMetadataReplayRefusesBadLists(t *testing.T) {
	h := newHarness(t, testConfig(), map[string]int32{"foo": 2})
	before := h.s.Snapshot()
	for _, bad := range [][]TopicPartitions{
		{{Topic: "foo", Partitions: []int32{1, 0}}},
		{{Topic: "foo", Partitions: []int32{-1}}},
		{{Topic: "foo"}, {Topic: "foo"}},
		{{Topic: ""}},
	} {
		err := h.s.Replay(h.s.LastOffset()+1, &ShareGroupStatePartitionMetadata{Group: "g", Initialized: bad})
		assert.ErrorIs(t, err, ErrReplay, "%v", bad)
	}
	after := h.s.Snapshot()
	after.LastOffset = before.LastOffset
	requireSnapshotEqual(t, before, after, "a refused record changes nothing")
}
