package wire

import (
	"crypto/rand"
	"fmt"
	"hash/crc32"
	"slices"
	"sort"
	"sync"

	fkerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/internal/topicname"
)

// dataPlane is the brokers' in-memory topics: per partition, the record
// batches appended so far (as the client sent them, with the base offset
// the log assigned) and the high watermark. Without replication the high
// watermark is the log end offset. It is the only state the endpoint keeps
// besides the coordinators'.
type dataPlane struct {
	mu     sync.Mutex
	topics map[string]*topic
	byID   map[[16]byte]*topic
	// appended is closed and replaced after every append, waking fetches
	// that wait for data (Kafka's DelayedFetch purgatory, simplified).
	appended chan struct{}
	closed   bool
	// onCreate and onAppend, when set, see every new topic and every
	// appended batch under the data plane's lock, so a mirror (the share
	// plane) sees them in log order. An error from onCreate or onAppend
	// fails the create or produce before anything changes.
	onCreate func(name string, partitions int32) error
	onAppend func(topic string, partition int32, base int64, records int32) error
	// onDelete, when set, sees every deleted topic under the data plane's
	// lock, before it goes; an error fails the deletion.
	onDelete func(name string) error
	// onTrim, when set, sees every advance of a partition's log start
	// under the data plane's lock, after the append that caused it.
	onTrim func(topic string, partition int32, logStart int64)
	// onGrow, when set, sees every partition count increase
	// (CreatePartitions) under the data plane's lock, before it is made;
	// an error fails it.
	onGrow func(topic string, partitions int32) error
	// retentionBytes is log.retention.bytes for every partition of a
	// topic without its own retention.bytes; < 0 keeps everything
	// (Kafka's -1).
	retentionBytes int64
	// retentionMs is log.retention.ms for every topic without its own
	// retention.ms; < 0 keeps everything (retention.go).
	retentionMs int64
	// maxDataBytes caps the record bytes of all partitions together; < 0
	// is no cap (retention.go).
	maxDataBytes int64
	// totalBytes and batchCount are what all partitions hold.
	totalBytes int64
	batchCount int
	// nextSeq numbers appended batches; capQueue lists them in append
	// order, for the cap to drop the earliest first.
	nextSeq  uint64
	capQueue []capEntry
	// producerIDExpirationMs is producer.id.expiration.ms: a producer's
	// state goes this long after its last batch (producer_state.go).
	producerIDExpirationMs int64
	// nextExpiryCheckMs is when produce next removes expired producers,
	// every producer.id.expiration.check.interval.ms as Kafka's
	// scheduler does.
	nextExpiryCheckMs int64
}

// Kafka's producer.id.expiration.ms and
// producer.id.expiration.check.interval.ms defaults.
const (
	defaultProducerIDExpirationMs       = 86400000
	producerIDExpirationCheckIntervalMs = 600000
)

// maxBatchRecords bounds the records of one produced batch (the share
// plane's limit; Kafka's is the batch's byte size).
const maxBatchRecords = 100000

type topic struct {
	name       string
	id         [16]byte
	partitions []*partitionLog
	// configs are the topic configs set on it (topicconfig.go), values
	// as given; replaced whole by AlterConfigs, never written in place.
	configs map[string]string
	// retentionBytes is the topic's own retention.bytes when
	// hasRetention, else the data plane's applies.
	retentionBytes int64
	hasRetention   bool
	// retentionMs is the topic's own retention.ms when hasRetentionMs.
	retentionMs    int64
	hasRetentionMs bool
	// policy is its cleanup.policy.
	policy cleanupPolicy
	// maxMessageBytes and minInsyncReplicas are its max.message.bytes
	// and min.insync.replicas.
	maxMessageBytes, minInsyncReplicas int64
}

type partitionLog struct {
	batches []storedBatch
	// logStart is the log start offset: the first retained offset (the
	// high watermark when nothing is retained).
	logStart int64
	bytes    int64 // the raw size of batches
	hwm      int64
	// producers is the partition's idempotent producer state.
	producers *producerStateManager
	// txns is the partition's aborted-transaction index (txn_data.go).
	txns partitionTxns
	// cleanedThrough is the seq of the last batch the last compaction
	// pass covered, and nextHorizonMs when a tombstone it kept may go:
	// until either changes, a pass has nothing to do (compaction.go).
	cleanedThrough uint64
	nextHorizonMs  int64
}

