package wire_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/wire"
)

// coordinatorOf returns a function sending requests to group's coordinator
// broker, failing the test on a transport error.
func coordinatorOf(t *testing.T, ctx context.Context, cl *wire.Cluster, group string) func(kmsg.Request) kmsg.Response {
	t.Helper()
	return coordinatorAt(t, ctx, cl, group)
}

// TestRackAwareRangeAssignor reproduces Kafka's
// FetchFromFollowerIntegrationTest.testRackAwareRangeAssignor over the wire
// with KIP-848 consumers: two brokers on racks a and b lead a four-partition
// topic's partitions alternately (0 and 2 on broker 0, 1 and 3 on broker
// 1), and two kgo consumers with client racks a and b naming the server's
// range assignor each end up owning exactly the partitions whose replica
// is on their rack (rack-blind range would give them 0,1 and 2,3).
// Metadata reports each broker's rack, and ConsumerGroupDescribe each
// member's.
func TestRackAwareRangeAssignor(t *testing.T) {
	t.Parallel()
	cl := startCluster(t, func(c *wire.Config) {
		c.Brokers, c.BrokerRacks = 2, []string{"a", "b"}
		c.Coordinator.ConsumerAssignors = []string{"range"}
	})
	ctx := testContext(t)
	adm := newAdmin(t, cl)
	const topic, group = "racked", "g"
	createTopic(t, ctx, adm, topic, 4)

	meta, err := adm.BrokerMetadata(ctx)
	require.NoError(t, err)
	racks := map[int32]string{}
	for _, b := range meta.Brokers {
		if assert.NotNil(t, b.Rack, "broker %d has a rack", b.NodeID) {
			racks[b.NodeID] = *b.Rack
		}
	}
	assert.Equal(t, map[int32]string{0: "a", 1: "b"}, racks)
	tmeta, err := adm.Metadata(ctx, topic)
	require.NoError(t, err)
	want := map[string]map[int32]bool{"a": {}, "b": {}}
	for _, p := range tmeta.Topics[topic].Partitions {
		require.Len(t, p.Replicas, 1)
		want[racks[p.Replicas[0]]][p.Partition] = true
	}
	require.Equal(t, map[string]map[int32]bool{"a": {0: true, 2: true}, "b": {1: true, 3: true}}, want,
		"the leaders alternate over the brokers")

	var mu sync.Mutex
	owned := map[string]map[int32]bool{"a": {}, "b": {}}
	settled := make(chan struct{})
	var settleOnce sync.Once
	check := func() { // under mu
		for rack, ps := range want {
			if len(owned[rack]) != len(ps) {
				return
			}
			for p := range ps {
				if !owned[rack][p] {
					return
				}
			}
		}
		settleOnce.Do(func() { close(settled) })
	}
	for _, rack := range []string{"a", "b"} {
		newClient(t, cl, kgo.ConsumerGroup(group), kgo.ConsumeTopics(topic), kgo.Rack(rack),
			kgo.ServerSideBalancer(), kgo.Balancers(kgo.RangeBalancer()), kgo.ClientID("consumer-"+rack),
			kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, a map[string][]int32) {
				mu.Lock()
				defer mu.Unlock()
				for _, p := range a[topic] {
					owned[rack][p] = true
				}
				check()
			}),
			kgo.OnPartitionsRevoked(func(_ context.Context, _ *kgo.Client, r map[string][]int32) {
				mu.Lock()
				defer mu.Unlock()
				for _, p := range r[topic] {
					delete(owned[rack], p)
				}
			}),
			kgo.OnPartitionsLost(func(_ context.Context, _ *kgo.Client, l map[string][]int32) {
				mu.Lock()
				defer mu.Unlock()
				for _, p := range l[topic] {
					delete(owned[rack], p)
				}
			}))
	}
	select {
	case <-settled:
	case <-ctx.Done():
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("the consumers never owned their racks' partitions: own %v, want %v", owned, want)
	}

	// The coordinator's view agrees: each member's rack and its assignment.
	send := coordinatorOf(t, ctx, cl, group)
	describe := kmsg.NewPtrConsumerGroupDescribeRequest()
	describe.Groups = []string{group}
	// The clients' callbacks can run before the coordinator has recorded
	// the last member's reconciliation; poll (wall time: a real cluster).
	assert.EventuallyWithT(t, func(c *assert.CollectT) {
		resp := send(describe).(*kmsg.ConsumerGroupDescribeResponse)
		if !assert.Len(c, resp.Groups, 1) || !assert.Zero(c, resp.Groups[0].ErrorCode) {
			return
		}
		g := resp.Groups[0]
		assert.Equal(c, "Stable", g.State)
		got := map[string][]int32{}
		for _, m := range g.Members {
			if assert.NotNil(c, m.RackID, "member %s has a rack", m.ClientID) {
				for _, tp := range m.Assignment.TopicPartitions {
					got[*m.RackID] = append(got[*m.RackID], tp.Partitions...)
				}
			}
		}
		assert.ElementsMatch(c, []int32{0, 2}, got["a"])
		assert.ElementsMatch(c, []int32{1, 3}, got["b"])
	}, 30*time.Second, 50*time.Millisecond)
}

