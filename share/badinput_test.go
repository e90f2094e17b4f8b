package share

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/kerr"
)

// Every public method validates its input and answers a typed error that
// changed nothing.
func TestBadInputChangesNothing(t *testing.T) {
	setup := func(t *testing.T) *SharePartition {
		sp := newSP(t, kafkaTestConfig())
		acq(t, sp, 10, m1, [2]int64{0, 9})
		return sp
	}
	cases := []struct {
		name string
		want *kerr.Error
		call func(sp *SharePartition) error
	}{
		{"acquire time goes back", kerr.InvalidRequest, func(sp *SharePartition) error { _, _, err := sp.Acquire(9, m1, logOf([2]int64{10, 12})); return err }},
		{"acquire empty member", kerr.InvalidRequest, func(sp *SharePartition) error { _, _, err := sp.Acquire(10, "", logOf([2]int64{10, 12})); return err }},
		{"acquire descending batches", kerr.InvalidRequest, func(sp *SharePartition) error {
			_, _, err := sp.Acquire(10, m1, logOf([2]int64{15, 16}, [2]int64{10, 12}))
			return err
		}},
		{"acquire batch past high watermark", kerr.InvalidRequest, func(sp *SharePartition) error {
			_, _, err := sp.Acquire(10, m1, Fetch{HighWatermark: 12, Batches: []LogBatch{{10, 12, 0}}})
			return err
		}},
		{"acquire inverted batch", kerr.InvalidRequest, func(sp *SharePartition) error { _, _, err := sp.Acquire(10, m1, logOf([2]int64{12, 10})); return err }},
		{"acquire negative log start", kerr.InvalidRequest, func(sp *SharePartition) error {
			_, _, err := sp.Acquire(10, m1, Fetch{LogStartOffset: -1, HighWatermark: 5})
			return err
		}},
		{"ack time goes back", kerr.InvalidRequest, func(sp *SharePartition) error {
			_, err := sp.Acknowledge(9, m1, []AckBatch{{0, 1, AckAccept}})
			return err
		}},
		{"ack empty member", kerr.InvalidRequest, func(sp *SharePartition) error {
			_, err := sp.Acknowledge(10, "", []AckBatch{{0, 1, AckAccept}})
			return err
		}},
		{"ack unknown type", kerr.InvalidRequest, func(sp *SharePartition) error { _, err := sp.Acknowledge(10, m1, []AckBatch{{0, 1, 5}}); return err }},
		{"ack overlapping batches", kerr.InvalidRequest, func(sp *SharePartition) error {
			_, err := sp.Acknowledge(10, m1, []AckBatch{{0, 3, AckAccept}, {3, 4, AckReject}})
			return err
		}},
		{"ack inverted batch", kerr.InvalidRequest, func(sp *SharePartition) error {
			_, err := sp.Acknowledge(10, m1, []AckBatch{{3, 1, AckAccept}})
			return err
		}},
		{"ack past SPEO", kerr.InvalidRequest, func(sp *SharePartition) error {
			_, err := sp.Acknowledge(10, m1, []AckBatch{{8, 10, AckAccept}})
			return err
		}},
		{"ack too many batches", kerr.InvalidRequest, func(sp *SharePartition) error {
			_, err := sp.Acknowledge(10, m1, make([]AckBatch, MaxAckBatches+1))
			return err
		}},
		{"ack not owner", kerr.InvalidRecordState, func(sp *SharePartition) error {
			_, err := sp.Acknowledge(10, m2, []AckBatch{{0, 0, AckAccept}})
			return err
		}},
		{"expire time goes back", kerr.InvalidRequest, func(sp *SharePartition) error { _, err := sp.ExpireLocks(9); return err }},
		{"release empty member", kerr.InvalidRequest, func(sp *SharePartition) error { _, err := sp.ReleaseMember(""); return err }},
		{"log start negative", kerr.InvalidRequest, func(sp *SharePartition) error { _, err := sp.UpdateLogStartOffset(-2); return err }},
		{"DLQ outside cache", kerr.InvalidRequest, func(sp *SharePartition) error { _, err := sp.CompleteDLQWrite(5, 20, true); return err }},
		{"DLQ not archiving", kerr.InvalidRecordState, func(sp *SharePartition) error { _, err := sp.CompleteDLQWrite(0, 1, true); return err }},
		{"recover wrong key", kerr.InvalidRequest, func(sp *SharePartition) error { return sp.Recover(PersistedState{Key: Key{"x", "t", 0}}) }},
		{"recover overlapping batches", kerr.InvalidRequest, func(sp *SharePartition) error {
			return sp.Recover(PersistedState{Key: testKey, StartOffset: 0, StateBatches: []StateBatch{{0, 3, Available, 1}, {3, 4, Archived, 1}}})
		}},
		{"recover newer leader", kerr.FencedStateEpoch, func(sp *SharePartition) error {
			return sp.Recover(PersistedState{Key: testKey, LeaderEpoch: 1, StartOffset: 0})
		}},
		{"recover huge window", kerr.InvalidRequest, func(sp *SharePartition) error {
			return sp.Recover(PersistedState{Key: testKey, StartOffset: 0, StateBatches: []StateBatch{{1 << 40, 1 << 40, Archived, 1}}})
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sp := setup(t)
			before := dump(sp)
			require.ErrorIs(t, c.call(sp), c.want)
			assert.Equal(t, before, dump(sp))
			require.NoError(t, sp.CheckInvariants())
		})
	}
}

// New refuses keys and configurations outside their limits.
func TestNewValidates(t *testing.T) {
	bad := []Config{
		{MaxDeliveryCount: 1}, {MaxDeliveryCount: 26}, {RecordLockDurationMs: -1},
		{RecordLockDurationMs: MaxRecordLockDurationMs + 1}, {MaxInFlightRecords: -5}, {BatchSize: -1},
		{AutoOffsetReset: ResetByDuration}, {AutoOffsetResetDurationMs: 5}, {AutoOffsetReset: 7},
	}
	for _, cfg := range bad {
		_, err := New(testKey, cfg, 0, nil)
		require.ErrorIs(t, err, kerr.InvalidRequest, "%+v", cfg)
	}
	for _, k := range []Key{{"", "t", 0}, {"g", "", 0}, {"g", "t", -1}} {
		_, err := New(k, Config{}, 0, nil)
		require.ErrorIs(t, err, kerr.InvalidRequest, "%+v", k)
	}
	_, err := New(testKey, Config{}, -1, nil)
	require.ErrorIs(t, err, kerr.InvalidRequest)
	sp, err := New(testKey, Config{}, 0, nil)
	require.NoError(t, err)
	assert.Equal(t, Config{MaxDeliveryCount: 5, RecordLockDurationMs: 30_000, MaxInFlightRecords: 2000, BatchSize: 500}, sp.Config())
}
