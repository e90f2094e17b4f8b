package coordinator_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/coordinator/coordtest"
	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/shard"
)

var deletedFoo = []shard.TopicPartitions{{Topic: "foo", Partitions: []int32{0, 1}}}

// TestOnPartitionsDeleted: the "on-partition-deleted" write goes to every
// hosted shard (Kafka's scheduleWriteAllOperation); each tombstones its
// groups' offsets on the deleted partitions and keeps the others.
func TestOnPartitionsDeleted(t *testing.T) {
	cfg := coordinator.DefaultConfig()
	cfg.NumPartitions = 3
	h, err := coordtest.New(coordtest.WithConfig(cfg), coordtest.WithTopics(map[string]int32{"foo": 2, "bar": 1}))
	require.NoError(t, err)
	groups := []string{"alpha", "beta", "gamma", "delta", "epsilon"}
	shards := map[int32]int{}
	for _, g := range groups {
		require.NoError(t, h.Commit(g, "", -1, "foo", 0, 5))
		require.NoError(t, h.Commit(g, "", -1, "foo", 1, 5))
		require.NoError(t, h.Commit(g, "", -1, "bar", 0, 6))
		shards[h.Coordinator.PartitionFor(g)]++
	}
	require.Len(t, shards, 3, "the test needs groups on every shard")
	require.NoError(t, h.Coordinator.SetTopics(map[string]int32{"bar": 1}))

	rs, err := coordtest.Await(h, h.Coordinator.OnPartitionsDeleted(deletedFoo))
	require.NoError(t, err)
	require.Len(t, rs, 3)
	for i, r := range rs {
		require.NoError(t, r.Err)
		assert.Equal(t, int32(i), r.Partition)
		assert.Equal(t, 2*shards[r.Partition], r.Value, "two tombstones per group of shard %d", r.Partition)
	}
	for _, g := range groups {
		offs, err := h.Offsets(g)
		require.NoError(t, err)
		require.Len(t, offs, 1, g)
		assert.Equal(t, "bar", offs[0].Topic, "%s keeps its offset of bar", g)
	}
	require.NoError(t, h.CheckReplay())
}

// TestOnPartitionsDeletedLoadingShard is GroupCoordinatorServiceTest
// .testOnPartitionsDeleted: one shard's write fails (there a future failed
// with COORDINATOR_LOAD_IN_PROGRESS, here a shard still loading), the
// service carries on with the others and the call does not fail.
func TestOnPartitionsDeletedLoadingShard(t *testing.T) {
	clock := coordtest.NewClock(coordtest.Epoch)
	cfg := coordinator.DefaultConfig()
	cfg.NumPartitions = 2
	cfg.LoadDelay = time.Second
	c, err := coordinator.New(cfg, coordinator.Options{Clock: clock})
	require.NoError(t, err)
	require.NoError(t, c.SetTopics(map[string]int32{"foo": 2}))
	require.NoError(t, c.Startup())
	require.NoError(t, c.LoadShard(0))
	require.NoError(t, c.LoadShard(1))
	require.NoError(t, clock.Set(clock.Now().Add(time.Second)))
	c.Poll()
	group := "g"
	p := c.PartitionFor(group)
	_, err = c.CommitOffsets(simpleCommit(group, 7)).Result()
	require.NoError(t, err)
	other := 1 - p
	require.NoError(t, c.UnloadShard(other))
	require.NoError(t, c.LoadShard(other)) // loading for a second

	f := c.OnPartitionsDeleted(deletedFoo)
	require.True(t, f.Done(), "commit delay 0: every write is committed at once")
	rs, err := f.Result()
	require.NoError(t, err)
	require.Len(t, rs, 2)
	for _, r := range rs {
		if r.Partition == other {
			assert.ErrorIs(t, r.Err, kerr.CoordinatorLoadInProgress)
			continue
		}
		require.NoError(t, r.Err)
		assert.Equal(t, 1, r.Value, "the group's foo-0 offset")
	}
	offs, err := c.FetchOffsets(group, nil, false)
	require.NoError(t, err)
	assert.Empty(t, offs)
}

// TestOnPartitionsDeletedWhenServiceIsNotStarted is Kafka's test of the same
// name: an inactive coordinator answers COORDINATOR_NOT_AVAILABLE; and bad
// input is refused before any shard is written.
func TestOnPartitionsDeletedWhenServiceIsNotStarted(t *testing.T) {
	c, err := coordinator.New(coordinator.DefaultConfig(), coordinator.Options{Clock: coordtest.NewClock(coordtest.Epoch)})
	require.NoError(t, err)
	_, err = c.OnPartitionsDeleted(deletedFoo).Result()
	assert.ErrorIs(t, err, kerr.CoordinatorNotAvailable)

	h, err := coordtest.New(coordtest.WithTopics(map[string]int32{"foo": 2}))
	require.NoError(t, err)
	require.NoError(t, h.Commit("g", "", -1, "foo", 0, 5))
	before := len(h.Records())
	for name, tc := range map[string]struct {
		topics []shard.TopicPartitions
		want   *kerr.Error
	}{
		"empty topic":        {[]shard.TopicPartitions{{Topic: "", Partitions: []int32{0}}}, kerr.InvalidTopicException},
		"no partitions":      {[]shard.TopicPartitions{{Topic: "foo"}}, kerr.InvalidRequest},
		"negative partition": {[]shard.TopicPartitions{{Topic: "foo", Partitions: []int32{0, -2}}}, kerr.InvalidRequest},
	} {
		_, err := coordtest.Await(h, h.Coordinator.OnPartitionsDeleted(tc.topics))
		assert.ErrorIs(t, err, tc.want, name)
		assert.Len(t, h.Records(), before, "%s: nothing appended", name)
	}
	offs, err := h.Offsets("g")
	require.NoError(t, err)
	assert.Len(t, offs, 1, "the offset is still there")
}
