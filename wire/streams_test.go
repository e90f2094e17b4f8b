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
	join.Topology = oneSubtopology("words")
	noOwnedTasks(join)
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

// TestStreamsGroupInternalTopicsAndDelay proves the streams heartbeat's
// statuses over the wire with a raw-kmsg client: the join of a new group
// answers ASSIGNMENT_DELAYED (code 5) with Kafka's detail; the topology's
// repartition and changelog topics are missing, so it also answers
// MISSING_INTERNAL_TOPICS (code 3) "Internal topics are missing: ..." and
// the broker creates them (Metadata lists them with the decided counts); a
// later heartbeat, once the delay has passed, gets the tasks of both
// subtopologies.
func TestStreamsGroupInternalTopicsAndDelay(t *testing.T) {
	t.Parallel()
	cl := startCluster(t, func(c *wire.Config) { c.Coordinator.StreamsInitialRebalanceDelay = 200 * time.Millisecond })
	ctx := testContext(t)
	adm := newAdmin(t, cl)
	createTopic(t, ctx, adm, "words", 2)
	const group = "wordcount-internal"
	node, err := cl.CoordinatorFor(coordinator.PartitionFor(group, 50))
	require.NoError(t, err)
	coord := newClient(t, cl).Broker(int(node))
	beat := func(epoch int32, topology *kmsg.StreamsGroupHeartbeatRequestTopology) *kmsg.StreamsGroupHeartbeatResponse {
		t.Helper()
		req := kmsg.NewPtrStreamsGroupHeartbeatRequest()
		req.Group, req.MemberID, req.MemberEpoch, req.RebalanceTimeoutMillis = group, "member-1", epoch, 30000
		req.Topology = topology
		if epoch == 0 {
			noOwnedTasks(req)
		}
		resp, err := coord.Request(ctx, req)
		require.NoError(t, err)
		hb := resp.(*kmsg.StreamsGroupHeartbeatResponse)
		require.Zero(t, hb.ErrorCode, "%v", hb.ErrorMessage)
		return hb
	}
	topology := kmsg.NewStreamsGroupHeartbeatRequestTopology()
	s0 := kmsg.NewStreamsGroupHeartbeatRequestTopologySubtopology()
	s0.SubtopologyID, s0.SourceTopics, s0.RepartitionSinkTopics = "0", []string{"words"}, []string{"wordcount-internal-repartition"}
	s1 := kmsg.NewStreamsGroupHeartbeatRequestTopologySubtopology()
	rp := kmsg.NewTopicInfo()
	rp.Topic = "wordcount-internal-repartition"
	cl1 := kmsg.NewTopicInfo()
	cl1.Topic = "wordcount-internal-counts-changelog"
	s1.SubtopologyID, s1.RepartitionSourceTopics, s1.StateChangelogTopics = "1", []kmsg.TopicInfo{rp}, []kmsg.TopicInfo{cl1}
	topology.Subtopologies = []kmsg.StreamsGroupHeartbeatRequestTopologySubtopology{s0, s1}

	hb := beat(0, &topology)
	codes := map[int8]string{}
	for _, st := range hb.Status {
		codes[st.StatusCode] = st.StatusDetail
	}
	assert.Equal(t, map[int8]string{
		3: "Internal topics are missing: wordcount-internal-counts-changelog, wordcount-internal-repartition",
		5: "Assignment delayed due to the configured initial rebalance delay.",
	}, codes)
	assert.Empty(t, hb.ActiveTasks)

	md, err := adm.ListTopics(ctx, "wordcount-internal-repartition", "wordcount-internal-counts-changelog")
	require.NoError(t, err)
	for _, name := range []string{"wordcount-internal-repartition", "wordcount-internal-counts-changelog"} {
		require.NoError(t, md[name].Err, name)
		assert.Len(t, md[name].Partitions, 2, "%s takes the count of what its subtopology reads", name)
	}

	epoch := hb.MemberEpoch
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		hb = beat(epoch, nil)
		epoch = hb.MemberEpoch
		if len(hb.ActiveTasks) == 2 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	require.Len(t, hb.ActiveTasks, 2, "both subtopologies are assigned")
	assert.Empty(t, hb.Status)
}

