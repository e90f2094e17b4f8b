package coordinator_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/coordinator/coordtest"
	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/shard"
)

// TestConfigValidationNamesKafkaKey proves each out-of-bounds setting fails
// construction with a *ConfigError naming Kafka's configuration key.
func TestConfigValidationNamesKafkaKey(t *testing.T) {
	cases := []struct {
		key    string
		mutate func(*coordinator.Config)
	}{
		{"offsets.topic.num.partitions", func(c *coordinator.Config) { c.NumPartitions = 0 }},
		{"offsets.retention.minutes", func(c *coordinator.Config) { c.OffsetsRetention = 30 * time.Second }},
		{"offsets.retention.minutes", func(c *coordinator.Config) { c.OffsetsRetention = 90 * time.Second }},
		{"offsets.retention.check.interval.ms", func(c *coordinator.Config) { c.OffsetsRetentionCheckInterval = 0 }},
		{"offset.metadata.max.bytes", func(c *coordinator.Config) { c.OffsetMetadataMaxBytes = -1 }},
		{"group.consumer.session.timeout.ms", func(c *coordinator.Config) { c.ConsumerSessionTimeout = 10 * time.Second }},
		{"group.consumer.heartbeat.interval.ms", func(c *coordinator.Config) { c.ConsumerHeartbeatInterval = 20 * time.Second }},
		{"group.consumer.min.session.timeout.ms", func(c *coordinator.Config) { c.ConsumerMinSessionTimeout = 0 }},
		{"group.consumer.max.session.timeout.ms", func(c *coordinator.Config) { c.ConsumerMaxSessionTimeout = 44 * time.Second }},
		{"group.consumer.session.timeout.ms", func(c *coordinator.Config) {
			c.ConsumerMinSessionTimeout, c.ConsumerSessionTimeout = time.Second, 999*time.Millisecond
		}},
		{"group.consumer.min.heartbeat.interval.ms", func(c *coordinator.Config) { c.ConsumerMinHeartbeatInterval = -time.Second }},
		{"group.consumer.max.heartbeat.interval.ms", func(c *coordinator.Config) { c.ConsumerMaxHeartbeatInterval = time.Second }},
		{"group.consumer.heartbeat.interval.ms", func(c *coordinator.Config) {
			c.ConsumerMinSessionTimeout, c.ConsumerSessionTimeout = time.Second, time.Second
			c.ConsumerMinHeartbeatInterval, c.ConsumerHeartbeatInterval = time.Millisecond, time.Second
		}},
		{"group.streams.session.timeout.ms", func(c *coordinator.Config) { c.StreamsSessionTimeout = 61 * time.Second }},
		{"group.streams.heartbeat.interval.ms", func(c *coordinator.Config) { c.StreamsHeartbeatInterval = time.Second }},
		{"group.share.session.timeout.ms", func(c *coordinator.Config) { c.ShareSessionTimeout = time.Minute + time.Millisecond }},
		{"group.share.max.size", func(c *coordinator.Config) { c.ShareMaxSize = 1001 }},
		// The share and streams bounds, checked as the consumer ones
		// (GroupCoordinatorConfig's share and streams requires).
		{"group.share.min.session.timeout.ms", func(c *coordinator.Config) { c.ShareMinSessionTimeout = 0 }},
		{"group.share.max.session.timeout.ms", func(c *coordinator.Config) { c.ShareMaxSessionTimeout = 44 * time.Second }},
		{"group.share.session.timeout.ms", func(c *coordinator.Config) {
			c.ShareMinSessionTimeout, c.ShareSessionTimeout = time.Second, 1500*time.Microsecond
		}},
		{"group.share.min.heartbeat.interval.ms", func(c *coordinator.Config) { c.ShareMinHeartbeatInterval = -time.Second }},
		{"group.share.max.heartbeat.interval.ms", func(c *coordinator.Config) { c.ShareMaxHeartbeatInterval = time.Second }},
		{"group.share.heartbeat.interval.ms", func(c *coordinator.Config) {
			c.ShareMinSessionTimeout, c.ShareSessionTimeout = time.Second, time.Second
			c.ShareMinHeartbeatInterval, c.ShareHeartbeatInterval = time.Millisecond, time.Second
		}},
		{"group.streams.min.session.timeout.ms", func(c *coordinator.Config) { c.StreamsMinSessionTimeout = 0 }},
		{"group.streams.max.session.timeout.ms", func(c *coordinator.Config) { c.StreamsMaxSessionTimeout = 44 * time.Second }},
		{"group.streams.session.timeout.ms", func(c *coordinator.Config) {
			c.StreamsMaxSessionTimeout, c.StreamsSessionTimeout = 2*time.Minute, 61*time.Second/2
		}},
		{"group.streams.min.heartbeat.interval.ms", func(c *coordinator.Config) { c.StreamsMinHeartbeatInterval = 0 }},
		{"group.streams.max.heartbeat.interval.ms", func(c *coordinator.Config) { c.StreamsMaxHeartbeatInterval = 4 * time.Second }},
		{"group.streams.heartbeat.interval.ms", func(c *coordinator.Config) {
			c.StreamsMinSessionTimeout, c.StreamsSessionTimeout = time.Second, 2*time.Second
			c.StreamsMinHeartbeatInterval, c.StreamsHeartbeatInterval = time.Millisecond, 2*time.Second
		}},
		{"group.consumer.max.size", func(c *coordinator.Config) { c.ConsumerMaxSize = 0 }},
		{"group.streams.num.standby.replicas", func(c *coordinator.Config) { c.StreamsNumStandbyReplicas = -1 }},
		{"group.streams.max.standby.replicas", func(c *coordinator.Config) { c.StreamsMaxStandbyReplicas = -1 }},
		// GroupCoordinatorConfig: "group.streams.num.standby.replicas must be
		// less than or equal to group.streams.max.standby.replicas".
		{"group.streams.num.standby.replicas", func(c *coordinator.Config) { c.StreamsNumStandbyReplicas = 3 }},
	}
	for _, tc := range cases {
		t.Run(tc.key, func(t *testing.T) {
			cfg := coordinator.DefaultConfig()
			tc.mutate(&cfg)
			_, err := coordinator.New(cfg, coordinator.Options{Clock: coordtest.NewClock(coordtest.Epoch)})
			var ce *coordinator.ConfigError
			require.ErrorAs(t, err, &ce)
			assert.Equal(t, tc.key, ce.Key)
			assert.Contains(t, err.Error(), tc.key)
		})
	}
	short := coordinator.DefaultConfig()
	short.ConsumerMinSessionTimeout, short.ConsumerSessionTimeout = 500*time.Millisecond, time.Second
	short.ConsumerMinHeartbeatInterval, short.ConsumerHeartbeatInterval = 10*time.Millisecond, 100*time.Millisecond
	short.ShareMinSessionTimeout, short.ShareSessionTimeout = 500*time.Millisecond, time.Second
	short.ShareMinHeartbeatInterval, short.ShareHeartbeatInterval = 10*time.Millisecond, 100*time.Millisecond
	short.StreamsMinSessionTimeout, short.StreamsSessionTimeout = 500*time.Millisecond, time.Second
	short.StreamsMinHeartbeatInterval, short.StreamsHeartbeatInterval = 10*time.Millisecond, 100*time.Millisecond
	_, err := coordinator.New(short, coordinator.Options{Clock: coordtest.NewClock(coordtest.Epoch)})
	assert.NoError(t, err, "lowered minimums admit a short session, as Kafka's integration tests configure")
	_, err = coordinator.New(coordinator.DefaultConfig(), coordinator.Options{})
	assert.Error(t, err, "a coordinator needs a clock")
}

