package txn

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestReplayEqualsLive proves that every state change is a record: after a
// random workload of every operation (including fences, timeouts and
// retries, expired ids, clients of every transaction.version), each shard rebuilt by replaying its log equals the live one.
func TestReplayEqualsLive(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		rng := rand.New(rand.NewPCG(seed, seed))
		c := newTestCoordinator(t)
		c.cfg.NumPartitions, c.cfg.IDExpirationMs = 3, 2000
		c.shards, c.logs = c.shards[:3], c.logs[:3]
		ids := []string{"t0", "t1", "t2", "t3"}
		var inflight []*Markers
		now := int64(0)
		for range 400 {
			now += rng.Int64N(300)
			id := ids[rng.IntN(len(ids))]
			m, _ := c.Current(id)
			epoch := m.ProducerEpoch
			if rng.IntN(8) == 0 {
				epoch-- // a stale producer
			}
			tv := TransactionVersion(rng.IntN(3)) // the client's protocol
			switch rng.IntN(7) {
			case 0:
				_, mk, _ := c.InitProducerID(now, InitProducerIDRequest{TransactionalID: id, TimeoutMs: 500, ExpectedProducerID: -1, ExpectedProducerEpoch: -1})
				if mk != nil {
					inflight = append(inflight, mk)
				}
			case 1:
				_ = c.AddPartitions(now, id, m.ProducerID, epoch, []TopicPartition{{Topic: "t", Partition: rng.Int32N(3)}}, tv)
			case 2:
				_ = c.AddOffsets(now, id, m.ProducerID, epoch, "g", 50, tv)
			case 3:
				mk, resp, err := c.EndTxn(now, id, m.ProducerID, epoch, rng.IntN(2) == 0, tv)
				if mk != nil {
					inflight = append(inflight, mk)
				}
				after, _ := c.Current(id)
				switch {
				case err != nil || tv != TV2:
					require.Equal(t, noEndTxnResponse, resp, "seed %d: no id or epoch to continue with", seed)
				case mk != nil:
					// A TV2 end: one bump, and the markers carry it.
					require.Equal(t, m.ProducerEpoch+1, after.ProducerEpoch, "seed %d", seed)
					require.Equal(t, after.ProducerEpoch, mk.ProducerEpoch, "seed %d", seed)
					require.Equal(t, EndTxnResponse{ProducerID: m.ProducerID, ProducerEpoch: m.ProducerEpoch + 1}, resp, "seed %d", seed)
				default:
					// A TV2 retry: the current id and epoch, nothing written.
					require.Equal(t, EndTxnResponse{ProducerID: after.ProducerID, ProducerEpoch: after.ProducerEpoch}, resp, "seed %d", seed)
					require.True(t, after.Equal(m), "seed %d", seed)
				}
			case 4:
				inflight = append(inflight, c.AbortTimedOut(now)...)
			case 6:
				c.RemoveExpired(now)
			case 5:
				if len(inflight) > 0 {
					i := rng.IntN(len(inflight))
					_, _ = c.CompleteTransaction(now, inflight[i])
					inflight = append(inflight[:i], inflight[i+1:]...)
				}
			}
		}
		for p := range c.cfg.NumPartitions {
			replayed := NewShard(p)
			replayed.Replay(c.Log(p))
			require.True(t, replayed.Equal(c.Shard(p)), "seed %d partition %d", seed, p)
		}
	}
}
