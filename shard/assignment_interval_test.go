package shard

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func intervalConfig(ms int32) Config {
	cfg := testConfig()
	cfg.ConsumerAssignmentIntervalMs, cfg.ShareAssignmentIntervalMs, cfg.StreamsAssignmentIntervalMs = ms, ms, ms
	return cfg
}

func targetMetadata(t *testing.T, records []Record) *ConsumerGroupTargetAssignmentMetadata {
	t.Helper()
	for _, r := range records {
		if m, ok := r.(*ConsumerGroupTargetAssignmentMetadata); ok {
			return m
		}
	}
	return nil
}

// GroupMetadataManager.canComputeNextTargetAssignment: a target computed at
// T holds until T + interval; a heartbeat in between reconciles toward the
// last target at the last assignment epoch.
func TestAssignmentIntervalHoldsTheTargetUntilItPasses(t *testing.T) {
	h := newHarness(t, intervalConfig(1_000), map[string]int32{"foo": 4})
	r1 := h.consumerJoin("g", "m1", "foo")
	require.Equal(t, int32(2), r1.MemberEpoch)
	require.Len(t, r1.Assignment, 1, "the group's first target is computed at once (timestamp 0)")
	md := targetMetadata(t, h.log)
	require.NotNil(t, md)
	assert.Equal(t, testT, md.AssignmentTimestampMs, "the target's record says when it was computed")

	h.advance(testT + 999)
	r2 := h.consumerJoin("g", "m2", "foo")
	assert.Equal(t, int32(2), r2.MemberEpoch, "held back: the member joins at the last assignment epoch")
	assert.Empty(t, r2.Assignment)
	d, _ := h.s.DescribeGroup("g")
	assert.Equal(t, int32(3), d.Epoch)
	assert.Equal(t, int32(2), d.AssignmentEpoch)

	h.advance(testT + 1_000)
	r2 = h.consumerHeartbeat("g", "m2", r2.MemberEpoch, nil)
	assert.Equal(t, int32(3), r2.MemberEpoch, "the interval has passed: the next heartbeat computes the target")
	d, _ = h.s.DescribeGroup("g")
	assert.Equal(t, int32(3), d.AssignmentEpoch)

	// The timestamp survives a load: a rebuilt shard holds a target
	// computed within the interval as the live one does.
	h.consumerJoin("g", "m3", "foo")
	loaded := newHarness(t, h.cfg, h.topics)
	loaded.replay(h.log...)
	d, _ = loaded.s.DescribeGroup("g")
	require.Equal(t, testT+1_000, d.AssignmentTimestampMs)
	loaded.advance(testT + 1_999)
	r3 := loaded.consumerHeartbeat("g", "m3", 3, nil)
	assert.Equal(t, int32(3), r3.MemberEpoch, "held after the load too")
	loaded.advance(testT + 2_000)
	r3 = loaded.consumerHeartbeat("g", "m3", 3, nil)
	assert.Equal(t, int32(4), r3.MemberEpoch)
}

// The last member's removal writes the target metadata with timestamp 0
// (consumerGroupFenceMember), so the next join computes at once.
func TestAssignmentIntervalRestartsWhenTheGroupEmpties(t *testing.T) {
	h := newHarness(t, intervalConfig(60_000), map[string]int32{"foo": 2})
	r := h.consumerJoin("g", "m1", "foo")
	h.consumerHeartbeat("g", "m1", r.MemberEpoch, nil)
	h.consumerHeartbeat("g", "m1", -1, nil)
	r = h.consumerJoin("g", "m2", "foo")
	assert.Len(t, r.Assignment, 1, "no interval after the group emptied")
}

// A group config overrides the broker's interval, 0 included.
func TestAssignmentIntervalFollowsTheGroupConfig(t *testing.T) {
	h := newHarness(t, intervalConfig(60_000), map[string]int32{"foo": 2})
	require.NoError(t, h.s.SetGroupTimeouts(map[string]GroupTimeouts{"g": {ConsumerAssignmentIntervalMs: OptionalMs{Ms: 0, Set: true}}}))
	h.consumerJoin("g", "m1", "foo")
	r := h.consumerJoin("g", "m2", "foo")
	assert.Equal(t, int32(3), r.MemberEpoch, "interval 0 computes at every epoch bump")
	require.Error(t, h.s.SetGroupTimeouts(map[string]GroupTimeouts{"g": {ShareAssignmentIntervalMs: OptionalMs{Ms: -1, Set: true}}}))
	require.Error(t, h.s.SetGroupTimeouts(map[string]GroupTimeouts{"g": {ShareAssignmentIntervalMs: OptionalMs{Ms: 5}}}), "a value not set")
	require.Error(t, h.s.SetGroupTimeouts(map[string]GroupTimeouts{"g": {StreamsTaskOffsetIntervalMs: OptionalMs{Set: true}}}), "a task offset interval of 0")
}

// A streams member held back by the interval is told so.
func TestStreamsAssignmentIntervalStatus(t *testing.T) {
	cfg := intervalConfig(1_000)
	cfg.StreamsInitialRebalanceDelayMs = 0
	h := newHarness(t, cfg, map[string]int32{"foo": 4})
	r1 := h.streamsBeat("app", "m1", 0, topo(0, "foo"))
	require.Empty(t, r1.Status)
	r2 := h.streamsBeat("app", "m2", 0, topo(0, "foo"))
	assert.Equal(t, []StreamsStatus{StatusAssignmentDelayed}, r2.Status)
	assert.Equal(t, []string{"Assignment delayed due to the configured assignment interval."}, r2.StatusDetails)
}

// Kafka's topic hash mixes the topic id in: a topic deleted and created
// again with as many partitions changes the group's metadata hash, so the
// next heartbeat bumps the group epoch.
func TestRecreatedTopicChangesTheMetadataHash(t *testing.T) {
	h := newHarness(t, testConfig(), map[string]int32{"foo": 2})
	image := func(id byte) TopicImage {
		return TopicImage{Partitions: map[string]int32{"foo": 2}, IDs: map[string][16]byte{"foo": {0: 7, 15: id}}}
	}
	require.NoError(t, h.s.SetTopicImage(image(1)))
	r := h.consumerJoin("g", "m1", "foo")
	r = h.consumerHeartbeat("g", "m1", r.MemberEpoch, nil)
	before := r.MemberEpoch
	require.NoError(t, h.s.SetTopicImage(image(2)))
	r = h.consumerHeartbeat("g", "m1", r.MemberEpoch, nil)
	assert.Equal(t, before+1, r.MemberEpoch, "the re-created topic bumped the group")
}
