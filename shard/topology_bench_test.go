package shard

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/coordsim/coordsim/offsets"
)

// The eligibility benchmark's shape: 1 M groups over 50 shards, 1 % of them
// streams groups (docs/design.md §Performance by design).
const (
	eligShards          = 50
	eligGroupsPerShard  = 20_000
	eligStreamsEvery    = 100 // every 100th group is a streams group
	eligStreamsPerShard = eligGroupsPerShard / eligStreamsEvery
)

// buildEligibilityShards builds eligShards shards by replaying records
// directly. On each, every 100th group is a streams group (a
// StreamsGroupMetadata record, no members); the others are simple classic
// groups, half with only a GroupMetadata record and half with an offset too.
// eligible streams groups in total, spread evenly over the shards, have a
// stored description epoch and no offsets; the other streams groups have
// either stored = -1 or a stored epoch and an offset, so neither is eligible.
func buildEligibilityShards(b *testing.B, eligible int) []*Shard {
	b.Helper()
	if eligible > eligShards*eligStreamsPerShard {
		b.Fatalf("%d eligible groups, but only %d streams groups", eligible, eligShards*eligStreamsPerShard)
	}
	shards := make([]*Shard, eligShards)
	for i := range shards {
		s, err := New(int32(i), DefaultConfig())
		if err != nil {
			b.Fatal(err)
		}
		next := int64(0)
		replay := func(r Record) {
			if err := s.Replay(next, r); err != nil {
				b.Fatal(err)
			}
			next++
		}
		offset := func(group string) {
			replay(&OffsetCommit{Group: group, Topic: "orders", Partition: 0, ProducerID: NoProducerID, Value: offsets.OffsetAndMetadata{
				Offset: 1000, LeaderEpoch: 3, CommitTimestampMs: benchCommitMs, ExpireTimestampMs: offsets.NoExpireTimestamp,
			}})
		}
		// Shard i holds eligible/eligShards eligible groups, one more for the
		// first eligible%eligShards shards.
		want := eligible / eligShards
		if i < eligible%eligShards {
			want++
		}
		for g := range eligGroupsPerShard {
			id := fmt.Sprintf("group-%02d-%06d", i, g)
			if g%eligStreamsEvery != 0 {
				replay(&GroupMetadata{Group: id, CurrentStateTimestampMs: benchCommitMs})
				if g%2 == 1 {
					offset(id)
				}
				continue
			}
			j := g / eligStreamsEvery // index among the shard's streams groups
			stored := int32(3)
			if j >= want && j%2 == 0 {
				stored = EpochNone
			}
			replay(&StreamsGroupMetadata{Group: id, Epoch: 5, MetadataHash: 42, ValidatedTopologyEpoch: 3,
				StoredDescriptionTopologyEpoch: stored, FailedDescriptionTopologyEpoch: EpochNone})
			if j >= want && j%2 == 1 {
				offset(id)
			}
		}
		if got := len(s.ListStreamsGroupsNeedingTopologyCleanup()); got != want {
			b.Fatalf("shard %d: %d eligible groups, want %d", i, got, want)
		}
		if s.NumGroups() != eligGroupsPerShard {
			b.Fatalf("shard %d: %d groups", i, s.NumGroups())
		}
		shards[i] = s
	}
	return shards
}

// BenchmarkEligibilityScan compares the KIP-1331 cleanup cycle's read-all,
// ListStreamsGroupsNeedingTopologyCleanup on every shard, through the
// eligibility index ("indexed") with Kafka's scan of every group
// ("fullscan"), on 1 M groups over 50 shards of which 0, 100 or 10 000 are
// eligible. One op scans all 50 shards. Goal: indexed at least 100× faster
// with nothing eligible, and its cost following the eligible count, not the
// group count. The shards are built once per eligible count, untimed.
func BenchmarkEligibilityScan(b *testing.B) {
	for _, eligible := range []int{0, 100, 10_000} {
		shards := buildEligibilityShards(b, eligible)
		for _, s := range shards {
			if got, want := fmt.Sprint(s.ListStreamsGroupsNeedingTopologyCleanup()), fmt.Sprint(s.listStreamsGroupsNeedingTopologyCleanupFullScan()); got != want {
				b.Fatalf("shard %d: indexed %s, full scan %s", s.Partition(), got, want)
			}
		}
		runtime.GC() // do not charge the build's garbage to the scans
		for _, alt := range []struct {
			name string
			scan func(*Shard) []GroupEpoch
		}{
			{"indexed", (*Shard).ListStreamsGroupsNeedingTopologyCleanup},
			{"fullscan", (*Shard).listStreamsGroupsNeedingTopologyCleanupFullScan},
		} {
			b.Run(fmt.Sprintf("%s/eligible=%d", alt.name, eligible), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					n := 0
					for _, s := range shards {
						n += len(alt.scan(s))
					}
					if n != eligible {
						b.Fatalf("%d eligible groups, want %d", n, eligible)
					}
				}
			})
		}
		runtime.KeepAlive(shards)
	}
}
