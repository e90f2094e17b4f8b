package coordinator_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
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

// TestLoadEpochGrowsOnEveryLoad proves the partition epoch of protocol v3:
// each load of a partition, on any broker sharing its log, is at a higher
// epoch than every earlier load (as a leader change raises Kafka's leader
// epoch), and an unloaded partition has none.
func TestLoadEpochGrowsOnEveryLoad(t *testing.T) {
	cfg := coordinator.DefaultConfig()
	cfg.NumPartitions = 2
	logs, err := coordinator.NewLogs(2)
	require.NoError(t, err)
	clock := coordtest.NewClock(coordtest.Epoch)
	a, err := coordtest.New(coordtest.WithConfig(cfg), coordtest.WithLogs(logs), coordtest.WithClock(clock))
	require.NoError(t, err)
	b, err := coordtest.New(coordtest.WithConfig(cfg), coordtest.WithLogs(logs), coordtest.WithClock(clock), coordtest.WithBrokerID(1), coordtest.WithPartitions())
	require.NoError(t, err)

	epoch := func(h *coordtest.Harness, p int32) int32 {
		e, ok := h.Coordinator.LoadEpoch(p)
		require.True(t, ok)
		return e
	}
	assert.Equal(t, int32(1), epoch(a, 0))
	assert.Equal(t, int32(1), epoch(a, 1), "epochs are per partition")
	require.NoError(t, a.Coordinator.UnloadShard(0))
	_, ok := a.Coordinator.LoadEpoch(0)
	assert.False(t, ok)
	require.NoError(t, b.Coordinator.LoadShard(0))
	assert.Equal(t, int32(2), epoch(b, 0))
	require.NoError(t, b.Coordinator.UnloadShard(0))
	require.NoError(t, a.Coordinator.LoadShard(0))
	assert.Equal(t, int32(3), epoch(a, 0), "back on the first broker, still higher")
	assert.Equal(t, int32(3), logs.Partition(0).LoadEpoch())
	assert.Equal(t, int32(1), logs.Partition(1).LoadEpoch())
}

// TestDefaultProtocolIsV3 proves v3 is the default and the protocol is
// validated.
func TestDefaultProtocolIsV3(t *testing.T) {
	cfg := coordinator.DefaultConfig()
	assert.Equal(t, coordinator.CleanupV3, cfg.TopologyCleanupProtocol)
	cfg.TopologyCleanupProtocol = "v4"
	var ce *coordinator.ConfigError
	require.ErrorAs(t, cfg.Validate(), &ce)
	assert.Contains(t, ce.Error(), "v1, v2 or v3")
}

// plainStore hides memstore's fenced methods: a store written for Kafka's SPI.
type plainStore struct{ plugin.Store }

