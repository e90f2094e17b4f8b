package connectsim

import (
	"github.com/coordsim/coordsim/metrics"
	"github.com/coordsim/coordsim/share"
)

// Connect's sink-task metrics (WorkerSinkTask's SinkTaskMetricsGroup,
// group "sink-task-metrics"), per connector over all its tasks, plus the
// share acknowledgements by type a share sink sent and the broker applied.
// Connect's rates are windowed (two 30 s samples); at the end of a
// simulation that window only sees the idle drain, so the rates here are
// averages over the connector's running time, from its start to the end of
// the drain.

// SinkTaskMetrics are one connector's task metrics.
type SinkTaskMetrics struct {
	RecordReadTotal             int64   `json:"sink_record_read_total"`
	RecordReadRate              float64 `json:"sink_record_read_rate"`
	RecordSendTotal             int64   `json:"sink_record_send_total"`
	RecordSendRate              float64 `json:"sink_record_send_rate"`
	PutBatchAvgTimeMs           float64 `json:"put_batch_avg_time_ms"`
	PutBatchMaxTimeMs           int64   `json:"put_batch_max_time_ms"`
	OffsetCommitCompletionTotal int64   `json:"offset_commit_completion_total"`
	OffsetCommitCompletionRate  float64 `json:"offset_commit_completion_rate"`
	OffsetCommitSkipTotal       int64   `json:"offset_commit_skip_total"`
	OffsetCommitSkipRate        float64 `json:"offset_commit_skip_rate"`
	// Share sinks: records acknowledged by type, as the broker applied them.
	AcksAccept  int64 `json:"share_acks_accept,omitempty"`
	AcksRelease int64 `json:"share_acks_release,omitempty"`
	AcksReject  int64 `json:"share_acks_reject,omitempty"`
	AcksRenew   int64 `json:"share_acks_renew,omitempty"`
}

// taskMetrics is what the worker accumulates per connector.
type taskMetrics struct {
	startedMs          int64
	read               int64 // consumer sinks: records polled (share sinks count acquisitions)
	putCount, putSumMs int64
	putMaxMs           int64
	commits, skips     int64
}

func (m *taskMetrics) putTook(ms int64) {
	m.putCount++
	m.putSumMs += ms
	m.putMaxMs = max(m.putMaxMs, ms)
}

// countAcks adds n applied acknowledgements of type typ.
func (m *SinkTaskMetrics) countAcks(typ share.AcknowledgeType, n int64) {
	switch typ {
	case share.AckAccept:
		m.AcksAccept += n
	case share.AckRelease:
		m.AcksRelease += n
	case share.AckReject:
		m.AcksReject += n
	case share.AckRenew:
		m.AcksRenew += n
	}
}

// finishMetrics fills s.res.Metrics at nowMs.
func (s *sink) finishMetrics(nowMs int64) {
	m := &s.res.Metrics
	tm := &s.tm
	m.RecordReadTotal, m.RecordSendTotal = s.res.Deliveries, s.res.Received
	if s.cfg.Kind.String() != "share" {
		m.RecordReadTotal = tm.read
	}
	m.OffsetCommitCompletionTotal, m.OffsetCommitSkipTotal = tm.commits, tm.skips
	if tm.putCount > 0 {
		m.PutBatchAvgTimeMs = float64(tm.putSumMs) / float64(tm.putCount)
	}
	m.PutBatchMaxTimeMs = tm.putMaxMs
	if secs := float64(nowMs-tm.startedMs) / 1000; s.started && secs > 0 {
		m.RecordReadRate = float64(m.RecordReadTotal) / secs
		m.RecordSendRate = float64(m.RecordSendTotal) / secs
		m.OffsetCommitCompletionRate = float64(m.OffsetCommitCompletionTotal) / secs
		m.OffsetCommitSkipRate = float64(m.OffsetCommitSkipTotal) / secs
	}
}

// MetricSamples exports every started connector's task metrics with the
// tag connector=<name>, for the run's metrics export.
func (cw *Sim) MetricSamples() []metrics.Sample {
	var out []metrics.Sample
	for _, s := range cw.sinks {
		if !s.started {
			continue
		}
		m := s.res.Metrics
		add := func(name, desc string, kind metrics.Kind, v float64) {
			n, err := metrics.NewMetricName(name, "sink-task-metrics", desc, "connector", s.cfg.Name)
			if err == nil {
				out = append(out, metrics.Sample{Name: n, Kind: kind, Value: v})
			}
		}
		add("sink-record-read-total", "records read from Kafka by the connector's tasks", metrics.KindCounter, float64(m.RecordReadTotal))
		add("sink-record-read-rate", "records read per second, averaged over the connector's run", metrics.KindGauge, m.RecordReadRate)
		add("sink-record-send-total", "records put successfully", metrics.KindCounter, float64(m.RecordSendTotal))
		add("sink-record-send-rate", "records put successfully per second, averaged over the connector's run", metrics.KindGauge, m.RecordSendRate)
		add("put-batch-avg-time-ms", "average time of a put() call", metrics.KindGauge, m.PutBatchAvgTimeMs)
		add("put-batch-max-time-ms", "longest put() call", metrics.KindGauge, float64(m.PutBatchMaxTimeMs))
		add("offset-commit-completion-total", "commits that completed (share sinks: acknowledgement commits)", metrics.KindCounter, float64(m.OffsetCommitCompletionTotal))
		add("offset-commit-completion-rate", "completed commits per second, averaged over the connector's run", metrics.KindGauge, m.OffsetCommitCompletionRate)
		add("offset-commit-skip-total", "commits skipped with nothing to commit", metrics.KindCounter, float64(m.OffsetCommitSkipTotal))
		add("offset-commit-skip-rate", "skipped commits per second, averaged over the connector's run", metrics.KindGauge, m.OffsetCommitSkipRate)
		if s.cfg.Kind.String() == "share" {
			for _, a := range []struct {
				typ string
				n   int64
			}{{"accept", m.AcksAccept}, {"release", m.AcksRelease}, {"reject", m.AcksReject}, {"renew", m.AcksRenew}} {
				n, err := metrics.NewMetricName("share-acknowledgement-total", "sink-task-metrics", "records acknowledged, by type, as the broker applied them", "connector", s.cfg.Name, "type", a.typ)
				if err == nil {
					out = append(out, metrics.Sample{Name: n, Kind: metrics.KindCounter, Value: float64(a.n)})
				}
			}
		}
	}
	return out
}
