package connect

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/share"
)

// sinkFor resolves a sink of kind with the given tolerance and Connect DLQ.
func sinkFor(t *testing.T, kind SinkKind, tolerance, dlq string) SinkConfig {
	t.Helper()
	c := connectorProps("errors.tolerance", tolerance, "errors.deadletterqueue.topic.name", dlq)
	if kind == ShareSink {
		c["consumer.override.group.protocol"] = "share"
	}
	return mustResolve(t, nil, c)
}

// A conversion failure fails the task under errors.tolerance=none whatever
// else is set; under all it skips the record, reports it to Connect's DLQ
// when one is configured, and a share sink ACCEPTs it, or REJECTs it into
// the broker's KIP-1191 DLQ when the group has one.
func TestOnConvertFailure(t *testing.T) {
	fail := Decision{FailTask: true}
	cases := []struct {
		kind      SinkKind
		tolerance string
		dlq       string
		brokerDLQ bool
		want      Decision
	}{
		{ConsumerSink, "none", "", false, fail},
		{ConsumerSink, "none", "", true, fail},
		{ConsumerSink, "none", "dlq", false, fail},
		{ConsumerSink, "none", "dlq", true, fail},
		{ConsumerSink, "all", "", false, Decision{SkipRecord: true}},
		{ConsumerSink, "all", "", true, Decision{SkipRecord: true}},
		{ConsumerSink, "all", "dlq", false, Decision{SkipRecord: true, ToConnectDLQ: true}},
		{ConsumerSink, "all", "dlq", true, Decision{SkipRecord: true, ToConnectDLQ: true}},
		{ShareSink, "none", "", false, fail},
		{ShareSink, "none", "", true, fail},
		{ShareSink, "none", "dlq", false, fail},
		{ShareSink, "none", "dlq", true, fail},
		{ShareSink, "all", "", false, Decision{Ack: share.AckAccept, SkipRecord: true}},
		{ShareSink, "all", "", true, Decision{Ack: share.AckReject, SkipRecord: true}},
		{ShareSink, "all", "dlq", false, Decision{Ack: share.AckAccept, SkipRecord: true, ToConnectDLQ: true}},
		{ShareSink, "all", "dlq", true, Decision{Ack: share.AckReject, SkipRecord: true, ToConnectDLQ: true}},
	}
	for _, tc := range cases {
		name := tc.kind.String() + "/" + tc.tolerance + "/dlq=" + tc.dlq
		if tc.brokerDLQ {
			name += "/brokerDLQ"
		}
		t.Run(name, func(t *testing.T) {
			cfg := sinkFor(t, tc.kind, tc.tolerance, tc.dlq)
			got, err := cfg.OnConvertFailure(tc.brokerDLQ)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			viaOutcome, err := cfg.OnConvert(ConvertFailed, tc.brokerDLQ)
			require.NoError(t, err)
			assert.Equal(t, got, viaOutcome, "OnConvert(ConvertFailed) is OnConvertFailure")
			ok, err := cfg.OnConvert(ConvertOK, tc.brokerDLQ)
			require.NoError(t, err)
			assert.Equal(t, Decision{}, ok, "a converted record carries on to put()")
		})
	}
}

// put() outcomes (KIP-1302 test plan, "outcome mapping"): success ACCEPTs
// (share) or carries on to commit (consumer); RetriableException RELEASEs
// (share) or retries the batch locally (consumer); a fatal exception
// REJECTs the batch on a share sink, as KIP-1302 says ("Fatal Error: Marks
// records as REJECT"), or fails the task under FatalPutFailTask; a consumer
// sink always fails the task.
func TestOnPut(t *testing.T) {
	cases := []struct {
		kind   SinkKind
		policy FatalPutPolicy
		o      PutOutcome
		want   Decision
	}{
		{ConsumerSink, FatalPutReject, PutOK, Decision{}},
		{ConsumerSink, FatalPutReject, PutRetriable, Decision{RetrySameBatch: true}},
		{ConsumerSink, FatalPutReject, PutFatal, Decision{FailTask: true}},
		{ConsumerSink, FatalPutFailTask, PutFatal, Decision{FailTask: true}},
		{ShareSink, FatalPutReject, PutOK, Decision{Ack: share.AckAccept}},
		{ShareSink, FatalPutReject, PutRetriable, Decision{Ack: share.AckRelease}},
		{ShareSink, FatalPutReject, PutFatal, Decision{Ack: share.AckReject}},
		{ShareSink, FatalPutFailTask, PutOK, Decision{Ack: share.AckAccept}},
		{ShareSink, FatalPutFailTask, PutRetriable, Decision{Ack: share.AckRelease}},
		{ShareSink, FatalPutFailTask, PutFatal, Decision{FailTask: true}},
	}
	for _, tc := range cases {
		t.Run(tc.kind.String()+"/"+tc.policy.String()+"/"+tc.o.String(), func(t *testing.T) {
			// The tolerance and the DLQ are about conversion, not put():
			// they must not change the answer.
			for _, tolerance := range []string{"none", "all"} {
				cfg := sinkFor(t, tc.kind, tolerance, "dlq")
				cfg.OnFatalPut = tc.policy
				got, err := cfg.OnPut(tc.o)
				require.NoError(t, err)
				assert.Equal(t, tc.want, got)
			}
		})
	}
}