// storedBatch is one appended record batch.
type storedBatch struct {
	base, last int64 // first and last offset
	maxTs      int64
	raw        []byte
	// seq is the batch's place in the data plane's append order.
	seq uint64
	// cleanedAtMs is when compaction first cleaned it, -1 before: its
	// tombstones go delete.retention.ms later (compaction.go).
	cleanedAtMs int64
}

func newDataPlane() *dataPlane {
	return &dataPlane{topics: make(map[string]*topic), byID: make(map[[16]byte]*topic), appended: make(chan struct{}), retentionBytes: -1, retentionMs: -1, maxDataBytes: -1, producerIDExpirationMs: defaultProducerIDExpirationMs}
}

// createTopic adds a topic without configs; exists reports that it was
// already there.
func (d *dataPlane) createTopic(name string, partitions int32) (t *topic, exists bool, err error) {
	return d.createTopicWithConfigs(name, partitions, nil)
}

// createTopicWithConfigs adds a topic with the topic configs set on it
// (validated by the caller: validateTopicConfigs). The offsets topic's
// name is refused: it is the coordinators' log, never a data topic; so is
// KRaft's metadata log's.
func (d *dataPlane) createTopicWithConfigs(name string, partitions int32, configs map[string]string) (t *topic, exists bool, err error) {
	if name == offsetsTopicName || name == clusterMetadataTopicName {
		return nil, false, errNotADataTopic
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if t := d.topics[name]; t != nil {
		return t, true, nil
	}
	if d.onCreate != nil {
		if err := d.onCreate(name, partitions); err != nil {
			return nil, false, err
		}
	}
	t = &topic{name: name, partitions: make([]*partitionLog, partitions)}
	t.setConfigs(configs)
	for {
		_, _ = rand.Read(t.id[:])
		if _, taken := d.byID[t.id]; !taken && t.id != [16]byte{} {
			break
		}
	}
	for i := range t.partitions {
		t.partitions[i] = &partitionLog{producers: newProducerStateManager()}
	}
	d.topics[name] = t
	d.byID[t.id] = t
	return t, false, nil
}

// deleteTopic drops topic name with its logs (and idempotent producer
// state); ok is false when it does not exist. Fetches waiting for data are
// woken: Kafka's DelayedFetch completes once a partition it reads is gone.
// A topic created later under the name is a new topic, with a new id.
func (d *dataPlane) deleteTopic(name string) (info topicInfo, ok bool, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	t := d.topics[name]
	if t == nil {
		return topicInfo{}, false, nil
	}
	if d.onDelete != nil {
		if err := d.onDelete(name); err != nil {
			return topicInfo{}, false, err
		}
	}
	delete(d.topics, name)
	delete(d.byID, t.id)
	for _, pl := range t.partitions {
		d.totalBytes -= pl.bytes
		d.batchCount -= len(pl.batches)
	}
	clear(t.partitions) // release the logs to the collector
	close(d.appended)
	d.appended = make(chan struct{})
	return topicInfo{name: t.name, id: t.id, partitions: int32(len(t.partitions))}, true, nil
}

// topicInfo is an immutable view of a topic's identity and size.
type topicInfo struct {
	name       string
	id         [16]byte
	partitions int32
}

func (t *topic) info() topicInfo {
	return topicInfo{t.name, t.id, int32(len(t.partitions))}
}

// found is a looked-up topic's info, or false when the lookup missed (t
// nil).
func (t *topic) found() (topicInfo, bool) {
	if t == nil {
		return topicInfo{}, false
	}
	return t.info(), true
}

func (d *dataPlane) lookup(name string) (topicInfo, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.topics[name].found()
}

// configsOf returns the configs set on topic name (nil when none); ok
// is false when it does not exist.
func (d *dataPlane) configsOf(name string) (configs map[string]string, ok bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	t := d.topics[name]
	if t == nil {
		return nil, false
	}
	return t.configs, true
}

// colliding returns an existing topic whose name collides with name
// (Kafka's Topic.unifyCollisionChars: '.' and '_' are one), the smallest
// such name; "" when none. Only names with '.' or '_' can collide.
func (d *dataPlane) colliding(name string) string {
	if !topicname.HasCollisionChars(name) {
		return ""
	}
	unified := topicname.UnifyCollisionChars(name)
	d.mu.Lock()
	defer d.mu.Unlock()
	found := ""
	for other := range d.topics {
		if topicname.UnifyCollisionChars(other) == unified && (found == "" || other < found) {
			found = other
		}
	}
	return found
}

func (d *dataPlane) lookupID(id [16]byte) (topicInfo, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.byID[id].found()
}

// all lists every topic, sorted by name.
func (d *dataPlane) all() []topicInfo {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]topicInfo, 0, len(d.topics))
	for _, t := range d.topics {
		out = append(out, t.info())
	}
	slices.SortFunc(out, func(a, b topicInfo) int {
		if a.name < b.name {
			return -1
		}
		if a.name > b.name {
			return 1
		}
		return 0
	})
	return out
}

