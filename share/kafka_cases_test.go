package share

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/kerr"
)

// Kafka's SharePartitionTest / SharePartitionManagerTest acceptance cases
// (docs/share-groups.md §6, cases 1–14, 24–26), each named after Kafka's test.
// Every case starts from SharePartitionTest's setup (kafkaTestConfig) with
// the overrides it lists.

type kafkaCase struct {
	name string
	cfg  func(*Config)
	run  func(t *testing.T, sp *SharePartition)
}

func runKafkaCases(t *testing.T, cases []kafkaCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := kafkaTestConfig()
			if tc.cfg != nil {
				tc.cfg(&cfg)
			}
			sp := newSP(t, cfg)
			tc.run(t, sp)
			require.NoError(t, sp.CheckInvariants())
		})
	}
}

func limit(n int32) func(*Config)       { return func(c *Config) { c.MaxDeliveryCount = n } }
func maxInFlight(n int64) func(*Config) { return func(c *Config) { c.MaxInFlightRecords = n } }
func requireKafkaErr(t *testing.T, want *kerr.Error, err error, msg ...any) {
	t.Helper()
	require.ErrorIs(t, err, want, msg...)
}

// Cases 1–11 and 14: acquisition, release, lock timeout, the delivery limit,
// the in-flight window and all-or-nothing acknowledgement.
func TestKafkaSharePartitionCases(t *testing.T) {
	runKafkaCases(t, []kafkaCase{
		{name: "testAcquireSingleRecord", run: func(t *testing.T, sp *SharePartition) {
			assert.Equal(t, []AcquiredRecords{ar(0, 0, 1)}, acq(t, sp, 0, m1, [2]int64{0, 0}))
			requireRange(t, sp, 0, 0, Acquired, 1, m1)
			assert.EqualValues(t, 1, sp.NextFetchOffset())
			assert.EqualValues(t, 0, sp.StartOffset())
			assert.EqualValues(t, 0, sp.EndOffset())
			assert.EqualValues(t, 0, sp.DeliveryCompleteCount())
		}},
		{name: "testAcquireReleasedRecord", run: func(t *testing.T, sp *SharePartition) {
			assert.Equal(t, []AcquiredRecords{ar(10, 14, 1)}, acq(t, sp, 0, m1, [2]int64{10, 14}))
			ack(t, sp, 1, m1, 12, 13, AckRelease)
			requireRange(t, sp, 10, 11, Acquired, 1, m1)
			requireRange(t, sp, 14, 14, Acquired, 1, m1)
			requireRange(t, sp, 12, 13, Available, 1, "")
			assert.EqualValues(t, 12, sp.NextFetchOffset())
			assert.Equal(t, []AcquiredRecords{ar(12, 13, 2)}, acq(t, sp, 2, m1, [2]int64{10, 14}))
			assert.EqualValues(t, 15, sp.NextFetchOffset())
		}},
		{name: "testAcquisitionLockTimeoutCauseMaxDeliveryCountExceed", cfg: limit(2), run: func(t *testing.T, sp *SharePartition) {
			acq(t, sp, 0, m1, [2]int64{0, 9})
			acq(t, sp, 0, m1, [2]int64{10, 19})
			expire(t, sp, 100)
			requireRange(t, sp, 0, 19, Available, 1, "")
			assert.EqualValues(t, 0, sp.NextFetchOffset())
			assert.Equal(t, []AcquiredRecords{ar(10, 19, 2)}, acq(t, sp, 100, m1, [2]int64{10, 19}))
			res := expire(t, sp, 200)
			assert.Equal(t, []StateChange{{10, 19, Archived, 2}}, res.Changes)
			requireRange(t, sp, 10, 19, Archived, 2, "")
			requireRange(t, sp, 0, 9, Available, 1, "")
			assert.EqualValues(t, 10, sp.DeliveryCompleteCount())
			assert.EqualValues(t, 0, sp.StartOffset())
		}},
		{name: "testAcquisitionLockTimeoutCauseSPSOMoveForward", cfg: limit(2), run: func(t *testing.T, sp *SharePartition) {
			acq(t, sp, 0, m1, [2]int64{0, 9})
			expire(t, sp, 100)
			requireRange(t, sp, 0, 9, Available, 1, "")
			assert.Equal(t, []AcquiredRecords{ar(0, 4, 2)}, acq(t, sp, 100, m1, [2]int64{0, 4}))
			expire(t, sp, 200)
			_, cached := sp.Record(4)
			assert.False(t, cached, "archived prefix dropped from the cache")
			requireRange(t, sp, 5, 9, Available, 1, "")
			assert.EqualValues(t, 5, sp.StartOffset())
			assert.EqualValues(t, 5, sp.NextFetchOffset())
		}},
		{name: "testAcknowledgeAfterAcquisitionLockTimeout", run: func(t *testing.T, sp *SharePartition) {
			acq(t, sp, 0, m1, [2]int64{5, 9})
			expire(t, sp, 100)
			_, err := sp.Acknowledge(100, m1, []AckBatch{{5, 9, AckAccept}})
			requireKafkaErr(t, kerr.InvalidRecordState, err)
			_, err = sp.Acknowledge(100, m1, []AckBatch{{5, 9, AckReject}})
			requireKafkaErr(t, kerr.InvalidRecordState, err)
			requireRange(t, sp, 5, 9, Available, 1, "")
		}},
		{name: "testAcknowledgeAfterAcquisitionLockDeadlineBeforeExpiryRuns", run: func(t *testing.T, sp *SharePartition) {
			// Our choice: deadline <= now means expired even before the timer ran.
			acq(t, sp, 0, m1, [2]int64{5, 9})
			_, err := sp.Acknowledge(100, m1, []AckBatch{{5, 9, AckAccept}})
			requireKafkaErr(t, kerr.InvalidRecordState, err)
			requireRange(t, sp, 5, 9, Acquired, 1, m1)
			ack(t, sp, 99, m1, 5, 9, AckAccept)
		}},
		{name: "testAcknowledgeWithAnotherMember", run: func(t *testing.T, sp *SharePartition) {
			acq(t, sp, 0, m1, [2]int64{5, 9})
			_, err := sp.Acknowledge(1, m2, []AckBatch{{5, 9, AckReject}})
			requireKafkaErr(t, kerr.InvalidRecordState, err)
			requireRange(t, sp, 5, 9, Acquired, 1, m1)
		}},
		{name: "testMaxDeliveryCountLimitExceededForRecordBatch", cfg: limit(2), run: func(t *testing.T, sp *SharePartition) {
			acq(t, sp, 0, m1, [2]int64{5, 14})
			ack(t, sp, 1, m1, 5, 14, AckRelease)
			acq(t, sp, 2, m1, [2]int64{5, 14})
			res := ack(t, sp, 3, m1, 5, 14, AckRelease)
			assert.Equal(t, []StateChange{{5, 14, Archived, 2}}, res.Changes)
			_, cached := sp.Record(5)
			assert.False(t, cached, "cache empty")
			assert.EqualValues(t, 15, sp.StartOffset())
			assert.EqualValues(t, 15, sp.EndOffset())
			assert.EqualValues(t, 15, sp.NextFetchOffset())
		}},
		{name: "testMaybeUpdateCachedStateWhenAcknowledgeTypeRelease", run: func(t *testing.T, sp *SharePartition) {
			acq(t, sp, 0, m1, [2]int64{0, 249})
			assert.False(t, sp.CanAcquireRecords(), "250 in flight over a limit of 200")
			ack(t, sp, 1, m1, 0, 249, AckRelease)
			assert.EqualValues(t, 0, sp.StartOffset())
			assert.EqualValues(t, 249, sp.EndOffset())
			requireRange(t, sp, 0, 249, Available, 1, "")
			assert.True(t, sp.CanAcquireRecords())
		}},
		{name: "testMaybeUpdateCachedStateWhenAcknowledgementsInBetween", cfg: maxInFlight(20), run: func(t *testing.T, sp *SharePartition) {
			acq(t, sp, 0, m1, [2]int64{0, 14})
			acq(t, sp, 0, m1, [2]int64{15, 29})
			ack(t, sp, 1, m1, 10, 14, AckReject)
			requireRange(t, sp, 10, 14, Archived, 1, "")
			assert.EqualValues(t, 0, sp.StartOffset())
			assert.EqualValues(t, 29, sp.EndOffset())
			assert.EqualValues(t, 30, sp.NextFetchOffset())
			assert.EqualValues(t, 5, sp.DeliveryCompleteCount())
			assert.False(t, sp.CanAcquireRecords())
		}},
		{name: "testAcquireWithMaxInFlightRecordsAndTryAcquireNewBatch", cfg: maxInFlight(20), run: func(t *testing.T, sp *SharePartition) {
			acq(t, sp, 0, m1, [2]int64{0, 9})
			got := acq(t, sp, 0, m1, [2]int64{10, 14}, [2]int64{15, 24}, [2]int64{25, 29}, [2]int64{30, 31})
			assert.Equal(t, []AcquiredRecords{ar(10, 24, 1)}, got, "soft limit: whole batch 15..24 taken")
			assert.EqualValues(t, 25, sp.NextFetchOffset())
			assert.Empty(t, acq(t, sp, 0, m1, [2]int64{25, 29}, [2]int64{30, 31}))
		}},
		{name: "testReleaseAcquiredRecordsDoNotDecreaseDeliveryCount", run: func(t *testing.T, sp *SharePartition) {
			acq(t, sp, 0, m1, [2]int64{0, 9})
			ack(t, sp, 1, m1, 0, 9, AckRelease)
			acq(t, sp, 2, m1, [2]int64{0, 9})
			res, err := sp.ReleaseMember(m1)
			require.NoError(t, err)
			assert.Equal(t, []StateChange{{0, 9, Available, 2}}, res.Changes)
			requireRange(t, sp, 0, 9, Available, 2, "")
			// Offsets that fell below SPSO while acquired are archived on release.
			acq(t, sp, 3, m1, [2]int64{0, 9})
			res, err = sp.UpdateLogStartOffset(5)
			require.NoError(t, err)
			assert.Empty(t, res.Changes, "acquired records below the log start stay acquired")
			assert.EqualValues(t, 5, sp.StartOffset())
			requireRange(t, sp, 0, 9, Acquired, 3, m1)
			ack(t, sp, 4, m1, 0, 6, AckRelease) // 0..4 are below SPSO: skipped
			requireRange(t, sp, 0, 4, Acquired, 3, m1)
			requireRange(t, sp, 5, 6, Available, 3, "")
			res, err = sp.ReleaseMember(m1)
			require.NoError(t, err)
			assert.Equal(t, []StateChange{{0, 4, Archived, 3}, {7, 9, Available, 3}}, res.Changes)
			_, cached := sp.Record(4)
			assert.False(t, cached)
			requireRange(t, sp, 5, 9, Available, 3, "")
			assert.EqualValues(t, 5, sp.StartOffset())
		}},
		{name: "testAcknowledgeRollbackWithFullBatchError", run: func(t *testing.T, sp *SharePartition) {
			acq(t, sp, 0, m1, [2]int64{5, 9})
			acq(t, sp, 0, m1, [2]int64{10, 14})
			acq(t, sp, 0, m2, [2]int64{15, 19})
			before := dump(sp)
			_, err := sp.Acknowledge(1, m1, []AckBatch{{5, 9, AckAccept}, {10, 14, AckRelease}, {15, 19, AckReject}})
			requireKafkaErr(t, kerr.InvalidRecordState, err)
			assert.Equal(t, before, dump(sp), "no offset of the request changed")
			requireRange(t, sp, 5, 14, Acquired, 1, m1)
		}},
		{name: "testAcknowledgeRollbackWithSubsetError", run: func(t *testing.T, sp *SharePartition) {
			acq(t, sp, 0, m1, [2]int64{5, 9})
			acq(t, sp, 0, m1, [2]int64{10, 14})
			acq(t, sp, 0, m2, [2]int64{15, 19})
			before := dump(sp)
			_, err := sp.Acknowledge(1, m1, []AckBatch{{5, 9, AckAccept}, {10, 16, AckRelease}})
			requireKafkaErr(t, kerr.InvalidRecordState, err)
			assert.Equal(t, before, dump(sp))
			_, err = sp.Acknowledge(1, m1, []AckBatch{{5, 9, AckAccept}, {12, 30, AckRelease}})
			requireKafkaErr(t, kerr.InvalidRequest, err) // 20..30 past SPEO
			assert.Equal(t, before, dump(sp))
		}},
	})
}

