package coordinator_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/coordinator/coordtest"
)

// TestLogFoldsIntoSnapshotAndReloads proves a log whose committed tail
// passes the snapshot threshold drops the records it folded (StartOffset
// moves, offsets keep counting), and that a shard moved to another broker
// loads from the snapshot plus the tail to the state it had: the same
// committed offsets, and the replay invariant (coordtest.CheckReplay, which
// restores from the snapshot too) holds on both brokers.
func TestLogFoldsIntoSnapshotAndReloads(t *testing.T) {
	cfg := onePartition()
	logs, err := coordinator.NewLogs(1)
	require.NoError(t, err)
	require.NoError(t, logs.SetSnapshotEvery(4))
	clock := coordtest.NewClock(time.UnixMilli(1_700_000_000_000))
	topics := coordtest.WithTopics(map[string]int32{"foo": 1})
	a, err := coordtest.New(coordtest.WithConfig(cfg), coordtest.WithLogs(logs), coordtest.WithClock(clock), topics)
	require.NoError(t, err)
	l := logs.Partition(0)

	for i := range int64(10) {
		_, err := coordtest.Await(a, a.Coordinator.CommitOffsets(simpleCommit("g", i)))
		require.NoError(t, err)
	}
	assert.Equal(t, int64(10), l.HighWatermark())
	assert.Equal(t, int64(10), l.EndOffset(), "offsets keep counting from 0")
	assert.Equal(t, int64(8), l.StartOffset(), "folded at 4 and at 8 committed records")
	assert.Len(t, l.Committed(), 2, "only the tail is kept")
	require.NoError(t, a.CheckReplay())

	require.NoError(t, a.Coordinator.UnloadShard(0))
	b, err := coordtest.New(coordtest.WithConfig(cfg), coordtest.WithLogs(logs), coordtest.WithClock(clock), coordtest.WithBrokerID(1), topics)
	require.NoError(t, err)
	offs, err := b.Offsets("g")
	require.NoError(t, err)
	require.Len(t, offs, 1)
	assert.Equal(t, int64(9), offs[0].Offset)
	require.NoError(t, b.CheckReplay())
	_, err = coordtest.Await(b, b.Coordinator.CommitOffsets(simpleCommit("h", 1)))
	require.NoError(t, err)
	require.NoError(t, b.CheckReplay())
}

// TestLogRestoreRefusesAnotherConfiguration proves a snapshot does not
// restore under a shard configuration other than its own: a copy carries
// the configuration it was taken under.
func TestLogRestoreRefusesAnotherConfiguration(t *testing.T) {
	logs, err := coordinator.NewLogs(1)
	require.NoError(t, err)
	require.NoError(t, logs.SetSnapshotEvery(1))
	h, err := coordtest.New(coordtest.WithLogs(logs), coordtest.WithPartitions(0), coordtest.WithConfig(onePartition()), coordtest.WithTopics(map[string]int32{"foo": 1}))
	require.NoError(t, err)
	_, err = coordtest.Await(h, h.Coordinator.CommitOffsets(simpleCommit("g", 1)))
	require.NoError(t, err)
	require.Equal(t, int64(1), logs.Partition(0).StartOffset())
	live, err := h.Coordinator.CommittedShard(0)
	require.NoError(t, err)

	_, err = logs.Partition(0).Restore(live.Config(), nil)
	require.NoError(t, err)
	other := live.Config()
	other.OffsetsRetentionMs++
	_, err = logs.Partition(0).Restore(other, nil)
	assert.Error(t, err)
}

// TestSetSnapshotEveryRefusesNegative proves the threshold is validated
// with a *ConfigError, and that 0 keeps the whole log.
func TestSetSnapshotEveryRefusesNegative(t *testing.T) {
	logs, err := coordinator.NewLogs(1)
	require.NoError(t, err)
	var cerr *coordinator.ConfigError
	require.ErrorAs(t, logs.SetSnapshotEvery(-1), &cerr)
	require.NoError(t, logs.SetSnapshotEvery(1))
	require.NoError(t, logs.SetSnapshotEvery(0)) // replaces 1: never fold
	h, err := coordtest.New(coordtest.WithLogs(logs), coordtest.WithConfig(onePartition()), coordtest.WithTopics(map[string]int32{"foo": 1}))
	require.NoError(t, err)
	for i := range int64(12) {
		_, err = coordtest.Await(h, h.Coordinator.CommitOffsets(simpleCommit("g", i)))
		require.NoError(t, err)
	}
	assert.Zero(t, logs.Partition(0).StartOffset())
}

func onePartition() coordinator.Config {
	c := coordinator.DefaultConfig()
	c.NumPartitions = 1
	return c
}
