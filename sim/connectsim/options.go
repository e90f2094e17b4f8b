package connectsim

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/coordsim/coordsim/connect"
)

// Workload is a Kafka Connect workload on the simulated cluster:
// producers writing to data topics and sink connectors reading them, either
// as KIP-1302 share sinks (WorkerShareSinkTask on a share group) or as
// classic WorkerSinkTasks on a consumer group. Share partitions live in a
// simulated broker layer (package sharebroker); group membership goes
// through the coordinators like every other client's.
type Workload struct {
	// Topics are the data topics (name → partitions). They join the
	// coordinators' metadata image alongside sim.Workload.Topics.
	Topics map[string]int32
	// Producers write to the topics during the workload phase.
	Producers []Producer
	// Connectors run from their StartAt until the drain ends.
	Connectors []Connector
	// Drain bounds how long sinks keep running after the workload phase
	// (faults healed, producers stopped): they stop gracefully as soon as
	// every record is processed, or at the bound (default 1h). Then every
	// record of a running share sink must be acknowledged or archived.
	Drain time.Duration

	// Broker-level share-group settings (group.share.*). Zero takes Kafka's
	// default: lock 30 s, delivery limit 5, 2000 record locks.
	RecordLockDuration time.Duration
	DeliveryCountLimit int32
	MaxRecordLocks     int64
	// DLQWriteDelay is how long a KIP-1191 dead-letter write takes.
	DLQWriteDelay time.Duration
	// ConnectionIdleTimeout is connections.max.idle.ms: how long after a
	// task is killed the broker closes its connection and share session
	// (default 10m).
	ConnectionIdleTimeout time.Duration
}

// Producer writes batches of BatchRecords records, round-robin over the
// topic's partitions, at RatePerSec records per second of virtual time.
type Producer struct {
	Topic        string
	RatePerSec   float64
	BatchRecords int32
	// StartAt and StopAt bound when it produces (StopAt 0: until the end of
	// the workload phase).
	StartAt time.Duration
	StopAt  time.Duration
}

// Connector is one sink connector: the worker and connector configuration
// Connect would see (package connect resolves them), its task schedule and
// how its SinkTask.put behaves.
type Connector struct {
	// Worker and Config are the worker's and the connector's properties, as
	// in a Connect worker file and a connector's JSON ("name", "topics",
	// "tasks.max", "consumer.override.group.protocol", "errors.tolerance",
	// ...).
	Worker map[string]string
	Config map[string]string
	// StartAt is when the connector starts.
	StartAt time.Duration
	// Scale changes the running task count at the given times (tasks.max
	// is the count until the first step).
	Scale []ScaleStep
	// Kills kill a task hard (no close, no leave) the next time it is inside
	// put() at or after At; a killed task is not restarted.
	Kills []TaskKill
	// ResetOffsets reset a share sink's group offsets (stop, alter when
	// EMPTY, start again); see OffsetReset.
	ResetOffsets []OffsetReset
	// GroupConfigChanges alter a share sink's group config while it runs;
	// see GroupConfigChange.
	GroupConfigChanges []GroupConfigChange

	// MaxPollRecords is max.poll.records (default 500).
	MaxPollRecords int32
	// PutLatencyMin/Max bound one put() call's duration; PutPerRecord adds
	// a cost per record.
	PutLatencyMin time.Duration
	PutLatencyMax time.Duration
	PutPerRecord  time.Duration
	// PutRetriableProb and PutFatalProb make put() throw RetriableException
	// or a fatal exception; ConvertFailProb fails a record's conversion.
	PutRetriableProb float64
	PutFatalProb     float64
	ConvertFailProb  float64
	// FatalPut is what a share sink does when put() throws a fatal
	// exception: "reject" (KIP-1302 as written, the default: the batch is
	// REJECTed, to the dead-letter queue when BrokerDLQ is set) or
	// "fail_task" (WorkerSinkTask's answer: the task fails, its batch is
	// released for redelivery). Consumer sinks always fail the task.
	FatalPut string
	// RetriablePut is what a share sink does when put() throws
	// RetriableException: "release" (KIP-1302 as written, the default:
	// RELEASE the batch at once) or "retry" (renew the locks and call put()
	// again after a second, RetriablePutRetries times (default 3), then
	// RELEASE).
	RetriablePut        string
	RetriablePutRetries int
	// RestartFailedAfter restarts a FAILED task after this long (0: a
	// failed task stays failed, as Connect does without an operator).
	RestartFailedAfter time.Duration
	// RebalancePause is how long a consumer-group sink task stops consuming
	// whenever its assignment changes (join, revocation, open); default 3 s.
	RebalancePause time.Duration
	// FlushInterval is offset.flush.interval.ms for consumer-group sinks
	// (default 60 s).
	FlushInterval time.Duration
	// NewTask builds the connector's SinkTask, one per task started (a
	// restarted task gets a new one); nil runs the built-in simulated sink,
	// whose put() fails with PutRetriableProb and PutFatalProb. The worker
	// calls it in Connect's order (connect.SinkTask); it must be
	// deterministic. A scenario file cannot set it; Go callers can.
	NewTask func() connect.SinkTask
	// BrokerDLQ sets the share group's KIP-1191 dead-letter topic
	// (errors.deadletterqueue.topic.name, a group config); the topic is
	// created with 2 partitions.
	BrokerDLQ string
	// ExistingGroup, when set, creates the connector's group id as a group
	// of this type ("consumer" or "streams") before the connector starts,
	// to exercise the collision check.
	ExistingGroup string
}