// Case 12: RENEW (KIP-1222) restarts the lock without persisting; refused
// on an expired lock or when renewal is disabled.
func TestKafkaRenewCases(t *testing.T) {
	withPersister := func(t *testing.T, cfg Config) (*SharePartition, *Persister) {
		p := NewPersister()
		require.NoError(t, p.Initialize(testKey, 0, 0))
		sp, err := New(testKey, cfg, 0, p)
		require.NoError(t, err)
		return sp, p
	}
	t.Run("testRenewAcknowledgeWithCompleteBatchAck", func(t *testing.T) {
		sp, p := withPersister(t, kafkaTestConfig())
		acq(t, sp, 0, m1, [2]int64{0, 9})
		writes := p.Writes()
		ack(t, sp, 50, m1, 0, 9, AckRenew)
		assert.Equal(t, writes, p.Writes(), "RENEW persists nothing")
		requireRange(t, sp, 0, 9, Acquired, 1, m1)
		d, ok := sp.NextLockDeadline()
		require.True(t, ok)
		assert.EqualValues(t, 150, d)
		assert.Empty(t, expire(t, sp, 100).Changes)
		assert.Equal(t, []StateChange{{0, 9, Available, 1}}, expire(t, sp, 150).Changes)
		assert.Equal(t, writes+1, p.Writes(), "expiry persists once")
	})
	t.Run("testRenewAcknowledgeWithPartialBatch", func(t *testing.T) {
		sp, _ := withPersister(t, kafkaTestConfig())
		acq(t, sp, 0, m1, [2]int64{0, 9})
		ack(t, sp, 50, m1, 2, 3, AckRenew)
		res := expire(t, sp, 100)
		assert.Equal(t, []StateChange{{0, 1, Available, 1}, {4, 9, Available, 1}}, res.Changes)
		requireRange(t, sp, 2, 3, Acquired, 1, m1)
		ack(t, sp, 149, m1, 2, 3, AckAccept)
	})
	t.Run("testRenewAcknowledgeOnExpiredBatch", func(t *testing.T) {
		sp, _ := withPersister(t, kafkaTestConfig())
		acq(t, sp, 0, m1, [2]int64{0, 9})
		expire(t, sp, 100)
		_, err := sp.Acknowledge(100, m1, []AckBatch{{0, 9, AckRenew}})
		requireKafkaErr(t, kerr.InvalidRecordState, err)
		requireRange(t, sp, 0, 9, Available, 1, "")
	})
	t.Run("testRenewAcknowledgeDisabledWithCompleteBatchAck", func(t *testing.T) {
		cfg := kafkaTestConfig()
		cfg.RenewDisabled = true
		sp, p := withPersister(t, cfg)
		acq(t, sp, 0, m1, [2]int64{0, 9})
		before, writes := dump(sp), p.Writes()
		_, err := sp.Acknowledge(50, m1, []AckBatch{{0, 9, AckRenew}})
		requireKafkaErr(t, kerr.InvalidRecordState, err)
		assert.Equal(t, before, dump(sp))
		assert.Equal(t, writes, p.Writes())
	})
}

