package coordinator_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/coordinator/coordtest"
	"github.com/coordsim/coordsim/kerr"
)

func i32(v int32) *int32 { return &v }

// TestSetGroupConfigValidatesAsKafka reproduces GroupConfigTest's
// validation cases (the ConfigDef minimums and validateValues' ranges):
// every refusal is INVALID_CONFIG with Kafka's message and changes
// nothing; a valid config replaces the previous one; all nil removes it.
func TestSetGroupConfigValidatesAsKafka(t *testing.T) {
	c, err := coordinator.New(coordinator.DefaultConfig(), coordinator.Options{Clock: coordtest.NewClock(coordtest.Epoch)})
	require.NoError(t, err)
	good := coordinator.GroupConfig{ConsumerSessionTimeoutMs: i32(50_000), ConsumerHeartbeatIntervalMs: i32(6_000),
		StreamsNumStandbyReplicas: i32(1), StreamsInitialRebalanceDelayMs: i32(0)}
	require.NoError(t, c.SetGroupConfig("g", good))
	assert.Equal(t, good, c.GroupConfig("g"))
	assert.Equal(t, i32(1), c.StreamsGroupConfig("g").NumStandbyReplicas, "one store with SetStreamsGroupConfig")

	for _, bad := range []struct {
		gc   coordinator.GroupConfig
		want string
	}{
		{coordinator.GroupConfig{ConsumerSessionTimeoutMs: i32(0)}, "Invalid value 0 for configuration consumer.session.timeout.ms: Value must be at least 1"},
		{coordinator.GroupConfig{StreamsNumStandbyReplicas: i32(-1)}, "Invalid value -1 for configuration streams.num.standby.replicas: Value must be at least 0"},
		{coordinator.GroupConfig{StreamsInitialRebalanceDelayMs: i32(-1)}, "Invalid value -1 for configuration streams.initial.rebalance.delay.ms: Value must be at least 0"},
		{coordinator.GroupConfig{ConsumerHeartbeatIntervalMs: i32(4_999)}, "consumer.heartbeat.interval.ms must be in the range 5000 to 15000 inclusive."},
		{coordinator.GroupConfig{ConsumerHeartbeatIntervalMs: i32(15_001)}, "consumer.heartbeat.interval.ms must be in the range 5000 to 15000 inclusive."},
		{coordinator.GroupConfig{ConsumerSessionTimeoutMs: i32(44_999)}, "consumer.session.timeout.ms must be in the range 45000 to 60000 inclusive."},
		{coordinator.GroupConfig{ConsumerSessionTimeoutMs: i32(60_001)}, "consumer.session.timeout.ms must be in the range 45000 to 60000 inclusive."},
		{coordinator.GroupConfig{ShareHeartbeatIntervalMs: i32(1)}, "share.heartbeat.interval.ms must be in the range 5000 to 15000 inclusive."},
		{coordinator.GroupConfig{ShareSessionTimeoutMs: i32(70_000)}, "share.session.timeout.ms must be in the range 45000 to 60000 inclusive."},
		{coordinator.GroupConfig{StreamsHeartbeatIntervalMs: i32(20_000)}, "streams.heartbeat.interval.ms must be in the range 5000 to 15000 inclusive."},
		{coordinator.GroupConfig{StreamsSessionTimeoutMs: i32(1_000)}, "streams.session.timeout.ms must be in the range 45000 to 60000 inclusive."},
		{coordinator.GroupConfig{StreamsNumStandbyReplicas: i32(3)}, "streams.num.standby.replicas must be less than or equal to 2"},
		// Kafka's order: the heartbeat range before the session range.
		{coordinator.GroupConfig{ConsumerSessionTimeoutMs: i32(1), ConsumerHeartbeatIntervalMs: i32(1)}, "consumer.heartbeat.interval.ms must be in the range 5000 to 15000 inclusive."},
	} {
		err := c.SetGroupConfig("g", bad.gc)
		require.ErrorIs(t, err, kerr.InvalidConfig, bad.want)
		assert.Equal(t, "INVALID_CONFIG: "+bad.want, err.Error())
		assert.Equal(t, good, c.GroupConfig("g"), "unchanged by %q", bad.want)
	}
	require.ErrorIs(t, c.SetGroupConfig("", good), kerr.InvalidGroupID)
	require.NoError(t, c.SetStreamsGroupConfig("g", coordinator.StreamsGroupConfig{}))
	want := good
	want.StreamsNumStandbyReplicas = nil
	assert.Equal(t, want, c.GroupConfig("g"), "SetStreamsGroupConfig keeps the other keys")

	require.NoError(t, c.SetGroupConfig("g", coordinator.GroupConfig{}))
	assert.Equal(t, coordinator.GroupConfig{}, c.GroupConfig("g"), "removed")
}

