// Package offsets holds the committed and pending-transactional offsets of one
// __consumer_offsets partition, and Kafka's offset-expiry predicate.
//
// It is a plain data structure: no clock, no goroutines, no I/O, and no Go map
// whose iteration order can reach an output. Every collection is a google/btree,
// so iteration is ordered (group, topic, partition) and Clone is a cheap
// copy-on-write snapshot (the role Kafka's SnapshotRegistry plays).
//
// Only the shard's replay path mutates a Store. The expiry index orders every
// committed offset by the moment it becomes expirable, so a sweep costs
// O(what expires), not O(all offsets).
//
// Choices written down here (see docs/kip1331.md §3.2–§3.4):
//
//   - Group and topic names are interned per Store: every (group, topic) pair
//     is one immutable symbol shared by all offsets of that pair and by every
//     clone, so a million offsets of one group hold one copy of its name and
//     each btree item carries one pointer instead of two string headers.
//     Symbols are reference-counted and dropped with their last offset.
//   - Metadata and a legacy expire timestamp live behind one immutable pointer
//     that is nil for the common case, so a committed offset is a 40-byte btree
//     item plus a 24-byte expiry-index item (about 100 bytes per offset with
//     btree overhead, 140 in the worst, key-ordered, insert pattern; see
//     BENCHMARKS.md). A commit that carries metadata allocates that one object.
//   - A commit marker materialises a pending offset unless the partition's
//     committed offset was put after it from a newer record (a plain commit,
//     or another producer's pending offset written later and committed
//     first), as Kafka's replayEndTransactionMarker compares record offsets.
//     The store compares the order it replayed the records in instead, which
//     is the same order without carrying log offsets in every item.
//   - Negative ExpireTimestampMs values other than NoExpireTimestamp also mean
//     "absent" to the predicate, but are returned as given.
//   - Metadata strings are stored as given (not copied): the caller must not
//     hand in a substring of a large buffer it wants collected. Group and
//     topic names are copied once, when first interned.
//   - Callbacks passed to Ascend* must not mutate the Store; collect keys and
//     mutate afterwards.
//   - A broken internal index panics (invariant): serving wrong offsets
//     silently would be worse.
package offsets

// CONTRACT FILE: the exported API below is fixed; bodies are filled in by the
// implementation.

import (
	"math"
)

// NoExpireTimestamp marks an offset without a legacy expire timestamp
// (OffsetCommit v5+, or v1–v4 with retention -1).
const NoExpireTimestamp int64 = -1

// NoLeaderEpoch marks an offset committed without a leader epoch.
const NoLeaderEpoch int32 = -1

// MetadataMaxBytes is offset.metadata.max.bytes' default.
const MetadataMaxBytes = 4096

// Key identifies one committed offset.
type Key struct {
	Group     string
	Topic     string
	Partition int32
}

// OffsetAndMetadata is one committed (or pending) offset.
type OffsetAndMetadata struct {
	Offset            int64
	LeaderEpoch       int32 // NoLeaderEpoch when absent
	Metadata          string
	CommitTimestampMs int64
	ExpireTimestampMs int64 // NoExpireTimestamp when absent; wins over retention when set
}

// IsOffsetExpired is Kafka's OffsetExpirationConditionImpl.isOffsetExpired
// with base = the commit timestamp (consumer, streams and simple classic groups).
// The comparison is inclusive, and a legacy expire timestamp wins.
//
// Any negative ExpireTimestampMs counts as absent. The subtraction is exact:
// where Java's long arithmetic would wrap, this compares the true difference,
// so an offset committed in the far future is never "expired" by overflow.
func IsOffsetExpired(o OffsetAndMetadata, nowMs, retentionMs int64) bool {
	return IsOffsetExpiredFrom(o, o.CommitTimestampMs, nowMs, retentionMs)
}

// IsOffsetExpiredFrom is isOffsetExpired with another base: an Empty
// classic group counts the retention from when it became Empty (its
// current state timestamp). A legacy expire timestamp still wins.
func IsOffsetExpiredFrom(o OffsetAndMetadata, base, nowMs, retentionMs int64) bool {
	if o.ExpireTimestampMs >= 0 {
		return nowMs >= o.ExpireTimestampMs
	}
	return RetentionPassed(base, nowMs, retentionMs)
}