// Case 13: a redelivered batch is halved on each failure past the
// threshold, down to single records on the last attempt.
func TestKafkaThrottlingCases(t *testing.T) {
	t.Run("testAcquireRecordsHalvesBatchSizeOnEachFailureUntilSingleRecordOnLastAttempt", func(t *testing.T) {
		cfg := kafkaTestConfig()
		cfg.MaxDeliveryCount = 7
		sp := newSP(t, cfg)
		require.NoError(t, sp.Recover(PersistedState{Key: testKey, StartOffset: 15,
			StateBatches: []StateBatch{{15, 34, Available, 4}}}))
		now := int64(0)
		step := func(want ...AcquiredRecords) []StateChange {
			t.Helper()
			assert.Equal(t, want, acq(t, sp, now, m1, [2]int64{15, 34}))
			now += 100
			return expire(t, sp, now).Changes
		}
		step(ar(15, 24, 5)) // 20 >> 1
		step(ar(15, 19, 6)) // 20 >> 2
		for off := int64(15); off <= 19; off++ {
			// Last attempt: alone, then archived at the limit.
			assert.Equal(t, []StateChange{{off, off, Archived, 7}}, step(ar(off, off, 7)))
		}
		assert.EqualValues(t, 20, sp.StartOffset())
		requireRange(t, sp, 20, 24, Available, 5, "")
		assert.Positive(t, sp.Stats().AcquireThrottled)
	})
}

