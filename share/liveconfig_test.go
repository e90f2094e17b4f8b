package share

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/kerr"
)

// Live group-config changes (issue 14): Kafka trunk's SharePartition reads
// share.delivery.count.limit and share.record.lock.duration.ms from the
// group config on every use, so a change reaches live share-partitions.

func update(t *testing.T, sp *SharePartition, cfg Config) Result {
	t.Helper()
	res, err := sp.UpdateConfig(cfg)
	require.NoError(t, err)
	require.NoError(t, sp.CheckInvariants())
	return res
}

// TestDynamicDeliveryCountDecreaseCausesArchival reproduces the trunk case:
// records delivered three times under limit 10 (no poison-pill throttling
// yet); the limit drops to 2. The
// AVAILABLE ones (count 3 ≥ 2) are archived at once; the ACQUIRED ones keep
// their count and are archived on their next release, not made available.
func TestDynamicDeliveryCountDecreaseCausesArchival(t *testing.T) {
	cfg := kafkaTestConfig()
	cfg.MaxDeliveryCount = 10
	sp := newSP(t, cfg)
	now := int64(0)
	for range 3 {
		acq(t, sp, now, m1, [2]int64{0, 9})
		now += 100
		expire(t, sp, now)
	}
	requireRange(t, sp, 0, 9, Available, 3, "")
	assert.Equal(t, []AcquiredRecords{ar(0, 9, 4)}, acq(t, sp, now, m1, [2]int64{0, 9}))
	ack(t, sp, now+1, m1, 5, 9, AckRelease) // 5..9 AVAILABLE at count 4
	cfg.MaxDeliveryCount = 2
	res := update(t, sp, cfg)
	assert.Equal(t, []StateChange{{FirstOffset: 5, LastOffset: 9, State: Archived, DeliveryCount: 4}}, res.Changes, "AVAILABLE over the new limit: archived at once")
	requireRange(t, sp, 0, 4, Acquired, 4, m1)
	requireRange(t, sp, 5, 9, Archived, 4, "")
	assert.Equal(t, cfg.MaxDeliveryCount, sp.Config().MaxDeliveryCount)

	res = ack(t, sp, now+2, m1, 0, 1, AckRelease)
	assert.Equal(t, []StateChange{{FirstOffset: 0, LastOffset: 1, State: Archived, DeliveryCount: 4}}, res.Changes, "released over the limit: archived")
	res = expire(t, sp, now+100)
	assert.Equal(t, []StateChange{{FirstOffset: 2, LastOffset: 4, State: Archived, DeliveryCount: 4}}, res.Changes, "expired over the limit: archived")
	assert.EqualValues(t, 10, sp.StartOffset(), "everything archived")
	assert.EqualValues(t, 10, sp.Stats().ArchivedAtLimit)
}

// TestDynamicDeliveryCountDecreaseWithDLQ proves the archived records go
// through ARCHIVING to the dead-letter queue, cause "delivery count
// exceeded", when the DLQ is on.
func TestDynamicDeliveryCountDecreaseWithDLQ(t *testing.T) {
	cfg := kafkaTestConfig()
	cfg.DLQEnabled = true
	sp := newSP(t, cfg)
	acq(t, sp, 0, m1, [2]int64{0, 4})
	expire(t, sp, 100)
	acq(t, sp, 100, m1, [2]int64{0, 4})
	expire(t, sp, 200) // count 2, AVAILABLE
	cfg.MaxDeliveryCount = 2
	res := update(t, sp, cfg)
	assert.Equal(t, []DLQWrite{{FirstOffset: 0, LastOffset: 4, DeliveryCount: 2, Cause: DLQDeliveryCountExceeded}}, res.DLQ)
	requireRange(t, sp, 0, 4, Archiving, 2, "")
}

// TestDynamicDeliveryCountIncrease proves raising the limit archives
// nothing and lets AVAILABLE records be delivered past the old limit.
func TestDynamicDeliveryCountIncrease(t *testing.T) {
	cfg := kafkaTestConfig()
	cfg.MaxDeliveryCount = 2
	sp := newSP(t, cfg)
	acq(t, sp, 0, m1, [2]int64{0, 0})
	expire(t, sp, 100)
	cfg.MaxDeliveryCount = 4
	assert.Empty(t, update(t, sp, cfg).Changes)
	acq(t, sp, 100, m1, [2]int64{0, 0})
	expire(t, sp, 200) // count 2 is now under the limit: AVAILABLE again
	requireRange(t, sp, 0, 0, Available, 2, "")
}

// TestDynamicLockDurationAppliesToNewAcquisitions proves a new lock duration
// governs acquisitions and renewals from the change on, while a running
// lock keeps its deadline.
func TestDynamicLockDurationAppliesToNewAcquisitions(t *testing.T) {
	sp := newSP(t, kafkaTestConfig())
	acq(t, sp, 0, m1, [2]int64{0, 4})
	cfg := kafkaTestConfig()
	cfg.RecordLockDurationMs = 1000
	update(t, sp, cfg)
	info, _ := sp.Record(0)
	assert.EqualValues(t, 100, info.LockDeadlineMs, "the running lock keeps its deadline")
	res, _, err := sp.Acquire(10, m2, logOf([2]int64{0, 4}, [2]int64{5, 9}))
	require.NoError(t, err)
	assert.EqualValues(t, 1000, res.AcquisitionLockTimeoutMs)
	assert.EqualValues(t, 1010, res.LockDeadlineMs)
	ack(t, sp, 20, m1, 0, 4, AckRenew)
	info, _ = sp.Record(0)
	assert.EqualValues(t, 1020, info.LockDeadlineMs, "a renewal takes the new duration")
}

// TestDynamicAutoOffsetResetAppliesAtInitialisation proves
// share.auto.offset.reset is read when the partition initialises: changed
// before the first fetch it decides the start; changed after, nothing moves.
func TestDynamicAutoOffsetResetAppliesAtInitialisation(t *testing.T) {
	cfg := kafkaTestConfig()
	cfg.AutoOffsetReset = ResetLatest
	sp := newSP(t, cfg)
	cfg.AutoOffsetReset = ResetEarliest
	update(t, sp, cfg)
	acq(t, sp, 0, m1, [2]int64{0, 4})
	assert.EqualValues(t, 0, sp.StartOffset(), "earliest, read at initialisation")
	cfg.AutoOffsetReset = ResetLatest
	update(t, sp, cfg)
	assert.EqualValues(t, 0, sp.StartOffset(), "an initialised partition does not reset")
}

// TestUpdateConfigBadInput proves UpdateConfig refuses invalid or fixed
// settings and changes nothing.
func TestUpdateConfigBadInput(t *testing.T) {
	sp := newSP(t, kafkaTestConfig())
	acq(t, sp, 0, m1, [2]int64{0, 4})
	before := dump(sp)
	for name, edit := range map[string]func(*Config){ // order-free: each case stands alone
		"limit 1":       func(c *Config) { c.MaxDeliveryCount = 1 },
		"negative lock": func(c *Config) { c.RecordLockDurationMs = -1 },
		"batch size":    func(c *Config) { c.BatchSize = 7 },
		"dlq":           func(c *Config) { c.DLQEnabled = true },
	} {
		cfg := kafkaTestConfig()
		edit(&cfg)
		_, err := sp.UpdateConfig(cfg)
		assert.ErrorIs(t, err, kerr.InvalidRequest, name)
		assert.Equal(t, before, dump(sp), name)
		assert.Equal(t, kafkaTestConfig().MaxDeliveryCount, sp.Config().MaxDeliveryCount, name)
	}
}