// RetentionPassed reports whether retentionMs has passed from base to
// nowMs (inclusive), without overflow.
func RetentionPassed(base, nowMs, retentionMs int64) bool {
	diff := nowMs - base
	// Signed overflow happened iff the operands have different signs and the
	// result's sign differs from nowMs's sign.
	if (nowMs >= 0) != (base >= 0) && (diff >= 0) != (nowMs >= 0) {
		// The true difference is beyond int64: huge and positive when nowMs is
		// the non-negative one, so it exceeds every retention; huge and negative
		// otherwise, so it reaches none.
		return nowMs >= 0
	}
	return diff >= retentionMs
}

// ExpirableAtMs is the first instant at which o is expired under retentionMs.
//
// The sum saturates: when commit time plus retention exceeds int64, the offset
// never expires in int64 time and math.MaxInt64 is returned (Store filters
// that instant with IsOffsetExpired so the index and the predicate agree).
func ExpirableAtMs(o OffsetAndMetadata, retentionMs int64) int64 {
	if o.ExpireTimestampMs >= 0 {
		return o.ExpireTimestampMs
	}
	return saturatingAdd(o.CommitTimestampMs, retentionMs)
}

func saturatingAdd(a, b int64) int64 {
	if b > 0 && a > math.MaxInt64-b {
		return math.MaxInt64
	}
	if b < 0 && a < math.MinInt64-b {
		return math.MinInt64
	}
	return a + b
}

// Store is the offsets state of one shard.
//
// The zero Store is not usable: call NewStore. A Store is not safe for
// concurrent use; a Clone and its origin are independent and may each be used
// by its own goroutine.
type Store struct {
	retentionMs int64
	// committed holds every committed offset, ordered (group, topic, partition).
	committed *btreeG[committedItem]
	// expiry mirrors committed, ordered (expirableAtMs, group, topic, partition).
	expiry *btreeG[expiryItem]
	// pendingByProducer holds the pending transactional offsets, ordered
	// (producerID, group, topic, partition), so a marker touches one range.
	pendingByProducer *btreeG[pendingItem]
	// pendingByPartition mirrors pendingByProducer, ordered (group, topic,
	// partition, producerID), so HasPending and Delete touch one range.
	pendingByPartition *btreeG[pendingRef]
	symbols            symbolTable
	// scratch buffers are reused by mutations to stay allocation-free; a clone
	// starts with its own (nil) buffers so the two never share a backing array.
	pendingScratch []pendingItem
	refScratch     []pendingRef
	// pendingSeq numbers the pending values in the order they are replayed.
	pendingSeq uint64
}

// NewStore returns an empty store whose expiry index uses retentionMs.
func NewStore(retentionMs int64) *Store {
	return newStoreWithDegree(retentionMs, defaultDegree)
}

// newStoreWithDegree lets BenchmarkDegree compare btree degrees.
func newStoreWithDegree(retentionMs int64, degree int) *Store {
	return &Store{
		retentionMs:        retentionMs,
		committed:          newBtree(degree, lessCommitted),
		expiry:             newBtree(degree, lessExpiry),
		pendingByProducer:  newBtree(degree, lessPending),
		pendingByPartition: newBtree(degree, lessPendingRef),
		symbols:            newSymbolTable(degree),
	}
}

// RetentionMs is the retention the expiry index was built with (NewStore's
// argument); pass it to IsOffsetExpired so predicate and index agree.
func (s *Store) RetentionMs() int64 { return s.retentionMs }

// Clone returns a copy-on-write snapshot; both may be used (by one goroutine
// at a time) afterwards.
func (s *Store) Clone() *Store {
	return &Store{
		retentionMs:        s.retentionMs,
		committed:          s.committed.Clone(),
		expiry:             s.expiry.Clone(),
		pendingByProducer:  s.pendingByProducer.Clone(),
		pendingByPartition: s.pendingByPartition.Clone(),
		symbols:            s.symbols.clone(),
		pendingSeq:         s.pendingSeq,
	}
}

