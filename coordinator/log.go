package coordinator

import (
	"fmt"

	"github.com/coordsim/coordsim/shard"
)

// Log is one __consumer_offsets partition's log: records at consecutive
// offsets from 0 and a high watermark below which they are committed. Logs
// outlive the coordinators that write them, so a shard can move between
// brokers: the new owner loads it by replaying the committed prefix.
//
// A Log is not safe for concurrent use; a simulation drives it from one
// goroutine, and a live driver from its loop.
type Log struct {
	partition int32
	records   []shard.Record
	hw        int64
	// loadEpoch is the partition epoch of the last load: it grows by one on
	// every load, on any broker, and never goes back (Kafka's partition
	// leader epoch, at which CoordinatorRuntime loads a shard).
	loadEpoch int32
}

// Partition is the __consumer_offsets partition this log is.
func (l *Log) Partition() int32 { return l.partition }

// EndOffset is the offset the next appended record gets.
func (l *Log) EndOffset() int64 { return int64(len(l.records)) }

// HighWatermark is the first uncommitted offset: records below it are committed.
func (l *Log) HighWatermark() int64 { return l.hw }

// LoadEpoch is the partition epoch at which the partition was last loaded
// (0 before any load). Each LoadShard, on any broker, raises it by one.
func (l *Log) LoadEpoch() int32 { return l.loadEpoch }

// Record returns the record at offset.
func (l *Log) Record(offset int64) shard.Record { return l.records[offset] }

// Committed returns the committed records (shared; do not modify).
func (l *Log) Committed() []shard.Record { return l.records[:l.hw] }

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
	clear(l.records[l.hw:])
	l.records = l.records[:l.hw]
}

// Logs is the set of partition logs of one cluster, shared by its brokers.
type Logs struct {
	logs []*Log
}

// NewLogs returns empty logs for numPartitions partitions.
func NewLogs(numPartitions int32) (*Logs, error) {
	if numPartitions < 1 {
		return nil, &ConfigError{Key: "offsets.topic.num.partitions", Value: numPartitions, Reason: "value must be at least 1"}
	}
	ls := &Logs{logs: make([]*Log, numPartitions)}
	for i := range ls.logs {
		ls.logs[i] = &Log{partition: int32(i)}
	}
	return ls, nil
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