// TestStreamsGroupHeartbeatEndpointInformation reproduces, over the wire,
// KIP-1071's endpoint information as Kafka's
// GroupMetadataManager.streamsGroupHeartbeat answers it: the member's
// UserEndpoint is kept (and described by StreamsGroupDescribe), and a
// heartbeat whose EndpointInformationEpoch differs from the group's (0 in a
// new group, Kafka 4.4's StreamsGroup constructor) gets
// PartitionsByUserEndpoint: each endpoint with the source-topic partitions
// of its active tasks; with the group's epoch, none.
func TestStreamsGroupHeartbeatEndpointInformation(t *testing.T) {
	t.Parallel()
	cl := startCluster(t, func(c *wire.Config) { c.Coordinator.StreamsInitialRebalanceDelay = 0 })
	ctx := testContext(t)
	adm := newAdmin(t, cl)
	createTopic(t, ctx, adm, "clicks", 2)
	const group = "iq-app"
	node, err := cl.CoordinatorFor(coordinator.PartitionFor(group, 50))
	require.NoError(t, err)
	coord := newClient(t, cl).Broker(int(node))
	topology := kmsg.NewStreamsGroupHeartbeatRequestTopology()
	s0 := kmsg.NewStreamsGroupHeartbeatRequestTopologySubtopology()
	s0.SubtopologyID, s0.SourceTopics = "0", []string{"clicks"}
	topology.Subtopologies = []kmsg.StreamsGroupHeartbeatRequestTopologySubtopology{s0}
	beat := func(epoch, endpointEpoch int32) *kmsg.StreamsGroupHeartbeatResponse {
		t.Helper()
		req := kmsg.NewPtrStreamsGroupHeartbeatRequest()
		req.Group, req.MemberID, req.MemberEpoch, req.RebalanceTimeoutMillis = group, "member-1", epoch, 30000
		req.EndpointInformationEpoch = endpointEpoch
		ep := kmsg.NewStreamsGroupHeartbeatRequestUserEndpoint()
		ep.Host, ep.Port = "localhost", 8080
		req.UserEndpoint = &ep
		if epoch == 0 {
			req.Topology = &topology
			noOwnedTasks(req)
		}
		resp, err := coord.Request(ctx, req)
		require.NoError(t, err)
		hb := resp.(*kmsg.StreamsGroupHeartbeatResponse)
		require.Zero(t, hb.ErrorCode, "%v", hb.ErrorMessage)
		return hb
	}
	// The join bumps the new group's epoch (0 in Kafka 4.4) to 1, which
	// differs from the 0 the member knows: the first answer lists the
	// endpoints, and says 0, the epoch the new group keeps.
	hb := beat(0, 0)
	require.Len(t, hb.ActiveTasks, 1)
	assert.Zero(t, hb.EndpointInformationEpoch, "the heartbeat that creates the group answers 0")
	require.Len(t, hb.PartitionsByUserEndpoint, 1)
	got := hb.PartitionsByUserEndpoint[0]
	assert.Equal(t, "localhost", got.UserEndpoint.Host)
	assert.Equal(t, uint16(8080), got.UserEndpoint.Port)
	require.Len(t, got.ActivePartitions, 1)
	assert.Equal(t, "clicks", got.ActivePartitions[0].Topic)
	assert.Equal(t, []int32{0, 1}, got.ActivePartitions[0].Partitions)
	assert.Empty(t, got.StandbyPartitions)

	hb = beat(hb.MemberEpoch, hb.EndpointInformationEpoch)
	assert.Zero(t, hb.EndpointInformationEpoch, "the group's epoch: the new group did not keep the bump")
	assert.Empty(t, hb.PartitionsByUserEndpoint, "the member knows the group's epoch")

	dreq := kmsg.NewPtrStreamsGroupDescribeRequest()
	dreq.Groups = []string{group}
	dresp, err := coord.Request(ctx, dreq)
	require.NoError(t, err)
	d := dresp.(*kmsg.StreamsGroupDescribeResponse)
	require.Len(t, d.Groups, 1)
	require.Len(t, d.Groups[0].Members, 1)
	ue := d.Groups[0].Members[0].UserEndpoint
	require.NotNil(t, ue, "StreamsGroupDescribe shows the member's endpoint")
	assert.Equal(t, "localhost", ue.Host)
	assert.Equal(t, uint16(8080), ue.Port)
}
