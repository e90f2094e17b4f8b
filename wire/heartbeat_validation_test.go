package wire_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/wire"
)

// The request checks of Kafka's GroupCoordinatorService on the three group
// heartbeats, over the wire: each row is a request and the error code and
// message Kafka answers, the first failing check in Kafka's order deciding.
// After the rows, the group holds the one member it had, at the epoch it
// had: a refused request changes nothing.

// hbInvalid is one refused heartbeat: the request and Kafka's answer.
type hbInvalid[R any] struct {
	name string
	req  func(*R)
	code int16
	msg  string
}

// coordinatorAt is coordinatorOf with client options (a version cap).
func coordinatorAt(t *testing.T, ctx context.Context, cl *wire.Cluster, group string, opts ...kgo.Opt) func(kmsg.Request) kmsg.Response {
	t.Helper()
	node, err := cl.CoordinatorFor(coordinator.PartitionFor(group, 50))
	require.NoError(t, err)
	coord := newClient(t, cl, opts...).Broker(int(node))
	return func(req kmsg.Request) kmsg.Response {
		t.Helper()
		resp, err := coord.Request(ctx, req)
		require.NoError(t, err)
		return resp
	}
}

// assertRefused checks one row's answer.
func assertRefused(t *testing.T, name string, wantCode int16, wantMsg string, code int16, msg *string) {
	t.Helper()
	got := "<nil>"
	if msg != nil {
		got = *msg
	}
	assert.Equal(t, fmt.Sprintf("%d %s", wantCode, wantMsg), fmt.Sprintf("%d %s", code, got), name)
}

