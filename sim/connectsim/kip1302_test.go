package connectsim_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/connect"
	"github.com/coordsim/coordsim/sim"
	"github.com/coordsim/coordsim/sim/connectsim"
)

// TestRetriableReleaseArchivedAtLimitCountsAsLost proves the loss class of
// issue 14: under heavy transient put() failures RELEASE-at-once (KIP-1302)
// drives records to the delivery limit; without a dead-letter queue the
// broker archives them and nobody keeps their data. They are counted as
// lost at the delivery limit (not as an invariant-8 loss), every offset is
// classified once, and a DLQ'd run counts none.
func TestRetriableReleaseArchivedAtLimitCountsAsLost(t *testing.T) {
	run := func(dlq string) connectsim.SinkResult {
		c := shareSink("s", "2")
		c.PutRetriableProb = 0.6
		c.BrokerDLQ = dlq
		o := connectOptions(1, 10*time.Minute, map[string]int32{"t": 2}, []connectsim.Producer{{Topic: "t", RatePerSec: 20, BatchRecords: 5}}, c)
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
	for _, s := range []connectsim.SinkResult{noDLQ, withDLQ} {
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
	run := func(policy, dlq string) connectsim.SinkResult {
		c := shareSink("s", "2")
		c.PutFatalProb = 0.05
		c.FatalPut, c.BrokerDLQ = policy, dlq
		c.RestartFailedAfter = 10 * time.Second
		r, err := sim.Run(connectOptions(1, 10*time.Minute, map[string]int32{"t": 2}, []connectsim.Producer{{Topic: "t", RatePerSec: 20, BatchRecords: 5}}, c), nil)
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
	run := func(timeout string) connectsim.SinkResult {
		c := shareSink("s", "2")
		c.PutLatencyMin, c.PutLatencyMax = 12*time.Second, 15*time.Second
		if timeout != "" {
			c.Config["share.acquisition.lock.timeout.ms"] = timeout
		}
		r, err := sim.Run(connectOptions(1, 5*time.Minute, map[string]int32{"t": 2}, []connectsim.Producer{{Topic: "t", RatePerSec: 5, BatchRecords: 5}}, c), nil)
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

// reportingTask is a user SinkTask that reports every tenth offset as
// errant (KIP-610's ErrantRecordReporter) and writes the rest.
type reportingTask struct {
	ctx   connect.SinkTaskContext
	calls *[]string
}

func (r *reportingTask) Initialize(ctx connect.SinkTaskContext) {
	r.ctx = ctx
	*r.calls = append(*r.calls, "initialize")
}
func (r *reportingTask) Start(map[string]string) error {
	*r.calls = append(*r.calls, "start")
	return nil
}
func (r *reportingTask) Open([]connect.TopicPartition) { *r.calls = append(*r.calls, "open") }
func (r *reportingTask) Close([]connect.TopicPartition) {
	*r.calls = append(*r.calls, "close")
}
func (r *reportingTask) Stop() { *r.calls = append(*r.calls, "stop") }
func (r *reportingTask) Put(recs []connect.SinkRecord) error {
	for _, rec := range recs {
		if rec.Offset%10 == 0 {
			r.ctx.ErrantRecordReporter().Report(rec, errors.New("bad row"))
		}
	}
	return nil
}
func (r *reportingTask) PreCommit(c map[connect.TopicPartition]int64) map[connect.TopicPartition]int64 {
	return c
}

// TestErrantRecordReporter proves a user SinkTask plugs into the simulated
// worker and that records its put() reports go to the dead-letter queue
// while the rest of the batch is ACCEPTed: with a KIP-1191 DLQ through
// REJECT, with Connect's DLQ (errors.tolerance=all) as a report; under
// errors.tolerance=none a report fails the task. The worker calls the task
// in Connect's order: initialize, start, open (once, every partition of the
// topic) ... close, stop.
func TestErrantRecordReporter(t *testing.T) {
	run := func(edit func(*connectsim.Connector)) (connectsim.SinkResult, []string) {
		var calls []string
		c := shareSink("s", "1")
		c.NewTask = func() connect.SinkTask { return &reportingTask{calls: &calls} }
		edit(&c)
		r, err := sim.Run(connectOptions(1, 5*time.Minute, map[string]int32{"t": 2}, []connectsim.Producer{{Topic: "t", RatePerSec: 20, BatchRecords: 5}}, c), nil)
		require.NoError(t, err)
		require.Nil(t, r.Violation, "%+v", r.Violation)
		return sinkNamed(t, r, "s"), calls
	}
	broker, calls := run(func(c *connectsim.Connector) { c.Config["errors.tolerance"] = "all"; c.BrokerDLQ = "dlq.s" })
	t.Logf("broker DLQ: unique %d reported %d dead-lettered %d", broker.Unique, broker.Reported, broker.DeadLettered)
	assert.Positive(t, broker.Reported)
	assert.Equal(t, broker.Reported, broker.DeadLettered, "reported records REJECTed into the broker's DLQ")
	assert.Equal(t, broker.Produced, broker.Unique+broker.Reported, "the rest ACCEPTed")
	assert.Equal(t, []string{"initialize", "start", "open", "close", "stop"}, calls, "Connect's order, open once for a share sink")

	connectDLQ, _ := run(func(c *connectsim.Connector) {
		c.Config["errors.tolerance"] = "all"
		c.Config["errors.deadletterqueue.topic.name"] = "connect-dlq"
	})
	assert.Positive(t, connectDLQ.Reported)
	assert.Equal(t, connectDLQ.Reported, connectDLQ.ConnectDLQ)
	assert.Zero(t, connectDLQ.Lost+connectDLQ.Undelivered)

	none, _ := run(func(*connectsim.Connector) {})
	assert.Positive(t, none.TasksFailed, "errors.tolerance=none: a report fails the task")
}

// TestRetriablePutPolicies runs share-retry-policy: under 60 % transient
// put() failures without a DLQ, KIP-1302's RELEASE-at-once archives records
// at the delivery limit (lost); the in-task retry with renewed locks (RENEW
// before RELEASE) loses a small fraction of that (a batch that fails four
// puts in a row is still released), and the consumer-group sink puts every
// record.
func TestRetriablePutPolicies(t *testing.T) {
	r := runScenario(t, "share-retry-policy", 1)
	rel, retry, cons := sinkNamed(t, r, "share-release"), sinkNamed(t, r, "share-retry"), sinkNamed(t, r, "consumer-retry")
	for _, s := range []connectsim.SinkResult{rel, retry, cons} {
		t.Logf("%s: unique %d duplicates %d archived %d lost at limit %d throughput %.0f/s", s.Name, s.Unique, s.Duplicates, s.Archived, s.LostAtLimit, s.ThroughputPerSec)
		assert.Zero(t, s.Lost+s.Undelivered, s.Name)
	}
	assert.Positive(t, rel.LostAtLimit, "release at once loses records at the limit")
	assert.Less(t, 10*retry.LostAtLimit, rel.LostAtLimit, "retrying in the task loses at most a tenth of that")
	assert.Zero(t, cons.LostAtLimit)
	assert.Equal(t, r.Produced, retry.Unique+retry.Archived)
	assert.Equal(t, r.Produced, cons.Unique)
	assert.Positive(t, retry.PutRetries)
	assert.Positive(t, retry.Renewals, "each retry renews the batch's locks")
	assert.Less(t, retry.Redeliveries, rel.Redeliveries)

	// Connect's sink-task metrics follow the same story (and reach the
	// metrics export, tagged by connector).
	assert.Equal(t, retry.Unique, retry.Metrics.AcksAccept)
	assert.Positive(t, retry.Metrics.AcksRenew)
	assert.Zero(t, rel.Metrics.AcksRenew)
	assert.Equal(t, rel.Unique, rel.Metrics.AcksAccept)
	assert.Positive(t, rel.Metrics.AcksRelease)
	assert.Equal(t, r.Produced, cons.Metrics.RecordReadTotal, "a batch put again is not read again")
	assert.Equal(t, cons.Received, cons.Metrics.RecordSendTotal)
	assert.Positive(t, cons.Metrics.OffsetCommitCompletionTotal)
	for _, s := range []connectsim.SinkResult{rel, retry, cons} {
		assert.Positive(t, s.Metrics.PutBatchAvgTimeMs, s.Name)
		assert.LessOrEqual(t, s.Metrics.PutBatchMaxTimeMs, int64(500), s.Name)
		assert.Positive(t, s.Metrics.RecordSendRate, s.Name)
	}
	found := 0
	for _, m := range r.Metrics {
		if m.Name.Group == "sink-task-metrics" && m.Name.Name == "sink-record-send-total" {
			found++
		}
	}
	assert.Equal(t, 3, found, "one sink-record-send-total per connector in the export")
}

// TestShareSinkRollbackCollides is KIP-1302's rollback: the share sink
// delivers everything and stops, its share group stays; the connector
// started again as a consumer sink under the same default group id is
// refused, and the refusal names exactly the admin step that resolves it.
func TestShareSinkRollbackCollides(t *testing.T) {
	r := runScenario(t, "share-rollback", 1)
	shareSink, rollback := sinkNamed(t, r, "orders"), sinkNamed(t, r, "orders-rollback")
	assert.Equal(t, r.Produced, shareSink.Unique)
	assert.Zero(t, rollback.TasksStarted)
	assert.Contains(t, rollback.Refused, "group connect-orders already exists as a share group")
	assert.Contains(t, rollback.Refused, "kafka-share-groups.sh --bootstrap-server <broker> --delete --group connect-orders")
	assert.Contains(t, rollback.Refused, "INCONSISTENT_GROUP_PROTOCOL")
}
