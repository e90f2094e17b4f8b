package wire_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	fkerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestTopicConfigsHonouredOrRefused proves that a topic config is either
// honoured or refused, never accepted and ignored: max.message.bytes
// refuses a larger batch with MESSAGE_TOO_LARGE, min.insync.replicas 2
// refuses acks=-1 with NOT_ENOUGH_REPLICAS (one replica is in sync) while
// acks=1 succeeds, and what the data plane cannot do (a broker-side
// compression.type, LogAppendTime, the timestamp bounds) is INVALID_CONFIG
// at creation and alteration.
func TestTopicConfigsHonouredOrRefused(t *testing.T) {
	ctx := testContext(t)
	cl := startCluster(t)
	adm := newAdmin(t, cl)
	resp, err := adm.CreateTopic(ctx, 1, 1, map[string]*string{"max.message.bytes": kadm.StringPtr("200"), "min.insync.replicas": kadm.StringPtr("2")}, "strict")
	require.NoError(t, err)
	require.NoError(t, resp.Err)

	one := newClient(t, cl, kgo.DefaultProduceTopic("strict"), kgo.RequiredAcks(kgo.LeaderAck()), kgo.DisableIdempotentWrite(), kgo.RecordRetries(0),
		kgo.ProducerBatchCompression(kgo.NoCompression()))
	require.NoError(t, one.ProduceSync(ctx, kgo.StringRecord("small")).FirstErr(), "acks=1 needs no other replica")
	err = one.ProduceSync(ctx, kgo.StringRecord(strings.Repeat("x", 300))).FirstErr()
	assert.ErrorIs(t, err, fkerr.MessageTooLarge)
	all := newClient(t, cl, kgo.DefaultProduceTopic("strict"), kgo.RecordRetries(0))
	err = all.ProduceSync(ctx, kgo.StringRecord("small")).FirstErr()
	assert.ErrorIs(t, err, fkerr.NotEnoughReplicas)

	for key, value := range map[string]string{"compression.type": "gzip", "message.timestamp.type": "LogAppendTime", "message.timestamp.after.max.ms": "1000"} {
		resp, err := adm.CreateTopic(ctx, 1, 1, map[string]*string{key: kadm.StringPtr(value)}, "refused")
		if err == nil {
			err = resp.Err
		}
		assert.ErrorIs(t, err, fkerr.InvalidConfig, key)
		alt, err := adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{{Op: kadm.SetConfig, Name: key, Value: kadm.StringPtr(value)}}, "strict")
		require.NoError(t, err)
		assert.ErrorIs(t, alt[0].Err, fkerr.InvalidConfig, key)
	}
}
