package share

import (
	"cmp"

	"github.com/coordsim/coordsim/internal/enumname"
	"github.com/coordsim/coordsim/internal/mutant"
	"github.com/coordsim/coordsim/kerr"
)

// RecordState is the delivery state of one offset of a share-partition
// (Kafka's RecordState). The values are Kafka's wire and persisted ids.
type RecordState int8

// The record states of §1.1. ACKNOWLEDGED and ARCHIVED are terminal.
const (
	Available    RecordState = 0 // may be acquired
	Acquired     RecordState = 1 // locked by exactly one member until its lock expires
	Acknowledged RecordState = 2 // processed (ACCEPT); terminal
	Archiving    RecordState = 3 // KIP-1191: being copied to the dead-letter queue; blocks SPSO
	Archived     RecordState = 4 // rejected, delivery limit hit, below log start, or a gap; terminal
)

var recordStates = enumname.New("RecordState", Available, "AVAILABLE", "ACQUIRED", "ACKNOWLEDGED", "ARCHIVING", "ARCHIVED")

func (s RecordState) String() string { return recordStates.String(s) }

// Terminal reports whether no transition leaves s.
func (s RecordState) Terminal() bool { return s == Acknowledged || s == Archived }

// validTransition is §1.2's table for the ordinary operations (acquire,
// acknowledge, lock expiry, release, DLQ completion). Same-state transitions
// are illegal. The "archive" operation (log start movement, gaps, recovery
// of an exhausted record) additionally allows AVAILABLE → ARCHIVED/ARCHIVING;
// see archiveTransition.
func validTransition(from, to RecordState) bool {
	switch from {
	case Available:
		return to == Acquired
	case Acquired:
		return to == Available || to == Acknowledged || to == Archived || to == Archiving
	case Archiving:
		return to == Archived
	}
	return false
}

// AcknowledgeType is Kafka's AcknowledgeType; the values are the wire ids.
type AcknowledgeType int8

// The acknowledgement types of §1.3.
const (
	// AckGap marks offsets absent from the log (compaction, control
	// records): they become ARCHIVED and never go to the DLQ.
	AckGap     AcknowledgeType = 0
	AckAccept  AcknowledgeType = 1 // → ACKNOWLEDGED
	AckRelease AcknowledgeType = 2 // → AVAILABLE (ARCHIVED/ARCHIVING at the delivery limit)
	AckReject  AcknowledgeType = 3 // → ARCHIVED (ARCHIVING when the DLQ is on)
	AckRenew   AcknowledgeType = 4 // KIP-1222: no state change, the lock restarts
)

var acknowledgeTypes = enumname.New("AcknowledgeType", AckGap, "GAP", "ACCEPT", "RELEASE", "REJECT", "RENEW")

func (t AcknowledgeType) String() string { return acknowledgeTypes.String(t) }

// AutoOffsetReset is the group config share.auto.offset.reset (§1.8). The
// zero value is Kafka's default, latest.
type AutoOffsetReset int8

// The share.auto.offset.reset strategies.
const (
	ResetLatest     AutoOffsetReset = iota // start at the log end: earlier records are not delivered
	ResetEarliest                          // start at the log start
	ResetByDuration                        // start at the first batch with timestamp ≥ now − duration
)

// Defaults (§1.13, trunk).
const (
	DefaultMaxDeliveryCount     int32 = 5
	DefaultRecordLockDurationMs int64 = 30_000
	DefaultMaxInFlightRecords   int64 = 2000
	// DefaultBatchSize is the consumer's max.poll.records default, the number
	// of records one fetch asks for.
	DefaultBatchSize int32 = 500
)

// Limits on configuration (TIGER_STYLE: a limit on everything). They are
// wider than Kafka's group-config bounds so Kafka's unit tests (lock 100 ms,
// in-flight 20) can be reproduced.
const (
	MinMaxDeliveryCount     int32 = 2
	MaxMaxDeliveryCount     int32 = 25
	MaxRecordLockDurationMs int64 = 3_600_000
	MaxMaxInFlightRecords   int64 = 1_000_000
	MaxBatchSize            int32 = 1_000_000
)

