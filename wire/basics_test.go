package wire_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	fkerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestProduceConsume proves the data plane with a real client: kgo's
// idempotent producer writes records to every partition and a direct
// (groupless) consumer reads each of them back once, in order per
// partition, and ListOffsets' end offsets count them.
func TestProduceConsume(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	ctx := testContext(t)
	adm := newAdmin(t, cl)
	createTopic(t, ctx, adm, "orders", 6)

	prod := newClient(t, cl, kgo.DefaultProduceTopic("orders"))
	const n = 300
	for i := range n {
		r := &kgo.Record{Key: []byte(fmt.Sprint(i % 17)), Value: []byte(fmt.Sprint(i))}
		require.NoError(t, prod.ProduceSync(ctx, r).FirstErr())
	}

	ends, err := adm.ListEndOffsets(ctx, "orders")
	require.NoError(t, err)
	var total int64
	ends.Each(func(o kadm.ListedOffset) { total += o.Offset })
	assert.Equal(t, int64(n), total)

	cons := newClient(t, cl, kgo.ConsumeTopics("orders"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	seen := map[string]bool{}
	last := map[int32]int64{}
	for len(seen) < n {
		fs := cons.PollFetches(ctx)
		require.NoError(t, ctx.Err(), "consumed %d of %d", len(seen), n)
		fs.EachError(func(topic string, p int32, err error) { t.Fatalf("fetch %s/%d: %v", topic, p, err) })
		fs.EachRecord(func(r *kgo.Record) {
			assert.False(t, seen[string(r.Value)], "record %s consumed twice", r.Value)
			seen[string(r.Value)] = true
			if prev, ok := last[r.Partition]; ok {
				assert.Equal(t, prev+1, r.Offset, "offsets are consecutive on partition %d", r.Partition)
			}
			last[r.Partition] = r.Offset
		})
	}
	assert.Len(t, last, 6, "every partition got records")
}

// TestAdminErrors proves Kafka's answers to bad admin requests, each of
// which changes nothing: an illegal topic name, a topic that exists, zero
// partitions; describing or deleting a group that does not exist; a
// consumer-group describe of a group of another type.
func TestAdminErrors(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	ctx := testContext(t)
	adm := newAdmin(t, cl)
	createTopic(t, ctx, adm, "exists", 2)
	for _, tc := range []struct {
		name       string
		partitions int32
		want       error
	}{
		{"bad/name", 1, fkerr.InvalidTopicException},
		{"exists", 1, fkerr.TopicAlreadyExists},
		{"empty", 0, fkerr.InvalidPartitions},
	} {
		resp, err := adm.CreateTopic(ctx, tc.partitions, 1, nil, tc.name)
		assert.ErrorIs(t, err, tc.want, tc.name) // kadm returns the topic's error
		assert.ErrorIs(t, resp.Err, tc.want, tc.name)
	}
	topics, err := adm.ListTopics(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"exists"}, topics.Names(), "nothing else was created")
	assert.Len(t, topics["exists"].Partitions, 2, "the existing topic kept its partitions")

	deleted, err := adm.DeleteGroups(ctx, "nobody")
	require.NoError(t, err)
	assert.ErrorIs(t, deleted["nobody"].Err, fkerr.GroupIDNotFound)
	described, err := adm.DescribeConsumerGroups(ctx, "nobody")
	require.NoError(t, err)
	assert.ErrorIs(t, described["nobody"].Err, fkerr.GroupIDNotFound)

	_, err = adm.CommitOffsets(ctx, "simple", kadm.OffsetsFromRecords(kgo.Record{Topic: "exists", Partition: 0, Offset: 5}))
	require.NoError(t, err)
	described, err = adm.DescribeConsumerGroups(ctx, "simple")
	require.NoError(t, err)
	assert.ErrorIs(t, described["simple"].Err, fkerr.GroupIDNotFound, "a simple (classic) group is not a consumer group")
}
