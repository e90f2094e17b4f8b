package shard

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// delayConfig is testConfig with Kafka's default initial rebalance delay.
func delayConfig() Config {
	cfg := testConfig()
	cfg.StreamsInitialRebalanceDelayMs = 3_000
	return cfg
}

// streamsBeat sends a streams heartbeat the way the coordinator does: it
// tells the shard whether the group's initial rebalance timer is pending,
// then applies the result.
func (h *harness) streamsBeat(group, member string, epoch int32, t *Topology) StreamsGroupHeartbeatResponse {
	h.t.Helper()
	_, scheduled := h.timers.deadline(StreamsInitialRebalanceKey(group))
	res, err := h.s.StreamsGroupHeartbeat(h.nowMs, StreamsGroupHeartbeatRequest{GroupID: group, MemberID: member, MemberEpoch: epoch,
		RebalanceTimeoutMs: 1_000, Topology: t, InitialRebalanceScheduled: scheduled})
	return h.keepConfigured(group, mustApply(h, res, err))
}

// TestStreamsGroupInitialRebalanceDelay proves Kafka's initial rebalance
// delay (streamsGroupHeartbeat with group.streams.initial.rebalance.delay.ms):
// the first join of a new group schedules "initial-rebalance-timeout-<group>"
// at the delay and answers ASSIGNMENT_DELAYED with no tasks at member epoch
// 1 while the group epoch is 2; a second member joining during the delay
// gets the same and does not push the timer back; when the timer fires the
// target of both members is computed at the group epoch, and each takes its
// tasks at its next heartbeat, without the status.
func TestStreamsGroupInitialRebalanceDelay(t *testing.T) {
	h := newHarness(t, delayConfig(), map[string]int32{"foo": 4})
	key := StreamsInitialRebalanceKey("app")
	r1 := h.streamsBeat("app", "m1", 0, topo(0, "foo"))
	assert.Equal(t, int32(1), r1.MemberEpoch)
	assert.Empty(t, r1.ActiveTasks)
	assert.True(t, r1.HasAssignment)
	assert.Equal(t, []StreamsStatus{StatusAssignmentDelayed}, r1.Status)
	assert.Equal(t, []string{"Assignment delayed due to the configured initial rebalance delay."}, r1.StatusDetails)
	deadline, ok := h.timers.deadline(key)
	require.True(t, ok)
	assert.Equal(t, testT+3_000, deadline)
	d, _ := h.s.DescribeGroup("app")
	assert.Equal(t, int32(2), d.Epoch)
	assert.Equal(t, int32(1), d.AssignmentEpoch, "Kafka's TargetAssignmentMetadata.INITIAL until the first target")
	assert.Equal(t, StateAssigning, d.State)

	h.advance(testT + 1_000)
	r2 := h.streamsBeat("app", "m2", 0, topo(0, "foo"))
	assert.Equal(t, int32(1), r2.MemberEpoch)
	assert.Equal(t, []StreamsStatus{StatusAssignmentDelayed}, r2.Status)
	deadline, _ = h.timers.deadline(key)
	assert.Equal(t, testT+3_000, deadline, "a join during the delay does not push it back (scheduleIfAbsent)")
	r1 = h.streamsBeat("app", "m1", r1.MemberEpoch, nil)
	assert.Equal(t, int32(1), r1.MemberEpoch)
	assert.Equal(t, []StreamsStatus{StatusAssignmentDelayed}, r1.Status)

	h.advance(testT + 3_000)
	_, ok = h.timers.deadline(key)
	assert.False(t, ok, "the timer fired")
	d, _ = h.s.DescribeGroup("app")
	assert.Equal(t, int32(3), d.Epoch)
	assert.Equal(t, int32(3), d.AssignmentEpoch, "the delayed target is computed at the group epoch")
	require.Len(t, d.Members, 2)
	assert.NotEmpty(t, d.Members[0].TargetActiveTasks)
	assert.NotEmpty(t, d.Members[1].TargetActiveTasks)
	assert.Empty(t, d.Members[0].ActiveTasks, "members take their tasks at their next heartbeat")

	r1 = h.streamsBeat("app", "m1", r1.MemberEpoch, nil)
	assert.Equal(t, int32(3), r1.MemberEpoch)
	assert.Equal(t, d.Members[0].TargetActiveTasks, r1.ActiveTasks)
	assert.Empty(t, r1.Status)
	requireSnapshotEqual(t, h.s.Snapshot(), h.rebuild().Snapshot(), "rebuild")
}

