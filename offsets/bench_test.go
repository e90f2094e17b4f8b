package offsets

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
)

// The benchmark shape: 1000 groups × 10 topics × 100 partitions = 1M offsets.
const (
	benchGroups     = 1000
	benchTopics     = 10
	benchPartitions = 100
	benchOffsets    = benchGroups * benchTopics * benchPartitions
	benchRetention  = int64(7 * 24 * 3600 * 1000)
)

// benchNames are allocated once so that the store's own copies are what the
// memory benchmark measures.
type benchNames struct {
	groups []string
	topics []string
}

func newBenchNames() benchNames {
	n := benchNames{}
	for g := range benchGroups {
		n.groups = append(n.groups, fmt.Sprintf("consumer-group-%04d", g))
	}
	for t := range benchTopics {
		n.topics = append(n.topics, fmt.Sprintf("orders.events.v%d", t))
	}
	return n
}

// key returns the i-th of the 1M benchmark keys in (group, topic, partition) order.
func (n benchNames) key(i int) Key {
	return Key{
		Group:     n.groups[i/(benchTopics*benchPartitions)%benchGroups],
		Topic:     n.topics[i/benchPartitions%benchTopics],
		Partition: int32(i % benchPartitions),
	}
}

func benchValue(i int, commitMs int64) OffsetAndMetadata {
	return OffsetAndMetadata{
		Offset:            int64(i),
		LeaderEpoch:       3,
		CommitTimestampMs: commitMs,
		ExpireTimestampMs: NoExpireTimestamp,
	}
}

// fill commits the benchmark keys in the given order; order == nil means key order.
func fill(s *Store, names benchNames, order []int, commitMs func(i int) int64) {
	for j := range benchOffsets {
		i := j
		if order != nil {
			i = order[j]
		}
		s.Commit(names.key(i), benchValue(i, commitMs(i)))
	}
}

// constCommit commits every offset at the same instant.
func constCommit(int) int64 { return 1_000_000 }

func BenchmarkCommit(b *testing.B) {
	names := newBenchNames()
	r := rand.New(rand.NewPCG(1, 2))

	b.Run("replace", func(b *testing.B) {
		// Replace existing offsets of a 1M-offset store in random order, so
		// each commit also moves an expiry-index entry.
		s := NewStore(benchRetention)
		fill(s, names, nil, constCommit)
		keys := make([]Key, 1<<16)
		for j := range keys {
			keys[j] = names.key(r.IntN(benchOffsets))
		}
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			s.Commit(keys[i&(len(keys)-1)], benchValue(i, 2_000_000+int64(i)))
		}
	})

	b.Run("replace-burst", func(b *testing.B) {
		// A consumer commits all partitions of its group together: key order,
		// the case the symbol cache is for.
		s := NewStore(benchRetention)
		fill(s, names, nil, constCommit)
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			s.Commit(names.key(i%benchOffsets), benchValue(i, 2_000_000+int64(i)))
		}
	})

	b.Run("insert", func(b *testing.B) {
		// Insert new partitions into a 1M-offset store.
		s := NewStore(benchRetention)
		fill(s, names, nil, constCommit)
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			k := names.key(i % benchOffsets)
			k.Partition += benchPartitions * int32(1+i/benchOffsets)
			s.Commit(k, benchValue(i, 2_000_000))
		}
	})
}

// heapInUse returns the live heap after a full collection.
func heapInUse() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// buildMeasured builds a 1M-offset store and returns it with its heap cost
// per committed offset, expiry index and interned names included.
func buildMeasured(names benchNames, degree int, order []int) (*Store, float64) {
	before := heapInUse()
	s := newStoreWithDegree(benchRetention, degree)
	fill(s, names, order, func(i int) int64 { return 1_000_000 + int64(i%5000) })
	after := heapInUse()
	return s, float64(after-before) / benchOffsets
}

func BenchmarkMemoryPerOffset(b *testing.B) {
	// Key order is the worst case for google/btree (every split leaves a half
	// full node behind); random order is what interleaved groups produce.
	names := newBenchNames()
	shuffled := rand.New(rand.NewPCG(3, 4)).Perm(benchOffsets)
	for _, tc := range []struct {
		name  string
		order []int
	}{{"key-order", nil}, {"random-order", shuffled}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			var perOffset float64
			for range b.N {
				var s *Store
				s, perOffset = buildMeasured(names, defaultDegree, tc.order)
				runtime.KeepAlive(s)
			}
			b.ReportMetric(perOffset, "bytes/offset")
		})
	}
}

func BenchmarkDegree(b *testing.B) {
	// Compares btree degrees on what they trade: memory per offset (random
	// commit order), the cost of replacing an offset, and the cost of the first
	// write after a Clone (copy-on-write copies one node per level, and larger
	// nodes cost more to copy).
	names := newBenchNames()
	shuffled := rand.New(rand.NewPCG(5, 6)).Perm(benchOffsets)
	r := rand.New(rand.NewPCG(7, 8))
	keys := make([]Key, 1<<16)
	for j := range keys {
		keys[j] = names.key(r.IntN(benchOffsets))
	}
	for _, degree := range []int{16, 32, 64, 128} {
		s, perOffset := buildMeasured(names, degree, shuffled)
		b.Run(fmt.Sprintf("degree=%d/commit", degree), func(b *testing.B) {
			b.ReportAllocs()
			for i := range b.N {
				s.Commit(keys[i&(len(keys)-1)], benchValue(i, 2_000_000+int64(i)))
			}
			b.ReportMetric(perOffset, "bytes/offset")
		})
		b.Run(fmt.Sprintf("degree=%d/clone-commit", degree), func(b *testing.B) {
			b.ReportAllocs()
			for i := range b.N {
				s = s.Clone()
				s.Commit(keys[i&(len(keys)-1)], benchValue(i, 3_000_000+int64(i)))
			}
		})
	}
}

func BenchmarkExpirySweep(b *testing.B) {
	// 1M offsets of which 0.1% are expirable: the index visits what expires,
	// the full scan (Kafka's per-group loop) visits everything.
	names := newBenchNames()
	const nowMs = 10 * benchRetention
	s := NewStore(benchRetention)
	fill(s, names, nil, func(i int) int64 {
		if i%1000 == 0 {
			return 0 // expirable at nowMs
		}
		return nowMs // expires one retention after nowMs
	})
	const want = benchOffsets / 1000

	b.Run("indexed", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			n := 0
			s.AscendExpirable(nowMs, func(Key, OffsetAndMetadata) bool {
				n++
				return true
			})
			if n != want {
				b.Fatalf("indexed sweep found %d, want %d", n, want)
			}
		}
	})

	b.Run("indexed-keys", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			n := 0
			s.AscendExpirableKeys(nowMs, func(Key) bool {
				n++
				return true
			})
			if n != want {
				b.Fatalf("indexed key sweep found %d, want %d", n, want)
			}
		}
	})

	b.Run("fullscan", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			n := 0
			for _, g := range names.groups {
				s.AscendGroup(g, func(_ Key, v OffsetAndMetadata) bool {
					if IsOffsetExpired(v, nowMs, benchRetention) {
						n++
					}
					return true
				})
			}
			if n != want {
				b.Fatalf("full scan found %d, want %d", n, want)
			}
		}
	})
}

func BenchmarkClone(b *testing.B) {
	// Clone of a 1M-offset store is O(1): it clones btree roots, it copies no
	// items.
	names := newBenchNames()
	s := NewStore(benchRetention)
	fill(s, names, nil, constCommit)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		_ = s.Clone()
	}
}
