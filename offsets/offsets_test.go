package offsets

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func om(offset, commitMs int64) OffsetAndMetadata {
	return OffsetAndMetadata{
		Offset:            offset,
		LeaderEpoch:       NoLeaderEpoch,
		CommitTimestampMs: commitMs,
		ExpireTimestampMs: NoExpireTimestamp,
	}
}

func TestIsOffsetExpired(t *testing.T) {
	// Kafka's OffsetExpirationConditionImplTest vectors hold: the retention
	// comparison is inclusive and a legacy expire timestamp wins over it.
	legacy := om(100, 500)
	legacy.ExpireTimestampMs = 1500
	tests := []struct {
		name        string
		o           OffsetAndMetadata
		nowMs       int64
		retentionMs int64
		want        bool
	}{
		{"retention reached exactly", om(100, 500), 1000, 500, true},
		{"one ms before retention", om(100, 500), 999, 500, false},
		{"legacy expire reached exactly", legacy, 1500, 500, true},
		{"legacy expire not reached", legacy, 499, 500, false},
		{"legacy expire wins over elapsed retention", legacy, 1200, 500, false},
		{"any negative expire timestamp is absent", OffsetAndMetadata{CommitTimestampMs: 500, ExpireTimestampMs: -7}, 1000, 500, true},
		{"now-base overflows upwards: expired", om(0, math.MinInt64), math.MaxInt64, math.MaxInt64, true},
		{"now-base overflows downwards: not expired", om(0, math.MaxInt64), math.MinInt64, math.MinInt64, false},
		{"commit in the far future never expires", om(0, math.MaxInt64), math.MaxInt64, 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, IsOffsetExpired(tt.o, tt.nowMs, tt.retentionMs))
		})
	}
}

func TestExpirableAtMsMatchesPredicate(t *testing.T) {
	// ExpirableAtMs is the first expired instant: the predicate is false one ms
	// before it and true at it, including saturated sums.
	legacy := om(1, 500)
	legacy.ExpireTimestampMs = 1500
	tests := []struct {
		name        string
		o           OffsetAndMetadata
		retentionMs int64
		want        int64
	}{
		{"commit plus retention", om(1, 500), 500, 1000},
		{"legacy expire", legacy, 500, 1500},
		{"saturates high", om(1, math.MaxInt64-10), 100, math.MaxInt64},
		{"saturates low", om(1, math.MinInt64+10), -100, math.MinInt64},
		{"negative retention, no saturation", om(1, 1000), -100, 900},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			at := ExpirableAtMs(tt.o, tt.retentionMs)
			require.Equal(t, tt.want, at)
			if at != math.MaxInt64 {
				assert.True(t, IsOffsetExpired(tt.o, at, tt.retentionMs))
			}
			if at != math.MinInt64 {
				assert.False(t, IsOffsetExpired(tt.o, at-1, tt.retentionMs))
			}
		})
	}
}

func TestCleanupExpiredOffsetsGroupHasNoOffsets(t *testing.T) {
	// Kafka's testCleanupExpiredOffsetsGroupHasNoOffsets: an unknown group with
	// no offsets is all expired and yields no tombstones.
	s := NewStore(60_000)
	tombstones, allExpired := s.CleanupExpiredOffsets("unknown-group-id", 0, func(string) bool { return false }, nil)
	assert.Empty(t, tombstones)
	assert.True(t, allExpired)
}

func TestCleanupExpiredOffsets(t *testing.T) {
	// Kafka's testCleanupExpiredOffsets: only unsubscribed, expired offsets are
	// tombstoned, and once the subscription goes every offset is, in (topic,
	// partition) order.
	const retentionMs = 60_000
	const t0 = int64(1_000_000)
	s := NewStore(retentionMs)
	subscribed := map[string]bool{"firstTopic": true}
	isSubscribed := func(topic string) bool { return subscribed[topic] }
	key := func(topic string, p int32) Key { return Key{"group-id", topic, p} }
	// sweep runs cleanup and replays its tombstones, as the shard would.
	sweep := func(nowMs int64) ([]Key, bool) {
		tombstones, allExpired := s.CleanupExpiredOffsets("group-id", nowMs, isSubscribed, nil)
		for _, k := range tombstones {
			require.True(t, s.Delete(k))
		}
		return tombstones, allExpired
	}

	s.Commit(key("firstTopic", 0), om(100, t0))
	s.Commit(key("secondTopic", 0), om(100, t0))
	s.Commit(key("secondTopic", 1), om(100, t0+500))

	tombstones, allExpired := sweep(t0 + 60_000)
	assert.Equal(t, []Key{key("secondTopic", 0)}, tombstones)
	assert.False(t, allExpired)

	tombstones, allExpired = sweep(t0 + 60_500)
	assert.Equal(t, []Key{key("secondTopic", 1)}, tombstones)
	assert.False(t, allExpired)

	delete(subscribed, "firstTopic")
	s.Commit(key("firstTopic", 1), om(100, t0+500))
	s.Commit(key("secondTopic", 0), om(100, t0+500))
	tombstones, allExpired = sweep(t0 + 60_500)
	assert.Equal(t, []Key{key("firstTopic", 0), key("firstTopic", 1), key("secondTopic", 0)}, tombstones)
	assert.True(t, allExpired)
	assert.Zero(t, s.Len())
	assert.True(t, s.GroupHasNoOffsets("group-id"))
}

