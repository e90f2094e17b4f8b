package shard

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/offsets"
	"github.com/stretchr/testify/require"
)

// TestCommitOffsetsAnswersEveryPartition proves, over random requests mixing
// known and unknown partitions, a topic named twice, topics without
// partitions and metadata over the limit, that a commit answers each
// requested partition once, under one entry per topic (topics in order of
// first appearance; a topic's unknown partitions first, then the others, each
// in request order), and writes one record per committed partition. The
// expected answer is computed by a plain model of those rules; the commit
// itself sizes its buffers from the request (commitBuffers), which this
// checks it does without losing or misplacing an answer.
func TestCommitOffsetsAnswersEveryPartition(t *testing.T) {
	cfg := DefaultConfig()
	cfg.OffsetMetadataMaxBytes = 4
	topics := map[string]int32{"a": 3, "b": 2}
	names := []string{"a", "b", "a", "b", "nope"}
	for seed := range uint64(300) {
		rng := rand.New(rand.NewPCG(seed, 0xc0111))
		h := newHarness(t, cfg, topics)
		var req []OffsetCommitTopic
		for range 1 + rng.IntN(3) {
			tp := OffsetCommitTopic{Topic: names[rng.IntN(len(names))]}
			for range rng.IntN(4) {
				md := ""
				if rng.IntN(5) == 0 {
					md = "too-long"
				}
				p := int32(rng.IntN(2)) // known in both topics
				if rng.IntN(6) == 0 {
					p = int32(rng.IntN(5) - 1)
				}
				tp.Partitions = append(tp.Partitions, OffsetCommitPartition{
					Partition: p, Offset: int64(rng.IntN(100)), LeaderEpoch: -1, Metadata: md,
				})
			}
			req = append(req, tp)
		}

		// The model: unknown partitions first, then the known ones.
		var want []TopicResults
		add := func(topic string, r PartitionResult) {
			for i := range want {
				if want[i].Topic == topic {
					want[i].Partitions = append(want[i].Partitions, r)
					return
				}
			}
			want = append(want, TopicResults{Topic: topic, Partitions: []PartitionResult{r}})
		}
		known := func(topic string, p int32) bool { return p >= 0 && p < topics[topic] }
		for _, tp := range req {
			for _, p := range tp.Partitions {
				if !known(tp.Topic, p.Partition) {
					add(tp.Topic, PartitionResult{Partition: p.Partition, Err: kerr.UnknownTopicOrPartition})
				}
			}
		}
		var wantRecords []string
		for _, tp := range req {
			for _, p := range tp.Partitions {
				switch {
				case !known(tp.Topic, p.Partition):
				case len(p.Metadata) > cfg.OffsetMetadataMaxBytes:
					add(tp.Topic, PartitionResult{Partition: p.Partition, Err: kerr.OffsetMetadataTooLarge})
				default:
					add(tp.Topic, PartitionResult{Partition: p.Partition})
					wantRecords = append(wantRecords, tp.Topic+"-"+string(rune('0'+p.Partition)))
				}
			}
		}

		res, err := h.s.CommitOffsets(h.nowMs, OffsetCommitRequest{GroupID: "g", MemberEpoch: -1, RetentionTimeMs: -1, Topics: req})
		require.NoError(t, err, "seed %d", seed)
		got := res.Response.Topics
		require.Len(t, got, len(want), "seed %d: %+v", seed, got)
		for i := range want {
			require.Equal(t, want[i].Topic, got[i].Topic, "seed %d", seed)
			require.Len(t, got[i].Partitions, len(want[i].Partitions), "seed %d topic %s", seed, want[i].Topic)
			for j, w := range want[i].Partitions {
				g := got[i].Partitions[j]
				require.Equal(t, w.Partition, g.Partition, "seed %d topic %s answer %d", seed, want[i].Topic, j)
				require.Equal(t, kerr.Name(w.Err), kerr.Name(g.Err), "seed %d topic %s answer %d: %v", seed, want[i].Topic, j, g.Err)
			}
		}
		var gotRecords []string
		for _, r := range res.Records {
			c := r.(*OffsetCommit)
			require.Equal(t, "g", c.Group)
			gotRecords = append(gotRecords, c.Topic+"-"+string(rune('0'+c.Partition)))
		}
		require.Equal(t, wantRecords, gotRecords, "seed %d", seed)
		require.Equal(t, len(wantRecords), res.Response.Committed, "seed %d", seed)
		h.replay(res.Records...)
		for _, r := range wantRecords {
			tp, p, _ := strings.Cut(r, "-")
			_, ok := h.s.offsets.Get(offsets.Key{Group: "g", Topic: tp, Partition: int32(p[0] - '0')})
			require.True(t, ok, "seed %d: %s not committed", seed, r)
		}
	}
}
