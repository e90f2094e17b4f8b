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
