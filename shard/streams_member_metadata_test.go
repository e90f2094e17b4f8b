package shard

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A streams heartbeat that sends a new rebalance timeout outside a join sets
// it (Kafka's maybeUpdateRebalanceTimeoutMs on every heartbeat) and, as any
// streams member metadata change, bumps the group epoch
// (hasStreamsMemberMetadataChanged); one that sends none changes nothing.
func TestStreamsHeartbeatUpdatesTheRebalanceTimeout(t *testing.T) {
	h := newHarness(t, testConfig(), map[string]int32{"foo": 2})
	topo := &Topology{Subtopologies: []Subtopology{{ID: "0", SourceTopics: []string{"foo"}}}}
	res, err := h.s.StreamsGroupHeartbeat(h.nowMs, StreamsGroupHeartbeatRequest{GroupID: "t", MemberID: "m1",
		ProcessID: "p", RebalanceTimeoutMs: 1000, Version: 1, Topology: topo})
	st := mustApply(h, res, err)
	describe := func() (int32, int32) {
		g, ok := h.s.DescribeGroup("t")
		require.True(t, ok)
		return g.Epoch, g.Members[0].RebalanceTimeoutMs
	}
	epoch, timeout := describe()
	require.Equal(t, int32(1000), timeout)
	beat := func(timeoutMs int32) {
		active, standby, warmup := ownedTasksBy(h.s, "t", "m1")
		res, err := h.s.StreamsGroupHeartbeat(h.nowMs, StreamsGroupHeartbeatRequest{GroupID: "t", MemberID: "m1",
			MemberEpoch: st.MemberEpoch, RebalanceTimeoutMs: timeoutMs, Version: 1,
			ActiveTasks: active, StandbyTasks: standby, WarmupTasks: warmup})
		st = mustApply(h, res, err)
	}
	beat(RebalanceTimeoutNotSent)
	e, to := describe()
	assert.Equal(t, epoch, e)
	assert.Equal(t, int32(1000), to, "none sent: unchanged")
	beat(2000)
	e, to = describe()
	assert.Equal(t, int32(2000), to)
	assert.Equal(t, epoch+1, e, "a streams metadata change bumps the epoch")
	rebuilt := h.rebuild()
	g, _ := rebuilt.DescribeGroup("t")
	assert.Equal(t, int32(2000), g.Members[0].RebalanceTimeoutMs, "replayed")
}
