package shard

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A join's RebalanceTimeoutMs of 0 is a rebalance timeout of 0, not "not
// sent": Kafka's throwIfConsumerGroupHeartbeatRequestIsInvalid refuses only
// -1, and maybeUpdateRebalanceTimeoutMs(ofSentinel(0)) sets 0. A member
// with it that is asked to revoke is fenced by the first timer poll.
func TestConsumerJoinWithRebalanceTimeoutZero(t *testing.T) {
	h := newHarness(t, testConfig(), map[string]int32{"foo": 2})
	res, err := h.s.ConsumerGroupHeartbeat(h.nowMs, ConsumerGroupHeartbeatRequest{GroupID: "g", MemberID: "m1",
		ClientID: "client-m1", RebalanceTimeoutMs: 0, SubscribedTopicNames: []string{"foo"}})
	first := mustApply(h, res, err)
	g, ok := h.s.DescribeGroup("g")
	require.True(t, ok)
	require.Len(t, g.Members, 1)
	assert.Equal(t, int32(0), g.Members[0].RebalanceTimeoutMs)
	// m1 acknowledges foo 0-1, then m2's join asks it to revoke one.
	h.consumerHeartbeat("g", "m1", first.MemberEpoch, nil)
	h.consumerJoin("g", "m2", "foo")
	h.consumerHeartbeat("g", "m1", first.MemberEpoch, nil)
	h.advance(h.nowMs)
	g, _ = h.s.DescribeGroup("g")
	var ids []string
	for _, m := range g.Members {
		ids = append(ids, m.MemberID)
	}
	assert.Equal(t, []string{"m2"}, ids, "m1 did not revoke within its 0 ms rebalance timeout")
	rebuilt := h.rebuild()
	d, _ := rebuilt.DescribeGroup("g")
	assert.Equal(t, g.Members, d.Members, "replayed")
}

// -1 is the one value that means "not sent": a join without it is
// INVALID_REQUEST with Kafka's message, and a heartbeat without it leaves
// the member's timeout alone, where 0 sets it to 0.
func TestConsumerHeartbeatRebalanceTimeoutSentinel(t *testing.T) {
	h := newHarness(t, testConfig(), map[string]int32{"foo": 2})
	_, err := h.s.ConsumerGroupHeartbeat(h.nowMs, ConsumerGroupHeartbeatRequest{GroupID: "g", MemberID: "m1",
		RebalanceTimeoutMs: RebalanceTimeoutNotSent, SubscribedTopicNames: []string{"foo"}})
	require.EqualError(t, err, "INVALID_REQUEST: RebalanceTimeoutMs must be provided in first request.")
	joined := h.consumerJoin("g", "m1", "foo")
	timeout := func() int32 {
		g, _ := h.s.DescribeGroup("g")
		return g.Members[0].RebalanceTimeoutMs
	}
	require.Equal(t, int32(300_000), timeout())
	h.consumerHeartbeat("g", "m1", joined.MemberEpoch, nil)
	assert.Equal(t, int32(300_000), timeout(), "not sent: unchanged")
	res, err := h.s.ConsumerGroupHeartbeat(h.nowMs, ConsumerGroupHeartbeatRequest{GroupID: "g", MemberID: "m1",
		ClientID: "client-m1", MemberEpoch: joined.MemberEpoch, RebalanceTimeoutMs: 0})
	mustApply(h, res, err)
	assert.Equal(t, int32(0), timeout(), "0 sent: set")
}