// TestV3FallsBackToV2WithUnfencedStore proves that protocol v3 with a store
// that is not a plugin.FencedStore runs v2 (the cycle still marks -2 and
// finalizes), sends unfenced calls, and logs the fallback once, at startup.
func TestV3FallsBackToV2WithUnfencedStore(t *testing.T) {
	var logs bytes.Buffer
	cfg := coordinator.DefaultConfig()
	cfg.NumPartitions = 1
	store := memstore.New()
	c, err := coordinator.New(cfg, coordinator.Options{Clock: coordtest.NewClock(coordtest.Epoch),
		TopologyPlugin: plainStore{store}, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	require.NoError(t, err)
	assert.False(t, c.PluginCallsFenced())
	assert.Equal(t, coordinator.CleanupV3, c.CleanupProtocol())
	assert.Equal(t, 1, strings.Count(logs.String(), "does not implement plugin.FencedStore"))

	fenced, err := coordinator.New(cfg, coordinator.Options{Clock: coordtest.NewClock(coordtest.Epoch), TopologyPlugin: memstore.New()})
	require.NoError(t, err)
	assert.True(t, fenced.PluginCallsFenced())

	k := newKip(t) // v3 over faultstore(memstore): fenced
	assert.True(t, k.h.Coordinator.PluginCallsFenced())
	k.eligible("foo", 1)
	require.True(t, k.h.Coordinator.RunTopologyCleanupCycle())
	assert.Equal(t, shard.EpochNone, k.stored("foo"), "the v2 chain: mark -2, delete, finalize -1")
	_, _, has := k.storeHas("foo")
	assert.False(t, has)
}

// TestV3FencedPushAnswersNotCoordinator proves a push the store fences (a
// newer coordinator's token is already there) is answered NOT_COORDINATOR
// and records nothing: no stored epoch, no failed epoch, no back-off.
func TestV3FencedPushAnswersNotCoordinator(t *testing.T) {
	k := newKip(t)
	k.join("g", "m", 1)
	require.NoError(t, k.store.SetTopologyFenced(context.Background(), "g", 0, description(0), 99))
	be, ba, bn, _ := k.h.Coordinator.TopologyBackoff().Entry("g")
	err := k.push("g", "m", 1)
	require.ErrorIs(t, err, kerr.NotCoordinator)
	d, err := k.h.Group("g")
	require.NoError(t, err)
	assert.Equal(t, shard.EpochUncertain, d.StoredDescriptionTopologyEpoch, "the v2 mark before the set stays")
	assert.Equal(t, shard.EpochNone, d.FailedDescriptionTopologyEpoch)
	ae, aa, an, _ := k.h.Coordinator.TopologyBackoff().Entry("g")
	assert.Equal(t, []int64{int64(be), int64(ba), bn}, []int64{int64(ae), int64(aa), an}, "the back-off is untouched")
	e, _, _ := k.storeHas("g")
	assert.Equal(t, int32(0), e, "the newer owner's row is untouched")
}

// TestV3FencedDeleteGroupsAnswersNotCoordinator proves DeleteGroups answers
// NOT_COORDINATOR for a group whose fenced delete the store refused, keeps
// the group, and leaves the newer owner's row alone.
func TestV3FencedDeleteGroupsAnswersNotCoordinator(t *testing.T) {
	k := newKip(t)
	k.eligible("g", 1)
	require.NoError(t, k.store.SetTopologyFenced(context.Background(), "g", 1, description(1), 99))
	rs, err := k.h.DeleteGroups("g")
	require.NoError(t, err)
	require.Len(t, rs, 1)
	assert.ErrorIs(t, rs[0].Err, kerr.NotCoordinator)
	_, err = k.h.Group("g")
	require.NoError(t, err, "the group is not tombstoned")
	_, _, has := k.storeHas("g")
	assert.True(t, has)
}

// TestV3CycleTokenIsTheLoadEpoch proves the cycle's deletes carry the load
// epoch the scan read at: after the partition is reloaded (epoch 2), a
// store that has seen token 2 accepts the cycle's delete; one that has seen
// token 3 refuses it, and the group stays -2 for the next cycle.
func TestV3CycleTokenIsTheLoadEpoch(t *testing.T) {
	k := newKip(t)
	require.NoError(t, k.h.Coordinator.UnloadShard(0))
	require.NoError(t, k.h.Coordinator.LoadShard(0))
	k.h.Advance(time.Millisecond)
	e, _ := k.h.Coordinator.LoadEpoch(0)
	require.Equal(t, int32(2), e)
	k.eligible("ok", 1)
	k.eligible("fenced", 1)
	require.NoError(t, k.store.SetTopologyFenced(context.Background(), "fenced", 1, description(1), 3))
	require.True(t, k.h.Coordinator.RunTopologyCleanupCycle())
	assert.Equal(t, shard.EpochNone, k.stored("ok"))
	assert.Equal(t, shard.EpochUncertain, k.stored("fenced"))
	_, _, has := k.storeHas("fenced")
	assert.True(t, has)
}

// TestDeleteGroupsFailedDeleteReSolicitsAdvancedGroup proves the v2 fix in
// DeleteGroups (and so in v3): the delete of an idle group is in flight, a
// member joins and pushes epoch 1, then the delete reports a transient error
// although the store applied it. The group is not deleted (it has a member),
// and because the delete's outcome is unknown its stored epoch goes back to
// -2, so the next heartbeat solicits the description again. Under v3 the
// push is refused while the delete is in flight (deleteGuard) and the group
// ends at -2 all the same.
func TestDeleteGroupsFailedDeleteReSolicitsAdvancedGroup(t *testing.T) {
	for _, p := range []coordinator.CleanupProtocol{coordinator.CleanupV2, coordinator.CleanupV3} {
		t.Run(string(p), func(t *testing.T) {
			k := newKip(t, withProtocol(p))
			k.eligible("g", 1)
			k.exec.Auto = false
			f := k.h.Coordinator.DeleteGroups([]string{"g"})
			require.Len(t, k.exec.Pending(), 1, "the delete is in flight")
			joined := k.pushThenFailDeleteApplied(t, p, "g", "m2")
			rs, err := f.Result()
			require.NoError(t, err)
			assert.ErrorIs(t, rs[0].Err, kerr.GroupDeletionFailed)
			_, _, has := k.storeHas("g")
			require.False(t, has, "the store applied the delete")
			assert.Equal(t, shard.EpochUncertain, k.stored("g"), "an unknown outcome sends the advanced group back to -2")
			assert.True(t, k.heartbeat("g", "m2", joined.MemberEpoch, 1).TopologyDescriptionRequired, "solicited again")
		})
	}
}

// pushThenFailDeleteApplied is the middle both failed-delete tests share:
// while g's delete is held in the executor, member m joins and pushes
// topology epoch 1 (v3 refuses the push, deleteGuard, so the stored epoch
// stays -2; v2 stores it), then the store applies the delete but reports a
// transient error. It returns m's join.
func (k *kip) pushThenFailDeleteApplied(t *testing.T, p coordinator.CleanupProtocol, g, m string) shard.StreamsGroupHeartbeatResponse {
	t.Helper()
	k.exec.Auto = true
	joined := k.join(g, m, 1)
	if p == coordinator.CleanupV3 {
		require.ErrorIs(t, k.push(g, m, 1), kerr.StreamsTopologyDescriptionUpdateFailed)
		require.Equal(t, shard.EpochUncertain, k.stored(g))
	} else {
		require.NoError(t, k.push(g, m, 1))
		require.Equal(t, int32(1), k.stored(g))
	}
	require.NoError(t, k.faults.FailGroup(g, plugin.OpDelete, faultstore.FaultAppliedTransient, 1))
	require.True(t, k.exec.Run(plugin.OpDelete, g))
	return joined
}

// TestCleanupCycleFailedDeleteReSolicitsAdvancedGroup is the cycle's side
// of the same fix (swarm seed 139's sequence): the cycle marks g -2 and
// issues the delete, a member pushes epoch 1, the store applies the delete
// but reports a transient error. The finalize sends g back to -2 instead of
// leaving it claiming epoch 1 with no row. Under v3 the push is refused
// while the delete is in flight, so the group never leaves -2.
func TestCleanupCycleFailedDeleteReSolicitsAdvancedGroup(t *testing.T) {
	for _, p := range []coordinator.CleanupProtocol{coordinator.CleanupV2, coordinator.CleanupV3} {
		t.Run(string(p), func(t *testing.T) {
			k := newKip(t, withProtocol(p))
			k.eligible("g", 1)
			k.exec.Auto = false
			require.True(t, k.h.Coordinator.RunTopologyCleanupCycle())
			require.Equal(t, shard.EpochUncertain, k.stored("g"))
			joined := k.pushThenFailDeleteApplied(t, p, "g", "m2")
			_, _, has := k.storeHas("g")
			require.False(t, has, "the store applied the delete")
			assert.Equal(t, shard.EpochUncertain, k.stored("g"))
			if p == coordinator.CleanupV2 {
				assert.Equal(t, 1, k.countEvents(coordinator.EventFinalizeReSolicit))
			}
			assert.True(t, k.heartbeat("g", "m2", joined.MemberEpoch, 1).TopologyDescriptionRequired, "solicited again")
		})
	}
}
