package share

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/kerr"
)

// §1.2: the transition table is exactly Kafka's, and an illegal transition
// attempted by the code panics instead of corrupting state.
func TestTransitionTable(t *testing.T) {
	allowed := map[[2]RecordState]bool{
		{Available, Acquired}: true, {Acquired, Available}: true, {Acquired, Acknowledged}: true,
		{Acquired, Archived}: true, {Acquired, Archiving}: true, {Archiving, Archived}: true,
	}
	for from := Available; from <= Archived; from++ {
		for to := Available; to <= Archived; to++ {
			assert.Equal(t, allowed[[2]RecordState{from, to}], validTransition(from, to), "%s → %s", from, to)
		}
	}
	// Drive one record into each state, then try every illegal target.
	cfg := kafkaTestConfig()
	cfg.DLQEnabled = true
	for from := Available; from <= Archived; from++ {
		for to := Available; to <= Archived; to++ {
			if validTransition(from, to) {
				continue
			}
			sp := newSP(t, cfg)
			acq(t, sp, 0, m1, [2]int64{0, 1}) // offset 1 keeps SPSO at 0... until 0 is terminal
			switch from {
			case Available:
				ack(t, sp, 1, m1, 1, 1, AckRelease)
			case Acknowledged:
				ack(t, sp, 1, m1, 1, 1, AckAccept)
			case Archiving:
				ack(t, sp, 1, m1, 1, 1, AckReject)
			case Archived:
				ack(t, sp, 1, m1, 1, 1, AckGap)
			}
			require.Equal(t, from, func() RecordState { i, _ := sp.Record(1); return i.State }())
			var lock *acqLock
			if to == Acquired {
				lock = sp.newLock(m1, 1, 1000)
			}
			assert.Panics(t, func() { sp.transition(1, record{state: to, count: 1, lock: lock}, false) }, "%s → %s", from, to)
		}
	}
}

// The persister fences stale leaders and stale state epochs, refuses
// uninitialised keys and a start offset that moves back.
func TestPersisterFencing(t *testing.T) {
	p := NewPersister()
	st := PersistedState{Key: testKey, StartOffset: 0}
	requireKafkaErr(t, kerr.InvalidRequest, p.Write(st))
	_, err := p.Read(testKey, 0)
	requireKafkaErr(t, kerr.InvalidRequest, err)
	require.NoError(t, p.Initialize(testKey, 1, UninitializedStartOffset))
	_, err = p.Read(testKey, 3)
	require.NoError(t, err)
	st.StateEpoch, st.LeaderEpoch = 1, 2
	requireKafkaErr(t, kerr.FencedStateEpoch, p.Write(st)) // leader 2 < 3
	st.LeaderEpoch = 3
	st.StateEpoch = 0
	requireKafkaErr(t, kerr.FencedStateEpoch, p.Write(st))
	st.StateEpoch = 2
	requireKafkaErr(t, kerr.InvalidRequest, p.Write(st))
	st.StateEpoch = 1
	st.StartOffset = 10
	require.NoError(t, p.Write(st))
	st.StartOffset = 9
	requireKafkaErr(t, kerr.InvalidRequest, p.Write(st), "start offset never regresses")
	st.StartOffset = 10
	st.StateBatches = []StateBatch{{10, 12, Acquired, 1}}
	requireKafkaErr(t, kerr.InvalidRequest, p.Write(st), "ACQUIRED is never persisted")
	requireKafkaErr(t, kerr.FencedStateEpoch, p.Initialize(testKey, 0, 0))
	_, err = p.Read(testKey, 2)
	requireKafkaErr(t, kerr.FencedStateEpoch, err)
	assert.EqualValues(t, 1, p.Writes())
}