// TestLifecycleErrors proves an inactive service answers
// COORDINATOR_NOT_AVAILABLE, an unhosted partition NOT_COORDINATOR, and a
// loading one COORDINATOR_LOAD_IN_PROGRESS, and that none changes anything.
func TestLifecycleErrors(t *testing.T) {
	clock := coordtest.NewClock(coordtest.Epoch)
	cfg := coordinator.DefaultConfig()
	cfg.LoadDelay = time.Second
	c, err := coordinator.New(cfg, coordinator.Options{Clock: clock})
	require.NoError(t, err)
	require.NoError(t, c.SetTopics(map[string]int32{"foo": 1}))

	_, err = c.CommitOffsets(simpleCommit("g", 1)).Result()
	assert.ErrorIs(t, err, kerr.CoordinatorNotAvailable, "before startup")

	require.NoError(t, c.Startup())
	_, err = c.CommitOffsets(simpleCommit("g", 1)).Result()
	assert.ErrorIs(t, err, kerr.NotCoordinator, "partition not hosted")

	p := c.PartitionFor("g")
	require.NoError(t, c.LoadShard(p))
	assert.ErrorIs(t, c.LoadShard(p), kerr.InvalidRequest, "loading twice")
	_, err = c.CommitOffsets(simpleCommit("g", 1)).Result()
	assert.ErrorIs(t, err, kerr.CoordinatorLoadInProgress)
	_, err = c.FetchOffsets("g", nil, false)
	assert.ErrorIs(t, err, kerr.CoordinatorLoadInProgress)

	require.NoError(t, clock.Set(clock.Now().Add(time.Second)))
	c.Poll()
	_, err = c.CommitOffsets(simpleCommit("g", 1)).Result()
	require.NoError(t, err)
	assert.Equal(t, int64(1), c.Logs().Partition(p).HighWatermark())

	c.Shutdown()
	_, err = c.CommitOffsets(simpleCommit("g", 2)).Result()
	assert.ErrorIs(t, err, kerr.CoordinatorNotAvailable, "after shutdown")
	assert.ErrorIs(t, c.Startup(), kerr.CoordinatorNotAvailable, "no restart after shutdown")
	assert.Equal(t, int64(1), c.Logs().Partition(p).EndOffset(), "nothing appended by refused calls")
	assert.ErrorIs(t, c.LoadShard(p), kerr.CoordinatorNotAvailable)
}

