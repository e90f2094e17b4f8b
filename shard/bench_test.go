package shard

import (
	"flag"
	"fmt"
	"runtime"
	"testing"

	"github.com/coordsim/coordsim/offsets"
)

// benchLoadFull adds Kafka's full GroupCoordinatorShardLoadingBenchmark size
// (8192 batches × 2048 records ≈ 16.7 M records, about 2 GB of prebuilt log)
// to BenchmarkShardLoad. It is off by default so that
// `go test -bench . -benchtime 1x` stays short:
//
//	go test ./shard -run '^$' -bench ShardLoad -benchtime 1x -shardload.full
var benchLoadFull = flag.Bool("shardload.full", false, "BenchmarkShardLoad: also load Kafka's full 8192 × 2048 records")

const (
	benchLoadGroup = "test-group" // Kafka's GROUP_ID
	benchLoadTopic = "topic-0"
	// benchLoadPartitions is how many partitions the records cycle over: one
	// batch of 2048 rewrites each of them with a higher offset.
	benchLoadPartitions = 2048
	benchProducerID     = 1000 // Kafka's producerId
	benchCommitMs       = int64(1_700_000_000_000)
)

// benchLoadLog builds the log the loading benchmark replays: batchCount
// batches of batchSize offset-commit records for one group and one topic,
// the partitions cycling so every batch rewrites them with higher offsets.
// With transactional set, each batch is batchSize-1 records of one producer
// followed by a commit marker, as in Kafka's TransactionalOffsetCommitLog.
// The records live in one contiguous array to keep the prebuilt log compact.
func benchLoadLog(batchCount, batchSize int, transactional bool) []Record {
	log := make([]Record, 0, batchCount*batchSize)
	perBatch := batchSize
	producerID := NoProducerID
	if transactional {
		perBatch, producerID = batchSize-1, benchProducerID
	}
	commits := make([]OffsetCommit, batchCount*perBatch)
	markers := make([]EndTransactionMarker, batchCount)
	n := 0
	for batch := range batchCount {
		for j := range perBatch {
			commits[n] = OffsetCommit{
				Group:     benchLoadGroup,
				Topic:     benchLoadTopic,
				Partition: int32(j % benchLoadPartitions),
				Value: offsets.OffsetAndMetadata{
					Offset:            int64(batch)*int64(perBatch) + int64(j),
					LeaderEpoch:       0,
					CommitTimestampMs: benchCommitMs + int64(batch),
					ExpireTimestampMs: offsets.NoExpireTimestamp,
				},
				ProducerID: producerID,
			}
			log = append(log, &commits[n])
			n++
		}
		if transactional {
			markers[batch] = EndTransactionMarker{Group: benchLoadGroup, ProducerID: benchProducerID, Commit: true}
			log = append(log, &markers[batch])
		}
	}
	return log
}

// BenchmarkShardLoad is Kafka's GroupCoordinatorShardLoadingBenchmark in
// coordsim's terms: replay a prebuilt __consumer_offsets log into a fresh
// shard (shard.New, then Replay per record), and report records/s. Kafka
// publishes ≈ 3.8 s for 8192 × 2048 records, about 4.4 M records/s
// (docs/kip1331.md §7); the goal is to beat it. The log is built outside the
// timer. Kafka's timing also includes deserializing the records, which
// coordsim's in-memory log does not have.
func BenchmarkShardLoad(b *testing.B) {
	sizes := []struct{ batchCount, batchSize int }{{64, 2048}, {512, 2048}}
	if *benchLoadFull {
		sizes = append(sizes, struct{ batchCount, batchSize int }{8192, 2048})
	}
	for _, kind := range []struct {
		name          string
		transactional bool
	}{{"offsets", false}, {"transactional", true}} {
		for _, size := range sizes {
			name := fmt.Sprintf("%s/batches=%d/size=%d", kind.name, size.batchCount, size.batchSize)
			b.Run(name, func(b *testing.B) {
				log := benchLoadLog(size.batchCount, size.batchSize, kind.transactional)
				runtime.GC() // do not charge the log's construction garbage to the replay
				b.ReportAllocs()
				b.ResetTimer()
				var s *Shard
				for range b.N {
					var err error
					if s, err = New(0, DefaultConfig()); err != nil {
						b.Fatal(err)
					}
					for i, r := range log {
						if err := s.Replay(int64(i), r); err != nil {
							b.Fatal(err)
						}
					}
				}
				b.StopTimer()
				b.ReportMetric(float64(b.N)*float64(len(log))/b.Elapsed().Seconds(), "records/s")
				perBatch := size.batchSize
				if kind.transactional {
					perBatch-- // the commit marker
				}
				if s.OffsetCount() != min(benchLoadPartitions, perBatch) || s.offsets.PendingLen() != 0 {
					b.Fatalf("loaded %d offsets (%d pending)", s.OffsetCount(), s.offsets.PendingLen())
				}
				runtime.KeepAlive(log)
			})
		}
	}
}