// image is the coordinators' topic metadata image: topic → partition
// count, and each topic's id.
func (d *dataPlane) image() (partitions map[string]int32, ids map[string][16]byte) {
	d.mu.Lock()
	defer d.mu.Unlock()
	partitions = make(map[string]int32, len(d.topics))
	ids = make(map[string][16]byte, len(d.topics))
	for name, t := range d.topics {
		partitions[name], ids[name] = int32(len(t.partitions)), t.id
	}
	return partitions, ids
}

func (d *dataPlane) partition(name string, p int32) *partitionLog {
	t := d.topics[name]
	if t == nil || p < 0 || int(p) >= len(t.partitions) {
		return nil
	}
	return t.partitions[p]
}

// produceResult is one partition's answer to a Produce.
type produceResult struct {
	code     int16
	msg      string
	base     int64
	logStart int64
}

// produce validates one partition's records (one v2 batch, as Kafka
// requires from Produce v3) as Kafka's broker does before it appends
// (UnifiedLog.analyzeAndValidateRecords: base offset 0, CRC, a known
// codec; LogValidator: the count, no control batch from a client, a
// sequence with a producer id, and every record decoded, decompressing
// first: batchRecords) and appends it, applying the idempotent producer's
// sequence rules (Kafka's ProducerAppendInfo). A refused batch changes
// nothing. The batch is kept as sent but for its base offset and the
// partition leader epoch, which Kafka's LogValidator stamps on every batch
// it appends (batch.setPartitionLeaderEpoch; neither is under the CRC).
// Kafka also rewrites the max timestamp from the records, which coordsim
// does not. nowMs is the endpoint's clock: producer state expires by it.
func (d *dataPlane) produce(name string, p int32, records []byte, nowMs int64) produceResult {
	var batch kmsg.RecordBatch
	if err := batch.ReadFrom(records); err != nil {
		return produceResult{code: fkerr.CorruptMessage.Code, msg: "the records are not one record batch"}
	}
	if int(batch.Length)+12 != len(records) {
		return produceResult{code: fkerr.InvalidRecord.Code, msg: "produce requests with version 3 and above must contain exactly one record batch"}
	}
	if batch.Magic != 2 {
		// ProduceRequest.validateRecords' InvalidRecordException.
		return produceResult{code: fkerr.InvalidRecord.Code, msg: "produce requests with version 3 and above are only allowed to contain record batches with magic version 2"}
	}
	// UnifiedLog.analyzeAndValidateRecords: a client's batch starts at
	// offset 0, its CRC holds, its codec is one Kafka knows.
	if batch.FirstOffset != 0 {
		return produceResult{code: fkerr.InvalidRecord.Code, msg: fmt.Sprintf("The baseOffset of the record batch in the append to %s-%d should be 0, but it is %d", name, p, batch.FirstOffset)}
	}
	if limit := d.maxMessageBytes(name); int64(len(records)) > limit {
		// UnifiedLog.analyzeAndValidateRecords: max.message.bytes.
		return produceResult{code: fkerr.MessageTooLarge.Code, msg: fmt.Sprintf("The record batch size in the append to %s-%d is %d bytes which exceeds the maximum configured value of %d.", name, p, len(records), limit)}
	}
	// The CRC covers everything from the attributes on (offset 21).
	if uint32(batch.CRC) != crc32c(records[21:]) {
		return produceResult{code: fkerr.CorruptMessage.Code, msg: "record batch CRC mismatch"}
	}
	if codec := batch.Attributes & codecMask; codec > codecZstd {
		return produceResult{code: fkerr.UnknownServerError.Code, msg: fmt.Sprintf("Unknown compression type id: %d", codec)}
	}
	// LogValidator.validateBatch, then every record (validateMessagesAndAssignOffsets).
	if batch.NumRecords <= 0 || batch.NumRecords > maxBatchRecords || batch.LastOffsetDelta != batch.NumRecords-1 {
		return produceResult{code: fkerr.InvalidRecord.Code, msg: "record count and last offset delta disagree"}
	}
	if batch.Attributes&0x20 != 0 {
		return produceResult{code: fkerr.InvalidRecord.Code, msg: "Clients are not allowed to write control records"}
	}
	if batch.ProducerID >= 0 && batch.FirstSequence < 0 {
		return produceResult{code: fkerr.InvalidRecord.Code, msg: fmt.Sprintf("Invalid sequence number %d in record batch with producerId %d", batch.FirstSequence, batch.ProducerID)}
	}
	recs, rerr := batchRecords(&batch)
	if rerr != nil {
		return produceResult{code: rerr.code, msg: rerr.msg}
	}
	// A transactional batch was verified against its transaction by the
	// caller (txnProduceCode) before it got here.
	d.mu.Lock()
	defer d.mu.Unlock()
	pl := d.partition(name, p)
	if pl == nil {
		return produceResult{code: fkerr.UnknownTopicOrPartition.Code}
	}
	if t := d.topics[name]; t.policy.compact && slices.ContainsFunc(recs, func(r recordInfo) bool { return r.keyless }) {
		// LogValidator.validateKey.
		return produceResult{code: fkerr.InvalidRecord.Code, msg: fmt.Sprintf("Compacted topic cannot accept message without key in topic partition %s-%d.", name, p)}
	}
	d.maybeRemoveExpiredProducers(nowMs)
	base := pl.hwm
	var pb producerBatch
	if batch.ProducerID >= 0 {
		// UnifiedLog.analyzeAndValidateProducerState: a retry of one of
		// the producer's last batches is answered with its offsets and
		// not appended; otherwise the epoch and sequence must follow.
		pb = producerBatch{producerID: batch.ProducerID, epoch: batch.ProducerEpoch, firstSeq: batch.FirstSequence,
			lastOffsetDelta: batch.LastOffsetDelta, maxTimestampMs: batch.MaxTimestamp}
		if batch.Attributes&0x08 != 0 {
			pb.maxTimestampMs = nowMs // LogAppendTime: the broker's clock stamps the batch
		}
		if dup, ok := pl.producers.findDuplicate(pb); ok {
			return produceResult{base: dup.firstOffset, logStart: pl.logStart}
		}
		if code, msg := pl.producers.check(pb, name, p, base); code != 0 {
			return produceResult{code: code, msg: msg}
		}
	}
	if d.onAppend != nil {
		if err := d.onAppend(name, p, base, batch.NumRecords); err != nil {
			return produceResult{code: fkerr.KafkaStorageError.Code, msg: err.Error()}
		}
	}
	batch.FirstOffset = base
	batch.PartitionLeaderEpoch = partitionLeaderEpoch
	raw := batch.AppendTo(make([]byte, 0, len(records)))
	last := base + int64(batch.LastOffsetDelta)
	t := d.topics[name]
	d.appendStored(t, p, pl, base, last, batch.MaxTimestamp, raw)
	if batch.ProducerID >= 0 {
		pl.producers.append(pb, base, last)
		if transactional(batch.Attributes) {
			pl.producers.txnAppended(batch.ProducerID, base)
		}
	}
	d.retainBySize(t, p)
	d.enforceCap()
	close(d.appended)
	d.appended = make(chan struct{})
	return produceResult{base: base, logStart: pl.logStart}
}