// TestDeleteGroupsAcrossShards proves DeleteGroups answers in request order
// across partitions, deletes empty groups with their offsets, refuses
// non-empty and unknown ones, and, as Kafka's GroupCoordinatorShard.deleteGroups,
// records no offset-deletion (that sensor is OffsetDelete's).
func TestDeleteGroupsAcrossShards(t *testing.T) {
	h, err := coordtest.New(coordtest.WithTopics(map[string]int32{"foo": 2}))
	require.NoError(t, err)
	ids := []string{"alpha", "beta", "gamma", "delta"}
	for _, id := range ids {
		require.NoError(t, h.Commit(id, "", -1, "foo", 0, 5))
	}
	_, err = h.JoinConsumer("busy", "m1", "foo")
	require.NoError(t, err)
	partitions := map[int32]bool{}
	for _, id := range ids {
		partitions[h.Coordinator.PartitionFor(id)] = true
	}
	require.Greater(t, len(partitions), 1, "the test needs groups on several shards")

	res, err := h.DeleteGroups("gamma", "busy", "nope", "", "alpha")
	require.NoError(t, err)
	names := make([]string, len(res))
	for i, r := range res {
		names[i] = r.GroupID + "=" + kerr.Name(r.Err)
	}
	// "" is a group id to DeleteGroups (Kafka refuses only null); this one
	// does not exist.
	assert.Equal(t, []string{"gamma=NONE", "busy=NON_EMPTY_GROUP", "nope=GROUP_ID_NOT_FOUND", "=GROUP_ID_NOT_FOUND", "alpha=NONE"}, names)
	for _, id := range []string{"gamma", "alpha"} {
		_, err := h.Group(id)
		assert.ErrorIs(t, err, kerr.GroupIDNotFound)
		offs, err := h.Offsets(id)
		require.NoError(t, err)
		assert.Empty(t, offs)
	}
	_, err = h.Group("beta")
	assert.NoError(t, err)
	v, ok := h.Metric("offset-deletion-count")
	require.True(t, ok)
	assert.Equal(t, 0.0, v)
}