// heapAlloc returns the live heap after full collections.
func heapAlloc() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// The memory and sweep benchmarks' shape: 1000 groups × 10 topics × 100
// partitions = 1 M offsets (the same as offsets/bench_test.go).
const (
	benchGroups     = 1000
	benchTopics     = 10
	benchPartitions = 100
	benchOffsets    = benchGroups * benchTopics * benchPartitions
)

// replayOffsets replays one OffsetCommit record per (group, topic,
// partition) into s; commitMs gives each offset's commit time by its index
// in (group, topic, partition) order. Group and topic names are made here
// so a memory measurement around the call charges them to the shard.
func replayOffsets(b *testing.B, s *Shard, groups, topics, partitions int, groupPrefix string, commitMs func(i int) int64) {
	topicNames := make([]string, topics)
	for t := range topicNames {
		topicNames[t] = fmt.Sprintf("orders.events.v%d", t)
	}
	logOffset := s.LastOffset() + 1
	i := 0
	for g := range groups {
		group := fmt.Sprintf("%s-%06d", groupPrefix, g)
		for _, topic := range topicNames {
			for p := range partitions {
				r := &OffsetCommit{
					Group: group, Topic: topic, Partition: int32(p), ProducerID: NoProducerID,
					Value: offsets.OffsetAndMetadata{
						Offset: int64(1000 + i), LeaderEpoch: 3,
						CommitTimestampMs: commitMs(i), ExpireTimestampMs: offsets.NoExpireTimestamp,
					},
				}
				if err := s.Replay(logOffset, r); err != nil {
					b.Fatal(err)
				}
				logOffset++
				i++
			}
		}
	}
}

// replayResult replays an operation's records at the shard's next offsets.
func replayResult(b *testing.B, s *Shard, records []Record) {
	next := s.LastOffset() + 1
	for i, r := range records {
		if err := s.Replay(next+int64(i), r); err != nil {
			b.Fatal(err)
		}
	}
}

// consumerGroups builds n consumer groups of 3 members each through
// ConsumerGroupHeartbeat, replaying every result: each member joins, then
// all heartbeat until the group reconciles to STABLE.
func consumerGroups(b *testing.B, s *Shard, n int) {
	const members = 3
	nowMs := benchCommitMs
	for g := range n {
		group := fmt.Sprintf("consumer-group-%06d", g)
		ids := make([]string, members)
		for m := range ids {
			ids[m] = fmt.Sprintf("member-%06d-%d-0123456789abcdef", g, m)
			res, err := s.ConsumerGroupHeartbeat(nowMs, ConsumerGroupHeartbeatRequest{
				GroupID: group, MemberID: ids[m], MemberEpoch: 0, ClientID: "consumer-client",
				RebalanceTimeoutMs: 300_000, SubscribedTopicNames: []string{"orders"},
			})
			if err != nil {
				b.Fatal(err)
			}
			replayResult(b, s, res.Records)
		}
		// Members that joined later wait for the first to revoke, so KIP-848
		// reconciliation takes a few rounds of heartbeats.
		for round := 0; round < 5; round++ {
			if st, _ := s.GroupState(group); st == StateStable {
				break
			}
			heartbeatAll(b, s, nowMs, group, ids)
		}
		if st, _ := s.GroupState(group); st != StateStable {
			b.Fatalf("group %s is %s, want STABLE", group, st)
		}
	}
}

// heartbeatAll sends one heartbeat from each member at its current epoch,
// reporting the partitions it owns, and replays the results.
func heartbeatAll(b *testing.B, s *Shard, nowMs int64, group string, ids []string) {
	for _, id := range ids {
		d, _ := s.DescribeGroup(group)
		epoch := int32(-1)
		for _, m := range d.Members {
			if m.MemberID == id {
				epoch = m.MemberEpoch
			}
		}
		res, err := s.ConsumerGroupHeartbeat(nowMs, ConsumerGroupHeartbeatRequest{RebalanceTimeoutMs: RebalanceTimeoutNotSent, GroupID: group, MemberID: id, MemberEpoch: epoch,
			TopicPartitions: ownedBy(s, group, id)})
		if err != nil {
			b.Fatal(err)
		}
		replayResult(b, s, res.Records)
	}
}

