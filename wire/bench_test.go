package wire_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/wire"
)

// The benchmarks run every peer in the same run, side by side, so their
// ratios hold under whatever load the machine has: coordsim's endpoint
// and franz-go's kfake, both three brokers on loopback, and a real Kafka
// broker (one node) when it is available, each with a topic "bench" of
// benchPartitions partitions, each driven by kgo clients.
const (
	benchTopic      = "bench"
	benchPartitions = 6
)

// benchPeers starts each peer for one benchmark and returns its seed
// brokers; the peer stops when the benchmark ends.
var benchPeers = []struct {
	name  string
	start func(b *testing.B) []string
}{
	{"coordsim", func(b *testing.B) []string {
		cl, err := wire.Start(context.Background(), wire.DefaultConfig())
		require.NoError(b, err)
		b.Cleanup(cl.Close)
		c := benchClient(b, cl.Addrs())
		req := kmsg.NewPtrCreateTopicsRequest()
		t := kmsg.NewCreateTopicsRequestTopic()
		t.Topic, t.NumPartitions, t.ReplicationFactor = benchTopic, benchPartitions, 1
		req.Topics = append(req.Topics, t)
		resp, err := req.RequestWith(context.Background(), c)
		require.NoError(b, err)
		require.Zero(b, resp.Topics[0].ErrorCode)
		return cl.Addrs()
	}},
	{"kfake", func(b *testing.B) []string {
		kf, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.SeedTopics(benchPartitions, benchTopic))
		require.NoError(b, err)
		b.Cleanup(kf.Close)
		return kf.ListenAddrs()
	}},
	// The real thing: a single-node Kafka broker (bench_kafka_test.go),
	// skipped unless the broker oracle is resolved (make broker-oracle).
	{"kafka", kafkaPeer},
}

// roundTripPeers are benchPeers plus a ceiling for the single-request
// round-trip benchmarks: "kfake-noop" is kfake with OffsetCommit and
// ConsumerGroupHeartbeat answered by a control function that does no
// coordinator work (every partition committed, the epoch echoed). What it
// measures is the client, loopback and a Go server's framing: no endpoint
// that does the coordinator's work can beat it.
var roundTripPeers = append(benchPeers[:len(benchPeers):len(benchPeers)], struct {
	name  string
	start func(b *testing.B) []string
}{"kfake-noop", func(b *testing.B) []string {
	kf, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.SeedTopics(benchPartitions, benchTopic))
	require.NoError(b, err)
	b.Cleanup(kf.Close)
	kf.ControlKey(int16(kmsg.OffsetCommit), func(r kmsg.Request) (kmsg.Response, error, bool) {
		kf.KeepControl()
		req := r.(*kmsg.OffsetCommitRequest)
		resp := req.ResponseKind().(*kmsg.OffsetCommitResponse)
		for _, t := range req.Topics {
			rt := kmsg.NewOffsetCommitResponseTopic()
			rt.Topic, rt.TopicID = t.Topic, t.TopicID
			for _, p := range t.Partitions {
				rp := kmsg.NewOffsetCommitResponseTopicPartition()
				rp.Partition = p.Partition
				rt.Partitions = append(rt.Partitions, rp)
			}
			resp.Topics = append(resp.Topics, rt)
		}
		return resp, nil, true
	})
	kf.ControlKey(int16(kmsg.ConsumerGroupHeartbeat), func(r kmsg.Request) (kmsg.Response, error, bool) {
		kf.KeepControl()
		req := r.(*kmsg.ConsumerGroupHeartbeatRequest)
		resp := req.ResponseKind().(*kmsg.ConsumerGroupHeartbeatResponse)
		resp.MemberID, resp.MemberEpoch, resp.HeartbeatIntervalMillis = &req.MemberID, max(req.MemberEpoch, 1), 5000
		return resp, nil, true
	})
	return kf.ListenAddrs()
}})

// benchClient is a kgo client on seeds, closed when the benchmark ends.
func benchClient(b *testing.B, seeds []string, opts ...kgo.Opt) *kgo.Client {
	c, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(seeds...)}, opts...)...)
	require.NoError(b, err)
	b.Cleanup(c.Close)
	return c
}