// Config is one share-partition's effective configuration (group config
// when set, else broker config). Zero fields take the defaults above.
type Config struct {
	// MaxDeliveryCount is share.delivery.count.limit: a record is delivered
	// at most this many times. 0 means DefaultMaxDeliveryCount.
	MaxDeliveryCount int32
	// RecordLockDurationMs is share.record.lock.duration.ms. 0 means default.
	RecordLockDurationMs int64
	// MaxInFlightRecords is share.partition.max.record.locks, a soft limit on
	// SPEO − SPSO + 1 (§1.6). 0 means default.
	MaxInFlightRecords int64
	// BatchSize is the number of records one Acquire hands out (the fetch's
	// MaxRecords in batch_optimized mode): soft, whole log batches are
	// acquired. 0 means DefaultBatchSize.
	BatchSize int32
	// RenewDisabled is share.renew.acknowledge.enable=false (default true).
	RenewDisabled bool
	// AutoOffsetReset is share.auto.offset.reset, used when the persisted
	// start offset is uninitialised (-1).
	AutoOffsetReset AutoOffsetReset
	// AutoOffsetResetDurationMs is the by_duration duration; must be > 0
	// with ResetByDuration and 0 otherwise.
	AutoOffsetResetDurationMs int64
	// DLQEnabled routes rejected and exhausted records through ARCHIVING to
	// the dead-letter queue (KIP-1191: errors.deadletterqueue.topic.name set
	// and share.version ≥ 2).
	DLQEnabled bool
	// Mutants are deliberate bugs for the simulator's own tests (package
	// mutant); the zero value changes nothing.
	Mutants mutant.Set
}

// resolve returns cfg with defaults applied, or INVALID_REQUEST.
func (cfg Config) resolve() (Config, error) {
	cfg.MaxDeliveryCount = cmp.Or(cfg.MaxDeliveryCount, DefaultMaxDeliveryCount)
	cfg.RecordLockDurationMs = cmp.Or(cfg.RecordLockDurationMs, DefaultRecordLockDurationMs)
	cfg.MaxInFlightRecords = cmp.Or(cfg.MaxInFlightRecords, DefaultMaxInFlightRecords)
	cfg.BatchSize = cmp.Or(cfg.BatchSize, DefaultBatchSize)
	switch {
	case cfg.MaxDeliveryCount < MinMaxDeliveryCount || cfg.MaxDeliveryCount > MaxMaxDeliveryCount:
		return cfg, kerr.InvalidRequest.WithMessage("share: max delivery count %d outside [%d, %d]", cfg.MaxDeliveryCount, MinMaxDeliveryCount, MaxMaxDeliveryCount)
	case cfg.RecordLockDurationMs < 1 || cfg.RecordLockDurationMs > MaxRecordLockDurationMs:
		return cfg, kerr.InvalidRequest.WithMessage("share: record lock duration %d ms outside [1, %d]", cfg.RecordLockDurationMs, MaxRecordLockDurationMs)
	case cfg.MaxInFlightRecords < 1 || cfg.MaxInFlightRecords > MaxMaxInFlightRecords:
		return cfg, kerr.InvalidRequest.WithMessage("share: max in-flight records %d outside [1, %d]", cfg.MaxInFlightRecords, MaxMaxInFlightRecords)
	case cfg.BatchSize < 1 || cfg.BatchSize > MaxBatchSize:
		return cfg, kerr.InvalidRequest.WithMessage("share: batch size %d outside [1, %d]", cfg.BatchSize, MaxBatchSize)
	case cfg.AutoOffsetReset < ResetLatest || cfg.AutoOffsetReset > ResetByDuration:
		return cfg, kerr.InvalidRequest.WithMessage("share: unknown auto offset reset %d", cfg.AutoOffsetReset)
	case cfg.AutoOffsetReset == ResetByDuration && cfg.AutoOffsetResetDurationMs <= 0:
		return cfg, kerr.InvalidRequest.WithMessage("share: by_duration needs a positive duration")
	case cfg.AutoOffsetReset != ResetByDuration && cfg.AutoOffsetResetDurationMs != 0:
		return cfg, kerr.InvalidRequest.WithMessage("share: a reset duration is only valid with by_duration")
	}
	return cfg, nil
}