// TestGroupCountMetrics proves the group-count gauges follow committed state
// per protocol and state, and that per-group series vanish with their group.
func TestGroupCountMetrics(t *testing.T) {
	cfg := coordinator.DefaultConfig()
	cfg.PerGroupMetrics = true
	h, err := coordtest.New(coordtest.WithConfig(cfg), coordtest.WithTopics(map[string]int32{"foo": 2}))
	require.NoError(t, err)
	_, err = h.JoinConsumer("c", "m1", "foo")
	require.NoError(t, err)
	_, err = h.JoinShare("s", "m1", "foo")
	require.NoError(t, err)
	_, err = h.JoinStreams("st", "m1", shard.Topology{Epoch: 1, Subtopologies: []shard.Subtopology{{ID: "s0", SourceTopics: []string{"missing"}}}})
	require.NoError(t, err)
	require.NoError(t, h.Commit("simple", "", -1, "foo", 0, 1))

	expect := map[string]float64{}
	for _, kv := range [][3]string{
		{"group-count", "protocol", "consumer"}, {"group-count", "protocol", "share"},
		{"group-count", "protocol", "streams"}, {"group-count", "protocol", "classic"},
		{"consumer-group-count", "state", "Stable"}, {"share-group-count", "state", "Stable"},
		{"streams-group-count", "state", "NotReady"},
	} {
		expect[kv[0]+"/"+kv[2]] = 1
		v, ok := h.Metric(kv[0], kv[1], kv[2])
		require.True(t, ok, kv)
		assert.Equal(t, 1.0, v, kv)
	}
	v, _ := h.Metric("offset-count")
	assert.Equal(t, 1.0, v)
	v, ok := h.Metric("group-offset-count", "group", "simple")
	require.True(t, ok)
	assert.Equal(t, 1.0, v)

	_, err = h.DeleteGroups("simple")
	require.NoError(t, err)
	_, ok = h.Metric("group-offset-count", "group", "simple")
	assert.False(t, ok, "a deleted group's series disappear")
	v, _ = h.Metric("group-count", "protocol", "classic")
	assert.Equal(t, 0.0, v)
}

// TestOffsetCommitRateFollowsKafkaWindows proves offset-commit-rate counts
// offsets per second over Kafka's 2 × 30 s windows on virtual time.
func TestOffsetCommitRateFollowsKafkaWindows(t *testing.T) {
	h, err := coordtest.New(coordtest.WithTopics(map[string]int32{"foo": 10}))
	require.NoError(t, err)
	for i := range 10 {
		require.NoError(t, h.Commit("g", "", -1, "foo", int32(i), 1))
	}
	h.Advance(10 * time.Second)
	rate, _ := h.Metric("offset-commit-rate")
	assert.InDelta(t, 10.0/40.0, rate, 1e-9, "10 offsets over 10 s + one padded 30 s window")
	count, _ := h.Metric("offset-commit-count")
	assert.Equal(t, 10.0, count)
}

// TestReadsSeeCommittedStateOnly proves a read does not see a write whose
// records are appended but not yet committed.
func TestReadsSeeCommittedStateOnly(t *testing.T) {
	cfg := coordinator.DefaultConfig()
	cfg.CommitDelay = 500 * time.Millisecond
	h, err := coordtest.New(coordtest.WithConfig(cfg), coordtest.WithTopics(map[string]int32{"foo": 1}))
	require.NoError(t, err)
	f := h.Coordinator.CommitOffsets(simpleCommit("g", 7))
	_, err = h.Group("g")
	assert.ErrorIs(t, err, kerr.GroupIDNotFound, "the group exists only in the latest state")
	latest, err := h.Coordinator.LatestShard(h.Coordinator.PartitionFor("g"))
	require.NoError(t, err)
	_, ok := latest.DescribeGroup("g")
	assert.True(t, ok)
	h.Advance(500 * time.Millisecond)
	require.True(t, f.Done())
	offs, err := h.Offsets("g")
	require.NoError(t, err)
	assert.Equal(t, int64(7), offs[0].Offset)
}

