package coordinator

import (
	"fmt"
	"slices"

	"github.com/coordsim/coordsim/shard"
)

// Log is one __consumer_offsets partition's log: records at consecutive
// offsets from 0 and a high watermark below which they are committed. Logs
// outlive the coordinators that write them, so a shard can move between
// brokers: the new owner loads it by replaying the committed log (Restore).
//
// A log holds a snapshot and a tail: the snapshot is the state the committed
// records below StartOffset replay to, and the tail the records from
// StartOffset on. Loading replays the tail onto a copy of the snapshot, so
// neither a log's memory nor a load's cost grows with the time the
// partition has lived, only with its state and the tail (Kafka bounds both
// by compacting __consumer_offsets; snapshot.go says why coordsim does not).
//
// A Log is not safe for concurrent use; a simulation drives it from one
// goroutine, and a live driver from its loop.
type Log struct {
	partition int32
	// start is the offset of records[0]: the records below it are folded
	// into snap, which is nil while start is 0.
	start   int64
	records []shard.Record
	snap    *shard.Shard
	hw      int64
	// loadEpoch is the partition epoch of the last load: it grows by one on
	// every load, on any broker, and never goes back (Kafka's partition
	// leader epoch, at which CoordinatorRuntime loads a shard).
	loadEpoch int32
	// snapshotEvery is the committed tail, in records, past which the
	// writer folds the tail into the snapshot (Logs.SetSnapshotEvery); 0
	// never does.
	snapshotEvery int64
}

// Partition is the __consumer_offsets partition this log is.
func (l *Log) Partition() int32 { return l.partition }

// StartOffset is the offset of the first record the log still holds (Kafka's
// log start offset): the records below it live on only in the snapshot.
func (l *Log) StartOffset() int64 { return l.start }

// EndOffset is the offset the next appended record gets.
func (l *Log) EndOffset() int64 { return l.start + int64(len(l.records)) }

// HighWatermark is the first uncommitted offset: records below it are committed.
func (l *Log) HighWatermark() int64 { return l.hw }

// LoadEpoch is the partition epoch at which the partition was last loaded
// (0 before any load). Each LoadShard, on any broker, raises it by one.
func (l *Log) LoadEpoch() int32 { return l.loadEpoch }

// Record returns the record at offset, which must be in [StartOffset, EndOffset).
func (l *Log) Record(offset int64) shard.Record { return l.records[offset-l.start] }

// Committed returns the committed records from StartOffset on (shared; do
// not modify): the record at index i has offset StartOffset()+i.
func (l *Log) Committed() []shard.Record { return l.records[:l.hw-l.start] }

// Restore rebuilds the committed state: a copy of the snapshot (or a new
// shard of cfg when the log has none), then prepare, which installs what is
// not on the log (the topic image, group configs), then the committed tail.
// The snapshot's shard configuration must be cfg's (sameShardConfig): a copy
// carries its configuration, so a log restores only to brokers configured
// alike.
func (l *Log) Restore(cfg shard.Config, prepare func(*shard.Shard) error) (*shard.Shard, error) {
	var s *shard.Shard
	if l.snap != nil {
		if !sameShardConfig(l.snap.Config(), cfg) {
			return nil, fmt.Errorf("coordinator: partition %d's snapshot was taken under another shard configuration", l.partition)
		}
		s = l.snap.Clone()
	} else {
		var err error
		if s, err = shard.New(l.partition, cfg); err != nil {
			return nil, err
		}
	}
	if prepare != nil {
		if err := prepare(s); err != nil {
			return nil, err
		}
	}
	if err := s.ReplayAll(l.start, l.Committed()); err != nil {
		return nil, err
	}
	return s, nil
}

// sameShardConfig reports whether a snapshot taken under a restores under
// b. Each broker builds its own assignor registry, so registries compare by
// their assignors' names: built-in assignors are pure, and a copy keeps
// the snapshot's registry.
func sameShardConfig(a, b shard.Config) bool {
	ra, rb := a.ConsumerAssignors, b.ConsumerAssignors
	if (ra == nil) != (rb == nil) || ra != nil && !slices.Equal(ra.Names(), rb.Names()) {
		return false
	}
	a.ConsumerAssignors, b.ConsumerAssignors = nil, nil
	return a == b
}

// snapshotDue reports whether the committed tail has grown past snapshotEvery.
func (l *Log) snapshotDue() bool {
	return l.snapshotEvery > 0 && l.hw-l.start >= l.snapshotEvery
}

// setSnapshot makes s, the committed state at the high watermark, the
// snapshot, and drops the committed tail it replaces. The caller hands s
// over: it must never write s afterwards (a Clone of a live shard is fine).
func (l *Log) setSnapshot(s *shard.Shard) {
	if s.LastOffset() != l.hw-1 {
		panic(fmt.Sprintf("coordinator: snapshot of partition %d at offset %d, high watermark %d", l.partition, s.LastOffset(), l.hw))
	}
	n := copy(l.records, l.records[l.hw-l.start:])
	clear(l.records[n:])
	l.records = l.records[:n]
	l.start, l.snap = l.hw, s
}

func (l *Log) append(records []shard.Record) (first, end int64) {
	first = l.EndOffset()
	l.records = append(l.records, records...)
	return first, l.EndOffset()
}

// commit moves the high watermark to upTo (never backwards, never past the end).
func (l *Log) commit(upTo int64) {
	if upTo > l.EndOffset() {
		panic(fmt.Sprintf("coordinator: commit to %d past log end %d", upTo, l.EndOffset()))
	}
	if upTo > l.hw {
		l.hw = upTo
	}
}

// truncate drops the uncommitted tail, as a leader change or a failed append does.
func (l *Log) truncate() {
	clear(l.records[l.hw-l.start:])
	l.records = l.records[:l.hw-l.start]
}

// Logs is the set of partition logs of one cluster, shared by its brokers.
type Logs struct {
	logs []*Log
}

// DefaultSnapshotEvery is the committed tail, in records, past which a log
// is folded into its snapshot unless SetSnapshotEvery says otherwise.
const DefaultSnapshotEvery = 4096

// NewLogs returns empty logs for numPartitions partitions.
func NewLogs(numPartitions int32) (*Logs, error) {
	if numPartitions < 1 {
		return nil, &ConfigError{Key: "offsets.topic.num.partitions", Value: numPartitions, Reason: "value must be at least 1"}
	}
	ls := &Logs{logs: make([]*Log, numPartitions)}
	for i := range ls.logs {
		ls.logs[i] = &Log{partition: int32(i), snapshotEvery: DefaultSnapshotEvery}
	}
	return ls, nil
}

// SetSnapshotEvery sets the committed tail, in records, past which each log
// is folded into its snapshot (DefaultSnapshotEvery until set); 0 keeps
// every record from offset 0. Negative values are refused.
func (ls *Logs) SetSnapshotEvery(records int64) error {
	if records < 0 {
		return &ConfigError{Key: "snapshot.every.records", Value: records, Reason: "value must be at least 0"}
	}
	for _, l := range ls.logs {
		l.snapshotEvery = records
	}
	return nil
}

// NumPartitions is the number of partition logs.
func (ls *Logs) NumPartitions() int32 { return int32(len(ls.logs)) }

// Partition returns the log of partition p, or nil when out of range.
func (ls *Logs) Partition(p int32) *Log {
	if p < 0 || int(p) >= len(ls.logs) {
		return nil
	}
	return ls.logs[p]
}
