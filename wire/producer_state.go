package wire

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	fkerr "github.com/twmb/franz-go/pkg/kerr"
)

// Per-partition producer state, as Kafka's ProducerStateManager,
// ProducerStateEntry and ProducerAppendInfo keep and check it for every
// batch that carries a producer id: the producer's epoch, the metadata of
// its last five batches (to answer a retry with the original offset), the
// timestamp of its last batch (for producer.id.expiration.ms) and the
// first offset of its open transaction.
//
// The state outlives the batches: retention and DeleteRecords advance the
// log start offset without touching it (since KIP-360 Kafka no longer
// evicts a producer whose batches are gone); only expiration removes it.
// An expired (or never seen) producer's next batch is accepted whatever
// its sequence, as ProducerAppendInfo.checkSequence accepts it when the
// current entry has no epoch: Kafka 4.x's broker never answers a Produce
// with UNKNOWN_PRODUCER_ID.
//
// Transactional batches are the transaction coordinator's to add: an
// entry's currentTxnFirstOffset is where it will record an open
// transaction (-1 when none), and an entry with one never expires
// (ProducerStateManager.isProducerExpired).

// producerStateManager is one partition's producer state.
type producerStateManager struct {
	producers map[int64]*producerStateEntry
}

// producerStateEntry is what a partition knows of one producer
// (ProducerStateEntry).
type producerStateEntry struct {
	producerID int64
	epoch      int16
	// batches are the metadata of the producer's last
	// maxProducerBatches batches at epoch, oldest first.
	batches []batchMetadata
	// lastTimestampMs is the max timestamp of its last batch: expiration
	// counts from it.
	lastTimestampMs int64
	// coordinatorEpoch is the epoch of the transaction coordinator that
	// wrote its last marker, -1 when none.
	coordinatorEpoch int32
	// currentTxnFirstOffset is the first offset of its open transaction,
	// -1 when none.
	currentTxnFirstOffset int64
}

// batchMetadata is one appended batch of a producer (BatchMetadata).
type batchMetadata struct {
	firstSeq, lastSeq       int32
	firstOffset, lastOffset int64
	timestampMs             int64
}

// maxProducerBatches is ProducerStateEntry.NUM_BATCHES_TO_RETAIN.
const maxProducerBatches = 5

// producerBatch is what the producer state reads of an incoming batch.
type producerBatch struct {
	producerID      int64
	epoch           int16
	firstSeq        int32
	lastOffsetDelta int32
	maxTimestampMs  int64
}

func (b producerBatch) lastSeq() int32 {
	// DefaultRecordBatch.incrementSequence: sequences wrap at MaxInt32.
	return int32((int64(b.firstSeq) + int64(b.lastOffsetDelta)) % (math.MaxInt32 + 1))
}

func newProducerStateManager() *producerStateManager {
	return &producerStateManager{producers: make(map[int64]*producerStateEntry)}
}

// findDuplicate returns the metadata of the batch b retries, if it is one
// of the producer's last batches at its epoch (findDuplicateBatch: the
// same epoch, first and last sequence).
func (m *producerStateManager) findDuplicate(b producerBatch) (batchMetadata, bool) {
	e := m.producers[b.producerID]
	if e == nil || e.epoch != b.epoch {
		return batchMetadata{}, false
	}
	for _, s := range e.batches {
		if s.firstSeq == b.firstSeq && s.lastSeq == b.lastSeq() {
			return s, true
		}
	}
	return batchMetadata{}, false
}

// check validates b as ProducerAppendInfo does for a client's data batch
// that would land at offset: the epoch (an older one is
// INVALID_PRODUCER_EPOCH), then the sequence (a new epoch of a known
// producer starts at 0; the same epoch continues from the last sequence;
// a producer without state may start anywhere). It changes nothing.
func (m *producerStateManager) check(b producerBatch, name string, p int32, offset int64) (code int16, msg string) {
	e := m.producers[b.producerID]
	if e == nil {
		return 0, ""
	}
	if b.epoch < e.epoch {
		return fkerr.InvalidProducerEpoch.Code, fmt.Sprintf("Epoch of producer %d at offset %d in %s-%d is %d, which is < the last seen epoch %d (TV-1)", b.producerID, offset, name, p, b.epoch, e.epoch)
	}
	if b.epoch != e.epoch {
		if b.firstSeq != 0 {
			return fkerr.OutOfOrderSequenceNumber.Code, fmt.Sprintf("Invalid sequence number for new epoch of producer %dat offset %d in partition %s-%d: %d (request epoch), %d (seq. number), %d (current producer epoch)", b.producerID, offset, name, p, b.epoch, b.firstSeq, e.epoch)
		}
		return 0, ""
	}
	last := int32(-1) // RecordBatch.NO_SEQUENCE
	if n := len(e.batches); n > 0 {
		last = e.batches[n-1].lastSeq
	}
	if !inSequence(last, b.firstSeq) {
		return fkerr.OutOfOrderSequenceNumber.Code, fmt.Sprintf("Out of order sequence number for producer %d at offset %d in partition %s-%d: %d (incoming seq. number), %d (current end sequence number)", b.producerID, offset, name, p, b.firstSeq, last)
	}
	return 0, ""
}

// inSequence is ProducerAppendInfo.inSequence.
func inSequence(lastSeq, nextSeq int32) bool {
	return int64(nextSeq) == int64(lastSeq)+1 || (nextSeq == 0 && lastSeq == math.MaxInt32)
}

// append records b, checked, appended at [first, last]
// (ProducerStateEntry.addBatch: a new epoch forgets the old one's batches).
func (m *producerStateManager) append(b producerBatch, first, last int64) {
	e := m.producers[b.producerID]
	if e == nil {
		e = &producerStateEntry{producerID: b.producerID, epoch: b.epoch, coordinatorEpoch: -1, currentTxnFirstOffset: -1}
		m.producers[b.producerID] = e
	}
	if e.epoch != b.epoch {
		e.epoch, e.batches = b.epoch, e.batches[:0]
	}
	if len(e.batches) == maxProducerBatches {
		e.batches = slices.Delete(e.batches, 0, 1)
	}
	e.batches = append(e.batches, batchMetadata{firstSeq: b.firstSeq, lastSeq: b.lastSeq(), firstOffset: first, lastOffset: last, timestampMs: b.maxTimestampMs})
	e.lastTimestampMs = b.maxTimestampMs
}

// removeExpired drops every producer without an open transaction whose
// last batch is expirationMs or more before nowMs
// (ProducerStateManager.removeExpiredProducers, isProducerExpired).
func (m *producerStateManager) removeExpired(nowMs, expirationMs int64) {
	for id, e := range m.producers {
		if e.currentTxnFirstOffset < 0 && nowMs-e.lastTimestampMs >= expirationMs {
			delete(m.producers, id)
		}
	}
}

// activeProducers lists the producers with state, by producer id, for
// DescribeProducers.
func (m *producerStateManager) activeProducers() []producerStateEntry {
	out := make([]producerStateEntry, 0, len(m.producers))
	for _, e := range m.producers {
		c := *e
		c.batches = slices.Clone(e.batches)
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b producerStateEntry) int {
		return cmp.Compare(a.producerID, b.producerID)
	})
	return out
}

// lastSeq is the entry's last sequence, -1 when it has no batch.
func (e *producerStateEntry) lastSeq() int32 {
	if len(e.batches) == 0 {
		return -1
	}
	return e.batches[len(e.batches)-1].lastSeq
}