// appendStored appends one batch, validated and stamped, to partition p of
// t at [base, last] and accounts for it (the append order, the cluster's
// bytes and batches, the cap's queue) and moves the high watermark. Produce
// and the transaction markers (txn_data.go) append through it. Called under
// d.mu.
func (d *dataPlane) appendStored(t *topic, p int32, pl *partitionLog, base, last, maxTs int64, raw []byte) {
	d.nextSeq++
	pl.batches = append(pl.batches, storedBatch{base: base, last: last, maxTs: maxTs, raw: raw, seq: d.nextSeq, cleanedAtMs: -1})
	pl.bytes += int64(len(raw))
	d.totalBytes += int64(len(raw))
	d.batchCount++
	d.capQueue = append(d.capQueue, capEntry{t: t, p: p, seq: d.nextSeq})
	pl.hwm = last + 1
}

// maybeRemoveExpiredProducers removes every partition's expired producers
// once per producer.id.expiration.check.interval.ms, as Kafka's
// PeriodicProducerExpirationCheck does. Called under d.mu.
func (d *dataPlane) maybeRemoveExpiredProducers(nowMs int64) {
	if nowMs < d.nextExpiryCheckMs {
		return
	}
	d.nextExpiryCheckMs = nowMs + producerIDExpirationCheckIntervalMs
	for _, t := range d.topics {
		for _, pl := range t.partitions {
			pl.producers.removeExpired(nowMs, d.producerIDExpirationMs)
		}
	}
}