// The delay applies whenever a member joins an empty group, not only a new
// one (KAFKA-19926): after every member left, the next join waits again,
// at member epoch max(1, assignment epoch). Without a delay configured the
// first join is assigned at once, at group epoch 2.
func TestStreamsGroupInitialRebalanceDelayAppliesWhenGroupIsEmptyAgain(t *testing.T) {
	h := newHarness(t, delayConfig(), map[string]int32{"foo": 2})
	r := h.streamsBeat("app", "m1", 0, topo(0, "foo"))
	h.advance(testT + 3_000)
	r = h.streamsBeat("app", "m1", r.MemberEpoch, nil)
	require.Equal(t, int32(2), r.MemberEpoch)
	h.streamsBeat("app", "m1", -1, nil)
	d, _ := h.s.DescribeGroup("app")
	require.Equal(t, StateEmpty, d.State)

	r = h.streamsBeat("app", "m2", 0, topo(0, "foo"))
	assert.Equal(t, []StreamsStatus{StatusAssignmentDelayed}, r.Status)
	// The last member's leave wrote the target assignment epoch at the
	// bumped group epoch 3 (Kafka 4.4's streamsGroupFenceMember).
	assert.Equal(t, int32(3), r.MemberEpoch, "max(1, assignment epoch)")
	assert.Empty(t, r.ActiveTasks)
	_, ok := h.timers.deadline(StreamsInitialRebalanceKey("app"))
	assert.True(t, ok)

	h0 := newHarness(t, testConfig(), map[string]int32{"foo": 2})
	r = h0.streamsBeat("app", "m1", 0, topo(0, "foo"))
	assert.Equal(t, int32(2), r.MemberEpoch)
	assert.Empty(t, r.Status)
	assert.NotEmpty(t, r.ActiveTasks)
}

// A timer that fires for a group that is gone, empty, or already assigned
// (a new owner's heartbeat assigned since: the timer is not re-armed on
// load) writes nothing, where Kafka would throw IllegalStateException for
// the last case.
func TestComputeDelayedTargetAssignmentSkips(t *testing.T) {
	h := newHarness(t, delayConfig(), map[string]int32{"foo": 2})
	task := Task{Kind: TaskStreamsInitialRebalance, Type: Streams, GroupID: "app"}
	assert.Empty(t, h.s.RunTimer(h.nowMs, task).Records, "no group")
	r := h.streamsBeat("app", "m1", 0, topo(0, "foo"))
	// The shard moved: the new owner has no timer, so the next heartbeat
	// assigns at once.
	h.timers.apply([]TimerOp{{Key: StreamsInitialRebalanceKey("app"), Cancel: true}})
	r = h.streamsBeat("app", "m1", r.MemberEpoch, nil)
	assert.Equal(t, int32(2), r.MemberEpoch)
	assert.Empty(t, r.Status)
	assert.Empty(t, h.s.RunTimer(h.nowMs, task).Records, "already assigned")
	h.streamsBeat("app", "m1", -1, nil)
	assert.Empty(t, h.s.RunTimer(h.nowMs, task).Records, "empty group")
}

// Kafka's testStreamsGroupDeleteCancelsInitialRebalanceTimer: deleting a
// streams group (DeleteGroups, or the sweep) cancels its pending initial
// rebalance timer.
func TestStreamsGroupDeleteCancelsInitialRebalanceTimer(t *testing.T) {
	h := newHarness(t, delayConfig(), map[string]int32{"foo": 2})
	h.streamsBeat("app", "m1", 0, topo(0, "foo"))
	h.streamsBeat("app", "m1", -1, nil)
	_, ok := h.timers.deadline(StreamsInitialRebalanceKey("app"))
	require.True(t, ok, "the member left during the delay")
	res, err := h.s.DeleteGroups([]string{"app"})
	mustApply(h, res, err)
	assert.Contains(t, res.Timers, TimerOp{Key: StreamsInitialRebalanceKey("app"), Cancel: true})
	_, ok = h.timers.deadline(StreamsInitialRebalanceKey("app"))
	assert.False(t, ok)

	sweep := h.s.CleanupGroupMetadata(h.nowMs)
	assert.Empty(t, sweep.Timers, "no group left to sweep")
	h.streamsBeat("app2", "m1", 0, topo(0, "foo"))
	h.streamsBeat("app2", "m1", -1, nil)
	sweep = h.s.CleanupGroupMetadata(h.nowMs)
	assert.Contains(t, sweep.Timers, TimerOp{Key: StreamsInitialRebalanceKey("app2"), Cancel: true})
}

// A negative delay is refused by the configuration check.
func TestConfigRefusesNegativeInitialRebalanceDelay(t *testing.T) {
	cfg := testConfig()
	cfg.StreamsInitialRebalanceDelayMs = -1
	_, err := New(0, cfg)
	assert.ErrorContains(t, err, "StreamsInitialRebalanceDelayMs")
}