// TestReplayEqualityUnderFaults proves, over 200 seeds, that after a random
// workload with commit delays, failed appends and shard moves, every shard
// rebuilt from its committed log equals the committed state the coordinator
// serves (docs/invariants.md invariant 7).
func TestReplayEqualityUnderFaults(t *testing.T) {
	seeds := 200
	if testing.Short() {
		seeds = 20
	}
	for seed := range seeds {
		if err := runFaultyWorkload(uint64(seed), 300); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
	}
}

func runFaultyWorkload(seed uint64, steps int) error {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	cfg := coordinator.DefaultConfig()
	cfg.NumPartitions = 3
	cfg.OffsetsRetention = time.Minute
	cfg.OffsetsRetentionCheckInterval = 10 * time.Second
	failRate := rng.Float64() * 0.2
	h, err := coordtest.New(coordtest.WithConfig(cfg),
		coordtest.WithTopics(map[string]int32{"a": 2, "b": 3}),
		coordtest.WithHooks(coordinator.Hooks{
			CommitDelay: func(int32) time.Duration { return time.Duration(rng.IntN(3)) * 100 * time.Millisecond },
			BeforeAppend: func(int32, []shard.Record) error {
				if rng.Float64() < failRate {
					return kerr.NotEnoughReplicas
				}
				return nil
			},
		}))
	if err != nil {
		return err
	}
	c := h.Coordinator
	groups := []string{"g0", "g1", "g2", "g3", "g4", "g5"}
	epochs := map[string]int32{}
	for step := range steps {
		g := groups[rng.IntN(len(groups))]
		m := fmt.Sprintf("m%d", rng.IntN(3))
		key := g + "/" + m
		switch rng.IntN(10) {
		case 0, 1:
			c.ConsumerGroupHeartbeat(shard.ConsumerGroupHeartbeatRequest{GroupID: g, MemberID: m, MemberEpoch: 0,
				RebalanceTimeoutMs: 1000, SubscribedTopicNames: []string{[]string{"a", "b"}[rng.IntN(2)]}}).
				OnDone(func(r shard.ConsumerGroupHeartbeatResponse, err error) {
					if err == nil {
						epochs[key] = r.MemberEpoch
					}
				})
		case 2:
			c.ConsumerGroupHeartbeat(shard.ConsumerGroupHeartbeatRequest{RebalanceTimeoutMs: shard.RebalanceTimeoutNotSent, GroupID: g, MemberID: m, MemberEpoch: epochs[key]}).
				OnDone(func(r shard.ConsumerGroupHeartbeatResponse, err error) {
					if err == nil {
						epochs[key] = r.MemberEpoch
					}
				})
		case 3:
			c.ConsumerGroupHeartbeat(shard.ConsumerGroupHeartbeatRequest{RebalanceTimeoutMs: shard.RebalanceTimeoutNotSent, GroupID: g, MemberID: m, MemberEpoch: -1})
		case 4, 5:
			req := simpleCommit(g, rng.Int64N(100))
			if e, ok := epochs[key]; ok && rng.IntN(2) == 0 {
				req.MemberID, req.MemberEpoch = m, e
			}
			c.CommitOffsets(req)
		case 6:
			c.StreamsGroupHeartbeat(shard.StreamsGroupHeartbeatRequest{GroupID: "s" + g, MemberID: m, MemberEpoch: 0, RebalanceTimeoutMs: 1000,
				Topology: &shard.Topology{Epoch: int32(rng.IntN(3)), Subtopologies: []shard.Subtopology{{ID: "0", SourceTopics: []string{"a"}}}}})
		case 7:
			c.DeleteGroups([]string{g, "s" + g})
		case 8:
			p := int32(rng.IntN(int(cfg.NumPartitions)))
			if c.IsHosting(p) {
				_ = c.UnloadShard(p)
				_ = c.LoadShard(p)
			}
		case 9:
			h.Advance(time.Duration(rng.IntN(20_000)) * time.Millisecond)
		}
		if step%50 == 0 {
			if err := h.CheckReplay(); err != nil {
				return fmt.Errorf("step %d: %w", step, err)
			}
		}
	}
	h.Advance(10 * time.Minute)
	return h.CheckReplay()
}