// BenchmarkMemory measures the live heap a shard holds, after a full GC,
// per committed offset and per group. Goal (issue 2): under 150 B per
// offset. The group figures include everything the group brings: its id
// (twice: the registry and the offsets store's interned copy), its record
// state and, for simple groups, the one offset that created them.
func BenchmarkMemory(b *testing.B) {
	measure := func(b *testing.B, unit string, per int, build func(s *Shard)) {
		b.ReportAllocs()
		var bytesPer float64
		for range b.N {
			before := heapAlloc()
			s, err := New(0, DefaultConfig())
			if err != nil {
				b.Fatal(err)
			}
			build(s)
			after := heapAlloc()
			runtime.KeepAlive(s)
			bytesPer = float64(int64(after)-int64(before)) / float64(per)
		}
		b.ReportMetric(bytesPer, unit)
	}
	constMs := func(int) int64 { return benchCommitMs }

	b.Run("offsets/1000x10x100", func(b *testing.B) {
		measure(b, "B/offset", benchOffsets, func(s *Shard) {
			replayOffsets(b, s, benchGroups, benchTopics, benchPartitions, "consumer-group", constMs)
			if s.OffsetCount() != benchOffsets {
				b.Fatalf("%d offsets", s.OffsetCount())
			}
		})
	})

	b.Run("groups/simple-classic-100000", func(b *testing.B) {
		const n = 100_000
		measure(b, "B/group", n, func(s *Shard) {
			replayOffsets(b, s, n, 1, 1, "simple-group", constMs)
			if s.NumGroups() != n {
				b.Fatalf("%d groups", s.NumGroups())
			}
		})
	})

	b.Run("groups/simple-classic-100000/offsets-store-only", func(b *testing.B) {
		// The offsets store's share of the figure above: the same 100 000
		// commits into a bare offsets.Store, no group registry.
		const n = 100_000
		b.ReportAllocs()
		var bytesPer float64
		for range b.N {
			before := heapAlloc()
			st := offsets.NewStore(DefaultConfig().OffsetsRetentionMs)
			for g := range n {
				k := offsets.Key{Group: fmt.Sprintf("%s-%06d", "simple-group", g), Topic: "orders.events.v0"}
				st.Commit(k, offsets.OffsetAndMetadata{Offset: 1000, LeaderEpoch: 3, CommitTimestampMs: benchCommitMs, ExpireTimestampMs: offsets.NoExpireTimestamp})
			}
			after := heapAlloc()
			runtime.KeepAlive(st)
			bytesPer = float64(int64(after)-int64(before)) / n
		}
		b.ReportMetric(bytesPer, "B/group")
	})

	b.Run("groups/consumer-10000x3", func(b *testing.B) {
		const n = 10_000
		measure(b, "B/group", n, func(s *Shard) {
			if err := s.SetTopics(map[string]int32{"orders": 6}); err != nil {
				b.Fatal(err)
			}
			consumerGroups(b, s, n)
			if got := s.GroupCount(Consumer, StateStable); got != n {
				b.Fatalf("%d stable consumer groups", got)
			}
		})
	})
}

// BenchmarkSweep compares the indexed expire-group-metadata sweep
// (CleanupGroupMetadata) with Kafka's full scan of every group and offset
// (cleanupGroupMetadataFullScan) on 1 M offsets of simple classic groups, of
// which 0.1 % (1000) are expirable at the sweep time. The sweep returns
// records and does not mutate the shard, so one shard is swept repeatedly.
// Goal (issue 2): indexed at least 50× faster.
//
// Where the expirable offsets sit decides the indexed cost, since the sweep
// examines every offset of a candidate group:
//   - one-group: all 1000 offsets of one group are old (the group then has
//     nothing left and is tombstoned too);
//   - ten-groups: 100 old offsets in each of 10 groups;
//   - spread: one old offset in each of the 1000 groups.
func BenchmarkSweep(b *testing.B) {
	const (
		retentionMs = 7 * 24 * 3600 * 1000
		recentMs    = benchCommitMs
		oldMs       = benchCommitMs - 2*retentionMs
		nowMs       = benchCommitMs + 600_000
		perGroup    = benchTopics * benchPartitions
	)
	layouts := []struct {
		name string
		old  func(i int) bool // i in (group, topic, partition) order
	}{
		{"one-group", func(i int) bool { return i/perGroup == 0 }},
		{"ten-groups", func(i int) bool { return i/perGroup%100 == 0 && i%perGroup < 100 }},
		{"spread", func(i int) bool { return i%perGroup == 0 }},
	}
	for _, layout := range layouts {
		s, err := New(0, DefaultConfig())
		if err != nil {
			b.Fatal(err)
		}
		replayOffsets(b, s, benchGroups, benchTopics, benchPartitions, "consumer-group", func(i int) int64 {
			if layout.old(i) {
				return oldMs
			}
			return recentMs
		})
		indexed := s.CleanupGroupMetadata(nowMs).Response
		full := s.cleanupGroupMetadataFullScan(nowMs).Response
		if indexed.OffsetsExpired != benchOffsets/1000 || full.OffsetsExpired != indexed.OffsetsExpired ||
			len(full.GroupsDeleted) != len(indexed.GroupsDeleted) {
			b.Fatalf("%s: indexed %+v, full scan %+v", layout.name, indexed, full)
		}
		for _, alt := range []struct {
			name  string
			sweep func(int64) Result[SweepResponse]
		}{{"indexed", s.CleanupGroupMetadata}, {"fullscan", s.cleanupGroupMetadataFullScan}} {
			b.Run(layout.name+"/"+alt.name, func(b *testing.B) {
				b.ReportAllocs()
				visited := 0
				for range b.N {
					res := alt.sweep(nowMs)
					if res.Response.OffsetsExpired != benchOffsets/1000 {
						b.Fatalf("expired %d", res.Response.OffsetsExpired)
					}
					visited = res.Response.GroupsVisited
				}
				b.ReportMetric(float64(visited), "groups-visited")
			})
		}
	}
}