// Commit replays an OffsetCommit record: insert or replace. Pending
// transactional offsets of the partition written before it are superseded:
// their commit marker will not overwrite this newer offset (Kafka keeps the
// committed offset whose record is newer).
func (s *Store) Commit(k Key, v OffsetAndMetadata) {
	sym := s.symbols.intern(k.Group, k.Topic)
	if s.commitItem(newCommittedItem(sym, k.Partition, v)) {
		s.symbols.adjustGroup(sym.group, 1, 0)
	}
	if s.pendingByPartition.Len() > 0 {
		s.supersedePending(sym, k.Partition, math.MaxUint64)
	}
}

// supersedePending marks the partition's pending offsets replayed before
// seq (every one, for a plain commit) as superseded by the committed value
// just put.
func (s *Store) supersedePending(sym *pairSymbol, partition int32, seq uint64) {
	s.refScratch = s.refScratch[:0]
	s.pendingByPartition.AscendGreaterOrEqual(pendingRef{pair: sym, partition: partition, producerID: math.MinInt64},
		func(r pendingRef) bool {
			if r.pair != sym || r.partition != partition {
				return false
			}
			s.refScratch = append(s.refScratch, r)
			return true
		})
	for _, r := range s.refScratch {
		it, ok := s.pendingByProducer.Get(pendingItem{pair: sym, producerID: r.producerID, partition: r.partition})
		invariant(ok, "pending partition index out of step with the producer index")
		if !it.superseded && it.seq < seq {
			it.superseded = true
			s.pendingByProducer.ReplaceOrInsert(it)
		}
	}
}

// commitItem inserts or replaces it, keeping the expiry index and the symbol
// references in step. It reports whether it was a new offset, so the caller
// adjusts the group counter (batched in EndTransaction).
func (s *Store) commitItem(it committedItem) (inserted bool) {
	old, replaced := s.committed.ReplaceOrInsert(it)
	if replaced {
		oldAt, newAt := old.expirableAtMs(s.retentionMs), it.expirableAtMs(s.retentionMs)
		if oldAt != newAt {
			_, found := s.expiry.Delete(expiryItem{atMs: oldAt, pair: old.pair, partition: old.partition})
			invariant(found, "replaced committed offset missing from the expiry index")
			s.expiry.ReplaceOrInsert(expiryItem{atMs: newAt, pair: it.pair, partition: it.partition})
		}
		return false
	}
	s.symbols.retain(it.pair, 1)
	_, dup := s.expiry.ReplaceOrInsert(it.expiry(s.retentionMs))
	invariant(!dup, "new committed offset already in the expiry index")
	return true
}

// Delete replays an OffsetCommit tombstone: removes the committed offset and
// every pending transactional offset of that partition. Returns whether
// anything was removed.
func (s *Store) Delete(k Key) bool {
	sym, ok := s.symbols.lookup(k.Group, k.Topic)
	if !ok {
		return false
	}
	refs := 0
	committedDelta := 0
	if old, ok := s.committed.Delete(committedItem{pair: sym, partition: k.Partition}); ok {
		_, found := s.expiry.Delete(old.expiry(s.retentionMs))
		invariant(found, "deleted committed offset missing from the expiry index")
		committedDelta = -1
		refs++
	}
	s.refScratch = s.refScratch[:0]
	s.pendingByPartition.AscendGreaterOrEqual(pendingRef{pair: sym, partition: k.Partition, producerID: math.MinInt64},
		func(r pendingRef) bool {
			if r.pair != sym || r.partition != k.Partition {
				return false
			}
			s.refScratch = append(s.refScratch, r)
			return true
		})
	for _, r := range s.refScratch {
		s.pendingByPartition.Delete(r)
		_, found := s.pendingByProducer.Delete(pendingItem{pair: sym, producerID: r.producerID, partition: r.partition})
		invariant(found, "pending partition index out of step with the producer index")
	}
	pendingDelta := -len(s.refScratch)
	refs += len(s.refScratch)
	if refs == 0 {
		return false
	}
	// Counters first: releasing the last reference may drop the group entry.
	s.symbols.adjustGroup(sym.group, committedDelta, pendingDelta)
	s.symbols.release(sym, refs)
	return true
}