func simpleCommit(group string, offset int64) shard.OffsetCommitRequest {
	return shard.OffsetCommitRequest{GroupID: group, MemberEpoch: -1, RetentionTimeMs: -1,
		Topics: []shard.OffsetCommitTopic{{Topic: "foo", Partitions: []shard.OffsetCommitPartition{{Partition: 0, Offset: offset, LeaderEpoch: -1}}}}}
}

// partitionErr is the request's error or, when it succeeded, its first
// partition's.
func partitionErr(r shard.OffsetCommitResponse, err error) error {
	if err != nil {
		return err
	}
	return r.Err()
}

// TestBadInputChangesNothing proves each invalid request returns Kafka's
// error (the request's, or the partition's where Kafka answers per
// partition) and leaves the log untouched.
func TestBadInputChangesNothing(t *testing.T) {
	h, err := coordtest.New(coordtest.WithTopics(map[string]int32{"foo": 2}))
	require.NoError(t, err)
	_, err = h.JoinConsumer("g", "m1", "foo")
	require.NoError(t, err)
	before := len(h.Records())
	long := string(make([]byte, shard.GroupIDMaxBytes+1))
	cases := []struct {
		name string
		want *kerr.Error
		call func() error
	}{
		{"empty group txn commit", kerr.InvalidGroupID, func() error {
			_, err := h.Coordinator.CommitTransactionalOffsets(shard.TxnOffsetCommitRequest{GroupID: "", ProducerID: 1, MemberEpoch: -1,
				Topics: simpleCommit("x", 1).Topics}).Result()
			return err
		}},
		{"oversized group", kerr.InvalidGroupID, func() error { _, err := h.Coordinator.CommitOffsets(simpleCommit(long, 1)).Result(); return err }},
		{"invalid utf8 group", kerr.InvalidGroupID, func() error { _, err := h.Coordinator.CommitOffsets(simpleCommit("\xff", 1)).Result(); return err }},
		{"metadata too large", kerr.OffsetMetadataTooLarge, func() error {
			req := simpleCommit("x", 1)
			req.Topics[0].Partitions[0].Metadata = string(make([]byte, 4097))
			return partitionErr(h.Coordinator.CommitOffsets(req).Result())
		}},
		{"negative partition", kerr.UnknownTopicOrPartition, func() error {
			req := simpleCommit("x", 1)
			req.Topics[0].Partitions[0].Partition = -1
			return partitionErr(h.Coordinator.CommitOffsets(req).Result())
		}},
		{"unknown member commit", kerr.UnknownMemberID, func() error {
			req := simpleCommit("g", 1)
			req.MemberID, req.MemberEpoch = "ghost", 1
			_, err := h.Coordinator.CommitOffsets(req).Result()
			return err
		}},
		{"fenced heartbeat", kerr.FencedMemberEpoch, func() error { _, err := h.HeartbeatConsumer("g", "m1", 9); return err }},
		{"wrong type", kerr.GroupIDNotFound, func() error { _, err := h.JoinShare("g", "s1", "foo"); return err }},
		{"empty heartbeat group", kerr.InvalidRequest, func() error { _, err := h.JoinConsumer("", "m1", "foo"); return err }},
		{"bad topic in metadata", kerr.InvalidTopicException, func() error { return h.Coordinator.SetTopics(map[string]int32{"": 1}) }},
		{"load out of range", kerr.InvalidRequest, func() error { return h.Coordinator.LoadShard(999) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			require.Error(t, err)
			assert.True(t, errors.Is(err, tc.want), "got %v, want %s", err, tc.want.Name)
			assert.Len(t, h.Records(), before, "nothing appended")
		})
	}
	require.NoError(t, h.CheckReplay())
}