// fetchResult is one partition's answer to a Fetch.
type fetchResult struct {
	code     int16
	hwm      int64
	lso      int64
	logStart int64
	records  []byte
	// aborted is, for read_committed, the aborted transactions the
	// records overlap (txn_data.go).
	aborted []abortedTxn
}

// fetch returns whole batches from offset on, at most maxBytes of them but
// always the first (Kafka returns at least one batch so that progress is
// possible), read uncommitted.
func (d *dataPlane) fetch(name string, p int32, offset int64, maxBytes int32) fetchResult {
	return d.fetchIsolated(name, p, offset, maxBytes, false)
}

// fetchIsolated is fetch at an isolation level: readCommitted
// (IsolationLevel 1) stops at the last stable offset and lists the aborted
// transactions of what it returns.
func (d *dataPlane) fetchIsolated(name string, p int32, offset int64, maxBytes int32, readCommitted bool) fetchResult {
	d.mu.Lock()
	defer d.mu.Unlock()
	pl := d.partition(name, p)
	if pl == nil {
		return fetchResult{code: fkerr.UnknownTopicOrPartition.Code}
	}
	// Kafka's Log.read: below the log start (retention moved it) or past
	// the high watermark is OFFSET_OUT_OF_RANGE; the client resets.
	lso := pl.lastStableOffset()
	if offset < pl.logStart || offset > pl.hwm {
		return fetchResult{code: fkerr.OffsetOutOfRange.Code, hwm: pl.hwm, lso: lso, logStart: pl.logStart}
	}
	end := pl.hwm
	if readCommitted {
		end = lso
	}
	i := sort.Search(len(pl.batches), func(i int) bool { return pl.batches[i].last >= offset })
	var out []byte
	upper := offset
	for ; i < len(pl.batches) && pl.batches[i].base < end; i++ {
		raw := pl.batches[i].raw
		if out != nil && len(out)+len(raw) > int(maxBytes) {
			break
		}
		out = append(out, raw...)
		upper = pl.batches[i].last + 1
	}
	res := fetchResult{hwm: pl.hwm, lso: lso, logStart: pl.logStart, records: out}
	if readCommitted && upper > offset {
		res.aborted = pl.abortedBetween(offset, upper)
	}
	return res
}

// ListOffsets' special timestamps (ListOffsetsRequest's constants).
const (
	latestTimestamp                = -1
	earliestTimestamp              = -2
	maxTimestamp                   = -3
	earliestLocalTimestamp         = -4
	latestTieredTimestamp          = -5
	earliestPendingUploadTimestamp = -6
)

// noEpoch is the leader epoch of an answer that has none
// (ListOffsetsResponse.UNKNOWN_EPOCH, RecordBatch.NO_PARTITION_LEADER_EPOCH).
const noEpoch = -1