// benchTopicMetadata returns the bench topic's id and each partition's
// leader.
func benchTopicMetadata(b *testing.B, c *kgo.Client) (id [16]byte, leaders []int32) {
	md := kmsg.NewPtrMetadataRequest()
	mt := kmsg.NewMetadataRequestTopic()
	name := benchTopic
	mt.Topic = &name
	md.Topics = append(md.Topics, mt)
	resp, err := md.RequestWith(context.Background(), c)
	require.NoError(b, err)
	require.Len(b, resp.Topics, 1)
	leaders = make([]int32, benchPartitions)
	for _, p := range resp.Topics[0].Partitions {
		leaders[p.Partition] = p.Leader
	}
	return resp.Topics[0].TopicID, leaders
}

// BenchmarkOffsetCommit measures OffsetCommit round trips per second from
// kgo over loopback: a simple-consumer commit of one partition to the
// group's coordinator.
func BenchmarkOffsetCommit(b *testing.B) {
	for _, peer := range roundTripPeers {
		b.Run(peer.name, func(b *testing.B) {
			c := benchClient(b, peer.start(b))
			ctx := context.Background()
			id, _ := benchTopicMetadata(b, c) // OffsetCommit v10 names topics by id
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				req := kmsg.NewPtrOffsetCommitRequest()
				req.Group, req.Generation = "bench-group", -1
				t := kmsg.NewOffsetCommitRequestTopic()
				t.Topic, t.TopicID = benchTopic, id
				p := kmsg.NewOffsetCommitRequestTopicPartition()
				p.Partition, p.Offset, p.LeaderEpoch = int32(i%benchPartitions), int64(i), -1
				t.Partitions = append(t.Partitions, p)
				req.Topics = append(req.Topics, t)
				resp, err := req.RequestWith(ctx, c)
				if err != nil || resp.Topics[0].Partitions[0].ErrorCode != 0 {
					b.Fatalf("commit %d: %v %+v", i, err, resp)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "round-trips/s")
		})
	}
}

// BenchmarkConsumerGroupHeartbeat measures KIP-848 ConsumerGroupHeartbeat
// round trips per second from kgo over loopback: one member joins, then
// heartbeats at its current epoch as fast as the answers come back.
func BenchmarkConsumerGroupHeartbeat(b *testing.B) {
	for _, peer := range roundTripPeers {
		b.Run(peer.name, func(b *testing.B) {
			c := benchClient(b, peer.start(b))
			ctx := context.Background()
			join := kmsg.NewPtrConsumerGroupHeartbeatRequest()
			join.Group, join.MemberID, join.MemberEpoch, join.RebalanceTimeoutMillis = "bench-848", "bench-member-0000000001", 0, 60000
			join.SubscribedTopicNames, join.Topics = []string{benchTopic}, []kmsg.ConsumerGroupHeartbeatRequestTopic{}
			assignor := "uniform"
			join.ServerAssignor = &assignor
			resp, err := join.RequestWith(ctx, c)
			require.NoError(b, err)
			require.Zero(b, resp.ErrorCode, "join: %v", resp.ErrorMessage)
			epoch := resp.MemberEpoch
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				hb := kmsg.NewPtrConsumerGroupHeartbeatRequest()
				hb.Group, hb.MemberID, hb.MemberEpoch = "bench-848", "bench-member-0000000001", epoch
				resp, err := hb.RequestWith(ctx, c)
				if err != nil || resp.ErrorCode != 0 {
					b.Fatalf("heartbeat %d: %v %+v", i, err, resp)
				}
				epoch = resp.MemberEpoch
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "round-trips/s")
		})
	}
}

// Produce and fetch benchmarks write batches of benchBatchRecords records
// of benchRecordBytes bytes each.
const (
	benchBatchRecords = 16
	benchRecordBytes  = 128
)

// benchBatch is one batch's records for partition p.
func benchBatch(p int32) []*kgo.Record {
	value := bytes.Repeat([]byte{'v'}, benchRecordBytes)
	rs := make([]*kgo.Record, benchBatchRecords)
	for i := range rs {
		rs[i] = &kgo.Record{Topic: benchTopic, Partition: p, Value: value}
	}
	return rs
}

// benchBatches is one batch per partition, indexed by partition.
func benchBatches() [][]*kgo.Record {
	batches := make([][]*kgo.Record, benchPartitions)
	for p := range batches {
		batches[p] = benchBatch(int32(p))
	}
	return batches
}

// benchProducer is a kgo producer that sends what it is given at once,
// each partition's records as one batch, to the partition asked.
func benchProducer(b *testing.B, seeds []string) *kgo.Client {
	return benchClient(b, seeds, kgo.ProducerLinger(0), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerBatchCompression(kgo.NoCompression()))
}

