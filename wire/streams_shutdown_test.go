package wire_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/wire"
)

// streamsCoordinator starts a cluster without the initial rebalance delay,
// creates topic "in" with 2 partitions and returns a raw request function
// to the coordinator of group.
func streamsCoordinator(t *testing.T, group string) (context.Context, func(kmsg.Request) kmsg.Response) {
	t.Helper()
	cl := startCluster(t, func(c *wire.Config) { c.Coordinator.StreamsInitialRebalanceDelay = 0 })
	ctx := testContext(t)
	createTopic(t, ctx, newAdmin(t, cl), "in", 2)
	node, err := cl.CoordinatorFor(coordinator.PartitionFor(group, 50))
	require.NoError(t, err)
	coord := newClient(t, cl).Broker(int(node))
	return ctx, func(req kmsg.Request) kmsg.Response {
		t.Helper()
		resp, err := coord.Request(ctx, req)
		require.NoError(t, err)
		return resp
	}
}

// streamsBeat sends one StreamsGroupHeartbeat v1 and requires no error: a
// join (epoch 0) with oneSubtopology("in"), else a heartbeat owning nothing.
func streamsBeat(t *testing.T, send func(kmsg.Request) kmsg.Response, group, member string, epoch int32, mutate ...func(*kmsg.StreamsGroupHeartbeatRequest)) *kmsg.StreamsGroupHeartbeatResponse {
	t.Helper()
	req := kmsg.NewPtrStreamsGroupHeartbeatRequest()
	req.Version, req.Group, req.MemberID, req.MemberEpoch = 1, group, member, epoch
	if epoch == 0 {
		process := "process-" + member
		req.RebalanceTimeoutMillis, req.ProcessID, req.Topology = 30000, &process, oneSubtopology("in")
		noOwnedTasks(req)
	}
	for _, m := range mutate {
		m(req)
	}
	resp := send(req).(*kmsg.StreamsGroupHeartbeatResponse)
	require.Zero(t, resp.ErrorCode, "%s epoch %d: %v", member, epoch, resp.ErrorMessage)
	return resp
}

func shutdownStatus(member string) []kmsg.StreamsGroupHeartbeatResponseStatus {
	st := kmsg.NewStreamsGroupHeartbeatResponseStatus()
	st.StatusCode = 4
	st.StatusDetail = "Streams group member " + member + " encountered a fatal error and requested a shutdown for the entire application."
	return []kmsg.StreamsGroupHeartbeatResponseStatus{st}
}

// GroupMetadataManagerTest.testStreamsGroupMemberRequestingShutdownApplication
// and ...UponLeaving over the wire: a heartbeat with ShutdownApplication
// makes every later answer to any member carry SHUTDOWN_APPLICATION (4)
// with Kafka's detail; a leave may ask too and answers only the member id,
// its epoch and an empty status list (streamsGroupLeave); once the group is
// empty the request is gone.
func TestStreamsGroupMemberRequestingShutdownApplication(t *testing.T) {
	t.Parallel()
	const group = "shutdown-app"
	_, send := streamsCoordinator(t, group)
	ea := streamsBeat(t, send, group, "a", 0).MemberEpoch
	eb := streamsBeat(t, send, group, "b", 0).MemberEpoch
	hb := streamsBeat(t, send, group, "a", ea)
	assert.NotNil(t, hb.Status, "Kafka sets Status on every answer")
	assert.Empty(t, hb.Status, "no shutdown asked yet")

	hb = streamsBeat(t, send, group, "a", hb.MemberEpoch, func(r *kmsg.StreamsGroupHeartbeatRequest) { r.ShutdownApplication = true })
	assert.Equal(t, shutdownStatus("a"), hb.Status, "the requester hears it")
	hb = streamsBeat(t, send, group, "b", eb, func(r *kmsg.StreamsGroupHeartbeatRequest) { r.ShutdownApplication = true })
	assert.Equal(t, shutdownStatus("a"), hb.Status, "every member hears the first requester")

	// A leave asking for it, in a group that has just emptied and filled.
	leave := streamsBeat(t, send, group, "a", -1)
	assert.Equal(t, int32(-1), leave.MemberEpoch)
	streamsBeat(t, send, group, "b", -1)
	ec := streamsBeat(t, send, group, "c", 0)
	assert.Empty(t, ec.Status, "the group emptied: the request is gone")
	ed := streamsBeat(t, send, group, "d", 0).MemberEpoch
	leave = streamsBeat(t, send, group, "c", -1, func(r *kmsg.StreamsGroupHeartbeatRequest) { r.ShutdownApplication = true })
	assert.NotNil(t, leave.Status)
	assert.Empty(t, leave.Status, "a leave answers an empty status list")
	hb = streamsBeat(t, send, group, "d", ed)
	assert.Equal(t, shutdownStatus("c"), hb.Status, "the member left behind hears the leaver's request")
	assert.Greater(t, hb.MemberEpoch, ed, "the leave bumped the group epoch")
}