func TestCleanupExpiredOffsetsWithPendingTransactionalOffsets(t *testing.T) {
	// Kafka's testCleanupExpiredOffsetsWithPendingTransactionalOffsets: an
	// expired offset with a pending transactional offset on its partition is
	// kept, and the open transaction keeps the group from being all expired.
	s := NewStore(60_000)
	const t0 = int64(1_000_000)
	foo0 := Key{"group-id", "foo", 0}
	s.Commit(foo0, om(100, t0))
	s.CommitPending(10, foo0, om(101, t0+500))

	tombstones, allExpired := s.CleanupExpiredOffsets("group-id", t0+60_000, func(string) bool { return false }, nil)
	assert.Empty(t, tombstones)
	assert.False(t, allExpired)

	// Aborting the transaction lets the offset expire at the same instant.
	s.EndTransaction(10, "group-id", false)
	tombstones, allExpired = s.CleanupExpiredOffsets("group-id", t0+60_000, func(string) bool { return false }, nil)
	assert.Equal(t, []Key{foo0}, tombstones)
	assert.True(t, allExpired)
}

func TestGroupHasNoOffsets(t *testing.T) {
	// Kafka's groupHasNoOffsets cases (PR #22676): true only with neither
	// committed offsets nor an open transaction.
	k := Key{"g", "t", 0}
	tests := []struct {
		name  string
		setup func(s *Store)
		want  bool
	}{
		{"no offsets and no open transaction", func(*Store) {}, true},
		{"offsets present", func(s *Store) { s.Commit(k, om(1, 0)) }, false},
		{"open transaction", func(s *Store) { s.CommitPending(5, k, om(1, 0)) }, false},
		{"offsets tombstoned", func(s *Store) { s.Commit(k, om(1, 0)); s.Delete(k) }, true},
		{"transaction aborted", func(s *Store) { s.CommitPending(5, k, om(1, 0)); s.EndTransaction(5, "g", false) }, true},
		{"another group's offsets", func(s *Store) { s.Commit(Key{"g2", "t", 0}, om(1, 0)) }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewStore(1000)
			tt.setup(s)
			assert.Equal(t, tt.want, s.GroupHasNoOffsets("g"))
			if s.GroupOffsetCount("g") == 0 {
				// With no committed offsets, cleanup answers exactly groupHasNoOffsets.
				_, allExpired := s.CleanupExpiredOffsets("g", 0, func(string) bool { return false }, nil)
				assert.Equal(t, tt.want, allExpired)
			}
		})
	}
}

func TestTransactionsAndTombstones(t *testing.T) {
	// Replay semantics of Kafka's OffsetMetadataManager: a commit marker moves
	// only that producer's pending offsets of that group into committed, an
	// abort drops them, and a tombstone drops the partition's pending offsets
	// of every producer.
	s := NewStore(1000)
	a0, a1, b0 := Key{"g", "a", 0}, Key{"g", "a", 1}, Key{"g", "b", 0}
	other := Key{"h", "a", 0}
	s.Commit(a0, om(1, 0))
	s.CommitPending(7, a0, om(2, 10))
	s.CommitPending(7, a1, om(3, 10))
	s.CommitPending(8, a1, om(4, 10))
	s.CommitPending(7, other, om(5, 10))
	s.CommitPending(9, b0, om(6, 10))
	require.Equal(t, 5, s.PendingLen())

	s.EndTransaction(7, "g", true)
	got, ok := s.Get(a0)
	require.True(t, ok)
	assert.Equal(t, int64(2), got.Offset, "pending value replaces the committed one")
	got, ok = s.Get(a1)
	require.True(t, ok)
	assert.Equal(t, int64(3), got.Offset)
	assert.Equal(t, 2, s.GroupOffsetCount("g"))
	assert.True(t, s.HasPending(a1), "producer 8 is still open on a-1")
	assert.True(t, s.HasPending(other), "producer 7's offsets of another group stay pending")

	assert.True(t, s.Delete(a1))
	assert.False(t, s.HasPending(a1))
	s.EndTransaction(8, "g", true) // nothing left to commit: the tombstone won
	_, ok = s.Get(a1)
	assert.False(t, ok)

	s.EndTransaction(9, "g", false)
	_, ok = s.Get(b0)
	assert.False(t, ok)
	assert.False(t, s.HasOpenTransaction("g"))
	assert.True(t, s.HasOpenTransaction("h"))
	assert.False(t, s.Delete(Key{"g", "zzz", 0}))
}