// TestConsumerGroupDescribeRackID proves a heartbeat's RackId reaches the
// member (Kafka's maybeUpdateRackId) and ConsumerGroupDescribe returns it
// (ConsumerGroupMember.asConsumerGroupDescribeMember); a later heartbeat
// with a null rack leaves it, a new one replaces it, and a member that never
// sent one, like its unset instance id, is described with null (a static
// regex member with its instance id and regex); an unset topic regex is ""
// (ConsumerGroupMember.Builder's default). Share and
// streams heartbeats carry their rack to their describes the same way.
func TestConsumerGroupDescribeRackID(t *testing.T) {
	t.Parallel()
	cl := startCluster(t, func(c *wire.Config) { c.Coordinator.StreamsInitialRebalanceDelay = 0 })
	ctx := testContext(t)
	createTopic(t, ctx, newAdmin(t, cl), "t", 2)

	const group = "racks"
	send := coordinatorOf(t, ctx, cl, group)
	heartbeat := func(member string, epoch int32, rack *string) int32 {
		t.Helper()
		req := kmsg.NewPtrConsumerGroupHeartbeatRequest()
		req.Group, req.MemberID, req.MemberEpoch, req.RackID = group, member, epoch, rack
		if epoch == 0 {
			req.RebalanceTimeoutMillis, req.SubscribedTopicNames = 5000, []string{"t"}
			req.Topics = []kmsg.ConsumerGroupHeartbeatRequestTopic{}
		}
		resp := send(req).(*kmsg.ConsumerGroupHeartbeatResponse)
		require.Zero(t, resp.ErrorCode, "heartbeat: %v", resp.ErrorMessage)
		return resp.MemberEpoch
	}
	describe := func() map[string]kmsg.ConsumerGroupDescribeResponseGroupMember {
		t.Helper()
		req := kmsg.NewPtrConsumerGroupDescribeRequest()
		req.Groups = []string{group}
		resp := send(req).(*kmsg.ConsumerGroupDescribeResponse)
		require.Len(t, resp.Groups, 1)
		require.Zero(t, resp.Groups[0].ErrorCode)
		out := map[string]kmsg.ConsumerGroupDescribeResponseGroupMember{}
		for _, m := range resp.Groups[0].Members {
			out[m.MemberID] = m
		}
		return out
	}

	epoch := heartbeat("m1", 0, ptr("rack-1"))
	heartbeat("m2", 0, nil)
	members := describe()
	require.Len(t, members, 2)
	if assert.NotNil(t, members["m1"].RackID) {
		assert.Equal(t, "rack-1", *members["m1"].RackID)
	}
	assert.Nil(t, members["m2"].RackID, "a member without a rack is described with null")
	assert.Nil(t, members["m2"].InstanceID, "and without an instance id with null")

	// The member's other nullable fields are described the same way: a
	// static member's instance id and a regex subscriber's regex.
	static := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	static.Group, static.MemberID, static.InstanceID, static.RebalanceTimeoutMillis = group, "m3", ptr("instance-3"), 5000
	static.SubscribedTopicRegex, static.Topics = ptr("t.*"), []kmsg.ConsumerGroupHeartbeatRequestTopic{}
	staticResp := send(static).(*kmsg.ConsumerGroupHeartbeatResponse)
	require.Zero(t, staticResp.ErrorCode, "static heartbeat: %v", staticResp.ErrorMessage)
	m3 := describe()["m3"]
	if assert.NotNil(t, m3.InstanceID) && assert.NotNil(t, m3.SubscribedTopicRegex) {
		assert.Equal(t, "instance-3", *m3.InstanceID)
		assert.Equal(t, "t.*", *m3.SubscribedTopicRegex)
	}
	assert.Nil(t, m3.RackID)
	if assert.NotNil(t, members["m1"].SubscribedTopicRegex, "a member without a regex is described with Kafka's \"\"") {
		assert.Equal(t, "", *members["m1"].SubscribedTopicRegex)
	}

	epoch = heartbeat("m1", epoch, nil)
	if m := describe()["m1"]; assert.NotNil(t, m.RackID) {
		assert.Equal(t, "rack-1", *m.RackID, "a null rack leaves the member's")
	}
	epoch = heartbeat("m1", epoch, ptr("rack-2"))
	if m := describe()["m1"]; assert.NotNil(t, m.RackID) {
		assert.Equal(t, "rack-2", *m.RackID, "a new rack replaces it")
	}

	// Bad input: a rack the coordinator refuses is INVALID_REQUEST and
	// changes nothing.
	bad := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	bad.Group, bad.MemberID, bad.MemberEpoch, bad.RackID = group, "m1", epoch, ptr("\xff")
	badResp := send(bad).(*kmsg.ConsumerGroupHeartbeatResponse)
	assert.Equal(t, kerr.InvalidRequest.Code, badResp.ErrorCode)
	if m := describe()["m1"]; assert.NotNil(t, m.RackID) {
		assert.Equal(t, "rack-2", *m.RackID, "a refused heartbeat changes nothing")
	}

	// Share groups (ShareGroupMember.asShareGroupDescribeMember).
	const shareGroup = "share-racks"
	sendShare := coordinatorOf(t, ctx, cl, shareGroup)
	shb := kmsg.NewPtrShareGroupHeartbeatRequest()
	shb.GroupID, shb.MemberID, shb.MemberEpoch, shb.SubscribedTopicNames, shb.RackID = shareGroup, "s1", 0, []string{"t"}, ptr("rack-s")
	shbResp := sendShare(shb).(*kmsg.ShareGroupHeartbeatResponse)
	require.Zero(t, shbResp.ErrorCode, "share heartbeat: %v", shbResp.ErrorMessage)
	sd := kmsg.NewPtrShareGroupDescribeRequest()
	sd.GroupIDs = []string{shareGroup}
	sdResp := sendShare(sd).(*kmsg.ShareGroupDescribeResponse)
	require.Len(t, sdResp.Groups, 1)
	require.Len(t, sdResp.Groups[0].Members, 1)
	if r := sdResp.Groups[0].Members[0].RackID; assert.NotNil(t, r) {
		assert.Equal(t, "rack-s", *r)
	}

	// Streams groups (StreamsGroupMember.asStreamsGroupDescribeMember).
	const streamsGroup = "streams-racks"
	sendStreams := coordinatorOf(t, ctx, cl, streamsGroup)
	join := kmsg.NewPtrStreamsGroupHeartbeatRequest()
	join.Group, join.MemberID, join.MemberEpoch, join.RebalanceTimeoutMillis = streamsGroup, "st1", 0, 30000
	join.ProcessID, join.Topology, join.RackID = ptr("process-1"), oneSubtopology("t"), ptr("rack-st")
	noOwnedTasks(join)
	joined := sendStreams(join).(*kmsg.StreamsGroupHeartbeatResponse)
	require.Zero(t, joined.ErrorCode, "streams heartbeat: %v", joined.ErrorMessage)
	std := kmsg.NewPtrStreamsGroupDescribeRequest()
	std.Groups = []string{streamsGroup}
	stdResp := sendStreams(std).(*kmsg.StreamsGroupDescribeResponse)
	require.Len(t, stdResp.Groups, 1)
	require.Len(t, stdResp.Groups[0].Members, 1)
	if r := stdResp.Groups[0].Members[0].RackID; assert.NotNil(t, r) {
		assert.Equal(t, "rack-st", *r)
	}
}

