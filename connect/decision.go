package connect

import (
	"strings"

	"github.com/coordsim/coordsim/internal/enumname"
	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/share"
)

// ConvertOutcome is how converting and transforming one record (converter
// and SMT chain) ended. The zero value is invalid so a forgotten field is
// caught: the decision functions answer INVALID_REQUEST for it.
type ConvertOutcome int8

// The conversion outcomes.
const (
	// ConvertOK: the record goes into the batch handed to put().
	ConvertOK ConvertOutcome = iota + 1
	// ConvertFailed: a converter or SMT threw; errors.tolerance decides.
	ConvertFailed
)

var convertOutcomes = enumname.New("ConvertOutcome", ConvertOK, "ConvertOK", "ConvertFailed")

// String names the outcome for traces.
func (o ConvertOutcome) String() string { return convertOutcomes.String(o) }

// PutOutcome is how one SinkTask.put(batch) call ended. The zero value is
// invalid, as for ConvertOutcome.
type PutOutcome int8

// The put() outcomes.
const (
	// PutOK: put() returned normally.
	PutOK PutOutcome = iota + 1
	// PutRetriable: put() threw a RetriableException.
	PutRetriable
	// PutFatal: put() threw any other exception.
	PutFatal
)

var putOutcomes = enumname.New("PutOutcome", PutOK, "PutOK", "PutRetriable", "PutFatal")

// String names the outcome for traces.
func (o PutOutcome) String() string { return putOutcomes.String(o) }

// Decision says what a task does with a record or a batch after an outcome
// (§4.2's outcome mapping). The zero Decision means "carry on": the record
// proceeds to put(), or, after a successful put() on a consumer sink, its
// offsets become committable at the next flush.
type Decision struct {
	// Ack is the acknowledgement a share sink sends for the record or batch
	// (AckAccept, AckRelease or AckReject); 0 (share.AckGap, never sent by a
	// sink) means none: always for consumer sinks, and for a share sink
	// that carries on or fails.
	Ack share.AcknowledgeType
	// FailTask: the task dies (FAILED). A share sink's close then releases
	// its un-acknowledged records for redelivery to other tasks.
	FailTask bool
	// RetrySameBatch: a consumer sink pauses its partitions and hands the
	// same batch to put() again (WorkerSinkTask's RetriableException path).
	RetrySameBatch bool
	// SkipRecord: the record is left out of the batch handed to put()
	// (errors.tolerance=all).
	SkipRecord bool
	// ToConnectDLQ: the record is reported to Connect's KIP-298 DLQ topic.
	ToConnectDLQ bool
	// RenewLocks: before retrying the batch, a share sink renews its
	// records' acquisition locks (KIP-1222's RENEW acknowledgement) so they
	// stay its own while it waits (RetriablePutRetry).
	RenewLocks bool
}

// String lists what the decision does, for traces: e.g. "ACCEPT",
// "RELEASE", "FAIL_TASK", "SKIP_RECORD+CONNECT_DLQ+REJECT", or "CONTINUE"
// for the zero Decision. Printing Ack 0 as share's "GAP" would mislead.
func (d Decision) String() string {
	var parts []string
	if d.FailTask {
		parts = append(parts, "FAIL_TASK")
	}
	if d.RenewLocks {
		parts = append(parts, "RENEW")
	}
	if d.RetrySameBatch {
		parts = append(parts, "RETRY_SAME_BATCH")
	}
	if d.SkipRecord {
		parts = append(parts, "SKIP_RECORD")
	}
	if d.ToConnectDLQ {
		parts = append(parts, "CONNECT_DLQ")
	}
	if d.Ack != 0 {
		parts = append(parts, d.Ack.String())
	}
	if len(parts) == 0 {
		return "CONTINUE"
	}
	return strings.Join(parts, "+")
}

// checkKind refuses a SinkConfig that did not come from Resolve.
func (c SinkConfig) checkKind() error {
	if !c.Kind.valid() {
		return kerr.InvalidRequest.WithMessage("connect: sink kind %v: the config did not come from Resolve", c.Kind)
	}
	return nil
}

