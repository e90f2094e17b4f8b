package coordinator

import (
	"fmt"
	"testing"
)

// BenchmarkNextDeadline reads the earliest deadline of a broker hosting n
// shards, each with its sweep timer, after a commit to one of them: what
// the simulator asks after every event. The commit is in the loop so the
// index has work to do; BenchmarkOffsetCommit/replace is its cost alone.
func BenchmarkNextDeadline(b *testing.B) {
	for _, n := range []int32{50, 1000} {
		b.Run(fmt.Sprintf("shards=%d", n), func(b *testing.B) {
			clock := &benchClock{ms: 1_700_000_000_000}
			cfg := DefaultConfig()
			cfg.NumPartitions = n
			c := newBenchCoordinatorWith(b, cfg, clock)
			reqs := benchCommitRequests(benchCommitGroups, 1, "bench-group")
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				req := reqs[i%len(reqs)]
				req.Topics[0].Partitions[0].Offset = int64(i + 1)
				clock.ms++
				if _, err := c.CommitOffsets(req).Result(); err != nil {
					b.Fatal(err)
				}
				if _, ok := c.NextDeadline(); !ok {
					b.Fatal("no deadline")
				}
			}
		})
	}
}
