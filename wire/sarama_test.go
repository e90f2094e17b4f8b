package wire_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/IBM/sarama"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/coordsim/coordsim/wire"
)

// saramaConfig is an idempotent sarama client configuration at Kafka 3.6's
// protocol.
func saramaConfig() *sarama.Config {
	cfg := sarama.NewConfig()
	cfg.Version = sarama.V3_6_0_0
	cfg.Producer.Idempotent = true
	cfg.Producer.RequiredAcks = sarama.WaitForAll
	cfg.Producer.Return.Successes = true
	cfg.Producer.Retry.Max = 10
	cfg.Net.MaxOpenRequests = 1
	return cfg
}

// TestIdempotentProducersFromDifferentClients proves issue 21's
// acceptance: idempotent producers from different clients (two sarama
// producers with Producer.Idempotent, one kgo producer) writing at once
// lose nothing, and a consumer reads exactly what was acknowledged, once.
func TestIdempotentProducersFromDifferentClients(t *testing.T) {
	ctx := testContext(t)
	cl := startCluster(t)
	createTopic(t, ctx, newAdmin(t, cl), "mixed", 3)
	const perProducer = 200
	var mu sync.Mutex
	acked := map[string]int{}
	ack := func(v string) {
		mu.Lock()
		defer mu.Unlock()
		acked[v]++
	}
	var wg sync.WaitGroup
	for s := range 2 {
		prod, err := sarama.NewSyncProducer(cl.Addrs(), saramaConfig())
		require.NoError(t, err)
		t.Cleanup(func() { prod.Close() })
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perProducer {
				v := fmt.Sprintf("sarama%d-%d", s, i)
				if _, _, err := prod.SendMessage(&sarama.ProducerMessage{Topic: "mixed", Value: sarama.StringEncoder(v)}); err == nil {
					ack(v)
				} else {
					t.Logf("%s not acknowledged: %v", v, err)
				}
			}
		}()
	}
	kprod := newClient(t, cl, kgo.DefaultProduceTopic("mixed"))
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range perProducer {
			v := fmt.Sprintf("kgo-%d", i)
			if err := kprod.ProduceSync(ctx, kgo.StringRecord(v)).FirstErr(); err == nil {
				ack(v)
			}
		}
	}()
	wg.Wait()
	require.Equal(t, 3*perProducer, len(acked), "every record was acknowledged")

	cons := newClient(t, cl, kgo.ConsumeTopics("mixed"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	got := map[string]int{}
	for n := 0; n < 3*perProducer; {
		fs := cons.PollFetches(ctx)
		require.NoError(t, ctx.Err(), "consumed %d", n)
		fs.EachRecord(func(r *kgo.Record) { got[string(r.Value)]++; n++ })
	}
	assert.Equal(t, acked, got, "every acknowledged record, each exactly once")
}

// TestSaramaClusterAdmin proves the admin calls through sarama's
// ClusterAdmin: CreatePartitions grows a topic, DeleteRecords advances
// its log start, AlterConfig sets a topic config DescribeConfig reports,
// and DescribeLogDirs answers.
func TestSaramaClusterAdmin(t *testing.T) {
	ctx := testContext(t)
	cl := startCluster(t, func(c *wire.Config) { c.Brokers = 1 })
	createTopic(t, ctx, newAdmin(t, cl), "sa", 1)
	prod := newClient(t, cl, kgo.DefaultProduceTopic("sa"))
	for range 5 {
		require.NoError(t, prod.ProduceSync(ctx, kgo.StringRecord("x")).FirstErr())
	}
	adm, err := sarama.NewClusterAdmin(cl.Addrs(), saramaConfig())
	require.NoError(t, err)
	t.Cleanup(func() { adm.Close() })

	require.NoError(t, adm.CreatePartitions("sa", 3, nil, false))
	md, err := adm.DescribeTopics([]string{"sa"})
	require.NoError(t, err)
	require.Len(t, md, 1)
	assert.Len(t, md[0].Partitions, 3)

	require.NoError(t, adm.DeleteRecords("sa", map[int32]int64{0: 3}))
	earliest := newAdmin(t, cl)
	starts, err := earliest.ListStartOffsets(ctx, "sa")
	require.NoError(t, err)
	assert.Equal(t, int64(3), starts["sa"][0].Offset)

	retention := "3600000"
	require.NoError(t, adm.AlterConfig(sarama.TopicResource, "sa", map[string]*string{"retention.ms": &retention}, false))
	results, err := adm.DescribeConfigs([]*sarama.ConfigResource{{Type: sarama.TopicResource, Name: "sa", ConfigNames: []string{"retention.ms"}}}, sarama.DescribeConfigsOptions{})
	require.NoError(t, err)
	require.Len(t, results, 1)
	require.NotEmpty(t, results[0].Configs)
	assert.Equal(t, "3600000", results[0].Configs[0].Value)

	dirs, err := adm.DescribeLogDirs([]int32{0})
	require.NoError(t, err)
	assert.NotEmpty(t, dirs[0])
}
