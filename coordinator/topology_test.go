package coordinator_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/coordinator/coordtest"
	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/plugin"
	"github.com/coordsim/coordsim/plugin/faultstore"
	"github.com/coordsim/coordsim/plugin/memstore"
	"github.com/coordsim/coordsim/shard"
)

// kip is a one-shard coordinator with a topology store, the fixture of the
// KIP-1331 tests. Every group lives on partition 0, so "one write per shard"
// is observable.
type kip struct {
	t      *testing.T
	h      *coordtest.Harness
	store  *memstore.Store
	faults *faultstore.Store
	exec   *coordtest.ManualExecutor
	events []coordinator.TopologyEvent
	writes int // appends since the last reset
}

type kipOpt func(*coordinator.Config, *kipSetup)

type kipSetup struct {
	noPlugin bool
	manual   bool
}

func withProtocol(p coordinator.CleanupProtocol) kipOpt {
	return func(c *coordinator.Config, _ *kipSetup) { c.TopologyCleanupProtocol = p }
}
func withoutPlugin() kipOpt { return func(_ *coordinator.Config, s *kipSetup) { s.noPlugin = true } }
func withManualPlugin() kipOpt {
	return func(_ *coordinator.Config, s *kipSetup) { s.manual = true }
}
func withCommitDelay(d time.Duration) kipOpt {
	return func(c *coordinator.Config, _ *kipSetup) { c.CommitDelay = d }
}

func newKip(t *testing.T, opts ...kipOpt) *kip {
	t.Helper()
	cfg := coordinator.DefaultConfig()
	cfg.NumPartitions = 1
	cfg.OffsetsRetention = time.Minute
	cfg.OffsetsRetentionCheckInterval = time.Minute
	cfg.StreamsSessionTimeout = time.Minute // Kafka's maximum: members outlive a back-off window
	// KIP-1331's epochs move with topology upgrades, which Kafka does not
	// support yet: these tests opt in.
	cfg.StreamsTopologyUpdates = true
	var setup kipSetup
	for _, o := range opts {
		o(&cfg, &setup)
	}
	k := &kip{t: t, store: memstore.New(), exec: &coordtest.ManualExecutor{Auto: !setup.manual}}
	var err error
	k.faults, err = faultstore.New(k.store, faultstore.WithSeed(7))
	require.NoError(t, err)
	hopts := []coordtest.Option{
		coordtest.WithConfig(cfg),
		coordtest.WithTopics(map[string]int32{"in": 2}),
		coordtest.WithExecutor(k.exec),
		coordtest.WithHooks(coordinator.Hooks{
			OnTopologyEvent: func(e coordinator.TopologyEvent) { k.events = append(k.events, e) },
			BeforeAppend:    func(int32, []shard.Record) error { k.writes++; return nil },
		}),
	}
	if !setup.noPlugin {
		hopts = append(hopts, coordtest.WithPlugin(k.faults))
	}
	k.h, err = coordtest.New(hopts...)
	require.NoError(t, err)
	return k
}

func topologyAt(epoch int32) shard.Topology {
	return shard.Topology{Epoch: epoch, Subtopologies: []shard.Subtopology{{ID: "0", SourceTopics: []string{"in"}}}}
}

func description(seed uint64) *plugin.TopologyDescription { return plugin.SampleTopology(seed, 2) }

// join joins member m of group g at topology epoch e and returns the response.
func (k *kip) join(g, m string, e int32) shard.StreamsGroupHeartbeatResponse {
	k.t.Helper()
	topo := topologyAt(e)
	f := k.h.Coordinator.StreamsGroupHeartbeat(shard.StreamsGroupHeartbeatRequest{
		GroupID: g, MemberID: m, MemberEpoch: 0, RebalanceTimeoutMs: 1000, Topology: &topo, Version: 1})
	r, err := f.Result()
	require.NoError(k.t, err)
	return r
}

func (k *kip) heartbeat(g, m string, epoch int32, version int16) shard.StreamsGroupHeartbeatResponse {
	k.t.Helper()
	r, err := k.h.Coordinator.StreamsGroupHeartbeat(shard.StreamsGroupHeartbeatRequest{RebalanceTimeoutMs: shard.RebalanceTimeoutNotSent,
		GroupID: g, MemberID: m, MemberEpoch: epoch, Version: version}).Result()
	require.NoError(k.t, err)
	return r
}

func (k *kip) leave(g, m string) {
	k.t.Helper()
	_, err := k.h.Coordinator.StreamsGroupHeartbeat(shard.StreamsGroupHeartbeatRequest{RebalanceTimeoutMs: shard.RebalanceTimeoutNotSent, GroupID: g, MemberID: m, MemberEpoch: -1, Version: 1}).Result()
	require.NoError(k.t, err)
}

func (k *kip) push(g, m string, e int32) error {
	_, err := k.h.Coordinator.StreamsGroupTopologyDescriptionUpdate(coordinator.TopologyDescriptionUpdateRequest{
		GroupID: g, MemberID: m, TopologyEpoch: e, Description: description(uint64(e))}).Result()
	return err
}

func (k *kip) stored(g string) int32 {
	k.t.Helper()
	d, err := k.h.Group(g)
	require.NoError(k.t, err)
	return d.StoredDescriptionTopologyEpoch
}

// eligible makes g an empty streams group with its description stored at
// epoch e and no offsets: what the cycle cleans.
func (k *kip) eligible(g string, e int32) {
	k.t.Helper()
	k.join(g, "m", e)
	require.NoError(k.t, k.push(g, "m", e))
	k.leave(g, "m")
	require.Equal(k.t, e, k.stored(g))
	_, _, ok := k.storeHas(g)
	require.True(k.t, ok)
}

// eligibleAwaited is eligible for fixtures with a commit delay: it waits
// (in virtual time) for each step to commit.
func (k *kip) eligibleAwaited(g string, e int32) {
	k.t.Helper()
	t := k.t
	_, err := coordtest.Await(k.h, k.h.Coordinator.StreamsGroupHeartbeat(shard.StreamsGroupHeartbeatRequest{GroupID: g, MemberID: "m",
		RebalanceTimeoutMs: 1000, Topology: ptr(topologyAt(e)), Version: 1}))
	require.NoError(t, err)
	_, err = coordtest.Await(k.h, k.h.Coordinator.StreamsGroupTopologyDescriptionUpdate(coordinator.TopologyDescriptionUpdateRequest{
		GroupID: g, MemberID: "m", TopologyEpoch: e, Description: description(uint64(e))}))
	require.NoError(t, err)
	_, err = coordtest.Await(k.h, k.h.Coordinator.StreamsGroupHeartbeat(shard.StreamsGroupHeartbeatRequest{RebalanceTimeoutMs: shard.RebalanceTimeoutNotSent, GroupID: g, MemberID: "m", MemberEpoch: -1, Version: 1}))
	require.NoError(t, err)
}