// TestConsumerHeartbeatRequestValidation reproduces Kafka's
// GroupCoordinatorServiceTest.testConsumerHeartbeatRequestValidation (and
// the RackId and InstanceId cases of
// GroupMetadataManagerTest.testConsumerHeartbeatRequestValidation) over the
// wire, with the order between checks and the v0 member id rule of
// KIP-1082: at v1 every request needs a member id; at v0 a join (epoch 0)
// may come without one and gets one generated, while a heartbeat or a
// leave (-1) may not.
func TestConsumerHeartbeatRequestValidation(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	ctx := testContext(t)
	createTopic(t, ctx, newAdmin(t, cl), "t", 1)

	const group = "consumer-validation"
	send := coordinatorOf(t, ctx, cl, group)
	v0 := kversion.Stable()
	v0.SetMaxKeyVersion(68, 0)
	sendV0 := coordinatorAt(t, ctx, cl, group, kgo.MaxVersions(v0))
	join := func(req *kmsg.ConsumerGroupHeartbeatRequest) {
		req.Group, req.MemberID, req.MemberEpoch = group, "m2", 0
		req.RebalanceTimeoutMillis, req.SubscribedTopicNames = 5000, []string{"t"}
		req.Topics = []kmsg.ConsumerGroupHeartbeatRequestTopic{}
	}
	beat := func(req *kmsg.ConsumerGroupHeartbeatRequest) {
		req.Group, req.MemberID, req.MemberEpoch = group, "m1", 1
	}
	first := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	join(first)
	first.MemberID = "m1"
	ok := send(first).(*kmsg.ConsumerGroupHeartbeatResponse)
	require.Zero(t, ok.ErrorCode, "a join with a null instance id and rack: %v", ok.ErrorMessage)
	describe := func() string {
		d := kmsg.NewPtrConsumerGroupDescribeRequest()
		d.Groups = []string{group}
		g := send(d).(*kmsg.ConsumerGroupDescribeResponse).Groups[0]
		var members []string
		for _, m := range g.Members {
			members = append(members, fmt.Sprintf("%s@%d", m.MemberID, m.MemberEpoch))
		}
		return fmt.Sprintf("epoch %d members %v", g.Epoch, members)
	}
	before := describe()

	invalid := kerr.InvalidRequest.Code
	for _, tc := range []struct {
		hbInvalid[kmsg.ConsumerGroupHeartbeatRequest]
		v0 bool
	}{
		{hbInvalid: hbInvalid[kmsg.ConsumerGroupHeartbeatRequest]{"empty request", func(*kmsg.ConsumerGroupHeartbeatRequest) {}, invalid, "MemberId can't be empty."}},
		{hbInvalid: hbInvalid[kmsg.ConsumerGroupHeartbeatRequest]{"blank member id", func(r *kmsg.ConsumerGroupHeartbeatRequest) { beat(r); r.MemberID = " \t" }, invalid, "MemberId can't be empty."}},
		{hbInvalid: hbInvalid[kmsg.ConsumerGroupHeartbeatRequest]{"empty member and group: member first", func(r *kmsg.ConsumerGroupHeartbeatRequest) { join(r); r.MemberID, r.Group = "", "" }, invalid, "MemberId can't be empty."}},
		{hbInvalid: hbInvalid[kmsg.ConsumerGroupHeartbeatRequest]{"empty group", func(r *kmsg.ConsumerGroupHeartbeatRequest) { beat(r); r.Group = "" }, invalid, "GroupId can't be empty."}},
		{hbInvalid: hbInvalid[kmsg.ConsumerGroupHeartbeatRequest]{"whitespace group", func(r *kmsg.ConsumerGroupHeartbeatRequest) { beat(r); r.Group = "   " }, invalid, "GroupId can't be empty."}},
		{hbInvalid: hbInvalid[kmsg.ConsumerGroupHeartbeatRequest]{"empty instance id", func(r *kmsg.ConsumerGroupHeartbeatRequest) { beat(r); r.InstanceID = ptr("") }, invalid, "InstanceId can't be empty."}},
		{hbInvalid: hbInvalid[kmsg.ConsumerGroupHeartbeatRequest]{"blank instance id before empty rack", func(r *kmsg.ConsumerGroupHeartbeatRequest) { beat(r); r.InstanceID, r.RackID = ptr(" "), ptr("") }, invalid, "InstanceId can't be empty."}},
		{hbInvalid: hbInvalid[kmsg.ConsumerGroupHeartbeatRequest]{"empty rack", func(r *kmsg.ConsumerGroupHeartbeatRequest) { beat(r); r.RackID = ptr("") }, invalid, "RackId can't be empty."}},
		{hbInvalid: hbInvalid[kmsg.ConsumerGroupHeartbeatRequest]{"blank rack", func(r *kmsg.ConsumerGroupHeartbeatRequest) { join(r); r.RackID = ptr(" \t") }, invalid, "RackId can't be empty."}},
		{hbInvalid: hbInvalid[kmsg.ConsumerGroupHeartbeatRequest]{"empty rack before a join's checks", func(r *kmsg.ConsumerGroupHeartbeatRequest) {
			join(r)
			r.RackID, r.RebalanceTimeoutMillis, r.Topics = ptr(""), -1, nil
		}, invalid, "RackId can't be empty."}},
		{hbInvalid: hbInvalid[kmsg.ConsumerGroupHeartbeatRequest]{"join without rebalance timeout", func(r *kmsg.ConsumerGroupHeartbeatRequest) { join(r); r.RebalanceTimeoutMillis = -1 }, invalid, "RebalanceTimeoutMs must be provided in first request."}},
		{hbInvalid: hbInvalid[kmsg.ConsumerGroupHeartbeatRequest]{"join with null topic partitions", func(r *kmsg.ConsumerGroupHeartbeatRequest) { join(r); r.Topics = nil }, invalid, "TopicPartitions must be empty when (re-)joining."}},
		{hbInvalid: hbInvalid[kmsg.ConsumerGroupHeartbeatRequest]{"join owning partitions of an unknown topic id", func(r *kmsg.ConsumerGroupHeartbeatRequest) {
			join(r)
			tp := kmsg.NewConsumerGroupHeartbeatRequestTopic()
			tp.TopicID, tp.Partitions = [16]byte{9}, []int32{0}
			r.Topics = append(r.Topics, tp)
		}, invalid, "TopicPartitions must be empty when (re-)joining."}},
		{hbInvalid: hbInvalid[kmsg.ConsumerGroupHeartbeatRequest]{"join without names or regex", func(r *kmsg.ConsumerGroupHeartbeatRequest) { join(r); r.SubscribedTopicNames = nil }, invalid, "Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining."}},
		{hbInvalid: hbInvalid[kmsg.ConsumerGroupHeartbeatRequest]{"static leave without instance id", func(r *kmsg.ConsumerGroupHeartbeatRequest) { join(r); r.MemberID, r.MemberEpoch = "m1", -2 }, invalid, "InstanceId can't be null."}},
		{hbInvalid: hbInvalid[kmsg.ConsumerGroupHeartbeatRequest]{"epoch below -2", func(r *kmsg.ConsumerGroupHeartbeatRequest) { beat(r); r.MemberEpoch = -3 }, invalid, "MemberEpoch is invalid."}},
		{hbInvalid: hbInvalid[kmsg.ConsumerGroupHeartbeatRequest]{"unknown assignor", func(r *kmsg.ConsumerGroupHeartbeatRequest) { beat(r); r.ServerAssignor = ptr("bar") }, kerr.UnsupportedAssignor.Code, "ServerAssignor bar is not supported. Supported assignors: uniform, range."}},
		{hbInvalid: hbInvalid[kmsg.ConsumerGroupHeartbeatRequest]{"unknown assignor before coordsim's own bounds", func(r *kmsg.ConsumerGroupHeartbeatRequest) {
			beat(r)
			r.Group, r.ServerAssignor = strings.Repeat("g", 1100), ptr("bar")
		}, kerr.UnsupportedAssignor.Code, "ServerAssignor bar is not supported. Supported assignors: uniform, range."}},
		{hbInvalid: hbInvalid[kmsg.ConsumerGroupHeartbeatRequest]{"oversized group id: coordsim's bound", func(r *kmsg.ConsumerGroupHeartbeatRequest) {
			beat(r)
			r.Group = strings.Repeat("g", 1100)
		}, invalid, "GroupId is invalid: INVALID_GROUP_ID: group id is 1100 bytes, more than 1024"}},
		{hbInvalid: hbInvalid[kmsg.ConsumerGroupHeartbeatRequest]{"bad epoch before unknown assignor", func(r *kmsg.ConsumerGroupHeartbeatRequest) { beat(r); r.MemberEpoch, r.ServerAssignor = -7, ptr("bar") }, invalid, "MemberEpoch is invalid."}},
		{v0: true, hbInvalid: hbInvalid[kmsg.ConsumerGroupHeartbeatRequest]{"v0 heartbeat without member id", func(r *kmsg.ConsumerGroupHeartbeatRequest) { beat(r); r.MemberID = "" }, invalid, "MemberId can't be empty."}},
		{v0: true, hbInvalid: hbInvalid[kmsg.ConsumerGroupHeartbeatRequest]{"v0 leave without member id", func(r *kmsg.ConsumerGroupHeartbeatRequest) { beat(r); r.MemberID, r.MemberEpoch = "", -1 }, invalid, "MemberId can't be empty."}},
		{v0: true, hbInvalid: hbInvalid[kmsg.ConsumerGroupHeartbeatRequest]{"v0 join without member id or group", func(r *kmsg.ConsumerGroupHeartbeatRequest) { join(r); r.MemberID, r.Group = "", "" }, invalid, "GroupId can't be empty."}},
		{v0: true, hbInvalid: hbInvalid[kmsg.ConsumerGroupHeartbeatRequest]{"v0 join without member id or rebalance timeout", func(r *kmsg.ConsumerGroupHeartbeatRequest) { join(r); r.MemberID, r.RebalanceTimeoutMillis = "", -1 }, invalid, "RebalanceTimeoutMs must be provided in first request."}},
		{v0: true, hbInvalid: hbInvalid[kmsg.ConsumerGroupHeartbeatRequest]{"v0 static leave without member id or instance id", func(r *kmsg.ConsumerGroupHeartbeatRequest) { beat(r); r.MemberID, r.MemberEpoch = "", -2 }, invalid, "InstanceId can't be null."}},
		{v0: true, hbInvalid: hbInvalid[kmsg.ConsumerGroupHeartbeatRequest]{"v0 epoch below -2 without member id", func(r *kmsg.ConsumerGroupHeartbeatRequest) { beat(r); r.MemberID, r.MemberEpoch = "", -3 }, invalid, "MemberEpoch is invalid."}},
	} {
		req := kmsg.NewPtrConsumerGroupHeartbeatRequest()
		tc.req(req)
		via := send
		if tc.v0 {
			via = sendV0
		}
		resp := via(req).(*kmsg.ConsumerGroupHeartbeatResponse)
		assertRefused(t, tc.name, tc.code, tc.msg, resp.ErrorCode, resp.ErrorMessage)
		assert.Nil(t, resp.MemberID, "%s: a refused heartbeat names no member", tc.name)
	}
	assert.Equal(t, before, describe(), "the refused heartbeats changed the group")

	// A v0 join without a member id gets one from the coordinator, Kafka's
	// Uuid.randomUuid().toString(); the member is in the group under it.
	anon := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	join(anon)
	anon.MemberID = ""
	joined := sendV0(anon).(*kmsg.ConsumerGroupHeartbeatResponse)
	require.Zero(t, joined.ErrorCode, "%v", joined.ErrorMessage)
	require.NotNil(t, joined.MemberID)
	assert.Len(t, *joined.MemberID, 22, "a base64 Uuid")
	assert.False(t, strings.HasPrefix(*joined.MemberID, "-"))
	assert.Contains(t, describe(), *joined.MemberID+"@")
	again := sendV0(anon).(*kmsg.ConsumerGroupHeartbeatResponse)
	require.Zero(t, again.ErrorCode)
	assert.NotEqual(t, *joined.MemberID, *again.MemberID, "each anonymous join is a new member")
}

