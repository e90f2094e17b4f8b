package wire_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/plugin/memstore"
	"github.com/coordsim/coordsim/wire"
)

// TestStreamsGroupKIP1331 proves KIP-1331 end to end over the wire with a
// raw-kmsg streams client: the coordinator solicits the description on the
// join heartbeat (v1 TopologyDescriptionRequired), the member pushes it
// with StreamsGroupTopologyDescriptionUpdate, StreamsGroupDescribe v1
// answers AVAILABLE with the description, the member leaves, the cleanup
// cycle deletes the stored row, and describe answers NOT_STORED.
func TestStreamsGroupKIP1331(t *testing.T) {
	t.Parallel()
	store := memstore.New()
	cl := startCluster(t, func(c *wire.Config) {
		c.TopologyPlugin = store
		// No initial rebalance delay: the only member gets its tasks at once.
		c.Coordinator.StreamsInitialRebalanceDelay = 0
	})
	ctx := testContext(t)
	adm := newAdmin(t, cl)
	createTopic(t, ctx, adm, "words", 2)
	const group = "wordcount"

	node, err := cl.CoordinatorFor(coordinator.PartitionFor(group, 50))
	require.NoError(t, err)
	client := newClient(t, cl)
	coord := client.Broker(int(node))
	send := func(req kmsg.Request) kmsg.Response {
		t.Helper()
		resp, err := coord.Request(ctx, req)
		require.NoError(t, err)
		return resp
	}

	join := kmsg.NewPtrStreamsGroupHeartbeatRequest()
	join.Version = 1
	join.Group, join.MemberID, join.MemberEpoch, join.RebalanceTimeoutMillis = group, "member-1", 0, 30000
	process := "process-1"
	join.ProcessID = &process
	topology := kmsg.NewStreamsGroupHeartbeatRequestTopology()
	topology.Epoch = 1
	sub := kmsg.NewStreamsGroupHeartbeatRequestTopologySubtopology()
	sub.SubtopologyID, sub.SourceTopics = "0", []string{"words"}
	topology.Subtopologies = append(topology.Subtopologies, sub)
	join.Topology = &topology
	hb := send(join).(*kmsg.StreamsGroupHeartbeatResponse)
	require.Zero(t, hb.ErrorCode, "join: %v", hb.ErrorMessage)
	assert.Equal(t, int32(2), hb.MemberEpoch, "a streams group's first epoch is 2")
	assert.True(t, hb.TopologyDescriptionRequired, "the coordinator solicits the description")
	assert.NotEmpty(t, hb.ActiveTasks, "the only member gets the tasks")

	push := kmsg.NewPtrStreamsGroupTopologyDescriptionUpdateRequest()
	push.Group, push.MemberID, push.TopologyEpoch = group, "member-1", 1
	source := kmsg.NewTopologyDescriptionNode()
	source.Name, source.NodeType, source.SourceTopics, source.Successors = "KSTREAM-SOURCE-0000000000", 1, []string{"words"}, []string{"KSTREAM-PROCESSOR-0000000001"}
	proc := kmsg.NewTopologyDescriptionNode()
	proc.Name, proc.NodeType = "KSTREAM-PROCESSOR-0000000001", 2
	dsub := kmsg.NewTopologyDescriptionSubtopology()
	dsub.SubtopologyID, dsub.Nodes = "0", []kmsg.TopologyDescriptionNode{source, proc}
	push.TopologyDescription.Subtopologies = []kmsg.TopologyDescriptionSubtopology{dsub}
	pushed := send(push).(*kmsg.StreamsGroupTopologyDescriptionUpdateResponse)
	require.Zero(t, pushed.ErrorCode, "push: %v", pushed.ErrorMessage)

	describe := func() kmsg.StreamsGroupDescribeResponseGroup {
		req := kmsg.NewPtrStreamsGroupDescribeRequest()
		req.Version, req.Groups, req.IncludeTopologyDescription = 1, []string{group}, true
		resp := send(req).(*kmsg.StreamsGroupDescribeResponse)
		require.Len(t, resp.Groups, 1)
		require.Zero(t, resp.Groups[0].ErrorCode, "describe: %v", resp.Groups[0].ErrorMessage)
		return resp.Groups[0]
	}
	d := describe()
	assert.Equal(t, int8(coordinator.StatusAvailable), d.TopologyDescriptionStatus)
	require.NotNil(t, d.TopologyDescription)
	require.Len(t, d.TopologyDescription.Subtopologies, 1)
	assert.Equal(t, source.Name, d.TopologyDescription.Subtopologies[0].Nodes[0].Name)
	assert.Equal(t, "Stable", d.State)
	require.Len(t, d.Members, 1)

	leave := kmsg.NewPtrStreamsGroupHeartbeatRequest()
	leave.Version = 1
	leave.Group, leave.MemberID, leave.MemberEpoch = group, "member-1", -1
	left := send(leave).(*kmsg.StreamsGroupHeartbeatResponse)
	require.Zero(t, left.ErrorCode, "leave: %v", left.ErrorMessage)
	assert.Equal(t, "Empty", describe().State)

	// One cleanup cycle on the group's coordinator, then wait (bounded) for
	// its plugin calls, which run on the driver's goroutines, to settle.
	driver := cl.Driver(node)
	require.NoError(t, driver.Do(ctx, func(c *coordinator.Coordinator) { c.RunTopologyCleanupCycle() }))
	require.Eventually(t, func() bool {
		var inFlight bool
		_ = driver.Do(context.Background(), func(c *coordinator.Coordinator) { _, _, inFlight = c.CleanupStats() })
		return !inFlight
	}, testTimeout/2, 5*time.Millisecond)
	d = describe()
	assert.Equal(t, int8(coordinator.StatusNotStored), d.TopologyDescriptionStatus, "the cycle deleted the stored description")
	assert.Nil(t, d.TopologyDescription)
	got, err := store.GetTopology(ctx, group, 1)
	require.NoError(t, err)
	assert.Nil(t, got, "the store holds no row for the group")
}
