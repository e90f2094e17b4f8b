package wire

import (
	"cmp"
	"encoding/binary"
	"slices"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// The transactional half of the data plane: what a partition leader keeps
// about transactions (Kafka's ProducerStateManager ongoing transactions,
// the last stable offset, the aborted-transaction index) and the control
// batches (commit and abort markers) the transaction coordinator writes.

// partitionTxns is what a partition keeps of its aborted transactions;
// the open ones are in its producer state entries
// (producerStateEntry.currentTxnFirstOffset), as Kafka's
// ProducerStateManager keeps them.
type partitionTxns struct {
	// aborted is the aborted-transaction index, in marker order (Kafka's
	// TransactionIndex), pruned below the log start at every marker.
	aborted []abortedTxn
}

// pruneBelow drops the aborted transactions whose marker retention or
// DeleteRecords has removed (Kafka deletes a segment's transaction index
// with it), so the index stays bounded by the log. Entries are in marker
// order, so they go from the front.
func (t *partitionTxns) pruneBelow(logStart int64) {
	n := 0
	for n < len(t.aborted) && t.aborted[n].last < logStart {
		n++
	}
	if n > 0 {
		t.aborted = slices.Delete(t.aborted, 0, n)
	}
}

// abortedTxn is one aborted transaction on a partition: its producer, its
// first offset and the offset of its abort marker (Kafka's AbortedTxn).
type abortedTxn struct {
	producerID  int64
	first, last int64
}

// transactional reports whether a produced batch's attributes carry the
// transactional flag (RecordBatch.isTransactional).
func transactional(attributes int16) bool { return attributes&0x10 != 0 }

// transactionalBatch reads the producer id and epoch of a produced batch
// whose transactional flag is set; isTxn is false for any other (or too
// short) batch, which the data plane's own checks then judge.
func transactionalBatch(records []byte) (producerID int64, epoch int16, isTxn bool) {
	const headerBytes = 61 // a v2 batch header
	if len(records) < headerBytes || !transactional(int16(binary.BigEndian.Uint16(records[21:23]))) {
		return 0, 0, false
	}
	return int64(binary.BigEndian.Uint64(records[43:51])), int16(binary.BigEndian.Uint16(records[51:53])), true
}

// txnAppended records that a transactional batch of producerID, whose
// state the append has just recorded, was appended at base: the first one
// opens the producer's transaction on this partition.
func (m *producerStateManager) txnAppended(producerID, base int64) {
	if e := m.producers[producerID]; e != nil && e.currentTxnFirstOffset < 0 {
		e.currentTxnFirstOffset = base
	}
}

// hasOngoingTransaction reports whether the partition holds an open
// transaction of producerID at epoch (UnifiedLog.hasOngoingTransaction):
// a batch of it needs no word from the transaction coordinator.
func (d *dataPlane) hasOngoingTransaction(name string, p int32, producerID int64, epoch int16) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	pl := d.partition(name, p)
	if pl == nil {
		return false
	}
	e := pl.producers.producers[producerID]
	return e != nil && e.currentTxnFirstOffset >= 0 && e.epoch == epoch
}

// lastStableOffset is the first offset of the oldest open transaction, or
// the high watermark when none is open (Kafka's
// UnifiedLog.lastStableOffset: read_committed consumers read below it).
// The minimum over the map does not depend on its order.
func (pl *partitionLog) lastStableOffset() int64 {
	lso := pl.hwm
	for _, e := range pl.producers.producers {
		if e.currentTxnFirstOffset >= 0 {
			lso = min(lso, e.currentTxnFirstOffset)
		}
	}
	return lso
}

// readCommittedOffset bounds a ListOffsets answer for a read_committed
// client by the last stable offset, as Partition.fetchOffsetForTimestamp
// does with its lastFetchableOffset: latest is the last stable offset, the
// earliest offsets stand, and an offset found by timestamp at or past the
// last stable offset is not found (-1, -1, epoch -1).
func (d *dataPlane) readCommittedOffset(name string, p int32, ts, offset, timestamp int64, epoch int32) (int64, int64, int32) {
	d.mu.Lock()
	defer d.mu.Unlock()
	pl := d.partition(name, p)
	if pl == nil {
		return offset, timestamp, epoch
	}
	lso := pl.lastStableOffset()
	switch {
	case ts == latestTimestamp:
		return lso, timestamp, epoch
	case ts == earliestTimestamp || ts == earliestLocalTimestamp:
		return offset, timestamp, epoch
	case offset >= lso:
		return -1, -1, noEpoch
	}
	return offset, timestamp, epoch
}

