package offsets

import (
	"strings"

	"github.com/google/btree"
)

// btreeG is the only collection type of the package: ordered iteration and
// an O(1) copy-on-write Clone.
type btreeG[T any] = btree.BTreeG[T]

// defaultDegree is the btree degree of every collection. BenchmarkDegree
// compares alternatives: 32 keeps the committed-offset tree near its best
// memory per offset while commits stay within a few percent of the fastest.
const defaultDegree = 32

func newBtree[T any](degree int, less btree.LessFunc[T]) *btreeG[T] {
	return btree.NewG(degree, less)
}

// pairSymbol is the interned (group, topic) name of a set of offsets. Symbols
// are immutable and shared by every item of the pair and by every clone of the
// Store; the symbol table guarantees one live symbol per pair, so items of the
// same pair compare pointer-equal and btree items stay one word wide.
type pairSymbol struct {
	group string
	topic string
}

func comparePairs(a, b *pairSymbol) int {
	if a == b {
		return 0
	}
	if c := strings.Compare(a.group, b.group); c != 0 {
		return c
	}
	return strings.Compare(a.topic, b.topic)
}

// offsetExtra holds the fields most offsets leave at their defaults: a
// metadata string and a legacy expire timestamp. Keeping them behind one
// pointer makes committedItem 40 bytes instead of 56, which matters because
// google/btree leaves split nodes half full under key-ordered inserts. It is
// immutable once built, so items and clones may share it.
type offsetExtra struct {
	metadata string
	expireMs int64
}

// newOffsetExtra returns nil for the common case (no metadata, no legacy
// expire timestamp), so such commits allocate nothing.
func newOffsetExtra(v OffsetAndMetadata) *offsetExtra {
	if v.Metadata == "" && v.ExpireTimestampMs == NoExpireTimestamp {
		return nil
	}
	return &offsetExtra{metadata: v.Metadata, expireMs: v.ExpireTimestampMs}
}

func (e *offsetExtra) fields() (metadata string, expireMs int64) {
	if e == nil {
		return "", NoExpireTimestamp
	}
	return e.metadata, e.expireMs
}

// committedItem is one committed offset: 40 bytes on 64-bit platforms.
type committedItem struct {
	pair        *pairSymbol
	partition   int32
	leaderEpoch int32
	offset      int64
	commitMs    int64
	extra       *offsetExtra
}

func newCommittedItem(sym *pairSymbol, partition int32, v OffsetAndMetadata) committedItem {
	return committedItem{
		pair:        sym,
		partition:   partition,
		leaderEpoch: v.LeaderEpoch,
		offset:      v.Offset,
		commitMs:    v.CommitTimestampMs,
		extra:       newOffsetExtra(v),
	}
}

func lessCommitted(a, b committedItem) bool {
	if a.pair != b.pair {
		if c := comparePairs(a.pair, b.pair); c != 0 {
			return c < 0
		}
	}
	return a.partition < b.partition
}

func (it committedItem) key() Key {
	return Key{Group: it.pair.group, Topic: it.pair.topic, Partition: it.partition}
}

func (it committedItem) value() OffsetAndMetadata {
	metadata, expireMs := it.extra.fields()
	return OffsetAndMetadata{
		Offset:            it.offset,
		LeaderEpoch:       it.leaderEpoch,
		Metadata:          metadata,
		CommitTimestampMs: it.commitMs,
		ExpireTimestampMs: expireMs,
	}
}

func (it committedItem) expirableAtMs(retentionMs int64) int64 {
	if it.extra != nil && it.extra.expireMs >= 0 {
		return it.extra.expireMs
	}
	return saturatingAdd(it.commitMs, retentionMs)
}

func (it committedItem) expiry(retentionMs int64) expiryItem {
	return expiryItem{atMs: it.expirableAtMs(retentionMs), pair: it.pair, partition: it.partition}
}

// expiryItem indexes one committed offset by the instant it becomes
// expirable: 24 bytes, the value itself stays in the committed tree.
type expiryItem struct {
	atMs      int64
	pair      *pairSymbol
	partition int32
}

func lessExpiry(a, b expiryItem) bool {
	if a.atMs != b.atMs {
		return a.atMs < b.atMs
	}
	if a.pair != b.pair {
		if c := comparePairs(a.pair, b.pair); c != 0 {
			return c < 0
		}
	}
	return a.partition < b.partition
}

// pendingItem is one pending transactional offset, ordered (producerID,
// group, topic, partition) so that one producer's offsets are contiguous, and
// within them its offsets for one group.
type pendingItem struct {
	pair        *pairSymbol
	producerID  int64
	partition   int32
	leaderEpoch int32
	offset      int64
	commitMs    int64
	extra       *offsetExtra
	// seq is the order the store replayed this pending value in, which is
	// its record's order in the log.
	seq uint64
	// superseded is set when a committed value of the partition whose
	// record is newer than this one is put after it (a plain commit, or
	// another producer's pending offset materialised by its marker): at the
	// commit marker that newer offset wins, as Kafka's
	// replayEndTransactionMarker keeps the committed offset whose record
	// offset is larger.
	superseded bool
}

func lessPending(a, b pendingItem) bool {
	if a.producerID != b.producerID {
		return a.producerID < b.producerID
	}
	if a.pair != b.pair {
		if c := comparePairs(a.pair, b.pair); c != 0 {
			return c < 0
		}
	}
	return a.partition < b.partition
}

func (it pendingItem) committed() committedItem {
	return committedItem{
		pair:        it.pair,
		partition:   it.partition,
		leaderEpoch: it.leaderEpoch,
		offset:      it.offset,
		commitMs:    it.commitMs,
		extra:       it.extra,
	}
}

// pendingRef indexes a pending offset by partition, ordered (group, topic,
// partition, producerID), for HasPending and tombstones.
type pendingRef struct {
	pair       *pairSymbol
	partition  int32
	producerID int64
}

func lessPendingRef(a, b pendingRef) bool {
	if a.pair != b.pair {
		if c := comparePairs(a.pair, b.pair); c != 0 {
			return c < 0
		}
	}
	if a.partition != b.partition {
		return a.partition < b.partition
	}
	return a.producerID < b.producerID
}