// Case 24 (SharePartitionManagerTest): an acknowledgement from a member that
// does not hold the records is a partition error and changes nothing; a
// session close of that member releases nothing of another's.
func TestKafkaAcknowledgeWithWrongMember(t *testing.T) {
	sp := newSP(t, kafkaTestConfig())
	acq(t, sp, 0, m1, [2]int64{0, 9})
	before := dump(sp)
	for _, typ := range []AcknowledgeType{AckAccept, AckRelease, AckReject, AckRenew, AckGap} {
		_, err := sp.Acknowledge(1, m2, []AckBatch{{0, 9, typ}})
		requireKafkaErr(t, kerr.InvalidRecordState, err)
	}
	res, err := sp.ReleaseMember(m2)
	require.NoError(t, err)
	assert.Empty(t, res.Changes)
	assert.Equal(t, before, dump(sp))
	assert.EqualValues(t, 5, sp.Stats().AcksRefused)
}

// Case 25 (ShareConsumerDLQTest, KIP-1191): rejected and exhausted records go
// through ARCHIVING to the DLQ and become ARCHIVED whatever the write's
// outcome; with the DLQ gated off they are archived directly.
func TestKafkaDLQCases(t *testing.T) {
	dlq := func(c *Config) { c.DLQEnabled = true }
	runKafkaCases(t, []kafkaCase{
		{name: "testRejectedRecordWrittenToDlq", cfg: dlq, run: func(t *testing.T, sp *SharePartition) {
			acq(t, sp, 0, m1, [2]int64{0, 4})
			res := ack(t, sp, 1, m1, 0, 1, AckReject)
			assert.Equal(t, []DLQWrite{{0, 1, 1, DLQRejected}}, res.DLQ)
			requireRange(t, sp, 0, 1, Archiving, 1, "")
			ack(t, sp, 1, m1, 2, 4, AckAccept)
			assert.EqualValues(t, 0, sp.StartOffset(), "ARCHIVING blocks SPSO")
			assert.EqualValues(t, 3, sp.DeliveryCompleteCount())
			_, err := sp.CompleteDLQWrite(0, 2, true)
			requireKafkaErr(t, kerr.InvalidRecordState, err) // 2 is ACKNOWLEDGED
			_, err = sp.CompleteDLQWrite(0, 1, true)
			require.NoError(t, err)
			assert.EqualValues(t, 5, sp.StartOffset())
			assert.EqualValues(t, 2, sp.Stats().DLQWritten)
		}},
		{name: "testReleasedRecordsExceedingDeliveryCountWrittenToDlq", cfg: func(c *Config) { dlq(c); c.MaxDeliveryCount = 2 }, run: func(t *testing.T, sp *SharePartition) {
			acq(t, sp, 0, m1, [2]int64{0, 4})
			ack(t, sp, 1, m1, 0, 4, AckRelease)
			acq(t, sp, 2, m1, [2]int64{0, 4})
			res := ack(t, sp, 3, m1, 0, 1, AckRelease)
			assert.Equal(t, []DLQWrite{{0, 1, 2, DLQDeliveryCountExceeded}}, res.DLQ)
			res = expire(t, sp, 102) // lock expiry at the limit also goes to the DLQ
			assert.Equal(t, []DLQWrite{{2, 4, 2, DLQDeliveryCountExceeded}}, res.DLQ)
			_, err := sp.CompleteDLQWrite(0, 4, false) // failure never blocks progress
			require.NoError(t, err)
			assert.EqualValues(t, 5, sp.StartOffset())
			assert.EqualValues(t, 5, sp.Stats().DLQFailed)
		}},
		{name: "testDlqNotTriggeredWhenGatedOff", run: func(t *testing.T, sp *SharePartition) {
			acq(t, sp, 0, m1, [2]int64{0, 4})
			res := ack(t, sp, 1, m1, 0, 4, AckReject)
			assert.Empty(t, res.DLQ)
			assert.Equal(t, []StateChange{{0, 4, Archived, 1}}, res.Changes)
			assert.EqualValues(t, 5, sp.StartOffset())
		}},
	})
	t.Run("testDlqRecordsRoutedToCorrectDlqPartition", func(t *testing.T) {
		for _, c := range []struct{ p, n, want int32 }{{0, 3, 0}, {1, 3, 1}, {5, 3, 2}, {7, 1, 0}, {2, 0, -1}, {-1, 3, -1}} {
			assert.Equal(t, c.want, DLQPartition(c.p, c.n), "p=%d n=%d", c.p, c.n)
		}
	})
	t.Run("testArchivingResumedAfterRecovery", func(t *testing.T) {
		cfg := kafkaTestConfig()
		cfg.DLQEnabled = true
		p := NewPersister()
		require.NoError(t, p.Initialize(testKey, 0, 0))
		sp, err := New(testKey, cfg, 0, p)
		require.NoError(t, err)
		acq(t, sp, 0, m1, [2]int64{0, 4})
		ack(t, sp, 1, m1, 0, 1, AckReject)
		sp2, err := New(testKey, cfg, 1, p)
		require.NoError(t, err)
		assert.Equal(t, []DLQWrite{{0, 1, 1, DLQRejected}}, sp2.PendingDLQ())
		requireRange(t, sp2, 2, 4, Available, 0, "")
	})
}