// ScaleStep sets the connector's task count at At.
type ScaleStep struct {
	At    time.Duration
	Tasks int
}

// TaskKill kills task Task (its index) at or after At, inside put().
type TaskKill struct {
	At   time.Duration
	Task int
}

// Limits on a Connect workload (TIGER_STYLE).
const (
	maxConnectors      = 64
	maxTasksPerSink    = 1000
	maxProducers       = 256
	maxProduceRate     = 1_000_000
	maxDataPartitions  = 10_000
	defaultMaxPoll     = 500
	defaultRebalance   = 3 * time.Second
	defaultFlush       = time.Minute
	defaultDrain       = time.Hour
	maxRecordsPerBatch = 100_000
	// maxProducedRecords bounds a run's records: the checker keeps about
	// 25 bytes per record and share sink.
	maxProducedRecords = 10_000_000
)

// Validate checks the Connect workload and resolves every connector's
// configuration; the error names the field.
func (c *Workload) Validate(d time.Duration) error {
	bad := func(field, why string, args ...any) error {
		return fmt.Errorf("sim: invalid connect.%s: %s", field, fmt.Sprintf(why, args...))
	}
	if len(c.Topics) == 0 {
		return bad("topics", "at least one data topic is needed")
	}
	total := int32(0)
	for _, name := range slices.Sorted(maps.Keys(c.Topics)) {
		if n := c.Topics[name]; n < 1 || n > maxDataPartitions {
			return bad("topics", "topic %q needs 1..%d partitions, got %d", name, maxDataPartitions, n)
		}
		total += c.Topics[name]
		if name == "" {
			return bad("topics", "empty topic name")
		}
	}
	if total > maxDataPartitions {
		return bad("topics", "at most %d data partitions in total", maxDataPartitions)
	}
	if len(c.Producers) > maxProducers {
		return bad("producers", "at most %d", maxProducers)
	}
	for i, p := range c.Producers {
		switch {
		case c.Topics[p.Topic] == 0:
			return bad(fmt.Sprintf("producers[%d].topic", i), "%q is not a data topic", p.Topic)
		case p.RatePerSec <= 0 || p.RatePerSec > maxProduceRate:
			return bad(fmt.Sprintf("producers[%d].rate", i), "must be in (0, %d] records/s", maxProduceRate)
		case p.BatchRecords < 1 || p.BatchRecords > maxRecordsPerBatch:
			return bad(fmt.Sprintf("producers[%d].batch_records", i), "must be in [1, %d]", maxRecordsPerBatch)
		case p.StartAt < 0 || p.StopAt < 0 || (p.StopAt > 0 && p.StopAt <= p.StartAt) || p.StartAt >= d:
			return bad(fmt.Sprintf("producers[%d]", i), "need 0 <= start_at < stop_at (or stop_at 0) and start_at < duration")
		}
	}
	total64 := 0.0
	for _, p := range c.Producers {
		stop := d
		if p.StopAt > 0 {
			stop = min(stop, p.StopAt)
		}
		total64 += p.RatePerSec * max(stop-p.StartAt, 0).Seconds()
	}
	if total64 > maxProducedRecords {
		return bad("producers", "produce about %.0f records; at most %d in one run (lower rate or duration)", total64, maxProducedRecords)
	}
	if len(c.Connectors) == 0 || len(c.Connectors) > maxConnectors {
		return bad("connectors", "need 1..%d connectors", maxConnectors)
	}
	for i, k := range c.Connectors {
		f := func(s string) string { return fmt.Sprintf("connectors[%d].%s", i, s) }
		switch {
		case k.StartAt < 0 || k.StartAt >= d:
			return bad(f("start_at"), "must be in [0, duration)")
		case k.MaxPollRecords < 0 || k.MaxPollRecords > maxRecordsPerBatch:
			return bad(f("max_poll_records"), "must be in [0, %d]", maxRecordsPerBatch)
		case k.PutLatencyMin < 0 || k.PutLatencyMax < k.PutLatencyMin || k.PutLatencyMax > time.Hour || k.PutPerRecord < 0 || k.PutPerRecord > time.Second:
			return bad(f("put_latency"), "need 0 <= min <= max <= 1h and 0 <= per_record <= 1s")
		case !prob(k.PutRetriableProb) || !prob(k.PutFatalProb) || !prob(k.ConvertFailProb) || k.PutRetriableProb+k.PutFatalProb > 1:
			return bad(f("probabilities"), "must be in [0, 1] (retriable + fatal <= 1)")
		case k.RestartFailedAfter < 0 || k.RebalancePause < 0 || k.FlushInterval < 0:
			return bad(f("durations"), "must be >= 0")
		case k.RetriablePut != "" && k.RetriablePut != "release" && k.RetriablePut != "retry":
			return bad(f("retriable_put"), "must be release or retry, got %q", k.RetriablePut)
		case k.RetriablePutRetries < 0 || k.RetriablePutRetries > connect.MaxRetriablePutRetries:
			return bad(f("retriable_put_retries"), "must be in [0, %d]", connect.MaxRetriablePutRetries)
		case k.FatalPut != "" && k.FatalPut != "reject" && k.FatalPut != "fail_task":
			return bad(f("fatal_put"), "must be reject or fail_task, got %q", k.FatalPut)
		case k.ExistingGroup != "" && k.ExistingGroup != "consumer" && k.ExistingGroup != "streams" && k.ExistingGroup != "share":
			return bad(f("existing_group"), "must be consumer, streams or share, got %q", k.ExistingGroup)
		}
		for j, s := range k.Scale {
			if s.At < k.StartAt || s.At >= d || s.Tasks < 0 || s.Tasks > maxTasksPerSink || (j > 0 && s.At <= k.Scale[j-1].At) {
				return bad(f(fmt.Sprintf("scale[%d]", j)), "need ascending times in [start_at, duration) and 0..%d tasks", maxTasksPerSink)
			}
		}
		for j, r := range k.ResetOffsets {
			if err := validateReset(i, j, r, d); err != nil {
				return err
			}
		}
		for j, c := range k.GroupConfigChanges {
			if err := validateGroupConfigChange(i, j, c, d); err != nil {
				return err
			}
		}
		for j, kl := range k.Kills {
			if kl.At < 0 || kl.At >= d || kl.Task < 0 || kl.Task >= maxTasksPerSink {
				return bad(f(fmt.Sprintf("kills[%d]", j)), "need 0 <= at < duration and 0 <= task < %d", maxTasksPerSink)
			}
		}
	}
	switch {
	case c.Drain < 0 || c.Drain > 24*time.Hour:
		return bad("drain", "must be in [0, 24h]")
	case c.RecordLockDuration != 0 && (c.RecordLockDuration < time.Second || c.RecordLockDuration > time.Hour):
		return bad("record_lock_duration", "must be in [1s, 1h]")
	case c.DeliveryCountLimit != 0 && (c.DeliveryCountLimit < 2 || c.DeliveryCountLimit > 10):
		return bad("delivery_count_limit", "must be in [2, 10] (group.share.delivery.count.limit)")
	case c.MaxRecordLocks != 0 && (c.MaxRecordLocks < 100 || c.MaxRecordLocks > 10_000):
		return bad("max_record_locks", "must be in [100, 10000] (group.share.partition.max.record.locks)")
	case c.DLQWriteDelay < 0 || c.DLQWriteDelay > time.Minute:
		return bad("dlq_write_delay", "must be in [0, 1m]")
	case c.ConnectionIdleTimeout < 0 || c.ConnectionIdleTimeout > 24*time.Hour:
		return bad("connection_idle_timeout", "must be in [0, 24h]")
	}
	_, err := resolveConnectors(c)
	return err
}

func prob(p float64) bool { return p >= 0 && p <= 1 }

// drain returns the drain period, defaulted.
func (c *Workload) drain() time.Duration {
	if c.Drain == 0 {
		return defaultDrain
	}
	return c.Drain
}
