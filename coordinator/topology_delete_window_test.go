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

// TestDeleteGroupsKeepsGroupThatEmptiedAfterThePreDeleteRead proves that
// DeleteGroups never tombstones a streams group whose description row it did
// not delete. The pre-delete read runs on committed state and the
// delete-groups write on the latest: a member's leave that is written but
// not yet committed makes the read skip the group (it has a member, so no
// plugin call) while the write finds it empty. Tombstoning it then would
// leak its row in the store (seed 161 of the heavy swarm knobs found it).
// The group answers GROUP_DELETION_FAILED, keeps its row and its record, and
// the retry deletes both.
func TestDeleteGroupsKeepsGroupThatEmptiedAfterThePreDeleteRead(t *testing.T) {
	protocols(t, func(t *testing.T, p coordinator.CleanupProtocol) {
		k := newKip(t, withProtocol(p), withCommitDelay(time.Second))
		_, err := coordtest.Await(k.h, k.h.Coordinator.StreamsGroupHeartbeat(shard.StreamsGroupHeartbeatRequest{GroupID: "g", MemberID: "m",
			RebalanceTimeoutMs: 1000, Topology: ptr(topologyAt(1)), Version: 1}))
		require.NoError(t, err)
		_, err = coordtest.Await(k.h, k.h.Coordinator.StreamsGroupTopologyDescriptionUpdate(coordinator.TopologyDescriptionUpdateRequest{
			GroupID: "g", MemberID: "m", TopologyEpoch: 1, Description: description(1)}))
		require.NoError(t, err)
		_, _, has := k.storeHas("g")
		require.True(t, has)

		leave := k.h.Coordinator.StreamsGroupHeartbeat(shard.StreamsGroupHeartbeatRequest{RebalanceTimeoutMs: shard.RebalanceTimeoutNotSent, GroupID: "g", MemberID: "m", MemberEpoch: -1, Version: 1})
		del := k.h.Coordinator.DeleteGroups([]string{"g"})
		_, err = coordtest.Await(k.h, leave)
		require.NoError(t, err)
		rs, err := coordtest.Await(k.h, del)
		require.NoError(t, err)
		require.ErrorIs(t, rs[0].Err, kerr.GroupDeletionFailed)
		assert.Contains(t, rs[0].Err.Error(), shard.RowNotDeletedMessage)
		_, _, has = k.storeHas("g")
		assert.True(t, has, "the row is still there")
		assert.Equal(t, int32(1), k.stored("g"), "and the group still says so")

		rs, err = coordtest.Await(k.h, k.h.Coordinator.DeleteGroups([]string{"g"}))
		require.NoError(t, err)
		require.NoError(t, rs[0].Err, "the retry deletes the row, then the group")
		_, _, has = k.storeHas("g")
		assert.False(t, has)
		_, err = k.h.Group("g")
		assert.ErrorIs(t, err, kerr.GroupIDNotFound)
	})
}