// abortedBetween lists the aborted transactions that overlap
// [start, end): Kafka's collectAbortedTransactions for a read_committed
// fetch, by first offset.
func (pl *partitionLog) abortedBetween(start, end int64) []abortedTxn {
	var out []abortedTxn
	for _, a := range pl.txns.aborted {
		if a.last >= start && a.first < end {
			out = append(out, a)
		}
	}
	slices.SortStableFunc(out, func(a, b abortedTxn) int {
		return cmp.Compare(a.first, b.first)
	})
	return out
}

// writeMarker appends a commit or abort control batch of producerID at
// epoch to a partition and closes the producer's transaction there, as
// Kafka's WriteTxnMarkers does on the partition leader. A partition where
// the producer has no open transaction still gets the marker (Kafka writes
// it to every partition of the transaction). The producer's epoch is
// raised to the marker's, so a fenced producer's batches are refused. A
// partition that no longer exists (its topic was deleted) is skipped. It
// returns whether the marker was written.
func (d *dataPlane) writeMarker(name string, p int32, producerID int64, epoch int16, commit bool) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	pl := d.partition(name, p)
	if pl == nil {
		return false
	}
	base := pl.hwm
	if d.onAppend != nil {
		if err := d.onAppend(name, p, base, 1); err != nil {
			return false
		}
	}
	t := d.topics[name]
	d.appendStored(t, p, pl, base, base, -1, controlBatch(base, producerID, epoch, commit))
	// ProducerAppendInfo.appendEndTxnMarker: the marker closes the open
	// transaction and carries the producer's epoch forward (a marker at a
	// bumped epoch, after a fence or a timeout, forgets the old epoch's
	// batches, so the next one starts at sequence 0).
	e := pl.producers.producers[producerID]
	if e == nil {
		e = &producerStateEntry{producerID: producerID, epoch: epoch, currentTxnFirstOffset: -1}
		pl.producers.producers[producerID] = e
	}
	if epoch > e.epoch {
		e.epoch, e.batches = epoch, e.batches[:0]
	}
	e.coordinatorEpoch = 0
	if first := e.currentTxnFirstOffset; first >= 0 {
		if !commit {
			pl.txns.aborted = append(pl.txns.aborted, abortedTxn{producerID: producerID, first: first, last: base})
		}
		e.currentTxnFirstOffset = -1
	}
	d.retainBySize(t, p)
	d.enforceCap()
	pl.txns.pruneBelow(pl.logStart)
	close(d.appended)
	d.appended = make(chan struct{})
	return true
}

// controlBatch builds a one-record control batch (attributes: control and
// transactional) whose record is an EndTransactionMarker: key version 0 and
// type (0 abort, 1 commit), value version 0 and the coordinator epoch (0).
func controlBatch(base, producerID int64, epoch int16, commit bool) []byte {
	key := []byte{0, 0, 0, 0}
	if commit {
		key[3] = 1
	}
	value := []byte{0, 0, 0, 0, 0, 0}
	var rec []byte
	rec = append(rec, 0)              // attributes
	rec = binary.AppendVarint(rec, 0) // timestamp delta
	rec = binary.AppendVarint(rec, 0) // offset delta
	rec = binary.AppendVarint(rec, int64(len(key)))
	rec = append(rec, key...)
	rec = binary.AppendVarint(rec, int64(len(value)))
	rec = append(rec, value...)
	rec = binary.AppendVarint(rec, 0) // headers
	records := binary.AppendVarint(nil, int64(len(rec)))
	records = append(records, rec...)
	b := kmsg.RecordBatch{FirstOffset: base, Length: int32(49 + len(records)), PartitionLeaderEpoch: partitionLeaderEpoch, Magic: 2,
		Attributes: 0x20 | 0x10, LastOffsetDelta: 0, FirstTimestamp: -1, MaxTimestamp: -1,
		ProducerID: producerID, ProducerEpoch: epoch, FirstSequence: -1, NumRecords: 1, Records: records}
	raw := b.AppendTo(nil)
	binary.BigEndian.PutUint32(raw[17:21], crc32c(raw[21:]))
	return raw
}

// abortedTransactions is a read_committed partition's aborted list as
// FetchResponse carries it: never null.
func abortedTransactions(in []abortedTxn) []kmsg.FetchResponseTopicPartitionAbortedTransaction {
	out := make([]kmsg.FetchResponseTopicPartitionAbortedTransaction, 0, len(in))
	for _, a := range in {
		at := kmsg.NewFetchResponseTopicPartitionAbortedTransaction()
		at.ProducerID, at.FirstOffset = a.producerID, a.first
		out = append(out, at)
	}
	return out
}
