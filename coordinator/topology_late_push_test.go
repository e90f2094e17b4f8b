package coordinator_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/plugin"
	"github.com/coordsim/coordsim/shard"
)

// pushOutlivesItsGroup replays hole 4 (docs/kip1331-v3.md; heavy ci seeds
// 819 and 942, CI's light ci seed 11): a streams app joins and pushes, the
// push's setTopology is slow, and every member leaves before the set lands.
// The cycle marks the idle group -2, deletes (nothing is stored yet) and
// finalizes. It returns the push, still in flight.
func pushOutlivesItsGroup(t *testing.T, k *kip) *coordinator.Future[struct{}] {
	k.exec.Auto = false
	k.join("g", "m", 4)
	push := k.h.Coordinator.StreamsGroupTopologyDescriptionUpdate(coordinator.TopologyDescriptionUpdateRequest{
		GroupID: "g", MemberID: "m", TopologyEpoch: 4, Description: description(4)})
	require.Len(t, k.exec.Pending(), 1, "the set is in flight")
	require.Equal(t, shard.EpochUncertain, k.stored("g"), "the push marked the group before its set")
	k.leave("g", "m")
	require.True(t, k.h.Coordinator.RunTopologyCleanupCycle())
	require.True(t, k.exec.Run(plugin.OpDelete, "g"), "the cycle's delete lands before the set")
	_, _, inFlight := k.h.Coordinator.CleanupStats()
	require.False(t, inFlight, "the cycle finalized")
	return push
}

// TestV3PushLandingAfterCleanupLeavesNoRow proves hole 4's fix: while a push
// of the group is in flight the finalize leaves the group at -2, so the sweep
// keeps it, and the row the late set writes is deleted by a later cycle
// before the group is tombstoned. Without the fix the group is finalized to
// -1 and tombstoned, and the late set leaves a row of a group that no longer
// exists.
func TestV3PushLandingAfterCleanupLeavesNoRow(t *testing.T) {
	k := newKip(t, withProtocol(coordinator.CleanupV3), withManualPlugin())
	push := pushOutlivesItsGroup(t, k)
	require.Equal(t, shard.EpochUncertain, k.stored("g"), "a push is in flight: the group stays -2")
	assert.Equal(t, 1, k.countEvents(coordinator.EventPushInFlightKept))
	k.h.Advance(time.Minute) // the sweep keeps the group; a cycle deletes again
	_, err := k.h.Group("g")
	require.NoError(t, err, "the group is not tombstoned while its push is in flight")
	require.True(t, k.exec.Run(plugin.OpSet, "g"), "the late set lands: the store holds a row")
	k.exec.Auto = true
	k.exec.RunAll()
	_, err = push.Result()
	require.ErrorIs(t, err, kerr.StreamsTopologyDescriptionUpdateFailed, "the push overlapped a delete")
	k.h.Advance(3 * time.Minute) // cycles delete the row; the sweep tombstones the group
	_, err = k.h.Group("g")
	assert.ErrorIs(t, err, kerr.GroupIDNotFound, "the group expires once its row is gone")
	assert.Zero(t, k.store.Len(), "no row of a group that no longer exists")
}

// TestV3DeleteGroupsWithPushInFlightKeepsGroup is hole 4 through the admin
// path: DeleteGroups of an empty group whose push is still in flight deletes
// the row but does not tombstone the group (GROUP_DELETION_FAILED, retry),
// so the late set's row is cleaned before the group goes.
func TestV3DeleteGroupsWithPushInFlightKeepsGroup(t *testing.T) {
	k := newKip(t, withProtocol(coordinator.CleanupV3), withManualPlugin())
	k.exec.Auto = false
	k.join("g", "m", 4)
	push := k.h.Coordinator.StreamsGroupTopologyDescriptionUpdate(coordinator.TopologyDescriptionUpdateRequest{
		GroupID: "g", MemberID: "m", TopologyEpoch: 4, Description: description(4)})
	k.leave("g", "m")
	del := k.h.Coordinator.DeleteGroups([]string{"g"})
	require.True(t, k.exec.Run(plugin.OpDelete, "g"))
	res, err := del.Result()
	require.NoError(t, err)
	require.Len(t, res, 1)
	require.ErrorIs(t, res[0].Err, kerr.GroupDeletionFailed, "a push is in flight: the group is kept")
	assert.Equal(t, 1, k.countEvents(coordinator.EventPushInFlightKept))
	assert.Equal(t, shard.EpochUncertain, k.stored("g"))
	require.True(t, k.exec.Run(plugin.OpSet, "g"), "the late set lands")
	_, err = push.Result()
	require.Error(t, err)
	k.exec.Auto = true
	k.h.Advance(3 * time.Minute)
	_, err = k.h.Group("g")
	assert.ErrorIs(t, err, kerr.GroupIDNotFound)
	assert.Zero(t, k.store.Len(), "no row of a group that no longer exists")
}

// TestV2PushLandingAfterCleanupLeaksRow pins v2 as merged in Kafka (PR
// #22777): the cycle finalizes the group to -1 although its push is in
// flight, the sweep tombstones it, and the late set's row outlives it.
func TestV2PushLandingAfterCleanupLeaksRow(t *testing.T) {
	k := newKip(t, withProtocol(coordinator.CleanupV2), withManualPlugin())
	push := pushOutlivesItsGroup(t, k)
	require.Equal(t, shard.EpochNone, k.stored("g"))
	k.h.Advance(time.Minute)
	_, err := k.h.Group("g")
	require.ErrorIs(t, err, kerr.GroupIDNotFound, "tombstoned")
	require.True(t, k.exec.Run(plugin.OpSet, "g"))
	_, err = push.Result()
	require.ErrorIs(t, err, kerr.GroupIDNotFound)
	k.exec.Auto = true
	k.h.Advance(3 * time.Minute)
	_, _, has := k.storeHas("g")
	assert.True(t, has, "the row outlives its group")
}
