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
	// and a topic in both is counted once.
	s, err := New(0, DefaultConfig())
	require.NoError(t, err)
	require.NoError(t, s.SetTopics(map[string]int32{"a1": 1, "a2": 1, "b": 1}))
	res, err := s.ConsumerGroupHeartbeat(0, ConsumerGroupHeartbeatRequest{GroupID: "g", MemberID: "m", RebalanceTimeoutMs: 1000,
		SubscribedTopicNames: []string{"b", "a1"}, SubscribedTopicRegex: ptr("a.")})
	require.NoError(t, err)
	assert.Equal(t, []TopicPartitions{{Topic: "a1", Partitions: []int32{0}}, {Topic: "a2", Partitions: []int32{0}}, {Topic: "b", Partitions: []int32{0}}}, res.Response.Assignment)
	for i, r := range res.Records {
		require.NoError(t, s.Replay(int64(i), r))
	}
	g, ok := s.DescribeGroup("g")
	require.True(t, ok)
	assert.Equal(t, []RegularExpressionDescription{{Regex: "a.", Topics: []string{"a1", "a2"}, Version: s.topicNamesHash}}, g.RegularExpressions)
	assert.True(t, s.lookup("g").isSubscribedToTopic("a2"), "a regex topic counts for offset retention")
}
