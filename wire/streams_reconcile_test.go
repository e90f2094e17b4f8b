package wire_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/wire"
)

// TestStreamsGroupHeartbeatRevokesBeforeAssigning proves KIP-1071's task
// reconciliation over the wire with a raw-kmsg streams client: when a second
// member joins, the first is told to revoke half its active tasks and keeps
// its epoch while its owned tasks (ActiveTasks, StandbyTasks, WarmupTasks)
// still list them; the second gets nothing until the first acknowledges,
// and the group is then STABLE with the tasks split.
func TestStreamsGroupHeartbeatRevokesBeforeAssigning(t *testing.T) {
	t.Parallel()
	cl := startCluster(t, func(c *wire.Config) { c.Coordinator.StreamsInitialRebalanceDelay = 0 })
	ctx := testContext(t)
	createTopic(t, ctx, newAdmin(t, cl), "events", 4)
	const group = "revoker"
	node, err := cl.CoordinatorFor(coordinator.PartitionFor(group, 50))
	require.NoError(t, err)
	coord := newClient(t, cl).Broker(int(node))
	heartbeat := func(member string, epoch int32, owned []int32) *kmsg.StreamsGroupHeartbeatResponse {
		t.Helper()
		req := kmsg.NewPtrStreamsGroupHeartbeatRequest()
		req.Version, req.Group, req.MemberID, req.MemberEpoch = 1, group, member, epoch
		process := "process-" + member
		req.ProcessID = &process
		if epoch == 0 {
			req.RebalanceTimeoutMillis = 30000
			req.Topology = oneSubtopology("events")
			noOwnedTasks(req)
		} else if owned != nil {
			task := kmsg.NewTaskIDs()
			task.SubtopologyID, task.Partitions = "0", owned
			req.ActiveTasks, req.StandbyTasks, req.WarmupTasks = []kmsg.TaskIDs{task}, []kmsg.TaskIDs{}, []kmsg.TaskIDs{}
		}
		resp, err := coord.Request(ctx, req)
		require.NoError(t, err)
		hb := resp.(*kmsg.StreamsGroupHeartbeatResponse)
		require.Zero(t, hb.ErrorCode, "%s: %v", member, hb.ErrorMessage)
		return hb
	}
	activeOf := func(hb *kmsg.StreamsGroupHeartbeatResponse) []int32 {
		var out []int32
		for _, t := range hb.ActiveTasks {
			out = append(out, t.Partitions...)
		}
		return out
	}

	a := heartbeat("a", 0, nil)
	require.Equal(t, []int32{0, 1, 2, 3}, activeOf(a))
	b := heartbeat("b", 0, nil)
	assert.Empty(t, activeOf(b), "b waits for a's tasks")

	a2 := heartbeat("a", a.MemberEpoch, []int32{0, 1, 2, 3})
	assert.Equal(t, a.MemberEpoch, a2.MemberEpoch, "a keeps its epoch until it revokes")
	kept := activeOf(a2)
	require.Len(t, kept, 2)
	b2 := heartbeat("b", b.MemberEpoch, []int32{})
	assert.Nil(t, b2.ActiveTasks, "nothing new for b while a still owns its tasks")

	a3 := heartbeat("a", a.MemberEpoch, kept)
	assert.Equal(t, b.MemberEpoch, a3.MemberEpoch, "the acknowledgement moves a to the group's epoch")
	b3 := heartbeat("b", b.MemberEpoch, []int32{})
	assert.Len(t, activeOf(b3), 2, "b takes the released tasks")
	assert.NotContains(t, activeOf(b3), kept[0])

	req := kmsg.NewPtrStreamsGroupDescribeRequest()
	req.Groups = []string{group}
	resp, err := coord.Request(ctx, req)
	require.NoError(t, err)
	d := resp.(*kmsg.StreamsGroupDescribeResponse).Groups[0]
	require.Zero(t, d.ErrorCode)
	assert.Equal(t, "Stable", d.State)
	for _, m := range d.Members {
		assert.Len(t, m.Assignment.ActiveTasks, 1, m.MemberID)
		assert.Empty(t, m.Assignment.StandbyTasks, "no standby replicas configured")
		assert.Empty(t, m.TargetAssignment.WarmupTasks)
	}
}
