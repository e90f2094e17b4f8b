package coordtest_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/coordinator/coordtest"
	"github.com/coordsim/coordsim/plugin"
	"github.com/coordsim/coordsim/plugin/memstore"
	"github.com/coordsim/coordsim/shard"
)

// topo is a one-subtopology topology reading "in".
var topo = shard.Topology{Epoch: 1, Subtopologies: []shard.Subtopology{{ID: "0", SourceTopics: []string{"in"}}}}

// TestWithHooksCallsEveryHook proves WithHooks keeps its promise: every
// hook a caller gives is called (OnWrite was once dropped), the harness's
// own BeforeAppend and AfterReplay still work alongside the caller's, and a
// caller's BeforeAppend error fails the append.
func TestWithHooksCallsEveryHook(t *testing.T) {
	var before, replayed, delays int
	var writes []string
	var events []string
	failNext := false
	cfg := coordinator.DefaultConfig()
	cfg.NumPartitions = 3
	h, err := coordtest.New(coordtest.WithConfig(cfg), coordtest.WithPlugin(memstore.New()),
		coordtest.WithTopics(map[string]int32{"in": 2}),
		coordtest.WithHooks(coordinator.Hooks{
			BeforeAppend: func(int32, []shard.Record) error {
				before++
				if failNext {
					failNext = false
					return errors.New("disk full")
				}
				return nil
			},
			CommitDelay:     func(int32) time.Duration { delays++; return 10 * time.Millisecond },
			AfterReplay:     func(int32, int64, shard.Record) { replayed++ },
			OnTopologyEvent: func(e coordinator.TopologyEvent) { events = append(events, e.Kind.String()) },
			OnWrite: func(_ int32, op string, latest *shard.Shard, records []shard.Record) {
				require.NotNil(t, latest)
				require.NotEmpty(t, records)
				writes = append(writes, op)
			},
		}))
	require.NoError(t, err)

	r, err := h.JoinStreams("app", "m1", topo)
	require.NoError(t, err)
	require.NoError(t, h.Push("app", "m1", 1, plugin.SampleTopology(1, 2)))
	_, err = h.HeartbeatStreams("app", "m1", -1)
	require.NoError(t, err)
	_ = r

	assert.Positive(t, before, "BeforeAppend")
	assert.Positive(t, delays, "CommitDelay")
	assert.Equal(t, len(h.Records()), replayed, "the caller's AfterReplay sees what Records holds")
	assert.NotEmpty(t, writes, "OnWrite")
	assert.Contains(t, events, "solicited", "OnTopologyEvent")

	failNext = true
	n := len(h.Records())
	err = h.Commit("simple", "", -1, "in", 0, 5)
	require.Error(t, err, "the caller's BeforeAppend failed the append")
	assert.Len(t, h.Records(), n, "nothing was appended")

	h.FailNextAppend(errors.New("the harness's own failure"))
	require.Error(t, h.Commit("simple", "", -1, "in", 0, 5), "FailNextAppend still works with a caller's BeforeAppend")
	require.NoError(t, h.Commit("simple", "", -1, "in", 0, 5))
}

// TestCleanupCycleSettles proves CleanupCycle runs one cycle to its end:
// an empty streams group with a stored description is deleted from the
// store and its stored epoch finalized to -1, in one call, and a second
// call finds nothing to do.
func TestCleanupCycleSettles(t *testing.T) {
	store := memstore.New()
	cfg := coordinator.DefaultConfig()
	cfg.NumPartitions = 3
	cfg.CommitDelay = 50 * time.Millisecond
	h, err := coordtest.New(coordtest.WithConfig(cfg), coordtest.WithPlugin(store), coordtest.WithTopics(map[string]int32{"in": 2}))
	require.NoError(t, err)
	_, err = h.JoinStreams("app", "m1", topo)
	require.NoError(t, err)
	require.NoError(t, h.Push("app", "m1", 1, plugin.SampleTopology(1, 2)))
	_, err = h.HeartbeatStreams("app", "m1", -1)
	require.NoError(t, err)
	g, err := h.Group("app")
	require.NoError(t, err)
	require.Equal(t, int32(1), g.StoredDescriptionTopologyEpoch)

	require.True(t, h.CleanupCycle())
	_, _, inFlight := h.Coordinator.CleanupStats()
	assert.False(t, inFlight, "the cycle settled")
	g, err = h.Group("app")
	require.NoError(t, err)
	assert.Equal(t, int32(-1), g.StoredDescriptionTopologyEpoch, "finalized in committed state")
	got, err := store.GetTopology(t.Context(), "app", 1)
	require.NoError(t, err)
	assert.Nil(t, got, "the row is gone")
	require.True(t, h.CleanupCycle(), "a second cycle starts and finds nothing")
}