// §1.10: after a leader move acquired records come back AVAILABLE with the
// counts last persisted, acknowledged ones stay acknowledged, the old
// leader is fenced (its ack rolls back), and an admin reset (state epoch
// bump) fences the current leader too.
func TestRecoverAfterLeaderMove(t *testing.T) {
	cfg := kafkaTestConfig()
	p := NewPersister()
	sp, err := New(testKey, cfg, 0, p)
	require.NoError(t, err)
	acq(t, sp, 0, m1, [2]int64{0, 9})
	ack(t, sp, 1, m1, 0, 4, AckRelease) // persisted AVAILABLE count 1
	acq(t, sp, 2, m1, [2]int64{0, 4})   // count 2, not persisted
	ack(t, sp, 3, m1, 5, 6, AckAccept)
	st := sp.WriteState()
	assert.Equal(t, []StateBatch{{0, 4, Available, 1}, {5, 6, Acknowledged, 1}, {7, 9, Available, 0}}, st.StateBatches)
	assert.EqualValues(t, 2, st.DeliveryCompleteCount)

	sp2, err := New(testKey, cfg, 1, p)
	require.NoError(t, err)
	require.NoError(t, sp2.CheckInvariants())
	requireRange(t, sp2, 0, 4, Available, 1, "")
	requireRange(t, sp2, 5, 6, Acknowledged, 1, "")
	requireRange(t, sp2, 7, 9, Available, 0, "")
	_, ok := sp2.NextLockDeadline()
	assert.False(t, ok, "no lock survives a leader move")

	before := dump(sp)
	_, err = sp.Acknowledge(4, m1, []AckBatch{{0, 4, AckAccept}})
	requireKafkaErr(t, kerr.FencedStateEpoch, err)
	assert.Error(t, sp.Fenced())
	_, _, err = sp.Acquire(5, m1, logOf([2]int64{10, 12}))
	requireKafkaErr(t, kerr.FencedStateEpoch, err)
	assert.Contains(t, dump(sp), "fenced=true")
	assert.Equal(t, before[strings.Index(before, "\n"):], dump(sp)[strings.Index(dump(sp), "\n"):], "records rolled back")

	got := acq(t, sp2, 10, m2, [2]int64{0, 9})
	assert.Equal(t, []AcquiredRecords{ar(0, 4, 2), ar(7, 9, 1)}, got)

	require.NoError(t, p.Initialize(testKey, 1, 20)) // admin reset to offset 20
	_, err = sp2.Acknowledge(11, m2, []AckBatch{{0, 4, AckAccept}})
	requireKafkaErr(t, kerr.FencedStateEpoch, err)
	sp3, err := New(testKey, cfg, 2, p)
	require.NoError(t, err)
	assert.EqualValues(t, 20, sp3.StartOffset())
	assert.EqualValues(t, 1, sp3.StateEpoch())
}

// §1.3/§1.5: a failed write rolls an acknowledgement back, but a lock expiry
// stands and reports the failure.
func TestPersisterFailure(t *testing.T) {
	p := NewPersister()
	sp, err := New(testKey, kafkaTestConfig(), 0, p)
	require.NoError(t, err)
	acq(t, sp, 0, m1, [2]int64{0, 9})
	fail := true
	p.SetWriteFault(func(PersistedState) error {
		if fail {
			return kerr.KafkaStorageError
		}
		return nil
	})
	before := dump(sp)
	_, err = sp.Acknowledge(1, m1, []AckBatch{{0, 3, AckAccept}, {4, 5, AckReject}, {6, 9, AckRenew}})
	requireKafkaErr(t, kerr.KafkaStorageError, err)
	assert.Equal(t, before, dump(sp), "rolled back, renew included")
	res := expire(t, sp, 100)
	requireKafkaErr(t, kerr.KafkaStorageError, res.PersistErr)
	requireRange(t, sp, 0, 9, Available, 1, "")
	fail = false
	acq(t, sp, 100, m1, [2]int64{0, 9})
	ack(t, sp, 101, m1, 0, 9, AckAccept)
	assert.EqualValues(t, 10, sp.StartOffset())
	assert.EqualValues(t, 2, sp.Stats().PersistFailures)
}

// §1.8: share.auto.offset.reset decides where an uninitialised partition
// starts; the default, latest, skips records produced before the first fetch.
func TestShareAutoOffsetReset(t *testing.T) {
	log := Fetch{LogStartOffset: 2, HighWatermark: 10, Batches: []LogBatch{{2, 4, 1000}, {5, 7, 3000}, {8, 9, 5000}}}
	cases := []struct {
		name  string
		reset AutoOffsetReset
		durMs int64
		want  []AcquiredRecords
	}{
		{"testShareAutoOffsetResetDefaultValue", ResetLatest, 0, nil},
		{"earliest", ResetEarliest, 0, []AcquiredRecords{ar(2, 9, 1)}},
		{"by_duration", ResetByDuration, 2500, []AcquiredRecords{ar(5, 9, 1)}},
		{"by_duration_nothing_recent", ResetByDuration, 100, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := kafkaTestConfig()
			cfg.AutoOffsetReset, cfg.AutoOffsetResetDurationMs = c.reset, c.durMs
			sp := newSP(t, cfg)
			assert.EqualValues(t, UninitializedStartOffset, sp.NextFetchOffset())
			res, _, err := sp.Acquire(5500, m1, log)
			require.NoError(t, err)
			assert.Equal(t, c.want, res.Records)
			if c.want == nil {
				assert.EqualValues(t, 10, sp.StartOffset())
				res, _, err = sp.Acquire(5600, m1, Fetch{LogStartOffset: 2, HighWatermark: 12, Batches: []LogBatch{{10, 11, 5600}}})
				require.NoError(t, err)
				assert.Equal(t, []AcquiredRecords{ar(10, 11, 1)}, res.Records, "records produced later are delivered")
			}
		})
	}
}