// OnConvert maps one record's conversion outcome to a Decision: ConvertOK
// carries on (the zero Decision), ConvertFailed is OnConvertFailure. An
// unknown outcome or an unresolved config is INVALID_REQUEST.
func (c SinkConfig) OnConvert(o ConvertOutcome, brokerDLQ bool) (Decision, error) {
	switch o {
	case ConvertOK:
		return Decision{}, c.checkKind()
	case ConvertFailed:
		return c.OnConvertFailure(brokerDLQ)
	}
	return Decision{}, kerr.InvalidRequest.WithMessage("connect: unknown convert outcome %v", o)
}

// OnConvertFailure maps a converter/SMT failure (§3.2, §4.2). With
// errors.tolerance=none the task fails, for both kinds, and a share sink
// acknowledges nothing (its close releases the record). With all the record
// is skipped: reported to Connect's DLQ when DLQTopic is set, and a share
// sink ACCEPTs it, or REJECTs it when brokerDLQ says the share group has a
// KIP-1191 DLQ, so the broker copies it there. brokerDLQ is ignored for
// consumer sinks. An unresolved config is INVALID_REQUEST.
func (c SinkConfig) OnConvertFailure(brokerDLQ bool) (Decision, error) {
	if err := c.checkKind(); err != nil {
		return Decision{}, err
	}
	if c.ErrorsTolerance != ToleranceAll {
		return Decision{FailTask: true}, nil
	}
	d := Decision{SkipRecord: true, ToConnectDLQ: c.DLQTopic != ""}
	if c.Kind == ShareSink {
		d.Ack = share.AckAccept
		if brokerDLQ {
			d.Ack = share.AckReject
		}
	}
	return d, nil
}

// FatalPutPolicy is what a share sink does when put() throws a
// non-retriable exception. The zero value is KIP-1302 as written.
type FatalPutPolicy int8

// The fatal put() policies.
const (
	// FatalPutReject REJECTs the batch: KIP-1302's "Fatal Error: Marks
	// records as REJECT (routes to Dead Letter Queue if configured)". The
	// task goes on. Without a KIP-1191 dead-letter queue the batch is
	// archived and its data is gone (counted as lost_rejected).
	FatalPutReject FatalPutPolicy = iota
	// FatalPutFailTask fails the task, as WorkerSinkTask does: nothing is
	// acknowledged, the close releases the batch, another task (or the
	// restarted one) gets it again, and only the delivery limit archives it.
	// It never drops data on a transient-but-misclassified error, at the
	// price of a stopped task per delivery of a poison batch.
	FatalPutFailTask
)

var fatalPutPolicies = enumname.New("FatalPutPolicy", FatalPutReject, "reject", "fail_task")

// String names the policy as the scenario files spell it.
func (p FatalPutPolicy) String() string { return fatalPutPolicies.String(p) }

// ParseFatalPutPolicy reads "reject" or "fail_task" ("" is reject).
func ParseFatalPutPolicy(s string) (FatalPutPolicy, error) {
	if s == "" {
		s = "reject"
	}
	if p, ok := fatalPutPolicies.Parse(s); ok {
		return p, nil
	}
	return 0, kerr.InvalidRequest.WithMessage("connect: fatal put policy %q is not reject or fail_task", s)
}

// RetriablePutPolicy is what a share sink does when put() throws
// RetriableException. The zero value is KIP-1302 as written.
type RetriablePutPolicy int8

// The retriable put() policies.
const (
	// RetriablePutRelease RELEASEs the batch at once (§4.2): another task
	// may take it, its delivery count grows, and at the delivery limit the
	// broker archives it (to the DLQ when configured, else it is lost).
	RetriablePutRelease RetriablePutPolicy = iota
	// RetriablePutRetry keeps the batch: the task RENEWs its locks and
	// calls put() again after a back-off, up to SinkConfig.RetriablePutRetries
	// times, and RELEASEs only then. Transient failures then cost time in
	// the task rather than deliveries at the broker.
	RetriablePutRetry
)

var retriablePutPolicies = enumname.New("RetriablePutPolicy", RetriablePutRelease, "release", "retry")

// String names the policy as the scenario files spell it.
func (p RetriablePutPolicy) String() string { return retriablePutPolicies.String(p) }

// ParseRetriablePutPolicy reads "release" or "retry" ("" is release).
func ParseRetriablePutPolicy(s string) (RetriablePutPolicy, error) {
	if s == "" {
		s = "release"
	}
	if p, ok := retriablePutPolicies.Parse(s); ok {
		return p, nil
	}
	return 0, kerr.InvalidRequest.WithMessage("connect: retriable put policy %q is not release or retry", s)
}

// DefaultRetriablePutRetries is how many times RetriablePutRetry calls
// put() again before it releases, when RetriablePutRetries is 0.
const DefaultRetriablePutRetries = 3

// MaxRetriablePutRetries bounds RetriablePutRetries.
const MaxRetriablePutRetries = 100

// OnPutAttempt is OnPut for a batch put() already retried `retries` times
// in the task. Under RetriablePutRetry a share sink's retriable failure
// renews the locks and retries the batch until retries reaches
// RetriablePutRetries (default 3), then RELEASEs it; everything else is
// OnPut's answer. A negative retries count is INVALID_REQUEST.
func (c SinkConfig) OnPutAttempt(o PutOutcome, retries int) (Decision, error) {
	d, err := c.OnPut(o)
	if err != nil {
		return d, err
	}
	if retries < 0 {
		return Decision{}, kerr.InvalidRequest.WithMessage("connect: negative put retries %d", retries)
	}
	if c.Kind != ShareSink || o != PutRetriable || c.OnRetriablePut != RetriablePutRetry {
		return d, nil
	}
	limit := c.RetriablePutRetries
	if limit == 0 {
		limit = DefaultRetriablePutRetries
	}
	if retries < limit {
		return Decision{RenewLocks: true, RetrySameBatch: true}, nil
	}
	return d, nil
}

// OnPut maps a put() outcome for the whole batch (§4.2). PutOK: a share
// sink ACCEPTs, a consumer sink carries on (offsets committable).
// PutRetriable: a share sink RELEASEs the batch (no local retry; the
// delivery count grows and the broker archives at the limit), a consumer
// sink retries the same batch. PutFatal: a share sink follows
// c.OnFatalPut (REJECT by default, as KIP-1302 says; fail the task with
// FatalPutFailTask); a consumer sink fails the task (WorkerSinkTask). An
// unknown outcome or policy, or an unresolved config, is INVALID_REQUEST.
func (c SinkConfig) OnPut(o PutOutcome) (Decision, error) {
	if err := c.checkKind(); err != nil {
		return Decision{}, err
	}
	if c.OnFatalPut != FatalPutReject && c.OnFatalPut != FatalPutFailTask {
		return Decision{}, kerr.InvalidRequest.WithMessage("connect: unknown fatal put policy %v", c.OnFatalPut)
	}
	if (c.OnRetriablePut != RetriablePutRelease && c.OnRetriablePut != RetriablePutRetry) || c.RetriablePutRetries < 0 || c.RetriablePutRetries > MaxRetriablePutRetries {
		return Decision{}, kerr.InvalidRequest.WithMessage("connect: retriable put policy %v with %d retries", c.OnRetriablePut, c.RetriablePutRetries)
	}
	shareSink := c.Kind == ShareSink
	switch o {
	case PutOK:
		if shareSink {
			return Decision{Ack: share.AckAccept}, nil
		}
		return Decision{}, nil
	case PutRetriable:
		if shareSink {
			return Decision{Ack: share.AckRelease}, nil
		}
		return Decision{RetrySameBatch: true}, nil
	case PutFatal:
		if shareSink && c.OnFatalPut == FatalPutReject {
			return Decision{Ack: share.AckReject}, nil
		}
		return Decision{FailTask: true}, nil
	}
	return Decision{}, kerr.InvalidRequest.WithMessage("connect: unknown put outcome %v", o)
}
