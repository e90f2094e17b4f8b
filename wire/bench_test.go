package wire_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/wire"
)

// benchPeers starts each peer for one benchmark: coordsim's endpoint and
// franz-go's kfake, both three brokers on loopback with a topic "bench" of
// six partitions, and returns a kgo client on it.
var benchPeers = []struct {
	name  string
	start func(b *testing.B) *kgo.Client
}{
	{"coordsim", func(b *testing.B) *kgo.Client {
		cl, err := wire.Start(context.Background(), wire.DefaultConfig())
		require.NoError(b, err)
		b.Cleanup(cl.Close)
		c := newClient(b, cl)
		req := kmsg.NewPtrCreateTopicsRequest()
		t := kmsg.NewCreateTopicsRequestTopic()
		t.Topic, t.NumPartitions, t.ReplicationFactor = "bench", 6, 1
		req.Topics = append(req.Topics, t)
		_, err = req.RequestWith(context.Background(), c)
		require.NoError(b, err)
		return c
	}},
	{"kfake", func(b *testing.B) *kgo.Client {
		kf, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.SeedTopics(6, "bench"))
		require.NoError(b, err)
		b.Cleanup(kf.Close)
		c, err := kgo.NewClient(kgo.SeedBrokers(kf.ListenAddrs()...))
		require.NoError(b, err)
		b.Cleanup(c.Close)
		return c
	}},
}

// BenchmarkOffsetCommit measures OffsetCommit round trips per second from
// kgo over loopback: a simple-consumer commit of one partition to the
// group's coordinator, coordsim and kfake in the same run.
func BenchmarkOffsetCommit(b *testing.B) {
	for _, peer := range benchPeers {
		b.Run(peer.name, func(b *testing.B) {
			c := peer.start(b)
			ctx := context.Background()
			md := kmsg.NewPtrMetadataRequest()
			mt := kmsg.NewMetadataRequestTopic()
			name := "bench"
			mt.Topic = &name
			md.Topics = append(md.Topics, mt)
			mresp, err := md.RequestWith(ctx, c)
			require.NoError(b, err)
			id := mresp.Topics[0].TopicID // OffsetCommit v10 names topics by id
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				req := kmsg.NewPtrOffsetCommitRequest()
				req.Group, req.Generation = "bench-group", -1
				t := kmsg.NewOffsetCommitRequestTopic()
				t.Topic, t.TopicID = "bench", id
				p := kmsg.NewOffsetCommitRequestTopicPartition()
				p.Partition, p.Offset, p.LeaderEpoch = int32(i%6), int64(i), -1
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
	for _, peer := range benchPeers {
		b.Run(peer.name, func(b *testing.B) {
			c := peer.start(b)
			ctx := context.Background()
			join := kmsg.NewPtrConsumerGroupHeartbeatRequest()
			join.Group, join.MemberID, join.MemberEpoch, join.RebalanceTimeoutMillis = "bench-848", "bench-member-0000000001", 0, 60000
			join.SubscribedTopicNames, join.Topics = []string{"bench"}, []kmsg.ConsumerGroupHeartbeatRequestTopic{}
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
