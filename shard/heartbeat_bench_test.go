package shard_test

import (
	"testing"

	"github.com/coordsim/coordsim/internal/benchtest"
	"github.com/coordsim/coordsim/shard"
)

// shardBackend runs the heartbeat benchmarks on a bare shard: the operation
// and the replay of its records (the timers it returns are the
// coordinator's to apply, and are dropped).
type shardBackend struct {
	b     *testing.B
	s     *shard.Shard
	nowMs int64
}

func newShardBackend(b *testing.B) benchtest.Backend {
	cfg := shard.DefaultConfig()
	// The streams groups settle without the initial rebalance timer.
	cfg.StreamsInitialRebalanceDelayMs = 0
	s, err := shard.New(0, cfg)
	if err != nil {
		b.Fatal(err)
	}
	if err := s.SetTopics(benchtest.Topics); err != nil {
		b.Fatal(err)
	}
	return &shardBackend{b: b, s: s, nowMs: 1_700_000_000_000}
}

func (x *shardBackend) replay(records []shard.Record) {
	next := x.s.LastOffset() + 1
	for i, r := range records {
		if err := x.s.Replay(next+int64(i), r); err != nil {
			x.b.Fatal(err)
		}
	}
}

func (x *shardBackend) ConsumerHeartbeat(req shard.ConsumerGroupHeartbeatRequest) (shard.ConsumerGroupHeartbeatResponse, error) {
	res, err := x.s.ConsumerGroupHeartbeat(x.nowMs, req)
	if err != nil {
		return shard.ConsumerGroupHeartbeatResponse{}, err
	}
	x.replay(res.Records)
	return res.Response, nil
}

func (x *shardBackend) StreamsHeartbeat(req shard.StreamsGroupHeartbeatRequest) (shard.StreamsGroupHeartbeatResponse, error) {
	res, err := x.s.StreamsGroupHeartbeat(x.nowMs, req)
	if err != nil {
		return shard.StreamsGroupHeartbeatResponse{}, err
	}
	x.replay(res.Records)
	return res.Response, nil
}

func (x *shardBackend) Describe(group string) (shard.GroupDescription, bool) {
	return x.s.DescribeGroup(group)
}

func (x *shardBackend) Advance() { x.nowMs++ }

// BenchmarkConsumerGroupHeartbeat measures one KIP-848 heartbeat on a shard:
// ConsumerGroupHeartbeat and the replay of its records. The cases are
// benchtest.RunConsumer's; BenchmarkConsumerGroupHeartbeat in package
// coordinator runs them through the service.
func BenchmarkConsumerGroupHeartbeat(b *testing.B) {
	benchtest.RunConsumer(b, newShardBackend)
}

// BenchmarkStreamsGroupHeartbeat measures one KIP-1071 heartbeat on a
// shard, as BenchmarkConsumerGroupHeartbeat does (benchtest.RunStreams).
func BenchmarkStreamsGroupHeartbeat(b *testing.B) {
	benchtest.RunStreams(b, newShardBackend)
}