// Key identifies a share-partition: one (share group, topic, partition).
type Key struct {
	Group     string
	Topic     string
	Partition int32
}

// MaxGroupIDLength bounds a share-partition key's group id; sharebroker
// enforces the same bound on the group ids of its requests, so a key that
// one package accepts the other does too.
const MaxGroupIDLength = 1024

func (k Key) validate() error {
	if k.Group == "" || k.Topic == "" || k.Partition < 0 {
		return kerr.InvalidRequest.WithMessage("share: invalid share-partition key %+v", k)
	}
	if len(k.Group) > MaxGroupIDLength {
		return kerr.InvalidRequest.WithMessage("share: group id of length %d outside [1, %d]", len(k.Group), MaxGroupIDLength)
	}
	return nil
}

func (k Key) less(o Key) bool {
	if k.Group != o.Group {
		return k.Group < o.Group
	}
	if k.Topic != o.Topic {
		return k.Topic < o.Topic
	}
	return k.Partition < o.Partition
}

// LogBatch is one producer batch of the topic partition's log.
type LogBatch struct {
	BaseOffset int64
	LastOffset int64
	// MaxTimestampMs is the batch's max timestamp, read only by
	// share.auto.offset.reset=by_duration.
	MaxTimestampMs int64
}

// Fetch is what the log returned for one share fetch: its bounds and the
// batches from the fetch offset (NextFetchOffset) on, ascending. Offsets
// between batches are treated as absent from the log (compaction, control
// records) and archived as gaps once the window passes them.
type Fetch struct {
	LogStartOffset int64
	// HighWatermark is the exclusive end of what may be delivered (the
	// high watermark, or the LSO under read_committed).
	HighWatermark int64
	Batches       []LogBatch
	// BatchSize, when above 0, splits the new records one Acquire hands
	// over into AcquiredRecords entries as Kafka's
	// SharePartition.createBatches does (a ShareFetch's BatchSize): an
	// entry is cut at the base offset of a log batch once it holds
	// BatchSize records or more, so entries follow log batches and hold
	// about BatchSize records; new records never share an entry with
	// redelivered ones. Locks are unchanged (one per contiguous run, the
	// same deadline). 0 merges every contiguous run of one delivery count.
	// At most MaxBatchSize.
	BatchSize int32
}

// MaxFetchBatches bounds the batches one Fetch may carry.
const MaxFetchBatches = 100_000

func (f *Fetch) validate() error {
	if f.LogStartOffset < 0 || f.HighWatermark < f.LogStartOffset {
		return kerr.InvalidRequest.WithMessage("share: bad log bounds [%d, %d)", f.LogStartOffset, f.HighWatermark)
	}
	if f.BatchSize < 0 || f.BatchSize > MaxBatchSize {
		return kerr.InvalidRequest.WithMessage("share: batch size %d outside [0, %d]", f.BatchSize, MaxBatchSize)
	}
	if len(f.Batches) > MaxFetchBatches {
		return kerr.InvalidRequest.WithMessage("share: %d batches exceed %d", len(f.Batches), MaxFetchBatches)
	}
	prev := int64(-1)
	for i, b := range f.Batches {
		if b.BaseOffset < 0 || b.LastOffset < b.BaseOffset || b.BaseOffset <= prev ||
			b.LastOffset >= f.HighWatermark || b.LastOffset < f.LogStartOffset {
			return kerr.InvalidRequest.WithMessage("share: batch %d [%d, %d] is not ascending within the log", i, b.BaseOffset, b.LastOffset)
		}
		prev = b.LastOffset
	}
	return nil
}