func TestCloneIsolation(t *testing.T) {
	// After Clone, writes to either copy are invisible to the other, including
	// writes that delete and re-create interned names.
	s := NewStore(1000)
	a, b := Key{"g", "a", 0}, Key{"g", "b", 0}
	s.Commit(a, om(1, 0))
	s.CommitPending(3, b, om(2, 0))

	c := s.Clone()
	s.Commit(a, om(10, 5))
	s.Delete(b)
	c.Delete(a)
	c.Commit(Key{"g2", "a", 0}, om(20, 0))
	c.EndTransaction(3, "g", true)

	got, ok := s.Get(a)
	require.True(t, ok)
	assert.Equal(t, int64(10), got.Offset)
	assert.False(t, s.HasPending(b))
	_, ok = s.Get(b)
	assert.False(t, ok)
	assert.Equal(t, 0, s.GroupOffsetCount("g2"))

	_, ok = c.Get(a)
	assert.False(t, ok)
	got, ok = c.Get(b)
	require.True(t, ok)
	assert.Equal(t, int64(2), got.Offset)
	assert.Equal(t, 1, c.GroupOffsetCount("g2"))
	assert.Zero(t, c.PendingLen())

	s.checkInvariants(t)
	c.checkInvariants(t)
}

func TestCloneConcurrentUse(t *testing.T) {
	// A clone and its origin share nodes and symbols but no mutable state:
	// each may be written by its own goroutine (run with -race to prove it).
	s, m := NewStore(500), &model{retentionMs: 500}
	r := rand.New(rand.NewPCG(11, 12))
	for range 300 {
		randomOp(r, testUniverse).apply(t, s, m)
	}
	c, cm := s.Clone(), m.clone()
	done := make(chan struct{})
	go func() {
		defer close(done)
		r := rand.New(rand.NewPCG(13, 14))
		for range 300 {
			o := randomOp(r, testUniverse)
			switch o.kind { // the model is not thread-safe: apply to the clone pair only here
			case 0:
				c.Commit(o.k, o.v)
				cm.commit(o.k, o.v)
			case 1:
				c.Delete(o.k)
				cm.delete(o.k)
			case 2:
				c.CommitPending(o.producerID, o.k, o.v)
				cm.commitPending(o.producerID, o.k, o.v)
			case 3:
				c.EndTransaction(o.producerID, o.k.Group, o.commit)
				cm.endTransaction(o.producerID, o.k.Group, false, o.commit)
			default:
				c.EndProducerTransaction(o.producerID, o.commit, nil)
				cm.endTransaction(o.producerID, "", true, o.commit)
			}
			c.AscendExpirable(1000, func(Key, OffsetAndMetadata) bool { return true })
		}
	}()
	for range 300 {
		randomOp(r, testUniverse).apply(t, s, m)
		s.AscendExpirable(1000, func(Key, OffsetAndMetadata) bool { return true })
	}
	<-done
	checkAgainstModel(t, s, m, testUniverse)
	checkAgainstModel(t, c, cm, testUniverse)
}

func TestCleanupExpiredOffsetsDoesNotAllocate(t *testing.T) {
	// The sweep calls cleanup for every group; when nothing expires it must
	// reuse the caller's buffer and allocate nothing.
	s := NewStore(1000)
	for p := range int32(50) {
		s.Commit(Key{"g", "a", p}, om(1, 0))
		s.Commit(Key{"g", "b", p}, om(1, 0))
	}
	s.CommitPending(1, Key{"g", "c", 0}, om(1, 0))
	out := make([]Key, 0, 8)
	sub := func(topic string) bool { return topic == "a" }
	allocs := testing.AllocsPerRun(100, func() {
		out, _ = s.CleanupExpiredOffsets("g", 500, sub, out[:0])
	})
	assert.Zero(t, allocs)
	assert.Empty(t, out)
}