func (k *kip) storeHas(g string) (int32, bool, bool) {
	for _, e := range k.store.List() {
		if e.GroupID == g {
			return e.TopologyEpoch, true, true
		}
	}
	return 0, false, false
}

func (k *kip) countEvents(kind coordinator.TopologyEventKind) int {
	n := 0
	for _, e := range k.events {
		if e.Kind == kind {
			n++
		}
	}
	return n
}

func protocols(t *testing.T, fn func(t *testing.T, p coordinator.CleanupProtocol)) {
	for _, p := range []coordinator.CleanupProtocol{coordinator.CleanupV1, coordinator.CleanupV2, coordinator.CleanupV3} {
		t.Run(string(p), func(t *testing.T) { fn(t, p) })
	}
}

// TestCleanupCycleNoOpWhenNoPlugin proves that without a plugin no cleanup
// timer is armed and a cycle never starts.
func TestCleanupCycleNoOpWhenNoPlugin(t *testing.T) {
	k := newKip(t, withoutPlugin())
	assert.Empty(t, k.h.Coordinator.BrokerTimerKeys())
	assert.False(t, k.h.Coordinator.RunTopologyCleanupCycle())
	runs, _, _ := k.h.Coordinator.CleanupStats()
	assert.Zero(t, runs)
}

// TestCleanupCycleClearsStoredEpochOnPluginSuccess proves a successful delete
// removes the row and clears the stored epoch: v1 with one conditional clear,
// v2 with a mark to -2 and a finalize to -1.
func TestCleanupCycleClearsStoredEpochOnPluginSuccess(t *testing.T) {
	protocols(t, func(t *testing.T, p coordinator.CleanupProtocol) {
		k := newKip(t, withProtocol(p))
		k.eligible("foo", 4)
		before := len(k.h.Records())
		k.writes = 0
		require.True(t, k.h.Coordinator.RunTopologyCleanupCycle())
		assert.Equal(t, int64(1), k.faults.Counts().Delete.Calls, "deleteTopology(foo) once")
		_, _, has := k.storeHas("foo")
		assert.False(t, has)
		assert.Equal(t, shard.EpochNone, k.stored("foo"))
		var got []string
		for _, r := range k.h.RecordsSince(before) {
			got = append(got, shard.Format(r.Record))
		}
		if p == coordinator.CleanupV1 {
			assert.Equal(t, []string{"StreamsGroupMetadata foo epoch=3 stored=-1 failed=-1"}, got)
			assert.Equal(t, 1, k.writes)
		} else {
			assert.Equal(t, []string{"StreamsGroupMetadata foo epoch=3 stored=-2 failed=-1", "StreamsGroupMetadata foo epoch=3 stored=-1 failed=-1"}, got)
			assert.Equal(t, 2, k.writes, "mark then finalize")
		}
		v, _ := k.h.Metric("streams-group-topology-description-delete-success-count")
		assert.Equal(t, 1.0, v)
		v, _ = k.h.Metric("streams-group-topology-description-cleanup-eligible-count")
		assert.Equal(t, 1.0, v)
	})
}

// TestCleanupCycleBatchesClearWritesPerPartition proves two eligible groups
// on one shard are cleared by one write (per step).
func TestCleanupCycleBatchesClearWritesPerPartition(t *testing.T) {
	protocols(t, func(t *testing.T, p coordinator.CleanupProtocol) {
		k := newKip(t, withProtocol(p))
		k.eligible("foo", 4)
		k.eligible("bar", 2)
		k.writes = 0
		require.True(t, k.h.Coordinator.RunTopologyCleanupCycle())
		want := 1
		if p != coordinator.CleanupV1 {
			want = 2
		}
		assert.Equal(t, want, k.writes)
		assert.Equal(t, shard.EpochNone, k.stored("foo"))
		assert.Equal(t, shard.EpochNone, k.stored("bar"))
	})
}

// TestCleanupCycleSkipsClearOnPluginFailure proves a failed delete writes no
// clear and keeps the stored epoch, so the next cycle retries.
func TestCleanupCycleSkipsClearOnPluginFailure(t *testing.T) {
	protocols(t, func(t *testing.T, p coordinator.CleanupProtocol) {
		k := newKip(t, withProtocol(p))
		k.eligible("foo", 4)
		require.NoError(t, k.faults.FailGroup("foo", plugin.OpDelete, faultstore.FaultTransient, 1))
		require.True(t, k.h.Coordinator.RunTopologyCleanupCycle())
		if p == coordinator.CleanupV1 {
			assert.Equal(t, int32(4), k.stored("foo"))
		} else {
			assert.Equal(t, shard.EpochUncertain, k.stored("foo"), "v2 leaves the mark, still eligible")
		}
		v, _ := k.h.Metric("streams-group-topology-description-delete-error-count")
		assert.Equal(t, 1.0, v)
		require.True(t, k.h.Coordinator.RunTopologyCleanupCycle(), "the next cycle retries")
		assert.Equal(t, shard.EpochNone, k.stored("foo"))
	})
}

// TestCleanupCyclePreservesBackoffOnPluginFailure proves a failing cycle
// keeps the group's back-off entry, so a heartbeat inside the window is not
// solicited.
func TestCleanupCyclePreservesBackoffOnPluginFailure(t *testing.T) {
	k := newKip(t, withProtocol(coordinator.CleanupV1))
	k.eligible("foo", 4)
	b := k.h.Coordinator.TopologyBackoff()
	require.True(t, b.ArmIfNotActive("foo", 4, k.h.Now().UnixMilli()))
	require.NoError(t, k.faults.FailGroup("foo", plugin.OpDelete, faultstore.FaultPermanent, 1))
	k.h.Coordinator.RunTopologyCleanupCycle()
	_, _, _, ok := b.Entry("foo")
	assert.True(t, ok, "back-off kept on failure")
}

// TestCleanupCycleClearsBackoffOnPluginSuccess proves a successful cycle
// drops the back-off, so the group's next member is solicited at once.
func TestCleanupCycleClearsBackoffOnPluginSuccess(t *testing.T) {
	k := newKip(t, withProtocol(coordinator.CleanupV1))
	k.eligible("foo", 4)
	b := k.h.Coordinator.TopologyBackoff()
	require.True(t, b.ArmIfNotActive("foo", 4, k.h.Now().UnixMilli()))
	k.h.Coordinator.RunTopologyCleanupCycle()
	_, _, _, ok := b.Entry("foo")
	assert.False(t, ok)
	assert.True(t, k.join("foo", "m2", 4).TopologyDescriptionRequired)
}

// TestCleanupCycleEmptyEligibility proves a cycle with nothing eligible
// makes no plugin call and no write.
func TestCleanupCycleEmptyEligibility(t *testing.T) {
	k := newKip(t)
	k.join("busy", "m", 1)
	require.NoError(t, k.push("busy", "m", 1))
	k.writes = 0
	require.True(t, k.h.Coordinator.RunTopologyCleanupCycle())
	assert.Zero(t, k.faults.Counts().Delete.Calls)
	assert.Zero(t, k.writes)
}

// TestCleanupCycleSingleFlightSkipsConcurrentCycle proves a tick while a
// cycle's delete is in flight is dropped, logged and counted.
func TestCleanupCycleSingleFlightSkipsConcurrentCycle(t *testing.T) {
	k := newKip(t, withManualPlugin())
	k.exec.Auto = true
	k.eligible("foo", 4)
	k.exec.Auto = false
	require.True(t, k.h.Coordinator.RunTopologyCleanupCycle())
	require.Len(t, k.exec.Pending(), 1, "the delete is parked")
	assert.False(t, k.h.Coordinator.RunTopologyCleanupCycle())
	runs, dropped, inFlight := k.h.Coordinator.CleanupStats()
	assert.Equal(t, int64(1), runs)
	assert.Equal(t, int64(1), dropped)
	assert.True(t, inFlight)
	v, _ := k.h.Metric("streams-group-topology-description-cleanup-cycle-skipped-count")
	assert.Equal(t, 1.0, v)
	assert.Equal(t, 1, k.countEvents(coordinator.EventTickDropped))
	k.exec.RunAll()
	_, _, inFlight = k.h.Coordinator.CleanupStats()
	assert.False(t, inFlight)
}

// TestCleanupCycleSingleFlightHoldsFlagUntilClearWriteSettles proves the
// flag is held while the clear write is uncommitted and released once it
// commits.
func TestCleanupCycleSingleFlightHoldsFlagUntilClearWriteSettles(t *testing.T) {
	protocols(t, func(t *testing.T, p coordinator.CleanupProtocol) {
		k := newKip(t, withProtocol(p), withCommitDelay(time.Second))
		k.eligibleAwaited("foo", 4)

		require.True(t, k.h.Coordinator.RunTopologyCleanupCycle())
		_, _, inFlight := k.h.Coordinator.CleanupStats()
		require.True(t, inFlight, "the clear (or mark) write is not committed yet")
		assert.False(t, k.h.Coordinator.RunTopologyCleanupCycle(), "second cycle skipped")
		k.h.Advance(5 * time.Second)
		_, _, inFlight = k.h.Coordinator.CleanupStats()
		require.False(t, inFlight)
		assert.True(t, k.h.Coordinator.RunTopologyCleanupCycle(), "third cycle runs")
	})
}

// TestCleanupCycleSingleFlightReleasesFlagAfterCycleCompletes proves two
// back-to-back complete cycles both run.
func TestCleanupCycleSingleFlightReleasesFlagAfterCycleCompletes(t *testing.T) {
	k := newKip(t)
	k.eligible("foo", 4)
	assert.True(t, k.h.Coordinator.RunTopologyCleanupCycle())
	assert.True(t, k.h.Coordinator.RunTopologyCleanupCycle())
	runs, dropped, _ := k.h.Coordinator.CleanupStats()
	assert.Equal(t, int64(2), runs)
	assert.Zero(t, dropped)
}

// TestCleanupCycleSingleFlightReleasesFlagOnSynchronousThrowDuringChainConstruction
// proves a panic while building the cycle releases the flag and the next
// tick runs.
func TestCleanupCycleSingleFlightReleasesFlagOnSynchronousThrowDuringChainConstruction(t *testing.T) {
	k := newKip(t)
	throws := 1
	coordinator.SetTestHooks(k.h.Coordinator, nil, func() {
		if throws > 0 {
			throws--
			panic("read-all exploded")
		}
	})
	assert.False(t, k.h.Coordinator.RunTopologyCleanupCycle())
	assert.Equal(t, 1, k.countEvents(coordinator.EventCyclePanicked))
	_, _, inFlight := k.h.Coordinator.CleanupStats()
	assert.False(t, inFlight)
	assert.True(t, k.h.Coordinator.RunTopologyCleanupCycle())
}

// TestCleanupCycleSingleFlightReleasesFlagOnEmptyPartitionList proves a
// broker hosting no shard completes each cycle at once.
func TestCleanupCycleSingleFlightReleasesFlagOnEmptyPartitionList(t *testing.T) {
	k := newKip(t)
	require.NoError(t, k.h.Coordinator.UnloadShard(0))
	assert.True(t, k.h.Coordinator.RunTopologyCleanupCycle())
	assert.True(t, k.h.Coordinator.RunTopologyCleanupCycle())
}

// TestCleanupCycleSkipsFollowUpWorkOncePastShutdown proves a delete that
// completes after shutdown leads to no write.
func TestCleanupCycleSkipsFollowUpWorkOncePastShutdown(t *testing.T) {
	k := newKip(t, withManualPlugin(), withProtocol(coordinator.CleanupV1))
	k.exec.Auto = true
	k.eligible("foo", 4)
	k.exec.Auto = false
	require.True(t, k.h.Coordinator.RunTopologyCleanupCycle())
	k.h.Coordinator.Shutdown()
	k.writes = 0
	k.exec.RunAll()
	assert.Zero(t, k.writes)
	assert.Equal(t, 1, k.countEvents(coordinator.EventCycleAbortedShutdown))
}

// TestShutdownCancelsScheduledCleanupTask proves the cleanup timer exists
// after startup with a plugin and is gone after shutdown; nothing fires later.
func TestShutdownCancelsScheduledCleanupTask(t *testing.T) {
	k := newKip(t)
	assert.Equal(t, []string{coordinator.CleanupTimerKey}, k.h.Coordinator.BrokerTimerKeys())
	k.h.Advance(time.Minute)
	runs, _, _ := k.h.Coordinator.CleanupStats()
	assert.Equal(t, int64(1), runs, "the timer fires every check interval")
	k.h.Coordinator.Shutdown()
	assert.Empty(t, k.h.Coordinator.BrokerTimerKeys())
	k.h.Advance(2 * time.Hour)
	runs, _, _ = k.h.Coordinator.CleanupStats()
	assert.Equal(t, int64(1), runs)
}

// TestShutdownSafeWhenNoCleanupTaskScheduled proves shutdown without a
// plugin has no timer to cancel and does not fail.
func TestShutdownSafeWhenNoCleanupTaskScheduled(t *testing.T) {
	k := newKip(t, withoutPlugin())
	assert.Empty(t, k.h.Coordinator.BrokerTimerKeys())
	assert.NotPanics(t, k.h.Coordinator.Shutdown)
	assert.NotPanics(t, k.h.Coordinator.Shutdown, "twice")
}

// TestShutdownClosesPlugin proves shutdown closes the topology store.
func TestShutdownClosesPlugin(t *testing.T) {
	k := newKip(t)
	k.h.Coordinator.Shutdown()
	_, err := k.store.GetTopology(t.Context(), "foo", 1)
	assert.ErrorIs(t, err, plugin.ErrClosed)
}

// TestSweepDefersTombstoneUntilCleanup proves the whole pipeline with a
// plugin: offsets expire, the group's tombstone waits while its stored epoch
// is set, the cycle deletes the row and clears the epoch, and the next sweep
// tombstones the group, within two cycles and one sweep.
func TestSweepDefersTombstoneUntilCleanup(t *testing.T) {
	protocols(t, func(t *testing.T, p coordinator.CleanupProtocol) {
		k := newKip(t, withProtocol(p))
		r := k.join("app", "m", 3)
		require.NoError(t, k.push("app", "m", 3))
		require.NoError(t, k.h.Commit("app", "m", r.MemberEpoch, "in", 0, 10))
		k.leave("app", "m")
		k.h.Advance(time.Minute) // sweep: offsets expire, tombstone deferred
		_, err := k.h.Group("app")
		require.NoError(t, err, "deferred: stored epoch still set")
		offs, _ := k.h.Offsets("app")
		assert.Empty(t, offs)
		k.h.Advance(2 * time.Minute) // cycle(s) and sweep
		_, err = k.h.Group("app")
		assert.ErrorIs(t, err, kerr.GroupIDNotFound)
		assert.Zero(t, k.store.Len(), "no row of a group that no longer exists")
	})
}

// TestSweepIgnoresStoredEpochWithoutPlugin proves that with no plugin a
// streams group with a stored epoch is tombstoned as before (KAFKA-21141).
func TestSweepIgnoresStoredEpochWithoutPlugin(t *testing.T) {
	h, err := coordtest.New(coordtest.WithTopics(map[string]int32{"in": 1}))
	require.NoError(t, err)
	p := h.Coordinator.PartitionFor("app")
	_, err = h.JoinStreams("app", "m", topologyAt(1))
	require.NoError(t, err)
	_, err = h.HeartbeatStreams("app", "m", -1)
	require.NoError(t, err)
	// A record from a time the plugin was configured.
	s, err := h.Coordinator.LatestShard(p)
	require.NoError(t, err)
	d, _ := s.DescribeGroup("app")
	require.Equal(t, shard.StateEmpty, d.State)
	h.Advance(10 * time.Minute)
	_, err = h.Group("app")
	assert.ErrorIs(t, err, kerr.GroupIDNotFound)
}

// TestHeartbeatSolicitationGates proves each gate of docs/kip1331.md §1.6.
func TestHeartbeatSolicitationGates(t *testing.T) {
	t.Run("testHeartbeatNeverSetsFlagWithoutPlugin", func(t *testing.T) {
		k := newKip(t, withoutPlugin())
		assert.False(t, k.join("g", "m", 1).TopologyDescriptionRequired)
	})
	t.Run("first heartbeat solicits", func(t *testing.T) {
		k := newKip(t)
		assert.True(t, k.join("g", "m", 1).TopologyDescriptionRequired)
		assert.Equal(t, 1, k.countEvents(coordinator.EventSolicited))
	})
	t.Run("testHeartbeatSkipsFlagOnV0Request", func(t *testing.T) {
		k := newKip(t)
		topo := topologyAt(1)
		r, err := k.h.Coordinator.StreamsGroupHeartbeat(shard.StreamsGroupHeartbeatRequest{GroupID: "g", MemberID: "m",
			RebalanceTimeoutMs: 1000, Topology: &topo, Version: 0}).Result()
		require.NoError(t, err)
		assert.False(t, r.TopologyDescriptionRequired)
	})
	t.Run("testHeartbeatSkipsFlagWhenStoredMatchesCurrent", func(t *testing.T) {
		k := newKip(t)
		r := k.join("g", "m", 5)
		require.NoError(t, k.push("g", "m", 5))
		assert.False(t, k.heartbeat("g", "m", r.MemberEpoch, 1).TopologyDescriptionRequired)
	})
	t.Run("testHeartbeatSkipsFlagWhenFailedAtCurrentEpoch", func(t *testing.T) {
		k := newKip(t)
		r := k.join("g", "m", 5)
		require.NoError(t, k.faults.FailGroup("g", plugin.OpSet, faultstore.FaultPermanent, 1))
		assert.ErrorIs(t, k.push("g", "m", 5), kerr.StreamsTopologyDescriptionUpdateFailed)
		d, _ := k.h.Group("g")
		require.Equal(t, int32(5), d.FailedDescriptionTopologyEpoch)
		_, _, _, armed := k.h.Coordinator.TopologyBackoff().Entry("g")
		require.False(t, armed, "a permanent failure clears the back-off, so only the failed gate can refuse")
		assert.False(t, k.heartbeat("g", "m", r.MemberEpoch, 1).TopologyDescriptionRequired)
	})
	t.Run("testHeartbeatSkipsFlagWhenStaleTopologyStatusPresent", func(t *testing.T) {
		k := newKip(t)
		old := k.join("g", "old", 1)
		k.join("g", "new", 2)
		k.h.Coordinator.TopologyBackoff().ClearGroup("g") // only the status gate can refuse
		r := k.heartbeat("g", "old", old.MemberEpoch, 1)
		require.Contains(t, r.Status, shard.StatusStaleTopology)
		assert.False(t, r.TopologyDescriptionRequired)
	})
	t.Run("leaving member is never solicited", func(t *testing.T) {
		k := newKip(t)
		k.join("g", "m", 1)
		k.h.Coordinator.TopologyBackoff().ClearGroup("g") // only the epoch gate can refuse
		r, err := k.h.Coordinator.StreamsGroupHeartbeat(shard.StreamsGroupHeartbeatRequest{RebalanceTimeoutMs: shard.RebalanceTimeoutNotSent, GroupID: "g", MemberID: "m", MemberEpoch: -1, Version: 1}).Result()
		require.NoError(t, err)
		assert.False(t, r.TopologyDescriptionRequired)
	})
	t.Run("back-off window", func(t *testing.T) {
		k := newKip(t)
		r := k.join("g", "m", 1)
		require.True(t, r.TopologyDescriptionRequired)
		assert.False(t, k.heartbeat("g", "m", r.MemberEpoch, 1).TopologyDescriptionRequired, "inside the window")
		k.h.Advance(59 * time.Second) // 30 s ± 20 % has passed; the session (60 s) has not
		assert.True(t, k.heartbeat("g", "m", r.MemberEpoch, 1).TopologyDescriptionRequired, "after the window")
	})
	t.Run("testHeartbeatDecorationFailurePreservesCommittedResponse", func(t *testing.T) {
		k := newKip(t)
		coordinator.SetTestHooks(k.h.Coordinator, func() { panic("decoration exploded") }, nil)
		r := k.join("g", "m", 1)
		assert.False(t, r.TopologyDescriptionRequired)
		assert.Equal(t, int32(1), r.MemberEpoch, "the committed response is kept")
	})
}

// TestPushErrors proves the push path answers the errors of docs/kip1331.md §1.4
// and changes nothing for them.
func TestPushErrors(t *testing.T) {
	k := newKip(t)
	k.join("g", "m", 3)
	_, err := k.h.JoinConsumer("consumer", "c", "in")
	require.NoError(t, err)
	before := len(k.h.Records())
	cases := []struct {
		name string
		req  coordinator.TopologyDescriptionUpdateRequest
		want *kerr.Error
	}{
		{"empty group", coordinator.TopologyDescriptionUpdateRequest{MemberID: "m", TopologyEpoch: 3, Description: description(1)}, kerr.InvalidRequest},
		{"empty member", coordinator.TopologyDescriptionUpdateRequest{GroupID: "g", TopologyEpoch: 3, Description: description(1)}, kerr.InvalidRequest},
		{"null description", coordinator.TopologyDescriptionUpdateRequest{GroupID: "g", MemberID: "m", TopologyEpoch: 3}, kerr.InvalidRequest},
		{"invalid description", coordinator.TopologyDescriptionUpdateRequest{GroupID: "g", MemberID: "m", TopologyEpoch: 3, Description: &plugin.TopologyDescription{}}, kerr.InvalidRequest},
		{"negative epoch", coordinator.TopologyDescriptionUpdateRequest{GroupID: "g", MemberID: "m", TopologyEpoch: -1, Description: description(1)}, kerr.InvalidRequest},
		{"unknown group", coordinator.TopologyDescriptionUpdateRequest{GroupID: "nope", MemberID: "m", TopologyEpoch: 3, Description: description(1)}, kerr.GroupIDNotFound},
		{"not a streams group", coordinator.TopologyDescriptionUpdateRequest{GroupID: "consumer", MemberID: "c", TopologyEpoch: 3, Description: description(1)}, kerr.GroupIDNotFound},
		{"unknown member", coordinator.TopologyDescriptionUpdateRequest{GroupID: "g", MemberID: "ghost", TopologyEpoch: 3, Description: description(1)}, kerr.UnknownMemberID},
		{"stale epoch", coordinator.TopologyDescriptionUpdateRequest{GroupID: "g", MemberID: "m", TopologyEpoch: 2, Description: description(1)}, kerr.InvalidRequest},
	}
	for _, tc := range cases {
		_, err := k.h.Coordinator.StreamsGroupTopologyDescriptionUpdate(tc.req).Result()
		assert.ErrorIs(t, err, tc.want, tc.name)
	}
	assert.Len(t, k.h.Records(), before, "refused pushes write nothing")
	assert.Zero(t, k.faults.Counts().Set.Calls, "refused pushes never reach the plugin")

	noPlugin := newKip(t, withoutPlugin())
	noPlugin.join("g", "m", 1)
	assert.ErrorIs(t, noPlugin.push("g", "m", 1), kerr.UnsupportedVersion)
}

// TestPushOutcomes proves success stores the epoch and clears the back-off,
// a permanent failure (including a panicking plugin) records the failed
// epoch, and a transient failure arms the back-off, each counted in metrics.
func TestPushOutcomes(t *testing.T) {
	protocols(t, func(t *testing.T, p coordinator.CleanupProtocol) {
		k := newKip(t, withProtocol(p))
		k.join("ok", "m", 2)
		require.NoError(t, k.push("ok", "m", 2))
		assert.Equal(t, int32(2), k.stored("ok"))
		_, _, _, armed := k.h.Coordinator.TopologyBackoff().Entry("ok")
		assert.False(t, armed, "success clears the epoch's back-off")

		k.join("perm", "m", 2)
		require.NoError(t, k.faults.FailGroup("perm", plugin.OpSet, faultstore.FaultPanic, 1))
		assert.ErrorIs(t, k.push("perm", "m", 2), kerr.StreamsTopologyDescriptionUpdateFailed)
		d, _ := k.h.Group("perm")
		assert.Equal(t, int32(2), d.FailedDescriptionTopologyEpoch)
		if p != coordinator.CleanupV1 {
			assert.Equal(t, shard.EpochUncertain, d.StoredDescriptionTopologyEpoch, "parked at -2: cleaned defensively later")
		} else {
			assert.Equal(t, shard.EpochNone, d.StoredDescriptionTopologyEpoch)
		}

		k.join("trans", "m", 2)
		require.NoError(t, k.faults.FailGroup("trans", plugin.OpSet, faultstore.FaultTransient, 1))
		assert.ErrorIs(t, k.push("trans", "m", 2), kerr.StreamsTopologyDescriptionUpdateFailed)
		e, attempts, _, armed := k.h.Coordinator.TopologyBackoff().Entry("trans")
		require.True(t, armed)
		assert.Equal(t, int32(2), e)
		assert.Equal(t, 1, attempts, "the solicitation armed attempt 0; the failure extended it")

		ok, _ := k.h.Metric("streams-group-topology-description-set-success-count")
		failed, _ := k.h.Metric("streams-group-topology-description-set-error-count")
		assert.Equal(t, 1.0, ok)
		assert.Equal(t, 2.0, failed)
	})
}

// TestDescribeStatuses proves the describe rules of docs/kip1331.md §1.5.
func TestDescribeStatuses(t *testing.T) {
	k := newKip(t)
	r := k.join("avail", "m", 4)
	require.NoError(t, k.push("avail", "m", 4))
	k.join("none", "m", 4)

	t.Run("testDescribeWithIncludeFlagDisabledLeavesStatusDefault", func(t *testing.T) {
		calls := k.faults.Counts().Get.Calls
		row, err := k.h.DescribeStreams("avail", false)
		require.NoError(t, err)
		assert.Equal(t, coordinator.StatusNotRequested, row.TopologyDescriptionStatus)
		assert.Equal(t, calls, k.faults.Counts().Get.Calls, "the plugin is not called")
	})
	t.Run("testDescribeAttachesAvailableWhenPluginReturnsTopology", func(t *testing.T) {
		row, err := k.h.DescribeStreams("avail", true)
		require.NoError(t, err)
		assert.Equal(t, coordinator.StatusAvailable, row.TopologyDescriptionStatus)
		require.NotNil(t, row.TopologyDescription)
		assert.True(t, row.TopologyDescription.Equal(description(4)))
	})
	t.Run("testDescribeFiltersNonEligibleGroupsToNotStored", func(t *testing.T) {
		calls := k.faults.Counts().Get.Calls
		row, err := k.h.DescribeStreams("none", true)
		require.NoError(t, err)
		assert.Equal(t, coordinator.StatusNotStored, row.TopologyDescriptionStatus, "stored -1")
		// stored 4 vs current 5: a newer topology joined.
		k.join("avail", "m2", 5)
		row, err = k.h.DescribeStreams("avail", true)
		require.NoError(t, err)
		assert.Equal(t, coordinator.StatusNotStored, row.TopologyDescriptionStatus, "stored != current")
		assert.Equal(t, calls, k.faults.Counts().Get.Calls, "no plugin call for filtered groups")
	})
	t.Run("get error", func(t *testing.T) {
		k := newKip(t)
		k.join("g", "m", 1)
		require.NoError(t, k.push("g", "m", 1))
		require.NoError(t, k.faults.FailGroup("g", plugin.OpGet, faultstore.FaultTransient, 1))
		row, err := k.h.DescribeStreams("g", true)
		require.NoError(t, err)
		assert.Equal(t, coordinator.StatusError, row.TopologyDescriptionStatus)
		assert.Nil(t, row.TopologyDescription)
	})
	t.Run("testDescribeSetsNotStoredWhenNoPluginConfigured", func(t *testing.T) {
		k := newKip(t, withoutPlugin())
		k.join("g", "m", 1)
		rows, err := coordtest.Await(k.h, k.h.Coordinator.DescribeStreamsGroups([]string{"g", "missing"}, true))
		require.NoError(t, err)
		assert.Equal(t, coordinator.StatusNotStored, rows[0].TopologyDescriptionStatus)
		assert.ErrorIs(t, rows[1].Err, kerr.GroupIDNotFound)
		assert.Equal(t, coordinator.StatusNotRequested, rows[1].TopologyDescriptionStatus, "an errored row keeps 0")
	})
	_ = r
}

// TestDeleteGroupsWithPlugin proves DeleteGroups' plugin interplay
// (docs/kip1331.md §2.7).
func TestDeleteGroupsWithPlugin(t *testing.T) {
	protocols(t, func(t *testing.T, p coordinator.CleanupProtocol) {
		t.Run("testDeleteGroupsPluginSuccessProceedsToTombstone", func(t *testing.T) {
			k := newKip(t, withProtocol(p))
			k.eligible("g", 1)
			res, err := k.h.DeleteGroups("g")
			require.NoError(t, err)
			assert.NoError(t, res[0].Err)
			assert.Zero(t, k.store.Len())
			_, err = k.h.Group("g")
			assert.ErrorIs(t, err, kerr.GroupIDNotFound)
		})
		t.Run("testDeleteGroupsPluginFailureReturnsGroupDeletionFailed", func(t *testing.T) {
			k := newKip(t, withProtocol(p))
			k.eligible("g", 1)
			require.NoError(t, k.faults.FailGroup("g", plugin.OpDelete, faultstore.FaultPermanent, 1))
			res, err := k.h.DeleteGroups("g")
			require.NoError(t, err)
			require.ErrorIs(t, res[0].Err, kerr.GroupDeletionFailed)
			assert.Equal(t, "GROUP_DELETION_FAILED: "+coordinator.DeleteFailedMessage, res[0].Err.Error())
			_, err = k.h.Group("g")
			assert.NoError(t, err, "delete-groups never written for it")
		})
		t.Run("testDeleteGroupsMixedPluginOutcome", func(t *testing.T) {
			k := newKip(t, withProtocol(p))
			k.eligible("a", 1)
			k.eligible("b", 1)
			require.NoError(t, k.faults.FailGroup("b", plugin.OpDelete, faultstore.FaultTransient, 1))
			res, err := k.h.DeleteGroups("a", "b")
			require.NoError(t, err)
			assert.NoError(t, res[0].Err)
			assert.ErrorIs(t, res[1].Err, kerr.GroupDeletionFailed)
		})
		t.Run("testDeleteGroupsSkipsPluginCallWhenNoStoredTopology", func(t *testing.T) {
			k := newKip(t, withProtocol(p))
			k.join("g", "m", 1)
			k.leave("g", "m")
			res, err := k.h.DeleteGroups("g")
			require.NoError(t, err)
			assert.NoError(t, res[0].Err)
			assert.Zero(t, k.faults.Counts().Delete.Calls)
		})
		t.Run("non-empty group: NON_EMPTY_GROUP without a plugin call", func(t *testing.T) {
			k := newKip(t, withProtocol(p))
			k.join("g", "m", 1)
			require.NoError(t, k.push("g", "m", 1))
			res, err := k.h.DeleteGroups("g")
			require.NoError(t, err)
			assert.ErrorIs(t, res[0].Err, kerr.NonEmptyGroup)
			assert.Zero(t, k.faults.Counts().Delete.Calls)
		})
	})
	t.Run("testDeleteGroupsWithoutPluginSkipsPluginCall", func(t *testing.T) {
		k := newKip(t, withoutPlugin())
		k.join("g", "m", 1)
		k.leave("g", "m")
		res, err := k.h.DeleteGroups("g")
		require.NoError(t, err)
		assert.NoError(t, res[0].Err)
		assert.Zero(t, k.faults.Counts().Delete.Calls)
	})
}

// TestV1RaceLosesDescriptionAndV2Recovers reproduces the accepted data-loss
// race of docs/kip1331.md §1.8 deterministically and shows v2 closes it.
//
// The cycle scans foo (empty, stored 4, no offsets) and its deleteTopology
// is parked. Meanwhile a member joins at topology epoch 5, is solicited and
// pushes: the row becomes epoch 5 and stored=5. Then the parked delete runs.
//
// v1: the delete erases the row; the conditional clear finds stored 5 ≠ 4
// and does nothing; describe says NOT_STORED although stored=5, and no
// heartbeat solicits again: the description is lost until the epoch moves.
//
// v2: the scan's group is marked -2 before the delete. The push lands after
// the mark (stored -2 → 5), the delete erases the row, and the finalize sees
// the stored epoch advanced and writes -2 again, so the next heartbeat is
// solicited, the member pushes, and describe says AVAILABLE.
//
// v3 keeps the push out of the delete's window: that story is the scenario
// file coordtest/testdata/kip1331_v3_race.txt. The files of v1 and v2 tell
// the same steps record by record; this test adds the cleanup events.
func TestV1RaceLosesDescriptionAndV2Recovers(t *testing.T) {
	for _, p := range []coordinator.CleanupProtocol{coordinator.CleanupV1, coordinator.CleanupV2} {
		t.Run(string(p), func(t *testing.T) {
			k := newKip(t, withProtocol(p), withManualPlugin())
			k.exec.Auto = true
			k.eligible("foo", 4)
			k.exec.Auto = false

			require.True(t, k.h.Coordinator.RunTopologyCleanupCycle())
			require.Len(t, k.exec.Pending(), 1, "the cycle's delete is parked")
			require.Equal(t, plugin.OpDelete, k.exec.Pending()[0].Op)

			r := k.join("foo", "new", 5)
			require.True(t, r.TopologyDescriptionRequired)
			push := k.h.Coordinator.StreamsGroupTopologyDescriptionUpdate(coordinator.TopologyDescriptionUpdateRequest{
				GroupID: "foo", MemberID: "new", TopologyEpoch: 5, Description: description(5)})
			require.True(t, k.exec.Run(plugin.OpSet, "foo"))
			_, err := push.Result()
			require.NoError(t, err)
			require.Equal(t, int32(5), k.stored("foo"))

			require.True(t, k.exec.Run(plugin.OpDelete, "foo"), "the parked delete lands after the push")
			_, _, has := k.storeHas("foo")
			require.False(t, has, "the row is gone")
			k.exec.Auto = true // the race has played out; later plugin calls run at once

			// The push cleared epoch 5's back-off and the successful delete the
			// group's, so only the stored-epoch gate decides the next heartbeat.
			hb := k.heartbeat("foo", "new", r.MemberEpoch, 1)
			row, err := k.h.DescribeStreams("foo", true)
			require.NoError(t, err)
			if p == coordinator.CleanupV1 {
				assert.Equal(t, 1, k.countEvents(coordinator.EventClearMismatch), "the conditional clear found 5, not 4")
				assert.Equal(t, int32(5), k.stored("foo"), "metadata still claims epoch 5 is stored")
				assert.False(t, hb.TopologyDescriptionRequired, "no solicitation follows")
				assert.Equal(t, coordinator.StatusNotStored, row.TopologyDescriptionStatus, "accepted plugin-side data loss")
				return
			}
			assert.Equal(t, 1, k.countEvents(coordinator.EventFinalizeReSolicit))
			assert.Equal(t, shard.EpochUncertain, k.stored("foo"), "finalize saw the advanced epoch and wrote -2 (PR #22777)")
			require.True(t, hb.TopologyDescriptionRequired, "v2 solicits again")
			require.NoError(t, k.push("foo", "new", 5))
			row, err = k.h.DescribeStreams("foo", true)
			require.NoError(t, err)
			assert.Equal(t, coordinator.StatusAvailable, row.TopologyDescriptionStatus, "stored again")
		})
	}
}

// TestBackoffDelays proves the back-off follows 30 s × 2^n with ±20 %
// jitter, capped at one hour, and that chains and epochs behave as
// docs/kip1331.md §1.7 says.
func TestBackoffDelays(t *testing.T) {
	k := newKip(t)
	b := k.h.Coordinator.TopologyBackoff()
	now := int64(0)
	expMax := math.Log(3_600_000.0/30_000.0) / math.Log(2) // about 6.907
	for attempt := range 10 {
		require.True(t, b.ArmIfNotActive("g", 1, now))
		_, n, next, _ := b.Entry("g")
		require.Equal(t, attempt, n)
		term := 30_000.0 * math.Pow(2, math.Min(float64(attempt), expMax))
		delay := float64(next - now)
		assert.GreaterOrEqual(t, delay, math.Floor(term*0.8), "attempt %d", attempt)
		assert.LessOrEqual(t, delay, min(term*1.2, 3_600_000), "attempt %d: at most 1.2× and never over one hour", attempt)
		assert.False(t, b.ArmIfNotActive("g", 1, next-1), "inside the window")
		now = next
	}
	require.True(t, b.ArmIfNotActive("g", 2, now), "another epoch starts a new chain")
	_, n, _, _ := b.Entry("g")
	assert.Zero(t, n)
	b.ArmOrExtend("g", 1, now)
	e, _, _, _ := b.Entry("g")
	assert.Equal(t, int32(2), e, "ArmOrExtend never goes back to an older epoch")
	b.Clear("g", 1)
	_, _, _, ok := b.Entry("g")
	assert.True(t, ok, "Clear of another epoch is a no-op")
	b.Clear("g", 2)
	_, _, _, ok = b.Entry("g")
	assert.False(t, ok)
}

func ptr[T any](v T) *T { return &v }

// blockingStore is a topology store whose set blocks until released: the
// plugin that hangs past its deadline.
type blockingStore struct {
	*memstore.Store
	release chan struct{}
}

func (b blockingStore) SetTopology(ctx context.Context, g string, e int32, d *plugin.TopologyDescription) error {
	<-b.release
	return b.Store.SetTopology(ctx, g, e, d)
}

// SetTopologyFenced blocks the same way: protocol v3 calls it.
func (b blockingStore) SetTopologyFenced(ctx context.Context, g string, e int32, d *plugin.TopologyDescription, token int32) error {
	<-b.release
	return b.Store.SetTopologyFenced(ctx, g, e, d, token)
}

// TestPushToBlockingPluginTimesOutAsTransient proves a plugin that blocks
// past the executor's deadline fails the push with
// STREAMS_TOPOLOGY_DESCRIPTION_UPDATE_FAILED, classified transient (the
// back-off is armed, no failed epoch is written), and does not hang the
// coordinator.
func TestPushToBlockingPluginTimesOutAsTransient(t *testing.T) {
	store := blockingStore{Store: memstore.New(), release: make(chan struct{})}
	defer close(store.release)
	h, err := coordtest.New(coordtest.WithTopics(map[string]int32{"in": 1}), coordtest.WithPlugin(store),
		coordtest.WithExecutor(coordinator.InlineExecutor{Timeout: 20 * time.Millisecond}))
	require.NoError(t, err)
	_, err = h.JoinStreams("g", "m", topologyAt(1))
	require.NoError(t, err)
	err = h.Push("g", "m", 1, description(1))
	require.ErrorIs(t, err, kerr.StreamsTopologyDescriptionUpdateFailed)
	d, err := h.Group("g")
	require.NoError(t, err)
	assert.Equal(t, shard.EpochNone, d.FailedDescriptionTopologyEpoch, "transient: no failed epoch")
	_, attempts, _, armed := h.Coordinator.TopologyBackoff().Entry("g")
	assert.True(t, armed)
	assert.Equal(t, 1, attempts)
	v, _ := h.Metric("streams-group-topology-description-set-error-count")
	assert.Equal(t, 1.0, v)
}

// TestDeleteGroupsHoldsBackGroupWhenMarkFails proves that under v2 a group
// whose uncertain mark cannot be written is not tombstoned (its row would
// leak): it answers the write's error and keeps its record and row. Found
// by the simulator's liveness invariant (ci scenario, seed 13).
func TestDeleteGroupsHoldsBackGroupWhenMarkFails(t *testing.T) {
	k := newKip(t, withProtocol(coordinator.CleanupV2))
	k.eligible("g", 1)
	k.h.FailNextAppend(kerr.NotEnoughReplicas)
	res, err := k.h.DeleteGroups("g")
	require.NoError(t, err)
	assert.ErrorIs(t, res[0].Err, kerr.CoordinatorNotAvailable)
	_, err = k.h.Group("g")
	assert.NoError(t, err, "the group was not tombstoned")
	_, _, has := k.storeHas("g")
	assert.True(t, has, "nor was its row deleted")
	res, err = k.h.DeleteGroups("g")
	require.NoError(t, err)
	assert.NoError(t, res[0].Err, "a retry succeeds")
	assert.Zero(t, k.store.Len())
}

// TestCleanupCycleSkipsDeleteForRevivedGroup proves PR #22777's mark
// re-check: a member's join that is appended but not yet committed when the
// cycle runs is invisible to the scan (committed state: the group is empty
// and eligible) but visible to the mark (latest state), so the group is
// neither marked nor deleted and its row stays. (In coordsim the scan and
// the mark run in one call, so the uncommitted write is the window.)
func TestCleanupCycleSkipsDeleteForRevivedGroup(t *testing.T) {
	k := newKip(t, withProtocol(coordinator.CleanupV2), withCommitDelay(time.Second))
	k.exec.Auto = true
	k.eligibleAwaited("foo", 4)

	revive := k.h.Coordinator.StreamsGroupHeartbeat(shard.StreamsGroupHeartbeatRequest{GroupID: "foo", MemberID: "back",
		RebalanceTimeoutMs: 1000, Topology: ptr(topologyAt(4)), Version: 1})
	require.False(t, revive.Done(), "the join is appended, not committed")
	require.True(t, k.h.Coordinator.RunTopologyCleanupCycle())
	k.h.Advance(5 * time.Second)
	_, err := revive.Result()
	require.NoError(t, err)
	assert.Equal(t, 1, k.countEvents(coordinator.EventMarkSkipped))
	assert.Zero(t, k.faults.Counts().Delete.Calls, "no deleteTopology for the revived group")
	_, _, has := k.storeHas("foo")
	assert.True(t, has)
	assert.Equal(t, int32(4), k.stored("foo"))
}

// TestCleanupCycleSwallowsMarkWriteFailure proves a failed mark write is
// logged and swallowed: no delete is issued, the cycle settles, and the next
// cycle cleans the group.
func TestCleanupCycleSwallowsMarkWriteFailure(t *testing.T) {
	k := newKip(t, withProtocol(coordinator.CleanupV2))
	k.eligible("foo", 4)
	k.h.FailNextAppend(kerr.NotEnoughReplicas)
	require.True(t, k.h.Coordinator.RunTopologyCleanupCycle())
	assert.Zero(t, k.faults.Counts().Delete.Calls)
	assert.Equal(t, 1, k.countEvents(coordinator.EventClearWriteFailed))
	_, _, inFlight := k.h.Coordinator.CleanupStats()
	assert.False(t, inFlight, "the cycle settled")
	require.True(t, k.h.Coordinator.RunTopologyCleanupCycle())
	assert.Equal(t, shard.EpochNone, k.stored("foo"))
	assert.Zero(t, k.store.Len())
}