// AcquiredRecords is one run of offsets handed to a member with the same
// delivery count (Kafka's ShareFetch AcquiredRecords).
type AcquiredRecords struct {
	FirstOffset   int64
	LastOffset    int64
	DeliveryCount int32
}

// AcquireResult is the answer to one Acquire.
type AcquireResult struct {
	Records []AcquiredRecords
	// LockDeadlineMs is when the acquired records' locks expire (valid when
	// Records is not empty); AcquisitionLockTimeoutMs is the duration
	// ShareFetch responses carry.
	LockDeadlineMs           int64
	AcquisitionLockTimeoutMs int64
}

// Count returns the number of records acquired.
func (r AcquireResult) Count() int64 {
	var n int64
	for _, a := range r.Records {
		n += a.LastOffset - a.FirstOffset + 1
	}
	return n
}

// AckBatch acknowledges [FirstOffset, LastOffset] with one type.
type AckBatch struct {
	FirstOffset int64
	LastOffset  int64
	Type        AcknowledgeType
}

// MaxAckBatches bounds the batches of one Acknowledge.
const MaxAckBatches = 10_000

// StateChange reports that [FirstOffset, LastOffset] moved to State with
// DeliveryCount. Runs are reported in the order they were processed.
type StateChange struct {
	FirstOffset   int64
	LastOffset    int64
	State         RecordState
	DeliveryCount int32
}

// DLQCause is why a record goes to the dead-letter queue (KIP-1191).
type DLQCause int8

// The two KIP-1191 triggers.
const (
	DLQRejected              DLQCause = 1 // "Offset rejected by client."
	DLQDeliveryCountExceeded DLQCause = 2 // "Offset delivery count exceeded the threshold."
)

var dlqCauses = enumname.New("DLQCause", DLQRejected, "Offset rejected by client.", "Offset delivery count exceeded the threshold.")

func (c DLQCause) String() string { return dlqCauses.String(c) }

// DLQWrite asks the caller to copy [FirstOffset, LastOffset] to the
// dead-letter queue, then report the outcome with CompleteDLQWrite.
type DLQWrite struct {
	FirstOffset   int64
	LastOffset    int64
	DeliveryCount int32
	Cause         DLQCause
}

// DLQPartition is KIP-1191's routing: source partition p goes to DLQ
// partition p % dlqPartitions.
func DLQPartition(sourcePartition, dlqPartitions int32) int32 {
	if sourcePartition < 0 || dlqPartitions <= 0 {
		return -1
	}
	return sourcePartition % dlqPartitions
}

// Result is what an acknowledgement, lock expiry, member release or log
// start movement changed: the state changes and the DLQ writes it asks for.
type Result struct {
	Changes []StateChange
	DLQ     []DLQWrite
	// PersistErr is the persister's answer when the change was written but
	// the write failed; lock expiry and releases stand anyway (§1.5).
	PersistErr error
}

// RecordInfo is one offset's cached state, for inspection.
type RecordInfo struct {
	State          RecordState
	DeliveryCount  int32
	MemberID       string // "" unless ACQUIRED
	LockDeadlineMs int64  // 0 unless ACQUIRED
}

// Stats are cumulative counters of one share-partition object.
type Stats struct {
	Deliveries       int64 // records handed out by Acquire
	Redeliveries     int64 // of which with delivery count > 1
	Accepted         int64
	Released         int64 // RELEASE acks
	Rejected         int64
	LockExpired      int64 // records whose lock expired
	SessionReleased  int64 // records released by ReleaseMember
	ArchivedAtLimit  int64 // records archived (or sent to the DLQ) by the delivery limit
	DLQWritten       int64
	DLQFailed        int64
	PersistFailures  int64
	LockRenewals     int64
	ArchivedLogStart int64 // AVAILABLE records archived by log start movement
	ArchivedGaps     int64 // offsets absent from the log
	AcquireThrottled int64 // acquisitions cut by poison-pill throttling
	AcksRefused      int64 // Acknowledge calls refused with INVALID_RECORD_STATE
}