func TestReplaceDoesNotAllocate(t *testing.T) {
	// Replaying a commit over an existing offset (the hot path) allocates
	// nothing once the nodes it touches are owned by the store.
	s := NewStore(1000)
	k := Key{"g", "t", 3}
	s.Commit(k, om(1, 0))
	ts := int64(0)
	allocs := testing.AllocsPerRun(100, func() {
		ts++
		s.Commit(k, om(ts, ts))
	})
	assert.Zero(t, allocs)
}

func TestReadsDoNotAllocate(t *testing.T) {
	// Queries run on every request and every sweep; none of them allocates.
	s := NewStore(1000)
	k := Key{"g", "t", 3}
	s.Commit(k, om(1, 0))
	s.CommitPending(9, Key{"g", "u", 0}, om(1, 0))
	n := 0
	count := func(Key, OffsetAndMetadata) bool { n++; return true }
	allocs := testing.AllocsPerRun(100, func() {
		_, _ = s.Get(k)
		_ = s.HasPending(k)
		_ = s.HasOpenTransaction("g")
		_ = s.GroupOffsetCount("g")
		_ = s.GroupHasNoOffsets("g")
		s.AscendGroup("g", count)
		s.AscendTopic("g", "t", count)
		s.AscendExpirable(5000, count)
		s.AscendExpirableKeys(5000, func(Key) bool { n++; return true })
	})
	assert.Zero(t, allocs)
	assert.Equal(t, 4*101, n, "AllocsPerRun adds one warm-up run; each run visits 4 offsets")
}

// randomOp draws one mutation from u.
func randomOp(r *rand.Rand, u universe) op {
	pick := func(n int) int { return r.IntN(n) }
	o := op{
		kind:       pick(5),
		k:          Key{u.groups[pick(len(u.groups))], u.topics[pick(len(u.topics))], u.partitions[pick(len(u.partitions))]},
		producerID: u.producers[pick(len(u.producers))],
		commit:     r.IntN(2) == 0,
	}
	if o.kind == 1 && r.IntN(2) == 0 {
		o.kind = 0 // commits outnumber tombstones so the store fills up
	}
	o.v = randomValue(r)
	return o
}

func randomValue(r *rand.Rand) OffsetAndMetadata {
	metas := []string{"", "m", "meta-data"}
	v := OffsetAndMetadata{
		Offset:            r.Int64N(1000),
		LeaderEpoch:       int32(r.IntN(4)) - 1,
		Metadata:          metas[r.IntN(len(metas))],
		CommitTimestampMs: r.Int64N(2000),
		ExpireTimestampMs: NoExpireTimestamp,
	}
	switch r.IntN(10) {
	case 0:
		v.ExpireTimestampMs = r.Int64N(3000)
	case 1:
		v.ExpireTimestampMs = -2 - r.Int64N(5) // other negatives mean "absent" too
	case 2:
		v.CommitTimestampMs = []int64{math.MinInt64, math.MaxInt64, math.MaxInt64 - 100}[r.IntN(3)]
	}
	return v
}

func TestStoreMatchesModel(t *testing.T) {
	// Over 250 seeded random workloads, every query of the Store (including the
	// expiry index against a full scan) equals the naive model, and a clone
	// taken midway keeps answering like the model did at that moment.
	const steps = 120
	for seed := range uint64(propertySeeds(250)) {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 0x0ff5e75))
			retentionMs := []int64{500, 1, 0, math.MaxInt64}[seed%4]
			s, m := NewStore(retentionMs), &model{retentionMs: retentionMs}
			var snap *Store
			var snapModel *model
			cloneAt := r.IntN(steps)
			var history []op
			defer func() {
				if t.Failed() {
					t.Logf("retention %d, clone before step %d, history:\n%v", retentionMs, cloneAt, history)
				}
			}()
			for i := range steps {
				if i == cloneAt {
					snap, snapModel = s.Clone(), m.clone()
				}
				o := randomOp(r, testUniverse)
				history = append(history, o)
				o.apply(t, s, m)
				if i%20 == 19 {
					checkAgainstModel(t, s, m, testUniverse)
				}
			}
			checkAgainstModel(t, s, m, testUniverse)
			checkAgainstModel(t, snap, snapModel, testUniverse)
			// The snapshot is itself writable and stays independent.
			for range 30 {
				o := randomOp(r, testUniverse)
				history = append(history, o)
				o.apply(t, snap, snapModel)
			}
			checkAgainstModel(t, snap, snapModel, testUniverse)
			checkAgainstModel(t, s, m, testUniverse)
		})
	}
}