// BenchmarkProduce measures Produce round trips from kgo over loopback:
// one batch of benchBatchRecords records to one partition (round robin),
// acks=all, idempotent (kgo's default), waiting for the answer.
func BenchmarkProduce(b *testing.B) {
	for _, peer := range benchPeers {
		b.Run(peer.name, func(b *testing.B) {
			c := benchProducer(b, peer.start(b))
			ctx := context.Background()
			batches := benchBatches()
			b.SetBytes(benchBatchRecords * benchRecordBytes)
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				if err := c.ProduceSync(ctx, batches[i%benchPartitions]...).FirstErr(); err != nil {
					b.Fatalf("produce %d: %v", i, err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "round-trips/s")
		})
	}
}

// BenchmarkFetch measures Fetch round trips from kgo over loopback, each
// reading the same benchFetchBatches batches (about 70 KB) from offset 0
// of one partition, sessionless, from the partition's leader.
func BenchmarkFetch(b *testing.B) {
	const benchFetchBatches = 32
	for _, peer := range benchPeers {
		b.Run(peer.name, func(b *testing.B) {
			seeds := peer.start(b)
			prod := benchProducer(b, seeds)
			ctx := context.Background()
			batch := benchBatch(0)
			for range benchFetchBatches {
				require.NoError(b, prod.ProduceSync(ctx, batch...).FirstErr())
			}
			c := benchClient(b, seeds)
			id, leaders := benchTopicMetadata(b, c)
			leader := c.Broker(int(leaders[0]))
			req := kmsg.NewPtrFetchRequest()
			req.ReplicaID, req.MaxWaitMillis, req.MinBytes, req.MaxBytes = -1, 0, 1, 1<<20
			req.SessionID, req.SessionEpoch = 0, -1 // sessionless
			t := kmsg.NewFetchRequestTopic()
			t.Topic, t.TopicID = benchTopic, id
			p := kmsg.NewFetchRequestTopicPartition()
			p.Partition, p.FetchOffset, p.LogStartOffset, p.PartitionMaxBytes, p.CurrentLeaderEpoch = 0, 0, -1, 1<<20, -1
			t.Partitions = append(t.Partitions, p)
			req.Topics = append(req.Topics, t)
			var size int
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				kresp, err := leader.Request(ctx, req)
				if err != nil {
					b.Fatalf("fetch %d: %v", i, err)
				}
				resp := kresp.(*kmsg.FetchResponse)
				sp := resp.Topics[0].Partitions[0]
				if sp.ErrorCode != 0 || sp.HighWatermark != benchFetchBatches*benchBatchRecords {
					b.Fatalf("fetch %d: error %d, high watermark %d", i, sp.ErrorCode, sp.HighWatermark)
				}
				size = len(sp.RecordBatches)
			}
			b.SetBytes(int64(size))
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "round-trips/s")
		})
	}
}

// BenchmarkProduceConsume measures the way from a producer to a consumer:
// each iteration produces one batch (round robin over the partitions) and
// waits until a consumer, whose fetch is parked on the broker waiting for
// records, has polled all of it. It times the produce round trip, the wake
// of the waiting fetch and the fetch's answer.
func BenchmarkProduceConsume(b *testing.B) {
	for _, peer := range benchPeers {
		b.Run(peer.name, func(b *testing.B) {
			seeds := peer.start(b)
			prod := benchProducer(b, seeds)
			cons := benchClient(b, seeds, kgo.ConsumeTopics(benchTopic), kgo.FetchMaxWait(5*time.Second))
			ctx := context.Background()
			batches := benchBatches()
			// Let the consumer find the topic and park its fetches.
			require.NoError(b, prod.ProduceSync(ctx, batches[0]...).FirstErr())
			for got := 0; got < benchBatchRecords; {
				fs := cons.PollFetches(ctx)
				require.NoError(b, fs.Err0())
				got += fs.NumRecords()
			}
			b.SetBytes(benchBatchRecords * benchRecordBytes)
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				if err := prod.ProduceSync(ctx, batches[i%benchPartitions]...).FirstErr(); err != nil {
					b.Fatalf("produce %d: %v", i, err)
				}
				for got := 0; got < benchBatchRecords; {
					fs := cons.PollFetches(ctx)
					if err := fs.Err0(); err != nil {
						b.Fatalf("consume %d: %v", i, err)
					}
					got += fs.NumRecords()
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "round-trips/s")
		})
	}
}
