package coordinator_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/coordinator/coordtest"
	"github.com/coordsim/coordsim/shard"
)

// TestSetTopicsNilInstallsTheEmptyImage proves Coordinator.SetTopics(nil)
// installs the empty metadata image on every hosted shard (a streams group
// whose source topic vanished is NOT_READY at its next heartbeat), writes
// nothing, keeps replay equality, and that the image can be installed
// again.
func TestSetTopicsNilInstallsTheEmptyImage(t *testing.T) {
	h, err := coordtest.New(coordtest.WithTopics(map[string]int32{"foo": 3}))
	require.NoError(t, err)
	joined, err := h.JoinStreams("g", "m1", shard.Topology{Epoch: 1, Subtopologies: []shard.Subtopology{{ID: "0", SourceTopics: []string{"foo"}}}})
	require.NoError(t, err)
	h.Poll()
	records := len(h.Records())

	require.NoError(t, h.Coordinator.SetTopics(nil))
	assert.Len(t, h.Records(), records, "metadata is not a record")
	require.NoError(t, h.CheckReplay())
	beat, err := h.HeartbeatStreams("g", "m1", joined.MemberEpoch)
	require.NoError(t, err)
	g, err := h.Group("g")
	require.NoError(t, err)
	assert.Equal(t, shard.StateNotReady, g.State, "the heartbeat found the source topic missing")

	require.NoError(t, h.Coordinator.SetTopics(map[string]int32{"foo": 3}))
	_, err = h.HeartbeatStreams("g", "m1", beat.MemberEpoch)
	require.NoError(t, err)
	g, err = h.Group("g")
	require.NoError(t, err)
	assert.NotEqual(t, shard.StateNotReady, g.State)
}

// TestDelayedStreamsAssignmentNeedsAConfiguredTopology proves the soft
// state the initial rebalance delay reads (Kafka's
// StreamsGroup.configuredTopology): the heartbeat that creates a group
// configures a transient group object, so a delay that ends before the
// group's next heartbeat computes nothing; a next heartbeat that writes no
// record configures it, and a failed write after it keeps it (Kafka's
// runtime reverts its timeline only when an append fails, never when an
// operation throws: CoordinatorWriteEvent.run); with it the delay assigns.
func TestDelayedStreamsAssignmentNeedsAConfiguredTopology(t *testing.T) {
	topology := shard.Topology{Epoch: 0, Subtopologies: []shard.Subtopology{{ID: "0", SourceTopics: []string{"foo"}}}}
	for _, tc := range []struct {
		name              string
		heartbeat, failed bool
		assigned          bool
	}{
		{name: "created by its only heartbeat"},
		{name: "heartbeat since", heartbeat: true, assigned: true},
		{name: "heartbeat since, then a failed write", heartbeat: true, failed: true, assigned: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := coordtest.New(coordtest.WithTopics(map[string]int32{"foo": 3}))
			require.NoError(t, err)
			joined, err := h.JoinStreams("g", "m1", topology)
			require.NoError(t, err)
			h.Poll()
			if tc.heartbeat {
				_, err = h.HeartbeatStreams("g", "m1", joined.MemberEpoch)
				require.NoError(t, err)
			}
			if tc.failed {
				// Any write of the partition that fails: a consumer
				// heartbeat to the streams group.
				_, err = h.HeartbeatConsumer("g", "nobody", 5)
				require.Error(t, err)
			}
			h.Advance(10 * time.Second)
			d, err := h.DescribeStreams("g", false)
			require.NoError(t, err)
			if tc.assigned {
				assert.Equal(t, d.Group.Epoch, d.Group.AssignmentEpoch, "the delay computed the target")
			} else {
				assert.Less(t, d.Group.AssignmentEpoch, d.Group.Epoch, "no configured topology: the delay computed nothing")
			}
		})
	}
}

// TestStreamsLeaveConfiguresNothing proves that a streams leave keeps the
// configured topology the group had (Kafka's streamsGroupLeave fences the
// member without configuring): after the only member of a group its own
// join created leaves, the group still has none, so a describe shows the
// topology record's changelog topic unsized; after a second member's join
// configured it, the describe shows the size it decided.
func TestStreamsLeaveConfiguresNothing(t *testing.T) {
	topology := shard.Topology{Subtopologies: []shard.Subtopology{{
		ID: "0", SourceTopics: []string{"foo"}, StateChangelogTopics: []shard.TopicInfo{{Name: "g-store-changelog"}},
	}}}
	for _, tc := range []struct {
		name       string
		second     bool
		partitions int32
	}{
		{name: "created by the leaving member's join", partitions: 0},
		{name: "configured by another member's join", second: true, partitions: 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := coordtest.New(coordtest.WithTopics(map[string]int32{"foo": 3, "g-store-changelog": 3}))
			require.NoError(t, err)
			_, err = h.JoinStreams("g", "m1", topology)
			require.NoError(t, err)
			if tc.second {
				_, err = h.JoinStreams("g", "m2", topology)
				require.NoError(t, err)
			}
			_, err = h.HeartbeatStreams("g", "m1", -1)
			require.NoError(t, err)
			d, err := h.DescribeStreams("g", false)
			require.NoError(t, err)
			require.NotNil(t, d.Topology)
			assert.Equal(t, tc.partitions, d.Topology.Subtopologies[0].StateChangelogTopics[0].Partitions)
		})
	}
}