// TestShareGroupHeartbeatRequestValidation reproduces Kafka's
// GroupCoordinatorServiceTest.testShareGroupHeartbeatRequestValidation over
// the wire, after KafkaApis' own member-id check: the member id first, then
// the group id and rack, then the epoch's rules (share members leave with
// -1 only, so -2 is invalid).
func TestShareGroupHeartbeatRequestValidation(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	ctx := testContext(t)
	createTopic(t, ctx, newAdmin(t, cl), "t", 1)

	const group = "share-validation"
	send := coordinatorOf(t, ctx, cl, group)
	join := func(req *kmsg.ShareGroupHeartbeatRequest) {
		req.GroupID, req.MemberID, req.MemberEpoch, req.SubscribedTopicNames = group, "s2", 0, []string{"t"}
	}
	beat := func(req *kmsg.ShareGroupHeartbeatRequest) {
		req.GroupID, req.MemberID, req.MemberEpoch = group, "s1", 1
	}
	first := kmsg.NewPtrShareGroupHeartbeatRequest()
	join(first)
	first.MemberID = "s1"
	ok := send(first).(*kmsg.ShareGroupHeartbeatResponse)
	require.Zero(t, ok.ErrorCode, "%v", ok.ErrorMessage)
	describe := func() string {
		d := kmsg.NewPtrShareGroupDescribeRequest()
		d.GroupIDs = []string{group}
		g := send(d).(*kmsg.ShareGroupDescribeResponse).Groups[0]
		var members []string
		for _, m := range g.Members {
			members = append(members, fmt.Sprintf("%s@%d", m.MemberID, m.MemberEpoch))
		}
		return fmt.Sprintf("epoch %d members %v", g.GroupEpoch, members)
	}
	before := describe()

	invalid := kerr.InvalidRequest.Code
	for _, tc := range []hbInvalid[kmsg.ShareGroupHeartbeatRequest]{
		// KafkaApis.isMemberIdValid runs first on an empty or over-long
		// member id and answers with no message (the real broker's answer,
		// oracle/brokerdiff); a blank one reaches the service's checks.
		{"empty request", func(*kmsg.ShareGroupHeartbeatRequest) {}, invalid, "<nil>"},
		{"member id over 36 chars", func(r *kmsg.ShareGroupHeartbeatRequest) { beat(r); r.MemberID = strings.Repeat("m", 37) }, invalid, "<nil>"},
		{"blank member id", func(r *kmsg.ShareGroupHeartbeatRequest) { beat(r); r.MemberID = "  " }, invalid, "MemberId can't be empty."},
		{"empty member and group: member first", func(r *kmsg.ShareGroupHeartbeatRequest) { join(r); r.MemberID, r.GroupID = "", "" }, invalid, "<nil>"},
		{"empty group", func(r *kmsg.ShareGroupHeartbeatRequest) { beat(r); r.GroupID = "" }, invalid, "GroupId can't be empty."},
		{"whitespace group", func(r *kmsg.ShareGroupHeartbeatRequest) { beat(r); r.GroupID = " \n" }, invalid, "GroupId can't be empty."},
		{"empty rack", func(r *kmsg.ShareGroupHeartbeatRequest) { beat(r); r.RackID = ptr("") }, invalid, "RackId can't be empty."},
		{"blank rack before a join's checks", func(r *kmsg.ShareGroupHeartbeatRequest) { join(r); r.RackID, r.SubscribedTopicNames = ptr(" \t"), nil }, invalid, "RackId can't be empty."},
		{"join with null names", func(r *kmsg.ShareGroupHeartbeatRequest) { join(r); r.SubscribedTopicNames = nil }, invalid, "SubscribedTopicNames must be set in first request."},
		{"join with no names", func(r *kmsg.ShareGroupHeartbeatRequest) { join(r); r.SubscribedTopicNames = []string{} }, invalid, "SubscribedTopicNames must be set in first request."},
		{"epoch -2", func(r *kmsg.ShareGroupHeartbeatRequest) { beat(r); r.MemberEpoch = -2 }, invalid, "MemberEpoch is invalid."},
		{"epoch below -2", func(r *kmsg.ShareGroupHeartbeatRequest) { beat(r); r.MemberEpoch = -5 }, invalid, "MemberEpoch is invalid."},
	} {
		req := kmsg.NewPtrShareGroupHeartbeatRequest()
		tc.req(req)
		resp := send(req).(*kmsg.ShareGroupHeartbeatResponse)
		assertRefused(t, tc.name, tc.code, tc.msg, resp.ErrorCode, resp.ErrorMessage)
		assert.Nil(t, resp.MemberID, "%s: a refused heartbeat names no member", tc.name)
	}
	assert.Equal(t, before, describe(), "the refused heartbeats changed the group")
}

