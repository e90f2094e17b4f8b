package shard

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/kerr"
)

// TestGroupTimeoutsPerTypeAndGroup proves the session timeout and
// heartbeat interval follow the group's config for the group's type, fall
// back to the broker's for a zero field or another group, and that a
// negative value is INVALID_CONFIG and changes nothing.
func TestGroupTimeoutsPerTypeAndGroup(t *testing.T) {
	s, err := New(0, testConfig())
	require.NoError(t, err)
	require.NoError(t, s.SetGroupTimeouts(map[string]GroupTimeouts{
		"g": {ConsumerSessionTimeoutMs: 50_000, ConsumerHeartbeatIntervalMs: 7_000, ShareHeartbeatIntervalMs: 8_000, StreamsSessionTimeoutMs: 55_000},
	}))
	cfg := testConfig()
	for _, c := range []struct {
		typ         GroupType
		group       string
		session, hb int32
	}{
		{Consumer, "g", 50_000, 7_000},
		{Share, "g", cfg.ShareSessionTimeoutMs, 8_000},
		{Streams, "g", 55_000, cfg.StreamsHeartbeatIntervalMs},
		{Consumer, "other", cfg.ConsumerSessionTimeoutMs, cfg.ConsumerHeartbeatIntervalMs},
	} {
		assert.Equal(t, c.session, s.sessionTimeoutMs(c.typ, c.group), "%v %s", c.typ, c.group)
		assert.Equal(t, c.hb, s.heartbeatIntervalMs(c.typ, c.group), "%v %s", c.typ, c.group)
	}
	before := s.groupTimeouts
	err = s.SetGroupTimeouts(map[string]GroupTimeouts{"g": {ConsumerSessionTimeoutMs: -1}})
	require.ErrorIs(t, err, kerr.InvalidConfig)
	assert.Equal(t, before, s.groupTimeouts, "the refused config changed nothing")
	require.NoError(t, s.SetGroupTimeouts(nil))
	assert.Equal(t, cfg.ConsumerSessionTimeoutMs, s.sessionTimeoutMs(Consumer, "g"), "removed")
}

// TestStreamsGroupInitialRebalanceDelayFollowsTheGroupConfig proves a
// group's streams.initial.rebalance.delay.ms replaces the broker's: 0
// assigns the first join at once, another value schedules the timer that
// far ahead; a group without one keeps the broker's 3 s. The streams
// heartbeat answers the group's streams.heartbeat.interval.ms.
func TestStreamsGroupInitialRebalanceDelayFollowsTheGroupConfig(t *testing.T) {
	h := newHarness(t, delayConfig(), map[string]int32{"foo": 2})
	require.NoError(t, h.s.SetGroupTimeouts(map[string]GroupTimeouts{
		"now":  {HasStreamsInitialRebalanceDelay: true, StreamsHeartbeatIntervalMs: 6_000},
		"slow": {HasStreamsInitialRebalanceDelay: true, StreamsInitialRebalanceDelayMs: 10_000},
	}))
	r := h.streamsBeat("now", "m1", 0, topo(0, "foo"))
	assert.Empty(t, r.Status, "no delay")
	assert.Equal(t, int32(2), r.MemberEpoch)
	assert.Len(t, r.ActiveTasks, 1)
	assert.Equal(t, int32(6_000), r.HeartbeatIntervalMs, "the group's streams.heartbeat.interval.ms")
	_, ok := h.timers.deadline(StreamsInitialRebalanceKey("now"))
	assert.False(t, ok)

	r = h.streamsBeat("slow", "m1", 0, topo(0, "foo"))
	assert.Equal(t, []StreamsStatus{StatusAssignmentDelayed}, r.Status)
	assert.Equal(t, delayConfig().StreamsHeartbeatIntervalMs, r.HeartbeatIntervalMs, "the broker's")
	deadline, ok := h.timers.deadline(StreamsInitialRebalanceKey("slow"))
	require.True(t, ok)
	assert.Equal(t, testT+10_000, deadline)

	h.streamsBeat("other", "m1", 0, topo(0, "foo"))
	deadline, ok = h.timers.deadline(StreamsInitialRebalanceKey("other"))
	require.True(t, ok)
	assert.Equal(t, testT+3_000, deadline, "the broker's delay")
}
