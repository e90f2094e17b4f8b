package wire_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKafkaGoWriterReaderAndAdmin proves segmentio/kafka-go works end to
// end over loopback: its Client grows a topic (CreatePartitions) and sets a
// topic config (AlterConfigs), at the highest version it shares with
// coordsim (v1 of each: kafka-go speaks v0-1, and coordsim refused
// CreatePartitions below v2 until it served v0-1); then its Writer
// produces and its group Reader consumes every record exactly once.
// kafka-go has no DeleteRecords call.
func TestKafkaGoWriterReaderAndAdmin(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	ctx := testContext(t)
	adm := newAdmin(t, cl)
	const topic, records = "kafkago", 200
	createTopic(t, ctx, adm, topic, 1)

	client := &kafkago.Client{Addr: kafkago.TCP(cl.Addrs()...), Timeout: 10 * time.Second, Transport: &kafkago.Transport{}}
	cp, err := client.CreatePartitions(ctx, &kafkago.CreatePartitionsRequest{
		Topics: []kafkago.TopicPartitionsConfig{{Name: topic, Count: 3}},
	})
	require.NoError(t, err)
	require.Len(t, cp.Errors, 1)
	require.NoError(t, cp.Errors[topic], "CreatePartitions")
	ac, err := client.AlterConfigs(ctx, &kafkago.AlterConfigsRequest{
		Resources: []kafkago.AlterConfigRequestResource{{
			ResourceType: kafkago.ResourceTypeTopic, ResourceName: topic,
			Configs: []kafkago.AlterConfigRequestConfig{{Name: "retention.ms", Value: "600000"}},
		}},
	})
	require.NoError(t, err)
	for res, err := range ac.Errors {
		require.NoError(t, err, "AlterConfigs %v", res)
	}
	assert.Equal(t, "600000 (DYNAMIC_TOPIC_CONFIG)", topicConfig(t, ctx, adm, topic, "retention.ms"), "AlterConfigs set the config")

	w := &kafkago.Writer{
		Addr: kafkago.TCP(cl.Addrs()...), Topic: topic, Balancer: &kafkago.RoundRobin{},
		RequiredAcks: kafkago.RequireAll, BatchTimeout: 10 * time.Millisecond,
		// Its own transport: the Client's, kafka-go's DefaultTransport,
		// caches the one-partition metadata for MetadataTTL (6 s).
		Transport: &kafkago.Transport{},
	}
	defer w.Close()
	msgs := make([]kafkago.Message, records)
	for i := range msgs {
		msgs[i] = kafkago.Message{Value: fmt.Appendf(nil, "r%d", i)}
	}
	require.NoError(t, w.WriteMessages(ctx, msgs...))

	r := kafkago.NewReader(kafkago.ReaderConfig{
		Brokers: cl.Addrs(), GroupID: "kafkago-group", Topic: topic,
		MinBytes: 1, MaxBytes: 1 << 20, MaxWait: 100 * time.Millisecond,
		HeartbeatInterval: 200 * time.Millisecond, JoinGroupBackoff: 200 * time.Millisecond,
		StartOffset: kafkago.FirstOffset,
	})
	defer r.Close()
	seen := map[string]int{}
	partitions := map[int]bool{}
	readCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for len(seen) < records {
		m, err := r.ReadMessage(readCtx)
		require.NoError(t, err, "read %d of %d records", len(seen), records)
		seen[string(m.Value)]++
		partitions[m.Partition] = true
	}
	for v, n := range seen {
		assert.Equal(t, 1, n, "record %s read once", v)
	}
	assert.Len(t, partitions, 3, "the Writer spread records over the grown topic")
}