// TestSetGroupConfigShareAndStreamsBrokerBounds proves the share and
// streams keys of a group config are bounded by the broker's
// group.share.* and group.streams.* minimums and maximums, not by Kafka's
// defaults: lowered, they admit a session of seconds; a value past them is
// INVALID_CONFIG with Kafka's message, naming the broker's range, and
// changes nothing.
func TestSetGroupConfigShareAndStreamsBrokerBounds(t *testing.T) {
	cfg := coordinator.DefaultConfig()
	cfg.ShareSessionTimeout, cfg.ShareMinSessionTimeout, cfg.ShareMaxSessionTimeout = 10*time.Second, time.Second, 20*time.Second
	cfg.ShareMinHeartbeatInterval = 100 * time.Millisecond
	cfg.StreamsMinSessionTimeout, cfg.StreamsMinHeartbeatInterval, cfg.StreamsMaxHeartbeatInterval = 2*time.Second, 200*time.Millisecond, 20*time.Second
	c, err := coordinator.New(cfg, coordinator.Options{Clock: coordtest.NewClock(coordtest.Epoch)})
	require.NoError(t, err)
	good := coordinator.GroupConfig{ShareSessionTimeoutMs: i32(1_000), ShareHeartbeatIntervalMs: i32(100),
		StreamsSessionTimeoutMs: i32(2_000), StreamsHeartbeatIntervalMs: i32(16_000)}
	require.ErrorIs(t, c.SetGroupConfig("g", good), kerr.InvalidConfig, "streams heartbeat 16 s is not below the 2 s session")
	good.StreamsHeartbeatIntervalMs = i32(1_000)
	require.NoError(t, c.SetGroupConfig("g", good))
	for _, bad := range []struct {
		gc   coordinator.GroupConfig
		want string
	}{
		{coordinator.GroupConfig{ShareSessionTimeoutMs: i32(999)}, "share.session.timeout.ms must be in the range 1000 to 20000 inclusive."},
		{coordinator.GroupConfig{ShareSessionTimeoutMs: i32(45_000)}, "share.session.timeout.ms must be in the range 1000 to 20000 inclusive."},
		{coordinator.GroupConfig{ShareHeartbeatIntervalMs: i32(99)}, "share.heartbeat.interval.ms must be in the range 100 to 15000 inclusive."},
		{coordinator.GroupConfig{StreamsSessionTimeoutMs: i32(1_999)}, "streams.session.timeout.ms must be in the range 2000 to 60000 inclusive."},
		{coordinator.GroupConfig{StreamsHeartbeatIntervalMs: i32(20_001)}, "streams.heartbeat.interval.ms must be in the range 200 to 20000 inclusive."},
	} {
		err := c.SetGroupConfig("g", bad.gc)
		require.ErrorIs(t, err, kerr.InvalidConfig, bad.want)
		assert.Equal(t, "INVALID_CONFIG: "+bad.want, err.Error())
		assert.Equal(t, good, c.GroupConfig("g"), "unchanged by %q", bad.want)
	}
}