// Case 26 (ShareConsumerLagTest, KIP-1226): lag drops on ACCEPT and REJECT,
// not on RELEASE.
func TestKafkaLag(t *testing.T) {
	sp := newSP(t, kafkaTestConfig())
	assert.EqualValues(t, -1, sp.Lag(10), "unknown before initialisation")
	acq(t, sp, 0, m1, [2]int64{0, 9})
	assert.EqualValues(t, 10, sp.Lag(10))
	ack(t, sp, 1, m1, 8, 9, AckAccept)
	assert.EqualValues(t, 8, sp.Lag(10), "ACCEPT above SPSO counts through deliveryCompleteCount")
	ack(t, sp, 1, m1, 2, 3, AckRelease)
	assert.EqualValues(t, 8, sp.Lag(10), "RELEASE does not drop lag")
	ack(t, sp, 1, m1, 0, 1, AckReject)
	assert.EqualValues(t, 6, sp.Lag(10))
	ack(t, sp, 1, m1, 4, 7, AckAccept)
	assert.EqualValues(t, 2, sp.Lag(10))
	acq(t, sp, 2, m1, [2]int64{2, 3})
	ack(t, sp, 3, m1, 2, 3, AckAccept)
	assert.EqualValues(t, 0, sp.Lag(10))
	assert.EqualValues(t, 5, sp.Lag(15), "new log records add lag")
}