// TestBrokerRacksBadConfig proves Start refuses bad broker racks with
// INVALID_CONFIG before it listens: a count other than the broker count,
// an empty rack, one over shard.RackIDMaxBytes, one of invalid UTF-8. No
// racks at all is a cluster without racks, whose Metadata carries none.
func TestBrokerRacksBadConfig(t *testing.T) {
	t.Parallel()
	for name, racks := range map[string][]string{
		"too few":      {"a", "b"},
		"too many":     {"a", "b", "c", "d"},
		"empty rack":   {"a", "", "c"},
		"long rack":    {"a", "b", strings.Repeat("r", 257)},
		"invalid utf8": {"a", "b", "\xff"},
	} {
		cfg := wire.DefaultConfig()
		cfg.Listen = "127.0.0.1:0"
		cfg.BrokerRacks = racks
		require.ErrorIs(t, cfg.Validate(), kerr.InvalidConfig, name)
		cl, err := wire.Start(context.Background(), cfg)
		var kerrMsg *kerr.MessageError
		if assert.True(t, errors.As(err, &kerrMsg), "%s: %v", name, err) {
			assert.Contains(t, kerrMsg.Message, "broker.rack", name)
		}
		assert.Nil(t, cl, name)
	}

	cl := startCluster(t)
	meta, err := newAdmin(t, cl).BrokerMetadata(testContext(t))
	require.NoError(t, err)
	require.Len(t, meta.Brokers, 3)
	for _, b := range meta.Brokers {
		assert.Nil(t, b.Rack, "broker %d has no rack", b.NodeID)
	}
}