// TestSetGroupConfigSessionAboveHeartbeat proves Kafka's rule that a
// session timeout exceeds its heartbeat interval, checked on the values
// merged over the broker's (GroupConfig.validate's combinedConfigs).
func TestSetGroupConfigSessionAboveHeartbeat(t *testing.T) {
	cfg := coordinator.DefaultConfig()
	cfg.ConsumerMinSessionTimeout, cfg.ConsumerMinHeartbeatInterval = time.Second, time.Second
	c, err := coordinator.New(cfg, coordinator.Options{Clock: coordtest.NewClock(coordtest.Epoch)})
	require.NoError(t, err)
	err = c.SetGroupConfig("g", coordinator.GroupConfig{ConsumerSessionTimeoutMs: i32(5_000)}) // broker heartbeat 5000
	require.ErrorIs(t, err, kerr.InvalidConfig)
	assert.Equal(t, "INVALID_CONFIG: consumer.session.timeout.ms must be greater than consumer.heartbeat.interval.ms", err.Error())
	require.NoError(t, c.SetGroupConfig("g", coordinator.GroupConfig{ConsumerSessionTimeoutMs: i32(5_000), ConsumerHeartbeatIntervalMs: i32(1_000)}))
}

// TestGroupConfigTimeoutsTakeEffect proves a group's
// consumer.heartbeat.interval.ms is the next heartbeat's
// HeartbeatIntervalMs and its consumer.session.timeout.ms fences a member
// that stops heartbeating (GroupMetadataManager.consumerGroupSessionTimeoutMs
// reads the group config at each heartbeat); another group keeps the
// broker's values, and a shard loaded later gets the config too.
func TestGroupConfigTimeoutsTakeEffect(t *testing.T) {
	cfg := coordinator.DefaultConfig()
	cfg.NumPartitions = 1
	cfg.ConsumerMinSessionTimeout, cfg.ConsumerMinHeartbeatInterval = time.Second, time.Second
	h, err := coordtest.New(coordtest.WithConfig(cfg), coordtest.WithTopics(map[string]int32{"foo": 2}))
	require.NoError(t, err)
	r, err := h.JoinConsumer("g", "m1", "foo")
	require.NoError(t, err)
	assert.EqualValues(t, 5_000, r.HeartbeatIntervalMs, "the broker's")

	require.NoError(t, h.Coordinator.SetGroupConfig("g", coordinator.GroupConfig{ConsumerSessionTimeoutMs: i32(3_000), ConsumerHeartbeatIntervalMs: i32(1_000)}))
	r, err = h.HeartbeatConsumer("g", "m1", r.MemberEpoch)
	require.NoError(t, err)
	assert.EqualValues(t, 1_000, r.HeartbeatIntervalMs, "the group's, at the next heartbeat")
	_, err = h.JoinConsumer("other", "o1", "foo")
	require.NoError(t, err)

	h.Advance(2_900 * time.Millisecond)
	g, err := h.Group("g")
	require.NoError(t, err)
	require.Len(t, g.Members, 1, "within the group's 3 s session")
	h.Advance(200 * time.Millisecond)
	g, err = h.Group("g")
	require.NoError(t, err)
	assert.Empty(t, g.Members, "fenced after the group's 3 s, not the broker's 45 s")
	o, err := h.Group("other")
	require.NoError(t, err)
	assert.Len(t, o.Members, 1, "another group keeps the broker's session")

	// Unload and load again: the rebuilt shard has the config.
	require.NoError(t, h.Coordinator.UnloadShard(0))
	require.NoError(t, h.Coordinator.LoadShard(0))
	h.Poll()
	r, err = h.JoinConsumer("g", "m2", "foo")
	require.NoError(t, err)
	assert.EqualValues(t, 1_000, r.HeartbeatIntervalMs, "kept across a reload")

	require.NoError(t, h.Coordinator.SetGroupConfig("g", coordinator.GroupConfig{}))
	r, err = h.HeartbeatConsumer("g", "m2", r.MemberEpoch)
	require.NoError(t, err)
	assert.EqualValues(t, 5_000, r.HeartbeatIntervalMs, "removed: the broker's again")
}