// TestStreamsHeartbeatRequestValidation reproduces Kafka's
// GroupCoordinatorServiceTest.testStreamsHeartbeatRequestValidation and the
// source-topic regex case of
// testStreamsGroupHeartbeatFailsForUnsupportedFeatures over the wire: the
// unsupported feature first, then the ids, the join's rules (each owned-task
// list sent and empty, a topology whose changelog topics fix no partition
// count), the epoch's, and the owned-task lists sent all or none.
func TestStreamsHeartbeatRequestValidation(t *testing.T) {
	t.Parallel()
	cl := startCluster(t, func(c *wire.Config) { c.Coordinator.StreamsInitialRebalanceDelay = 0 })
	ctx := testContext(t)
	createTopic(t, ctx, newAdmin(t, cl), "t", 1)

	const group = "streams-validation"
	send := coordinatorOf(t, ctx, cl, group)
	join := func(req *kmsg.StreamsGroupHeartbeatRequest) {
		req.Group, req.MemberID, req.MemberEpoch, req.RebalanceTimeoutMillis = group, "st2", 0, 30000
		req.ProcessID, req.Topology = ptr("p"), oneSubtopology("t")
		req.ActiveTasks, req.StandbyTasks, req.WarmupTasks = []kmsg.TaskIDs{}, []kmsg.TaskIDs{}, []kmsg.TaskIDs{}
	}
	beat := func(req *kmsg.StreamsGroupHeartbeatRequest) {
		req.Group, req.MemberID, req.MemberEpoch = group, "st1", 1
	}
	first := kmsg.NewPtrStreamsGroupHeartbeatRequest()
	join(first)
	first.MemberID = "st1"
	ok := send(first).(*kmsg.StreamsGroupHeartbeatResponse)
	require.Zero(t, ok.ErrorCode, "%v", ok.ErrorMessage)
	describe := func() string {
		d := kmsg.NewPtrStreamsGroupDescribeRequest()
		d.Groups = []string{group}
		g := send(d).(*kmsg.StreamsGroupDescribeResponse).Groups[0]
		var members []string
		for _, m := range g.Members {
			members = append(members, fmt.Sprintf("%s@%d", m.MemberID, m.MemberEpoch))
		}
		return fmt.Sprintf("epoch %d members %v", g.Epoch, members)
	}
	before := describe()
	task := kmsg.NewTaskIDs()
	task.SubtopologyID, task.Partitions = "0", []int32{0}

	invalid := kerr.InvalidRequest.Code
	for _, tc := range []hbInvalid[kmsg.StreamsGroupHeartbeatRequest]{
		{"empty request", func(*kmsg.StreamsGroupHeartbeatRequest) {}, invalid, "MemberId can't be empty."},
		{"source topic regex before everything", func(r *kmsg.StreamsGroupHeartbeatRequest) {
			join(r)
			r.MemberID, r.Topology.Subtopologies[0].SourceTopicRegex = "", []string{"t.*"}
		}, invalid, "Regular expressions for source topics are not supported yet."},
		{"blank member id", func(r *kmsg.StreamsGroupHeartbeatRequest) { beat(r); r.MemberID = " " }, invalid, "MemberId can't be empty."},
		{"empty group", func(r *kmsg.StreamsGroupHeartbeatRequest) { beat(r); r.Group = "" }, invalid, "GroupId can't be empty."},
		{"whitespace group", func(r *kmsg.StreamsGroupHeartbeatRequest) { join(r); r.Group = "\t" }, invalid, "GroupId can't be empty."},
		{"empty instance id", func(r *kmsg.StreamsGroupHeartbeatRequest) { beat(r); r.InstanceID = ptr("") }, invalid, "InstanceId can't be empty."},
		{"empty rack", func(r *kmsg.StreamsGroupHeartbeatRequest) { join(r); r.RackID = ptr("") }, invalid, "RackId can't be empty."},
		{"join without rebalance timeout", func(r *kmsg.StreamsGroupHeartbeatRequest) { join(r); r.RebalanceTimeoutMillis = -1 }, invalid, "RebalanceTimeoutMs must be provided in first request."},
		{"join with null active tasks", func(r *kmsg.StreamsGroupHeartbeatRequest) { join(r); r.ActiveTasks = nil }, invalid, "ActiveTasks must be empty when (re-)joining."},
		{"join owning an active task", func(r *kmsg.StreamsGroupHeartbeatRequest) { join(r); r.ActiveTasks = []kmsg.TaskIDs{task} }, invalid, "ActiveTasks must be empty when (re-)joining."},
		{"join with null standby tasks", func(r *kmsg.StreamsGroupHeartbeatRequest) { join(r); r.StandbyTasks = nil }, invalid, "StandbyTasks must be empty when (re-)joining."},
		{"join with null warm-up tasks", func(r *kmsg.StreamsGroupHeartbeatRequest) { join(r); r.WarmupTasks = nil }, invalid, "WarmupTasks must be empty when (re-)joining."},
		{"join with all task lists null", func(r *kmsg.StreamsGroupHeartbeatRequest) {
			join(r)
			r.ActiveTasks, r.StandbyTasks, r.WarmupTasks = nil, nil, nil
		}, invalid, "ActiveTasks must be empty when (re-)joining."},
		{"join without topology", func(r *kmsg.StreamsGroupHeartbeatRequest) { join(r); r.Topology = nil }, invalid, "Topology must be non-null when (re-)joining."},
		{"changelog topic with a partition count", func(r *kmsg.StreamsGroupHeartbeatRequest) {
			join(r)
			ti := kmsg.NewTopicInfo()
			ti.Topic, ti.NumPartitions = "app-store-changelog", 3
			r.Topology.Subtopologies[0].StateChangelogTopics = []kmsg.TopicInfo{ti}
		}, kerr.StreamsInvalidTopology.Code, "Changelog topic app-store-changelog must have an undefined partition count, but it is set to 3."},
		{"static leave without instance id", func(r *kmsg.StreamsGroupHeartbeatRequest) { beat(r); r.MemberEpoch = -2 }, invalid, "InstanceId can't be null."},
		{"epoch below -2", func(r *kmsg.StreamsGroupHeartbeatRequest) { beat(r); r.MemberEpoch = -3 }, invalid, "MemberEpoch is -3, but must be greater than or equal to -2."},
		{"one task list of three", func(r *kmsg.StreamsGroupHeartbeatRequest) { beat(r); r.ActiveTasks = []kmsg.TaskIDs{} }, invalid, "If one task-type is non-null, all must be non-null."},
		{"two task lists of three", func(r *kmsg.StreamsGroupHeartbeatRequest) {
			beat(r)
			r.StandbyTasks, r.WarmupTasks = []kmsg.TaskIDs{}, []kmsg.TaskIDs{}
		}, invalid, "If one task-type is non-null, all must be non-null."},
		{"topology outside a join", func(r *kmsg.StreamsGroupHeartbeatRequest) { beat(r); r.Topology = oneSubtopology("t") }, invalid, "Topology can only be provided when (re-)joining."},
		{"leave with a topology", func(r *kmsg.StreamsGroupHeartbeatRequest) {
			beat(r)
			r.MemberEpoch, r.Topology = -1, oneSubtopology("t")
		}, invalid, "Topology can only be provided when (re-)joining."},
	} {
		req := kmsg.NewPtrStreamsGroupHeartbeatRequest()
		tc.req(req)
		resp := send(req).(*kmsg.StreamsGroupHeartbeatResponse)
		assertRefused(t, tc.name, tc.code, tc.msg, resp.ErrorCode, resp.ErrorMessage)
		assert.Empty(t, resp.MemberID, "%s: a refused heartbeat names no member", tc.name)
	}
	assert.Equal(t, before, describe(), "the refused heartbeats changed the group")
}