// TestParseFatalPutPolicy proves the scenario spelling round-trips and a
// typo is refused.
func TestParseFatalPutPolicy(t *testing.T) {
	for _, p := range []FatalPutPolicy{FatalPutReject, FatalPutFailTask} {
		got, err := ParseFatalPutPolicy(p.String())
		require.NoError(t, err)
		assert.Equal(t, p, got)
	}
	_, err := ParseFatalPutPolicy("fail")
	assert.ErrorIs(t, err, kerr.InvalidRequest)
}

// A forgotten outcome (the zero value), an out-of-range one, or a config
// that did not come from Resolve is INVALID_REQUEST with the zero
// Decision, never a silent ACCEPT.
func TestDecisionsRefuseBadInput(t *testing.T) {
	shareSink := sinkFor(t, ShareSink, "all", "")
	cases := []struct {
		name string
		call func() (Decision, error)
	}{
		{"put zero outcome", func() (Decision, error) { return shareSink.OnPut(0) }},
		{"put unknown outcome", func() (Decision, error) { return shareSink.OnPut(PutFatal + 1) }},
		{"put unknown fatal policy", func() (Decision, error) {
			c := shareSink
			c.OnFatalPut = FatalPutFailTask + 1
			return c.OnPut(PutOK)
		}},
		{"convert zero outcome", func() (Decision, error) { return shareSink.OnConvert(0, false) }},
		{"convert unknown outcome", func() (Decision, error) { return shareSink.OnConvert(-1, true) }},
		{"put on zero config", func() (Decision, error) { return SinkConfig{}.OnPut(PutOK) }},
		{"convert failure on zero config", func() (Decision, error) { return SinkConfig{ErrorsTolerance: ToleranceAll}.OnConvertFailure(false) }},
		{"convert ok on zero config", func() (Decision, error) { return SinkConfig{}.OnConvert(ConvertOK, false) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.call()
			assert.ErrorIs(t, err, kerr.InvalidRequest)
			assert.Equal(t, Decision{}, got)
		})
	}
}

// A decision prints every action it holds, and the zero Decision prints as
// CONTINUE rather than as share's GAP acknowledgement.
func TestDecisionString(t *testing.T) {
	assert.Equal(t, "CONTINUE", Decision{}.String())
	assert.Equal(t, "FAIL_TASK", Decision{FailTask: true}.String())
	assert.Equal(t, "RETRY_SAME_BATCH", Decision{RetrySameBatch: true}.String())
	assert.Equal(t, "SKIP_RECORD+CONNECT_DLQ+ACCEPT", Decision{Ack: share.AckAccept, SkipRecord: true, ToConnectDLQ: true}.String())
}

// TestOnPutAttemptRetryPolicy proves the in-task retry policy next to
// KIP-1302's RELEASE at once: a share sink renews its locks and retries a
// retriable batch RetriablePutRetries times (default 3), then RELEASEs;
// success and fatal failures are OnPut's answer; consumer sinks and the
// release policy are unchanged; bad settings are INVALID_REQUEST.
func TestOnPutAttemptRetryPolicy(t *testing.T) {
	cfg := sinkFor(t, ShareSink, "none", "")
	d, err := cfg.OnPutAttempt(PutRetriable, 0)
	require.NoError(t, err)
	assert.Equal(t, Decision{Ack: share.AckRelease}, d, "release is the default")
	cfg.OnRetriablePut = RetriablePutRetry
	for retries := range DefaultRetriablePutRetries {
		d, err := cfg.OnPutAttempt(PutRetriable, retries)
		require.NoError(t, err)
		assert.Equal(t, Decision{RenewLocks: true, RetrySameBatch: true}, d, "retry %d", retries)
		assert.Equal(t, "RENEW+RETRY_SAME_BATCH", d.String())
	}
	d, err = cfg.OnPutAttempt(PutRetriable, DefaultRetriablePutRetries)
	require.NoError(t, err)
	assert.Equal(t, Decision{Ack: share.AckRelease}, d, "out of retries: release")
	cfg.RetriablePutRetries = 1
	d, _ = cfg.OnPutAttempt(PutRetriable, 1)
	assert.Equal(t, Decision{Ack: share.AckRelease}, d)
	d, _ = cfg.OnPutAttempt(PutOK, 1)
	assert.Equal(t, Decision{Ack: share.AckAccept}, d)
	cons := sinkFor(t, ConsumerSink, "none", "")
	cons.OnRetriablePut = RetriablePutRetry
	d, _ = cons.OnPutAttempt(PutRetriable, 0)
	assert.Equal(t, Decision{RetrySameBatch: true}, d, "consumer sinks always retry the batch")
	for _, bad := range []func(*SinkConfig){
		func(c *SinkConfig) { c.OnRetriablePut = RetriablePutRetry + 1 },
		func(c *SinkConfig) { c.RetriablePutRetries = -1 },
		func(c *SinkConfig) { c.RetriablePutRetries = MaxRetriablePutRetries + 1 },
	} {
		c := cfg
		bad(&c)
		d, err := c.OnPutAttempt(PutRetriable, 0)
		assert.ErrorIs(t, err, kerr.InvalidRequest)
		assert.Equal(t, Decision{}, d)
	}
	_, err = cfg.OnPutAttempt(PutRetriable, -1)
	assert.ErrorIs(t, err, kerr.InvalidRequest)
	p, err := ParseRetriablePutPolicy("retry")
	require.NoError(t, err)
	assert.Equal(t, RetriablePutRetry, p)
	_, err = ParseRetriablePutPolicy("again")
	assert.ErrorIs(t, err, kerr.InvalidRequest)
}
