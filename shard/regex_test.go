package shard

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/kerr"
)

func TestCompileTopicRegex_KafkasMessageAndWholeNameMatch(t *testing.T) {
	// Kafka's throwIfRegularExpressionIsInvalid message names RE2's error
	// code; a regex must match the whole topic name (RE2/J matches()).
	_, err := compileTopicRegex("foo(")
	require.ErrorIs(t, err, kerr.InvalidRegularExpression)
	assert.EqualError(t, err, "INVALID_REGULAR_EXPRESSION: SubscribedTopicRegex `foo(` is not a valid regular expression: missing closing ).")
	rx, err := compileTopicRegex("foo|bar")
	require.NoError(t, err)
	assert.True(t, rx.MatchString("foo"))
	assert.True(t, rx.MatchString("bar"))
	assert.False(t, rx.MatchString("foobar"))
	assert.False(t, rx.MatchString("xfoo"))
}

func TestConsumerGroupHeartbeat_RegexAndNamesTogether(t *testing.T) {
	// Kafka accepts names and a regex in one member: it subscribes to both,
	// and a topic in both is counted once once the regex is resolved.
	h := newHarness(t, DefaultConfig(), map[string]int32{"a1": 1, "a2": 1, "b": 1})
	res, err := h.s.ConsumerGroupHeartbeat(h.nowMs, ConsumerGroupHeartbeatRequest{GroupID: "g", MemberID: "m", RebalanceTimeoutMs: 1000,
		SubscribedTopicNames: []string{"b", "a1"}, SubscribedTopicRegex: ptr("a.")})
	joined := mustApply(h, res, err)
	assert.Equal(t, []TopicPartitions{{Topic: "a1", Partitions: []int32{0}}, {Topic: "b", Partitions: []int32{0}}}, joined.Assignment,
		"the regex is not resolved yet: the names only")
	h.advance(h.nowMs) // the refresh task
	beat := h.consumerHeartbeat("g", "m", joined.MemberEpoch, nil)
	assert.Equal(t, joined.MemberEpoch+1, beat.MemberEpoch, "the resolution bumped the group epoch")
	assert.Equal(t, []TopicPartitions{{Topic: "a1", Partitions: []int32{0}}, {Topic: "a2", Partitions: []int32{0}}, {Topic: "b", Partitions: []int32{0}}}, beat.Assignment)
	g, ok := h.s.DescribeGroup("g")
	require.True(t, ok)
	assert.Equal(t, []RegularExpressionDescription{{Regex: "a.", Topics: []string{"a1", "a2"}, Version: h.s.imageHash, TimestampMs: h.nowMs}}, g.RegularExpressions)
	assert.True(t, h.s.lookup("g").isSubscribedToTopic("a2"), "a regex topic counts for offset retention")
}

// TestConsumerGroupRegexResolvedAsynchronously follows Kafka 4.4's
// maybeUpdateRegularExpressions and handleRegularExpressionsResult: a
// member's regex new to the group does not bump the group epoch (a join
// that names no topic changes no subscription) and is resolved by a
// refresh task; the task writes the regex record and bumps the epoch when
// the regex's topics changed; a second subscriber of a resolved regex takes
// its topics at once and bumps the epoch (REGEX_UPDATED_AND_RESOLVED); within 10 s of a resolution a new regex
// is not scheduled, and the next heartbeat after that schedules it; the
// last subscriber leaving tombstones the regex.
func TestConsumerGroupRegexResolvedAsynchronously(t *testing.T) {
	h := newHarness(t, DefaultConfig(), map[string]int32{"foo": 1, "bar": 1})
	join := func(member, regex string) ConsumerGroupHeartbeatResponse {
		t.Helper()
		res, err := h.s.ConsumerGroupHeartbeat(h.nowMs, ConsumerGroupHeartbeatRequest{GroupID: "g", MemberID: member,
			RebalanceTimeoutMs: 1000, SubscribedTopicNames: []string{}, SubscribedTopicRegex: ptr(regex)})
		return mustApply(h, res, err)
	}
	h.nowMs = 100_000
	m1 := join("m1", "f.*")
	assert.Equal(t, int32(1), m1.MemberEpoch, "the group stays at its initial epoch")
	assert.Empty(t, m1.Assignment, "nothing resolved yet")
	_, pending := h.timers.deadline(RegexRefreshKey("g"))
	require.True(t, pending, "a refresh is scheduled")
	h.advance(h.nowMs)
	d, _ := h.s.DescribeGroup("g")
	assert.Equal(t, int32(2), d.Epoch, "the resolution changed the regex's topics")
	m1 = h.consumerHeartbeat("g", "m1", m1.MemberEpoch, nil)
	assert.Equal(t, []TopicPartitions{{Topic: "foo", Partitions: []int32{0}}}, m1.Assignment)

	m2 := join("m2", "f.*")
	assert.Equal(t, int32(3), m2.MemberEpoch, "a regex the group resolved bumps the epoch")
	_, pending = h.timers.deadline(RegexRefreshKey("g"))
	assert.False(t, pending, "a resolved regex needs no refresh within 10 s")

	h.nowMs += 5_000
	join("m3", "b.*")
	_, pending = h.timers.deadline(RegexRefreshKey("g"))
	assert.False(t, pending, "within 10 s of the last resolution even a new regex waits")
	h.nowMs += 6_000
	h.consumerHeartbeat("g", "m2", m2.MemberEpoch, nil)
	_, pending = h.timers.deadline(RegexRefreshKey("g"))
	require.True(t, pending, "past 10 s, any member's heartbeat schedules the unresolved regex")
	h.advance(h.nowMs)
	d, _ = h.s.DescribeGroup("g")
	require.Len(t, d.RegularExpressions, 2)
	assert.Equal(t, []string{"bar"}, d.RegularExpressions[0].Topics)

	res, err := h.s.ConsumerGroupHeartbeat(h.nowMs, ConsumerGroupHeartbeatRequest{GroupID: "g", MemberID: "m3", MemberEpoch: -1,
		RebalanceTimeoutMs: RebalanceTimeoutNotSent})
	mustApply(h, res, err)
	d, _ = h.s.DescribeGroup("g")
	assert.Len(t, d.RegularExpressions, 1, "the last subscriber's leave tombstones its regex")
	requireSnapshotEqual(t, h.s.Snapshot(), h.rebuild().Snapshot(), "rebuild")
}
