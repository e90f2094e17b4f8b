package share

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const (
	m1 = "member-1"
	m2 = "member-2"
)

var testKey = Key{Group: "g", Topic: "t", Partition: 0}

// kafkaTestConfig is SharePartitionTest's setup: 100 ms locks, limit 5,
// 200 in flight, batches of 500, read from the log start.
func kafkaTestConfig() Config {
	return Config{MaxDeliveryCount: 5, RecordLockDurationMs: 100, MaxInFlightRecords: 200, BatchSize: 500, AutoOffsetReset: ResetEarliest}
}

func newSP(t testing.TB, cfg Config) *SharePartition {
	t.Helper()
	sp, err := New(testKey, cfg, 0, nil)
	require.NoError(t, err)
	return sp
}

// logOf builds a fetch of the given [base, last] batches over a log that
// starts at 0 and ends after the last batch.
func logOf(batches ...[2]int64) Fetch {
	f := Fetch{}
	for _, b := range batches {
		f.Batches = append(f.Batches, LogBatch{BaseOffset: b[0], LastOffset: b[1]})
		f.HighWatermark = max(f.HighWatermark, b[1]+1)
	}
	return f
}

func acq(t testing.TB, sp *SharePartition, nowMs int64, member string, batches ...[2]int64) []AcquiredRecords {
	t.Helper()
	res, _, err := sp.Acquire(nowMs, member, logOf(batches...))
	require.NoError(t, err)
	require.NoError(t, sp.CheckInvariants())
	return res.Records
}

func ack(t testing.TB, sp *SharePartition, nowMs int64, member string, first, last int64, typ AcknowledgeType) Result {
	t.Helper()
	res, err := sp.Acknowledge(nowMs, member, []AckBatch{{first, last, typ}})
	require.NoError(t, err)
	require.NoError(t, sp.CheckInvariants())
	return res
}

func expire(t testing.TB, sp *SharePartition, nowMs int64) Result {
	t.Helper()
	res, err := sp.ExpireLocks(nowMs)
	require.NoError(t, err)
	require.NoError(t, sp.CheckInvariants())
	return res
}

func ar(first, last int64, count int32) AcquiredRecords {
	return AcquiredRecords{FirstOffset: first, LastOffset: last, DeliveryCount: count}
}

// requireRange checks that every offset of [first, last] is cached with the
// given state, count and owner.
func requireRange(t testing.TB, sp *SharePartition, first, last int64, s RecordState, count int32, member string) {
	t.Helper()
	for off := first; off <= last; off++ {
		info, ok := sp.Record(off)
		require.True(t, ok, "offset %d not cached", off)
		require.Equal(t, s, info.State, "offset %d", off)
		require.Equal(t, count, info.DeliveryCount, "offset %d", off)
		require.Equal(t, member, info.MemberID, "offset %d", off)
	}
}

// dump renders everything observable about sp except its counters of
// refused calls, so a failed call can be shown to have changed nothing.
func dump(sp *SharePartition) string {
	var b strings.Builder
	fmt.Fprintf(&b, "init=%v spso=%d speo=%d next=%d dcc=%d fenced=%v epochs=%d/%d lastNow=%d\n",
		sp.Initialized(), sp.StartOffset(), sp.EndOffset(), sp.NextFetchOffset(), sp.DeliveryCompleteCount(),
		sp.Fenced() != nil, sp.LeaderEpoch(), sp.StateEpoch(), sp.lastNowMs)
	if sp.n() > 0 {
		for off := sp.winStart; off <= sp.last(); off++ {
			info, _ := sp.Record(off)
			fmt.Fprintf(&b, "%d:%s/%d/%s/%d ", off, info.State, info.DeliveryCount, info.MemberID, info.LockDeadlineMs)
		}
	}
	d, ok := sp.NextLockDeadline()
	fmt.Fprintf(&b, "\nlocks=%d next=%d/%v", sp.locks.Len(), d, ok)
	return b.String()
}