// offsetFor answers ListOffsets for one partition as
// UnifiedLog.fetchOffsetByTimestamp does on a log without tiered storage:
// latest is the high watermark (here the log end) and earliest (and
// earliest-local) the log start offset, both at the leader epoch;
// latest-tiered and earliest-pending-upload are offset -1, timestamp -1,
// epoch -1 (nothing is tiered); max-timestamp is the first record carrying
// the largest batch max timestamp, found in the first batch with that max
// timestamp (RecordBatch.offsetOfMaxTimestamp); a timestamp finds the first
// batch whose max timestamp is at or after it, then its first record at or
// after it (LogSegment.findOffsetByTimestamp). Nothing found is -1, -1,
// epoch -1. The caller has refused the negative timestamps the request's
// version does not carry (listOffsetsTimestampUnsupported).
func (d *dataPlane) offsetFor(name string, p int32, ts int64) (offset, timestamp int64, epoch int32, code int16) {
	d.mu.Lock()
	defer d.mu.Unlock()
	pl := d.partition(name, p)
	if pl == nil {
		return -1, -1, noEpoch, fkerr.UnknownTopicOrPartition.Code
	}
	switch ts {
	case latestTimestamp:
		return pl.hwm, -1, partitionLeaderEpoch, 0
	case earliestTimestamp, earliestLocalTimestamp:
		return pl.logStart, -1, partitionLeaderEpoch, 0
	case latestTieredTimestamp, earliestPendingUploadTimestamp:
		return -1, -1, noEpoch, 0
	case maxTimestamp:
		best := -1
		for i, b := range pl.batches {
			if best < 0 || b.maxTs > pl.batches[best].maxTs {
				best = i
			}
		}
		if best < 0 {
			return -1, -1, noEpoch, 0
		}
		b := pl.batches[best]
		return b.findRecord(pl.logStart, func(rts int64) bool { return rts == b.maxTs })
	}
	for _, b := range pl.batches {
		if b.maxTs >= ts {
			// LogSegment.findOffsetByTimestamp skips what lies below the
			// log start (DeleteRecords may leave it inside a batch).
			if o, rts, e, code := b.findRecord(pl.logStart, func(rts int64) bool { return rts >= ts }); o >= 0 {
				return o, rts, e, code
			}
		}
	}
	return -1, -1, noEpoch, 0
}

// findRecord answers the offset and timestamp of the batch's first record
// at or after offset from whose timestamp satisfies match, at the leader epoch; none is -1, -1,
// epoch -1. The batch was validated when it was appended, so its records
// decode.
func (b storedBatch) findRecord(from int64, match func(ts int64) bool) (offset, timestamp int64, epoch int32, code int16) {
	var rb kmsg.RecordBatch
	if err := rb.ReadFrom(b.raw); err != nil {
		return -1, -1, noEpoch, 0
	}
	recs, rerr := batchRecords(&rb)
	if rerr != nil {
		return -1, -1, noEpoch, 0
	}
	for _, r := range recs {
		if b.base+int64(r.offsetDelta) >= from && match(r.timestamp) {
			return b.base + int64(r.offsetDelta), r.timestamp, partitionLeaderEpoch, 0
		}
	}
	return -1, -1, noEpoch, 0
}

// waitChan returns a channel closed at the next append.
func (d *dataPlane) waitChan() <-chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.appended
}

// wakeAll releases every waiting fetch (shutdown).
func (d *dataPlane) wakeAll() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.closed {
		d.closed = true
		close(d.appended)
		d.appended = make(chan struct{})
	}
}

// batchesBetween returns the bytes of every batch holding an offset in
// [first, last].
func (d *dataPlane) batchesBetween(name string, p int32, first, last int64) []byte {
	d.mu.Lock()
	defer d.mu.Unlock()
	pl := d.partition(name, p)
	if pl == nil {
		return nil
	}
	var out []byte
	for i := sort.Search(len(pl.batches), func(i int) bool { return pl.batches[i].last >= first }); i < len(pl.batches) && pl.batches[i].base <= last; i++ {
		out = append(out, pl.batches[i].raw...)
	}
	return out
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// crc32c is the record batch checksum (CRC-32C).
func crc32c(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }
