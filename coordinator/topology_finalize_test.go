package coordinator_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/plugin"
	"github.com/coordsim/coordsim/shard"
)

// finalizeFailsAfterLateDelete replays the acceptance swarm's finding (heavy
// ci seeds 38 and 198): the cycle marks an idle group -2 and its delete is in
// flight; an instance comes back, heartbeats and pushes; the delete lands
// after the push; the finalize's append fails. It returns the member's
// epoch, for the heartbeat that follows.
func finalizeFailsAfterLateDelete(t *testing.T, k *kip) (memberEpoch int32, pushErr error) {
	k.exec.Auto = true
	k.eligible("g", 4)
	k.exec.Auto = false
	require.True(t, k.h.Coordinator.RunTopologyCleanupCycle())
	require.Equal(t, shard.EpochUncertain, k.stored("g"), "marked before the delete")
	require.Len(t, k.exec.Pending(), 1, "the delete is in flight")

	r := k.join("g", "m2", 4)
	push := k.h.Coordinator.StreamsGroupTopologyDescriptionUpdate(coordinator.TopologyDescriptionUpdateRequest{
		GroupID: "g", MemberID: "m2", TopologyEpoch: 4, Description: description(4)})
	k.exec.Run(plugin.OpSet, "g") // the push's set, if it was made, lands first
	k.h.FailNextAppend(kerr.NotEnoughReplicas.WithMessage("the finalize's append fails"))
	require.True(t, k.exec.Run(plugin.OpDelete, "g"), "then the delete")
	_, pushErr = push.Result()
	_, _, inFlight := k.h.Coordinator.CleanupStats()
	require.False(t, inFlight)
	return r.MemberEpoch, pushErr
}

// TestV3FailedFinalizeAfterLateDeleteKeepsGroupSolicited proves the v3 fix:
// no push overlaps the delete (the heartbeat does not solicit the group and
// the push is refused with STREAMS_TOPOLOGY_DESCRIPTION_UPDATE_FAILED), so
// the failed finalize leaves -2, the next heartbeat solicits the group and
// its push stores the description again. Without the fix the group claims
// epoch 4 with no row and is never asked again.
func TestV3FailedFinalizeAfterLateDeleteKeepsGroupSolicited(t *testing.T) {
	k := newKip(t, withProtocol(coordinator.CleanupV3), withManualPlugin())
	epoch, pushErr := finalizeFailsAfterLateDelete(t, k)
	if k.stored("g") == 4 {
		_, _, has := k.storeHas("g")
		require.True(t, has, "the metadata says epoch 4 is stored: the store must hold it")
	}
	require.ErrorIs(t, pushErr, kerr.StreamsTopologyDescriptionUpdateFailed, "the push overlapping the delete is refused")
	require.Equal(t, shard.EpochUncertain, k.stored("g"), "the failed finalize leaves the mark")
	hb := k.heartbeat("g", "m2", epoch, 1)
	require.True(t, hb.TopologyDescriptionRequired, "the group is asked again once the delete is finalized")
	k.exec.Auto = true
	require.NoError(t, k.push("g", "m2", 4))
	assert.Equal(t, int32(4), k.stored("g"))
	e, _, has := k.storeHas("g")
	assert.True(t, has)
	assert.Equal(t, int32(4), e)
}

// TestV2FailedFinalizeAfterLateDeleteLosesDescription pins v2 as merged in
// Kafka (PR #22777): the push overlaps the delete, the finalize that would
// send the advanced epoch back to -2 fails, and the group claims a
// description the store does not hold. v3 closes this window.
func TestV2FailedFinalizeAfterLateDeleteLosesDescription(t *testing.T) {
	k := newKip(t, withProtocol(coordinator.CleanupV2), withManualPlugin())
	epoch, pushErr := finalizeFailsAfterLateDelete(t, k)
	require.NoError(t, pushErr)
	assert.Equal(t, int32(4), k.stored("g"), "the advanced epoch survives the failed finalize")
	_, _, has := k.storeHas("g")
	assert.False(t, has, "the late delete erased the pushed row")
	assert.False(t, k.heartbeat("g", "m2", epoch, 1).TopologyDescriptionRequired, "and nothing asks for it again")
}

// TestV3PushValidatedBeforeDeleteDoesNotRecordItsEpoch proves the other half
// of the v3 guard: a push validated before the cycle marked its group, whose
// set completes while the delete is in flight, records no epoch (its row may
// or may not survive the delete), and the finalize leaves the group at -2
// rather than -1, so it is asked again.
func TestV3PushValidatedBeforeDeleteDoesNotRecordItsEpoch(t *testing.T) {
	k := newKip(t, withProtocol(coordinator.CleanupV3), withManualPlugin())
	k.exec.Auto = true
	k.eligible("g", 4)
	k.join("g", "m2", 4)
	k.exec.Auto = false
	push := k.h.Coordinator.StreamsGroupTopologyDescriptionUpdate(coordinator.TopologyDescriptionUpdateRequest{
		GroupID: "g", MemberID: "m2", TopologyEpoch: 4, Description: description(4)})
	require.Len(t, k.exec.Pending(), 1, "the set is in flight")
	k.leave("g", "m2")
	require.True(t, k.h.Coordinator.RunTopologyCleanupCycle())
	require.Len(t, k.exec.Pending(), 2, "the set and the delete are in flight")
	require.True(t, k.exec.Run(plugin.OpDelete, "g"), "the delete lands first")
	require.True(t, k.exec.Run(plugin.OpSet, "g"), "then the set: the store holds a row")
	_, _, has := k.storeHas("g")
	require.True(t, has)
	assert.Equal(t, shard.EpochUncertain, k.stored("g"), "a row may be in the store: the group stays eligible, not -1")
	_, err := push.Result()
	require.ErrorIs(t, err, kerr.StreamsTopologyDescriptionUpdateFailed)
}