// The leave answer of GroupMetadataManager.streamsGroupLeave: the member id,
// the request's epoch and an empty status list; the heartbeat interval, the
// task offset interval and the recovery lags keep their schema defaults
// (AcceptableRecoveryLag's is -1), where a heartbeat answers 60000 and 10000.
func TestStreamsGroupLeaveResponse(t *testing.T) {
	t.Parallel()
	const group = "leave-answer"
	_, send := streamsCoordinator(t, group)
	joined := streamsBeat(t, send, group, "a", 0)
	assert.Equal(t, int32(60000), joined.TaskOffsetIntervalMillis)
	assert.Equal(t, int64(10000), joined.AcceptableRecoveryLag)
	leave := streamsBeat(t, send, group, "a", -1)
	assert.Equal(t, "a", leave.MemberID)
	assert.Equal(t, int32(-1), leave.MemberEpoch)
	assert.Zero(t, leave.HeartbeatIntervalMillis)
	assert.Zero(t, leave.TaskOffsetIntervalMillis)
	assert.Equal(t, int64(-1), leave.AcceptableRecoveryLag)
	assert.Zero(t, leave.AcceptableRecoveryLagLegacy)
	assert.NotNil(t, leave.Status)
	assert.Empty(t, leave.Status)
	assert.Nil(t, leave.ActiveTasks)
}

// GroupMetadataManagerTest.testStreamsUpdatingMemberMetadataTriggersNewTargetAssignment
// over the wire: a ProcessId sent outside a join is taken and bumps the
// group epoch; a rejoin without one keeps it.
func TestStreamsUpdatingMemberMetadataTriggersNewTargetAssignment(t *testing.T) {
	t.Parallel()
	const group = "process-change"
	_, send := streamsCoordinator(t, group)
	ea := streamsBeat(t, send, group, "a", 0).MemberEpoch
	p2 := "process-id2"
	hb := streamsBeat(t, send, group, "a", ea, func(r *kmsg.StreamsGroupHeartbeatRequest) { r.ProcessID = &p2 })
	assert.Equal(t, ea+1, hb.MemberEpoch, "the new process id bumps the group epoch")
	describe := func() string {
		req := kmsg.NewPtrStreamsGroupDescribeRequest()
		req.Groups = []string{group}
		resp := send(req).(*kmsg.StreamsGroupDescribeResponse)
		require.Len(t, resp.Groups, 1)
		require.Len(t, resp.Groups[0].Members, 1)
		return resp.Groups[0].Members[0].ProcessID
	}
	assert.Equal(t, p2, describe())
	streamsBeat(t, send, group, "a", 0, func(r *kmsg.StreamsGroupHeartbeatRequest) { r.ProcessID = nil })
	assert.Equal(t, p2, describe(), "a rejoin without a process id keeps it")
}