// decodeOps turns fuzz bytes into operations, 4 bytes each, over a universe
// small enough that operations collide often.
func decodeOps(data []byte, u universe) []op {
	var ops []op
	for len(data) >= 4 && len(ops) < 200 {
		b := data[:4]
		data = data[4:]
		o := op{
			kind:       int(b[0] % 5),
			k:          Key{u.groups[int(b[1])%len(u.groups)], u.topics[int(b[1]>>4)%len(u.topics)], u.partitions[int(b[2])%len(u.partitions)]},
			producerID: u.producers[int(b[2]>>4)%len(u.producers)],
			commit:     b[0]&0x80 != 0,
		}
		o.v = om(int64(b[3]), int64(b[3])*10)
		if b[0]&0x40 != 0 {
			o.v.ExpireTimestampMs = int64(b[3]) * 12
		}
		if b[0]&0x20 != 0 {
			o.v.CommitTimestampMs = math.MaxInt64 - int64(b[3])
		}
		ops = append(ops, o)
	}
	return ops
}

func FuzzStoreOps(f *testing.F) {
	// Any operation sequence leaves the Store equal to the naive model and
	// never panics.
	f.Add([]byte{})
	f.Add([]byte{0, 0x11, 0x02, 5, 2, 0x11, 0x12, 6, 0x83, 0x11, 0x10, 0})
	f.Add([]byte{2, 0x21, 0x33, 9, 1, 0x21, 0x03, 0, 0x43, 0x21, 0x30, 1, 0, 0x21, 0x03, 200})
	f.Add([]byte{0x60, 0x00, 0x00, 255, 0x20, 0x44, 0x55, 1, 3, 0x44, 0x50, 2})
	u := universe{
		groups:     testUniverse.groups[:3],
		topics:     testUniverse.topics[:3],
		partitions: []int32{math.MinInt32, 0, 1},
		producers:  []int64{math.MinInt64, 0, 7},
		nows:       []int64{0, 1000, 2550, math.MaxInt64},
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, m := NewStore(1000), &model{retentionMs: 1000}
		for _, o := range decodeOps(data, u) {
			o.apply(t, s, m)
		}
		checkAgainstModel(t, s, m, u)
	})
}

// TestCommitMarkerKeepsNewerPlainCommit proves Kafka's replayEndTransactionMarker
// rule: a plain commit replayed after a pending transactional offset of the
// same partition survives the transaction's commit marker, while a pending
// offset written after the plain commit still replaces it.
func TestCommitMarkerKeepsNewerPlainCommit(t *testing.T) {
	s := NewStore(60_000)
	k := Key{Group: "g", Topic: "foo", Partition: 0}
	other := Key{Group: "g", Topic: "foo", Partition: 1}
	s.CommitPending(7, k, OffsetAndMetadata{Offset: 10, LeaderEpoch: NoLeaderEpoch, ExpireTimestampMs: NoExpireTimestamp})
	s.CommitPending(7, other, OffsetAndMetadata{Offset: 11, LeaderEpoch: NoLeaderEpoch, ExpireTimestampMs: NoExpireTimestamp})
	s.Commit(k, OffsetAndMetadata{Offset: 20, LeaderEpoch: NoLeaderEpoch, ExpireTimestampMs: NoExpireTimestamp})
	s.EndTransaction(7, "g", true)
	v, ok := s.Get(k)
	require.True(t, ok)
	assert.Equal(t, int64(20), v.Offset, "the newer plain commit stays")
	v, ok = s.Get(other)
	require.True(t, ok)
	assert.Equal(t, int64(11), v.Offset, "an untouched partition takes the transactional offset")
	assert.False(t, s.HasOpenTransaction("g"))

	s.Commit(k, OffsetAndMetadata{Offset: 30, LeaderEpoch: NoLeaderEpoch, ExpireTimestampMs: NoExpireTimestamp})
	s.CommitPending(8, k, OffsetAndMetadata{Offset: 40, LeaderEpoch: NoLeaderEpoch, ExpireTimestampMs: NoExpireTimestamp})
	s.EndTransaction(8, "g", true)
	v, _ = s.Get(k)
	assert.Equal(t, int64(40), v.Offset, "a pending offset written after the plain commit replaces it")
}
