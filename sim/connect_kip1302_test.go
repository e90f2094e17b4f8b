package sim_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/sim"
)

// TestRetriableReleaseArchivedAtLimitCountsAsLost proves the loss class of
// issue 14: under heavy transient put() failures RELEASE-at-once (KIP-1302)
// drives records to the delivery limit; without a dead-letter queue the
// broker archives them and nobody keeps their data. They are counted as
// lost at the delivery limit (not as an invariant-8 loss), every offset is
// classified once, and a DLQ'd run counts none.
func TestRetriableReleaseArchivedAtLimitCountsAsLost(t *testing.T) {
	run := func(dlq string) sim.SinkResult {
		c := shareSink("s", "2")
		c.PutRetriableProb = 0.6
		c.BrokerDLQ = dlq
		o := connectOptions(1, 10*time.Minute, map[string]int32{"t": 2}, []sim.Producer{{Topic: "t", RatePerSec: 20, BatchRecords: 5}}, c)
		o.Connect.DeliveryCountLimit = 3
		r, err := sim.Run(o, nil)
		require.NoError(t, err)
		require.Nil(t, r.Violation, "%+v", r.Violation)
		s := sinkNamed(t, r, "s")
		t.Logf("dlq %q: produced %d, unique %d, archived %d, lost at limit %d, dead-lettered %d", dlq, r.Produced, s.Unique, s.Archived, s.LostAtLimit, s.DeadLettered)
		assert.Zero(t, s.Lost+s.Undelivered)
		assert.Equal(t, r.Produced, s.Unique+s.Archived, "every record put, or archived at the limit unput")
		return s
	}
	noDLQ := run("")
	assert.Positive(t, noDLQ.LostAtLimit, "60 %% transient failures with limit 3 archive records")
	assert.Zero(t, noDLQ.LostRejected)
	assert.Equal(t, noDLQ.Archived, noDLQ.LostAtLimit, "no archived record was ever put")
	withDLQ := run("dlq.s")
	assert.Zero(t, withDLQ.LostAtLimit+withDLQ.LostRejected, "a DLQ keeps them")
	assert.Positive(t, withDLQ.DeadLettered)
}

// TestShareLiveGroupConfig runs the share-live-config scenario: lowering a
// running share group's delivery-count limit archives records over it (the
// sink without a DLQ loses them at the limit, the one with a DLQ keeps
// them), nothing is delivered over the limit in force (invariant 8 checks
// every acquisition), and every record is put or archived.
func TestShareLiveGroupConfig(t *testing.T) {
	r := runScenario(t, "share-live-config", 1)
	noDLQ, withDLQ := sinkNamed(t, r, "no-dlq"), sinkNamed(t, r, "with-dlq")
	t.Logf("no-dlq: unique %d archived %d lost at limit %d; with-dlq: unique %d archived %d dead-lettered %d",
		noDLQ.Unique, noDLQ.Archived, noDLQ.LostAtLimit, withDLQ.Unique, withDLQ.Archived, withDLQ.DeadLettered)
	assert.EqualValues(t, 6, r.Marks["share-group-config-changed"])
	for _, s := range []sim.SinkResult{noDLQ, withDLQ} {
		assert.Zero(t, s.Lost+s.Undelivered, s.Name)
		assert.Equal(t, r.Produced, s.Unique+s.Archived, "%s: put or archived", s.Name)
	}
	assert.Positive(t, noDLQ.LostAtLimit)
	assert.Zero(t, withDLQ.LostAtLimit)
	assert.Equal(t, withDLQ.Archived, withDLQ.DeadLettered)
}

// TestFatalPutRejectsBatch is KIP-1302's outcome mapping for a fatal put():
// "Marks records as REJECT (routes to Dead Letter Queue if configured)".
// By default no task fails; without a DLQ the rejected batches are
// archived and counted as lost_rejected, with one they are dead-lettered.
// fatal_put: fail_task keeps WorkerSinkTask's answer: tasks fail, batches
// come back, nothing is rejected.
func TestFatalPutRejectsBatch(t *testing.T) {
	run := func(policy, dlq string) sim.SinkResult {
		c := shareSink("s", "2")
		c.PutFatalProb = 0.05
		c.FatalPut, c.BrokerDLQ = policy, dlq
		c.RestartFailedAfter = 10 * time.Second
		r, err := sim.Run(connectOptions(1, 10*time.Minute, map[string]int32{"t": 2}, []sim.Producer{{Topic: "t", RatePerSec: 20, BatchRecords: 5}}, c), nil)
		require.NoError(t, err)
		require.Nil(t, r.Violation, "%+v", r.Violation)
		s := sinkNamed(t, r, "s")
		t.Logf("%s dlq=%q: unique %d archived %d lost rejected %d dead-lettered %d tasks failed %d", policy, dlq, s.Unique, s.Archived, s.LostRejected, s.DeadLettered, s.TasksFailed)
		assert.Zero(t, s.Lost+s.Undelivered)
		assert.Positive(t, s.PutFatal)
		return s
	}
	def := run("", "")
	assert.Zero(t, def.TasksFailed, "REJECT is the default: no task fails")
	assert.Positive(t, def.LostRejected)
	assert.Equal(t, def.Archived, def.LostRejected)
	dlq := run("reject", "dlq.s")
	assert.Zero(t, dlq.TasksFailed+dlq.LostRejected)
	assert.Equal(t, dlq.Archived, dlq.DeadLettered)
	fail := run("fail_task", "")
	assert.Positive(t, fail.TasksFailed)
	assert.Zero(t, fail.LostRejected)
}

// TestAcquisitionLockTimeoutMapped proves KIP-1302's
// share.acquisition.lock.timeout.ms reaches the share group as
// share.record.lock.duration.ms: with 20 s locks a 12–15 s put() renews its
// locks (every half lock), which the default 30 s lock would not need.
func TestAcquisitionLockTimeoutMapped(t *testing.T) {
	run := func(timeout string) sim.SinkResult {
		c := shareSink("s", "2")
		c.PutLatencyMin, c.PutLatencyMax = 12*time.Second, 15*time.Second
		if timeout != "" {
			c.Config["share.acquisition.lock.timeout.ms"] = timeout
		}
		r, err := sim.Run(connectOptions(1, 5*time.Minute, map[string]int32{"t": 2}, []sim.Producer{{Topic: "t", RatePerSec: 5, BatchRecords: 5}}, c), nil)
		require.NoError(t, err)
		require.Nil(t, r.Violation, "%+v", r.Violation)
		return sinkNamed(t, r, "s")
	}
	assert.Zero(t, run("").Renewals, "30 s locks outlive the puts")
	assert.Positive(t, run("20000").Renewals, "20 s locks are renewed")
	o := connectOptions(1, 5*time.Minute, map[string]int32{"t": 2}, nil, shareSink("s", "1"))
	o.Connect.Connectors[0].Config["share.acquisition.lock.timeout.ms"] = "5000"
	_, err := sim.Run(o, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "share.record.lock.duration.ms", "the refusal names the real key")
}
