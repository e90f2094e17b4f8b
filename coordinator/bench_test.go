package coordinator

import (
	"fmt"
	"testing"
	"time"

	"github.com/coordsim/coordsim/offsets"
	"github.com/coordsim/coordsim/shard"
)

// benchClock is a manual clock for benchmarks: Now costs no allocation and
// the benchmark moves it forward one millisecond per commit, so each replaced
// offset also moves its entry in the shard's expiry index (as commits at
// advancing wall time do).
type benchClock struct{ ms int64 }

func (c *benchClock) Now() time.Time { return time.UnixMilli(c.ms) }

// The offset-commit benchmark's working set: 1000 simple groups × 8
// partitions of one topic, spread over the 50 shards by partitionFor.
const (
	benchCommitGroups     = 1000
	benchCommitPartitions = 8
	benchCommitKeys       = benchCommitGroups * benchCommitPartitions
	benchCommitTopic      = "orders.events"
)

// benchCommitTopics is the metadata image the benchmarks install: the
// insert case commits partitions 8, 9, ... (one more per 1000 ops), so the
// topic has the most partitions a shard accepts.
var benchCommitTopics = map[string]int32{benchCommitTopic: shard.MaxTopicPartitions}

// newBenchCoordinator starts a coordinator with Kafka's default configuration
// (commit immediately) hosting all 50 shards.
func newBenchCoordinator(b *testing.B, clock *benchClock) *Coordinator {
	b.Helper()
	return newBenchCoordinatorWith(b, DefaultConfig(), clock)
}

// newBenchCoordinatorWith is newBenchCoordinator with cfg.
func newBenchCoordinatorWith(b *testing.B, cfg Config, clock *benchClock) *Coordinator {
	b.Helper()
	c, err := New(cfg, Options{Clock: clock})
	if err != nil {
		b.Fatal(err)
	}
	if err := c.Startup(); err != nil {
		b.Fatal(err)
	}
	// Offset commits are validated against the topic metadata image.
	if err := c.SetTopics(benchCommitTopics); err != nil {
		b.Fatal(err)
	}
	for p := range c.Config().NumPartitions {
		if err := c.LoadShard(p); err != nil {
			b.Fatal(err)
		}
	}
	return c
}

// benchCommitRequests builds one single-partition simple-group commit
// request per key (group-major), so building requests stays out of the timer.
func benchCommitRequests(groups, partitions int, groupPrefix string) []shard.OffsetCommitRequest {
	reqs := make([]shard.OffsetCommitRequest, 0, groups*partitions)
	for g := range groups {
		id := fmt.Sprintf("%s-%04d", groupPrefix, g)
		for p := range partitions {
			reqs = append(reqs, shard.OffsetCommitRequest{
				GroupID:         id,
				MemberID:        "",
				MemberEpoch:     -1,
				RetentionTimeMs: -1,
				Topics: []shard.OffsetCommitTopic{{
					Topic: benchCommitTopic,
					Partitions: []shard.OffsetCommitPartition{{
						Partition: int32(p), Offset: 0, LeaderEpoch: offsets.NoLeaderEpoch,
					}},
				}},
			})
		}
	}
	return reqs
}

func mustCommit(b *testing.B, c *Coordinator, req shard.OffsetCommitRequest) {
	resp, err := c.CommitOffsets(req).Result()
	if err != nil || resp.Committed != 1 {
		b.Fatalf("commit %s: %+v, %v", req.GroupID, resp, err)
	}
}

