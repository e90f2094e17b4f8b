package wire_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	fkerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/wire"
)

// TestRetentionWithRealClients proves log.retention.bytes with kgo and
// kadm: after many small batches the log start offset has advanced
// (ListOffsets earliest), a Fetch below it answers OFFSET_OUT_OF_RANGE
// with the log start offset, as Kafka does, and a consumer reading from
// the start gets exactly the retained records, from the log start on.
func TestRetentionWithRealClients(t *testing.T) {
	t.Parallel()
	cl := startCluster(t, func(c *wire.Config) { c.RetentionBytes = 2048 })
	ctx := testContext(t)
	adm := newAdmin(t, cl)
	const topic, n = "retained", 200
	createTopic(t, ctx, adm, topic, 1)
	prod := newClient(t, cl, kgo.DefaultProduceTopic(topic))
	for i := range n {
		require.NoError(t, prod.ProduceSync(ctx, &kgo.Record{Value: []byte(fmt.Sprint(i))}).FirstErr())
	}

	starts, err := adm.ListStartOffsets(ctx, topic)
	require.NoError(t, err)
	start, ok := starts.Lookup(topic, 0)
	require.True(t, ok)
	require.NoError(t, start.Err)
	ends, err := adm.ListEndOffsets(ctx, topic)
	require.NoError(t, err)
	end, _ := ends.Lookup(topic, 0)
	assert.Equal(t, int64(n), end.Offset)
	assert.Positive(t, start.Offset, "retention advanced the log start")
	assert.Less(t, start.Offset, int64(n), "the last batch stays")

	topics, err := adm.ListTopics(ctx, topic)
	require.NoError(t, err)
	fr := kmsg.NewPtrFetchRequest()
	fr.MaxWaitMillis, fr.MaxBytes = 0, 1<<20
	rt := kmsg.NewFetchRequestTopic()
	rt.Topic, rt.TopicID = topic, topics[topic].ID
	rp := kmsg.NewFetchRequestTopicPartition()
	rp.Partition, rp.FetchOffset, rp.PartitionMaxBytes = 0, 0, 1<<20
	rt.Partitions = append(rt.Partitions, rp)
	fr.Topics = append(fr.Topics, rt)
	raw := newClient(t, cl)
	resp, err := fr.RequestWith(ctx, raw.Broker(int(topics[topic].Partitions[0].Leader)))
	require.NoError(t, err)
	require.Len(t, resp.Topics, 1)
	require.Len(t, resp.Topics[0].Partitions, 1)
	p := resp.Topics[0].Partitions[0]
	assert.Equal(t, fkerr.OffsetOutOfRange.Code, p.ErrorCode, "offset 0 is below the log start")
	assert.Equal(t, start.Offset, p.LogStartOffset)

	cons := newClient(t, cl, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	want := int(int64(n) - start.Offset)
	var got []*kgo.Record
	for len(got) < want {
		fs := cons.PollFetches(ctx)
		require.NoError(t, ctx.Err())
		fs.EachError(func(_ string, _ int32, err error) { t.Errorf("fetch: %v", err) })
		got = append(got, fs.Records()...)
	}
	require.Len(t, got, want)
	assert.Equal(t, start.Offset, got[0].Offset, "consumption starts at the log start")
	assert.Equal(t, fmt.Sprint(start.Offset), string(got[0].Value))
}
