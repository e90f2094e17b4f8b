package difftest

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzDecodeOp proves the reproduction files' op decoder never panics, and
// that an op it accepts encodes to something it decodes to the same op.
func FuzzDecodeOp(f *testing.F) {
	f.Add("consumer_heartbeat", `{"clientId":"c","groupId":"g","memberId":"m","memberEpoch":0,"rebalanceTimeoutMs":5000,"subscribedTopicNames":["t0"],"ownedSet":true}`)
	f.Add("offset_commit", `{"groupId":"g","memberId":"","memberEpoch":-1,"topics":[{"topic":"t","partitions":[{"partition":0,"offset":-5,"leaderEpoch":-7,"metadata":""}]}]}`)
	f.Add("share_describe", `{"groups":["s"]}`)
	f.Add("advance", `{"ms":-1}`)
	f.Add("nope", `{}`)
	f.Fuzz(func(t *testing.T, name, body string) {
		op, err := DecodeOp(name, []byte(body))
		if err != nil {
			return
		}
		again, err := DecodeOp(op.Name(), []byte(EncodeOp(op)))
		require.NoError(t, err)
		require.Equal(t, EncodeOp(op), EncodeOp(again))
	})
}

// FuzzNormalise proves the oracle-answer parser never panics on any line,
// for every kind of op: a malformed answer is a harness error (Bad), never
// a crash of the runner.
func FuzzNormalise(f *testing.F) {
	f.Add(0, `{"op":"consumer_heartbeat","response":{"memberId":"m","memberEpoch":2,"assignment":{"topicPartitions":[{"topicId":"x","partitions":[1,0]}]}},"records":[{"type":"ConsumerGroupMetadata","key":{"groupId":"g"},"value":{"epoch":2}}]}`)
	f.Add(1, `{"op":"offset_commit","response":{"topics":[{"name":"t","partitions":[{"partitionIndex":0,"errorCode":3}]}]},"records":[]}`)
	f.Add(2, `{"op":"offset_fetch","exception":{"code":25,"name":"UNKNOWN_MEMBER_ID","message":"x"},"records":[]}`)
	f.Add(3, `{"bad":"x"}`)
	f.Add(4, `{"records":[{"type":1}]}`)
	f.Add(5, `{"response":[{"groupId":"g","errorCode":0,"members":[{"memberId":1}]}]}`)
	ops := []Op{ConsumerHeartbeat{}, OffsetCommit{}, OffsetFetch{}, DeleteGroups{}, ListGroups{}, DescribeGroups{}, Advance{}}
	f.Fuzz(func(t *testing.T, which int, line string) {
		op := ops[uint(which)%uint(len(ops))]
		_ = normalise(op, []byte(line), map[string]string{"x": "t"}).canonical()
	})
}