// BenchmarkOffsetCommit measures one single-partition offset commit through
// the service (route, validate, build the record, append, replay, commit,
// release the response). Goal (issue 2): under 1 µs and at most 3 allocations.
//
//   - replace: 1000 groups × 8 partitions already committed; each op
//     replaces one of them, cycling, with a clock one millisecond later.
//   - insert: each op commits a partition the group has never committed
//     (a new key in the offsets store and the expiry index).
//   - shard-only/replace: the same replace without the service, calling
//     shard.CommitOffsets and Shard.Replay directly: the service's share of
//     the cost is the difference.
func BenchmarkOffsetCommit(b *testing.B) {
	b.Run("replace", func(b *testing.B) {
		clock := &benchClock{ms: 1_700_000_000_000}
		c := newBenchCoordinator(b, clock)
		reqs := benchCommitRequests(benchCommitGroups, benchCommitPartitions, "bench-group")
		for _, req := range reqs {
			mustCommit(b, c, req)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			req := reqs[i%benchCommitKeys]
			req.Topics[0].Partitions[0].Offset = int64(i + 1)
			clock.ms++
			if _, err := c.CommitOffsets(req).Result(); err != nil {
				b.Fatal(err)
			}
		}
	})

	b.Run("insert", func(b *testing.B) {
		clock := &benchClock{ms: 1_700_000_000_000}
		c := newBenchCoordinator(b, clock)
		// The same 1000 groups exist with 8 partitions each; every op then
		// commits partition 8, 9, ... of the next group in turn: a new key.
		reqs := benchCommitRequests(benchCommitGroups, benchCommitPartitions, "bench-group")
		for _, req := range reqs {
			mustCommit(b, c, req)
		}
		groupReqs := make([]shard.OffsetCommitRequest, benchCommitGroups)
		for g := range groupReqs {
			groupReqs[g] = reqs[g*benchCommitPartitions]
			groupReqs[g].Topics = []shard.OffsetCommitTopic{{
				Topic:      benchCommitTopic,
				Partitions: []shard.OffsetCommitPartition{{LeaderEpoch: offsets.NoLeaderEpoch}},
			}}
		}
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			req := groupReqs[i%benchCommitGroups]
			p := &req.Topics[0].Partitions[0]
			p.Partition = int32(benchCommitPartitions + i/benchCommitGroups)
			p.Offset = int64(i + 1)
			clock.ms++
			if _, err := c.CommitOffsets(req).Result(); err != nil {
				b.Fatal(err)
			}
		}
	})

	b.Run("shard-only/replace", func(b *testing.B) {
		// One shard holding the 8000 keys (the service splits them over 50).
		s, err := shard.New(0, DefaultConfig().shardConfig())
		if err != nil {
			b.Fatal(err)
		}
		if err := s.SetTopics(benchCommitTopics); err != nil {
			b.Fatal(err)
		}
		reqs := benchCommitRequests(benchCommitGroups, benchCommitPartitions, "bench-group")
		nowMs, logOffset := int64(1_700_000_000_000), int64(0)
		apply := func(req shard.OffsetCommitRequest) {
			res, err := s.CommitOffsets(nowMs, req)
			if err != nil || res.Response.Committed != 1 {
				b.Fatalf("commit %s: %+v, %v", req.GroupID, res.Response, err)
			}
			for _, r := range res.Records {
				if err := s.Replay(logOffset, r); err != nil {
					b.Fatal(err)
				}
				logOffset++
			}
		}
		for _, req := range reqs {
			apply(req)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			req := reqs[i%benchCommitKeys]
			req.Topics[0].Partitions[0].Offset = int64(i + 1)
			nowMs++
			apply(req)
		}
	})
}

// BenchmarkShardMove is a shard move after a long history on a constant
// state: 1 000 simple groups commit one offset each, over and over, so the
// state stays at 1 000 offsets while the log grows to history records.
// Each op unloads the shard and loads it again, as a move to another
// broker does. With snapshots (the default, DefaultSnapshotEvery) the load
// copies the snapshot and replays a tail of fewer than that many records,
// whatever the history; with SetSnapshotEvery(0) it replays the whole
// history (issue 25 item 5: move cost must not grow with virtual time).
// tail-records is what the last load replayed.
func BenchmarkShardMove(b *testing.B) {
	for _, history := range []int{10_000, 100_000} {
		for _, every := range []int64{DefaultSnapshotEvery, 0} {
			b.Run(fmt.Sprintf("history=%d/snapshot-every=%d", history, every), func(b *testing.B) {
				clock := &benchClock{ms: 1_700_000_000_000}
				cfg := DefaultConfig()
				cfg.NumPartitions = 1
				c := newBenchCoordinatorWith(b, cfg, clock)
				if err := c.logs.SetSnapshotEvery(every); err != nil {
					b.Fatal(err)
				}
				reqs := benchCommitRequests(1000, 1, "move")
				for i := range history {
					req := reqs[i%len(reqs)]
					req.Topics[0].Partitions[0].Offset = int64(i)
					clock.ms++
					mustCommit(b, c, req)
				}
				l := c.logs.Partition(0)
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					if err := c.UnloadShard(0); err != nil {
						b.Fatal(err)
					}
					if err := c.LoadShard(0); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				b.ReportMetric(float64(l.HighWatermark()-l.StartOffset()), "tail-records")
				if _, err := c.CommittedShard(0); err != nil {
					b.Fatal(err)
				}
			})
		}
	}
}