// Stats counts every record Acquire hands out and, of those, the ones
// delivered again (gremlins found both counters untested).
func TestStatsCountDeliveriesAndRedeliveries(t *testing.T) {
	sp := newSP(t, kafkaTestConfig())
	require.Equal(t, []AcquiredRecords{ar(0, 9, 1)}, acq(t, sp, 0, m1, [2]int64{0, 9}))
	ack(t, sp, 10, m1, 0, 3, AckRelease)
	require.Equal(t, []AcquiredRecords{ar(0, 3, 2)}, acq(t, sp, 20, m2, [2]int64{0, 9}))
	ack(t, sp, 30, m1, 4, 8, AckAccept)
	ack(t, sp, 30, m1, 9, 9, AckReject)
	st := sp.Stats()
	assert.EqualValues(t, 14, st.Deliveries)
	assert.EqualValues(t, 4, st.Redeliveries)
	assert.EqualValues(t, 4, st.Released)
	assert.EqualValues(t, 5, st.Accepted)
	assert.EqualValues(t, 1, st.Rejected)
}

// An Acquire whose fetch moves the log start past SPSO archives the records
// below it and still acquires the ones above it in the same call.
func TestAcquireThatMovesLogStartStillAcquires(t *testing.T) {
	sp := newSP(t, kafkaTestConfig())
	acq(t, sp, 0, m1, [2]int64{0, 9})
	ack(t, sp, 10, m1, 0, 9, AckRelease)
	f := logOf([2]int64{5, 9})
	f.LogStartOffset = 5
	res, _, err := sp.Acquire(20, m2, f)
	require.NoError(t, err)
	require.NoError(t, sp.CheckInvariants())
	assert.Equal(t, []AcquiredRecords{ar(5, 9, 2)}, res.Records)
	assert.EqualValues(t, 5, sp.StartOffset())
	assert.EqualValues(t, 5, sp.Stats().ArchivedLogStart)
}

// The bounds of a fetch and of a persisted state's batches are inclusive
// where the limit is allowed and strict where it is not.
func TestValidationBoundaries(t *testing.T) {
	require.NoError(t, (&Fetch{HighWatermark: 1, BatchSize: MaxBatchSize}).validate())
	many := Fetch{HighWatermark: MaxFetchBatches}
	for off := range int64(MaxFetchBatches) {
		many.Batches = append(many.Batches, LogBatch{BaseOffset: off, LastOffset: off})
	}
	require.NoError(t, many.validate())
	touching := logOf([2]int64{0, 2}, [2]int64{2, 3})
	require.Error(t, touching.validate(), "a batch starting at the previous batch's last offset overlaps it")

	require.NoError(t, validateBatches(PersistedState{StartOffset: 0, StateBatches: []StateBatch{
		{FirstOffset: 0, LastOffset: 0, DeliveryState: Archived, DeliveryCount: 1},
		{FirstOffset: 1, LastOffset: 3, DeliveryState: Available, DeliveryCount: 0},
	}}), "a one-offset batch and an ARCHIVED batch are valid")
}

// CheckInvariants reports a cache that starts above SPSO and a lock that
// records point to but the deadline index lost (gremlins found both checks
// weakened without a test noticing).
func TestCheckInvariantsSeesCorruption(t *testing.T) {
	t.Run("cache above SPSO", func(t *testing.T) {
		sp := newSP(t, kafkaTestConfig())
		acq(t, sp, 0, m1, [2]int64{0, 9})
		sp.spso = sp.winStart - 1
		require.ErrorContains(t, sp.CheckInvariants(), "above SPSO")
	})
	t.Run("lock missing from the index", func(t *testing.T) {
		sp := newSP(t, kafkaTestConfig())
		acq(t, sp, 0, m1, [2]int64{0, 9})
		l, ok := sp.locks.Min()
		require.True(t, ok)
		sp.locks.Delete(l)
		require.ErrorContains(t, sp.CheckInvariants(), "0 locks indexed, 1 referenced")
	})
}