// CommitPending replays a transactional offset commit of producerID.
func (s *Store) CommitPending(producerID int64, k Key, v OffsetAndMetadata) {
	sym := s.symbols.intern(k.Group, k.Topic)
	it := pendingItem{
		pair:        sym,
		producerID:  producerID,
		partition:   k.Partition,
		leaderEpoch: v.LeaderEpoch,
		offset:      v.Offset,
		commitMs:    v.CommitTimestampMs,
		extra:       newOffsetExtra(v),
		seq:         s.pendingSeq,
	}
	s.pendingSeq++
	if _, replaced := s.pendingByProducer.ReplaceOrInsert(it); replaced {
		// A later transactional commit of the same producer supersedes the
		// earlier one; the partition index entry is unchanged.
		return
	}
	s.pendingByPartition.ReplaceOrInsert(pendingRef{pair: sym, partition: k.Partition, producerID: producerID})
	s.symbols.retain(sym, 1)
	s.symbols.adjustGroup(sym.group, 0, 1)
}

// EndTransaction replays a transaction marker of producerID for group
// only: on commit the pending offsets become committed, except where a
// newer committed value was put after one (see the package doc); on abort
// they vanish. Kafka's marker completes the producer's offsets of every
// group (EndProducerTransaction); this one stays for callers that own one
// group per producer.
func (s *Store) EndTransaction(producerID int64, group string, commit bool) {
	first, ok := s.symbols.firstPairOf(group)
	if !ok {
		return
	}
	s.pendingScratch = s.pendingScratch[:0]
	// first is the smallest live (group, topic) symbol, so (producerID,
	// first, MinInt32) is at or below every pending offset of (producerID,
	// group).
	s.pendingByProducer.AscendGreaterOrEqual(pendingItem{pair: first, producerID: producerID, partition: math.MinInt32},
		func(it pendingItem) bool {
			if it.producerID != producerID || it.pair.group != group {
				return false
			}
			s.pendingScratch = append(s.pendingScratch, it)
			return true
		})
	s.endPending(producerID, commit)
	clear(s.pendingScratch) // drop the references the buffer still holds
}

// minPair orders before every live symbol: group and topic "".
var minPair = &pairSymbol{}

// EndProducerTransaction replays a transaction marker as Kafka's
// replayEndTransactionMarker does: every pending offset of producerID,
// whatever its group, is committed (unless superseded) or dropped. It
// calls touched once per group it changed, in group order.
func (s *Store) EndProducerTransaction(producerID int64, commit bool, touched func(group string)) {
	s.pendingScratch = s.pendingScratch[:0]
	s.pendingByProducer.AscendGreaterOrEqual(pendingItem{producerID: producerID, pair: minPair, partition: math.MinInt32},
		func(it pendingItem) bool {
			if it.producerID != producerID {
				return false
			}
			s.pendingScratch = append(s.pendingScratch, it)
			return true
		})
	items := s.pendingScratch
	s.endPending(producerID, commit)
	for i, it := range items {
		if touched != nil && (i == 0 || items[i-1].pair.group != it.pair.group) {
			touched(it.pair.group)
		}
	}
	clear(items) // drop the references the buffer still holds
}

// endPending commits or drops the pending offsets in pendingScratch, all of
// producerID and ordered by group.
func (s *Store) endPending(producerID int64, commit bool) {
	if len(s.pendingScratch) == 0 {
		return
	}
	inserted := 0
	for i, it := range s.pendingScratch {
		s.pendingByProducer.Delete(it)
		_, found := s.pendingByPartition.Delete(pendingRef{pair: it.pair, partition: it.partition, producerID: producerID})
		invariant(found, "pending producer index out of step with the partition index")
		if commit && !it.superseded {
			if s.commitItem(it.committed()) {
				inserted++
			}
			// Other producers' offsets of the partition written before this
			// one now lose to it at their own markers.
			s.supersedePending(it.pair, it.partition, it.seq)
		}
		if i == len(s.pendingScratch)-1 || s.pendingScratch[i+1].pair.group != it.pair.group {
			s.symbols.adjustGroup(it.pair.group, inserted, -s.countGroup(i))
			inserted = 0
		}
	}
	// Release after committing so a symbol still in use is never dropped and
	// re-created.
	for _, it := range s.pendingScratch {
		s.symbols.release(it.pair, 1)
	}
}

// countGroup is the number of pendingScratch items up to and including
// index last that belong to last's group (they are contiguous).
func (s *Store) countGroup(last int) int {
	g := s.pendingScratch[last].pair.group
	n := 0
	for i := last; i >= 0 && s.pendingScratch[i].pair.group == g; i-- {
		n++
	}
	return n
}

// Get returns one committed offset.
func (s *Store) Get(k Key) (OffsetAndMetadata, bool) {
	sym, ok := s.symbols.lookup(k.Group, k.Topic)
	if !ok {
		return OffsetAndMetadata{}, false
	}
	it, ok := s.committed.Get(committedItem{pair: sym, partition: k.Partition})
	if !ok {
		return OffsetAndMetadata{}, false
	}
	return it.value(), true
}

// AscendGroup calls fn for each committed offset of group in (topic, partition)
// order until fn returns false.
func (s *Store) AscendGroup(group string, fn func(k Key, v OffsetAndMetadata) bool) {
	first, ok := s.symbols.firstPairOf(group)
	if !ok {
		return
	}
	s.committed.AscendGreaterOrEqual(committedItem{pair: first, partition: math.MinInt32}, func(it committedItem) bool {
		if it.pair.group != group {
			return false
		}
		return fn(it.key(), it.value())
	})
}

// AscendTopic calls fn for each committed offset of group/topic in partition order.
func (s *Store) AscendTopic(group, topic string, fn func(k Key, v OffsetAndMetadata) bool) {
	sym, ok := s.symbols.lookup(group, topic)
	if !ok {
		return
	}
	s.committed.AscendGreaterOrEqual(committedItem{pair: sym, partition: math.MinInt32}, func(it committedItem) bool {
		if it.pair != sym {
			return false
		}
		return fn(it.key(), it.value())
	})
}

// GroupOffsetCount is the number of committed offsets of group.
func (s *Store) GroupOffsetCount(group string) int {
	g, _ := s.symbols.group(group)
	return g.committed
}

// Len is the number of committed offsets in the store.
func (s *Store) Len() int { return s.committed.Len() }

// PendingLen is the number of pending transactional offsets in the store.
func (s *Store) PendingLen() int { return s.pendingByProducer.Len() }

// HasOpenTransaction reports whether group has a pending transactional offset.
func (s *Store) HasOpenTransaction(group string) bool {
	g, _ := s.symbols.group(group)
	return g.pending > 0
}

// HasPending reports whether the partition has a pending transactional offset.
func (s *Store) HasPending(k Key) bool {
	sym, ok := s.symbols.lookup(k.Group, k.Topic)
	if !ok {
		return false
	}
	return s.hasPending(sym, k.Partition)
}

func (s *Store) hasPending(sym *pairSymbol, partition int32) bool {
	found := false
	s.pendingByPartition.AscendGreaterOrEqual(pendingRef{pair: sym, partition: partition, producerID: math.MinInt64},
		func(r pendingRef) bool {
			found = r.pair == sym && r.partition == partition
			return false
		})
	return found
}

// GroupHasNoOffsets is Kafka's groupHasNoOffsets: no committed offsets and no
// open transaction.
func (s *Store) GroupHasNoOffsets(group string) bool {
	g, _ := s.symbols.group(group)
	return g.committed == 0 && g.pending == 0
}

// AscendExpirable calls fn, in (expirableAt, group, topic, partition) order,
// for each committed offset whose expirable-at instant is <= nowMs.
//
// It visits exactly the offsets for which IsOffsetExpired(v, nowMs,
// RetentionMs()) holds, at O(log n) per offset visited.
func (s *Store) AscendExpirable(nowMs int64, fn func(k Key, v OffsetAndMetadata) bool) {
	s.expiry.Ascend(func(e expiryItem) bool {
		if e.atMs > nowMs {
			return false
		}
		it, ok := s.committed.Get(committedItem{pair: e.pair, partition: e.partition})
		invariant(ok, "expiry index entry without a committed offset")
		v := it.value()
		// A saturated instant means "never in int64 time"; only the predicate
		// can tell whether nowMs == MaxInt64 really reaches it.
		if e.atMs == math.MaxInt64 && !IsOffsetExpired(v, nowMs, s.retentionMs) {
			return true
		}
		return fn(it.key(), v)
	})
}

// AscendExpirableKeys is AscendExpirable for callers that need only the keys
// (the sweep collects the groups to visit): it reads the expiry index alone
// and skips the O(log n) value lookup per offset.
func (s *Store) AscendExpirableKeys(nowMs int64, fn func(k Key) bool) {
	s.expiry.Ascend(func(e expiryItem) bool {
		if e.atMs > nowMs {
			return false
		}
		k := Key{Group: e.pair.group, Topic: e.pair.topic, Partition: e.partition}
		if e.atMs == math.MaxInt64 {
			// Saturated: only the value can tell (see AscendExpirable).
			it, ok := s.committed.Get(committedItem{pair: e.pair, partition: e.partition})
			invariant(ok, "expiry index entry without a committed offset")
			if !IsOffsetExpired(it.value(), nowMs, s.retentionMs) {
				return true
			}
		}
		return fn(k)
	})
}

// CleanupExpiredOffsets is Kafka's cleanupExpiredOffsets for one group (§3.4):
// it appends to out the key of every committed offset of group that is expired
// at nowMs, whose topic is not subscribed, and that has no pending
// transactional offset, in (topic, partition) order. allExpired reports that
// no committed offset would remain and the group has no open transaction.
// It does not mutate the store.
//
// subscribed is called once per topic that has committed offsets. The call
// does not allocate unless out must grow.
func (s *Store) CleanupExpiredOffsets(group string, nowMs int64, subscribed func(topic string) bool, out []Key) (tombstones []Key, allExpired bool) {
	return s.CleanupExpiredOffsetsFrom(group, nowMs, NoBase, subscribed, out)
}

// NoBase is CleanupExpiredOffsetsFrom's base for "each offset's commit time".
const NoBase = math.MinInt64

// CleanupExpiredOffsetsFrom is CleanupExpiredOffsets counting the retention
// from baseMs for every offset (NoBase: each offset's commit time), as
// Kafka does for an Empty classic group (ClassicGroup.offsetExpirationCondition).
func (s *Store) CleanupExpiredOffsetsFrom(group string, nowMs, baseMs int64, subscribed func(topic string) bool, out []Key) (tombstones []Key, allExpired bool) {
	g, _ := s.symbols.group(group)
	if g.committed == 0 {
		return out, g.pending == 0
	}
	first, ok := s.symbols.firstPairOf(group)
	invariant(ok, "group with committed offsets has no symbol")
	openTxn := g.pending > 0
	allExpired = true
	var topicSym *pairSymbol
	topicSubscribed := false
	s.committed.AscendGreaterOrEqual(committedItem{pair: first, partition: math.MinInt32}, func(it committedItem) bool {
		if it.pair.group != group {
			return false
		}
		if it.pair != topicSym {
			topicSym = it.pair
			topicSubscribed = subscribed(it.pair.topic)
		}
		switch {
		case topicSubscribed:
			allExpired = false
		case expiredFrom(it.value(), baseMs, nowMs, s.retentionMs) && (!openTxn || !s.hasPending(it.pair, it.partition)):
			out = append(out, it.key())
		default:
			allExpired = false
		}
		return true
	})
	return out, allExpired && !openTxn
}

func expiredFrom(o OffsetAndMetadata, baseMs, nowMs, retentionMs int64) bool {
	if baseMs == NoBase {
		return IsOffsetExpired(o, nowMs, retentionMs)
	}
	return IsOffsetExpiredFrom(o, baseMs, nowMs, retentionMs)
}

// invariant panics when cond is false: a broken index is a bug that must stop
// the shard rather than silently serve wrong offsets.
func invariant(cond bool, msg string) {
	if !cond {
		panic("offsets: invariant violated: " + msg)
	}
}