// TestCreateBatches is SharePartition.createBatches: with Fetch.BatchSize
// set, new records come back as entries cut at a log batch base once an
// entry holds BatchSize records (so entries follow log batches), new
// records never share an entry with redelivered ones, and BatchSize 0 (or
// one above the records acquired) keeps one entry per contiguous run. A
// bad BatchSize is INVALID_REQUEST and changes nothing.
func TestCreateBatches(t *testing.T) {
	acquireSplit := func(t *testing.T, sp *SharePartition, nowMs int64, batchSize int32, batches ...[2]int64) []AcquiredRecords {
		t.Helper()
		f := logOf(batches...)
		f.BatchSize = batchSize
		res, _, err := sp.Acquire(nowMs, m1, f)
		require.NoError(t, err)
		require.NoError(t, sp.CheckInvariants())
		return res.Records
	}
	ones := [][2]int64{{0, 0}, {1, 1}, {2, 2}, {3, 3}, {4, 4}}

	sp := newSP(t, kafkaTestConfig())
	assert.Equal(t, []AcquiredRecords{ar(0, 1, 1), ar(2, 3, 1), ar(4, 4, 1)}, acquireSplit(t, sp, 0, 2, ones...),
		"five one-record batches, batch size 2")
	requireRange(t, sp, 0, 4, Acquired, 1, m1)

	sp = newSP(t, kafkaTestConfig())
	assert.Equal(t, []AcquiredRecords{ar(0, 4, 1), ar(5, 9, 1), ar(10, 14, 1)},
		acquireSplit(t, sp, 0, 3, [2]int64{0, 4}, [2]int64{5, 9}, [2]int64{10, 14}),
		"entries follow log batches: a batch of 5 is never cut at 3")

	sp = newSP(t, kafkaTestConfig())
	assert.Equal(t, []AcquiredRecords{ar(0, 2, 1), ar(3, 6, 1), ar(7, 7, 1)},
		acquireSplit(t, sp, 0, 3, [2]int64{0, 1}, [2]int64{2, 2}, [2]int64{3, 4}, [2]int64{5, 6}, [2]int64{7, 7}),
		"cut at the first batch base BatchSize or more records in")

	sp = newSP(t, kafkaTestConfig())
	assert.Equal(t, []AcquiredRecords{ar(0, 4, 1)}, acquireSplit(t, sp, 0, 0, ones...), "0: no split")
	sp = newSP(t, kafkaTestConfig())
	assert.Equal(t, []AcquiredRecords{ar(0, 4, 1)}, acquireSplit(t, sp, 0, 5, ones...), "the batch size is not exceeded")

	// Redelivered records keep their entry; only new ones are cut (batch
	// size 1: one entry per log batch).
	sp = newSP(t, kafkaTestConfig())
	acquireSplit(t, sp, 0, 0, ones...)
	ack(t, sp, 1, m1, 3, 4, AckRelease)
	assert.Equal(t, []AcquiredRecords{ar(3, 4, 2), ar(5, 5, 1), ar(6, 6, 1)},
		acquireSplit(t, sp, 2, 1, append(ones, [2]int64{5, 5}, [2]int64{6, 6})...))

	for _, bad := range []int32{-1, MaxBatchSize + 1} {
		sp = newSP(t, kafkaTestConfig())
		before := dump(sp)
		f := logOf(ones...)
		f.BatchSize = bad
		_, _, err := sp.Acquire(0, m1, f)
		assert.ErrorIs(t, err, kerr.InvalidRequest, "%d", bad)
		assert.Equal(t, before, dump(sp))
	}
}
