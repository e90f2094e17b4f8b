package metrics

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goldenSamples is a registry exercising every exposition rule: a meter (rate
// and "-count"), a "-total" counter, a counter without suffix, a gauge ending in
// "-count", tagged families, escaping, a missing description, NaN.
func goldenSamples(t *testing.T) []Sample {
	t.Helper()
	r := newRegistry(t)
	commits, err := r.Sensor("OffsetCommits")
	require.NoError(t, err)
	require.NoError(t, commits.AddMeter(MustMetricName("offset-commit", testGroup, ""),
		NewMeter(WithDescriptions("The rate of committed offsets", "The total number of committed offsets"))))
	require.NoError(t, commits.Add(MustMetricName("offset-commit-max", testGroup, "Largest commit\nin offsets \\ request"), NewMax()))
	cycles, err := r.Sensor("CleanupCycles")
	require.NoError(t, err)
	require.NoError(t, cycles.Add(MustMetricName("cleanup-cycle-skipped-total", testGroup, "Ticks dropped while a cycle was in flight"), NewCumulativeCount()))
	require.NoError(t, cycles.Add(MustMetricName("rebalances", testGroup, ""), NewCumulativeSum()))
	require.NoError(t, r.AddMetric(MustMetricName("offset-count", testGroup, "The number of committed offsets"), func(int64) float64 { return 12 }))
	_, err = r.RegisterCollector(func(_ int64, emit func(MetricName, Kind, float64)) {
		for _, p := range []string{"streams", "classic", "consumer", "share"} {
			emit(MustMetricName("group-count", testGroup, "The number of groups", "protocol", p), KindGauge, float64(len(p)))
		}
		emit(MustMetricName("group-offset-count", testGroup, "Offsets per group", "group-id", "a\"b\\c\nd"), KindGauge, 2)
		emit(MustMetricName("group-offset-count", testGroup, "Offsets per group", "group-id", "plain"), KindGauge, 1)
	})
	require.NoError(t, err)

	commits.RecordValue(10, 0)
	commits.RecordValue(5, 40_000)
	cycles.RecordValue(2, 40_000)
	return r.Snapshot(45_000)
}

// TestWritePrometheusGolden proves the exposition format: snake_case families
// with the prefix, sorted families and series, HELP and TYPE lines, counters
// ending in _total ("-count" replaced, "-total" kept, otherwise appended),
// rates and gauges typed gauge, and escaped HELP texts and label values.
func TestWritePrometheusGolden(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, WritePrometheus(&b, goldenSamples(t), "kafka_coordinator_"))
	want := `# HELP kafka_coordinator_cleanup_cycle_skipped_total Ticks dropped while a cycle was in flight
# TYPE kafka_coordinator_cleanup_cycle_skipped_total counter
kafka_coordinator_cleanup_cycle_skipped_total 1
# HELP kafka_coordinator_group_count The number of groups
# TYPE kafka_coordinator_group_count gauge
kafka_coordinator_group_count{protocol="classic"} 7
kafka_coordinator_group_count{protocol="consumer"} 8
kafka_coordinator_group_count{protocol="share"} 5
kafka_coordinator_group_count{protocol="streams"} 7
# HELP kafka_coordinator_group_offset_count Offsets per group
# TYPE kafka_coordinator_group_offset_count gauge
kafka_coordinator_group_offset_count{group_id="a\"b\\c\nd"} 2
kafka_coordinator_group_offset_count{group_id="plain"} 1
# HELP kafka_coordinator_offset_commit_max Largest commit\nin offsets \\ request
# TYPE kafka_coordinator_offset_commit_max gauge
kafka_coordinator_offset_commit_max 10
# HELP kafka_coordinator_offset_commit_rate The rate of committed offsets
# TYPE kafka_coordinator_offset_commit_rate gauge
kafka_coordinator_offset_commit_rate 0.3333333333333333
# HELP kafka_coordinator_offset_commit_total The total number of committed offsets
# TYPE kafka_coordinator_offset_commit_total counter
kafka_coordinator_offset_commit_total 15
# HELP kafka_coordinator_offset_count The number of committed offsets
# TYPE kafka_coordinator_offset_count gauge
kafka_coordinator_offset_count 12
# HELP kafka_coordinator_rebalances_total Kafka metric group-coordinator-metrics:rebalances
# TYPE kafka_coordinator_rebalances_total counter
kafka_coordinator_rebalances_total 2
`
	assert.Equal(t, want, b.String())
}

// TestWritePrometheusOrderIndependent proves the output depends on the set of
// samples only: reversed input gives the same bytes.
func TestWritePrometheusOrderIndependent(t *testing.T) {
	samples := goldenSamples(t)
	reversed := make([]Sample, len(samples))
	for i, s := range samples {
		reversed[len(samples)-1-i] = s
	}
	var a, b bytes.Buffer
	require.NoError(t, WritePrometheus(&a, samples, "p_"))
	require.NoError(t, WritePrometheus(&b, reversed, "p_"))
	assert.Equal(t, a.String(), b.String())
}

// TestWriteTextGolden proves the plain dump: one canonical line per sample, in
// snapshot order, with exact values including NaN.
func TestWriteTextGolden(t *testing.T) {
	samples := []Sample{
		{Name: MustMetricName("a-rate", "g", "ignored"), Kind: KindGauge, Value: 5.0 / 51},
		{Name: MustMetricName("a-count", "g", "", "state", "x\"y"), Kind: KindCounter, Value: 1e21},
		{Name: MustMetricName("b", "g", ""), Kind: KindGauge, Value: math.NaN()},
	}
	var b bytes.Buffer
	require.NoError(t, WriteText(&b, samples))
	assert.Equal(t, `g:a-rate gauge 0.09803921568627451
g:a-count{state="x\"y"} counter 1e+21
g:b gauge NaN
`, b.String())
}

// TestWritePrometheusErrors proves conflicts and bad input are errors and
// nothing is written.
func TestWritePrometheusErrors(t *testing.T) {
	gauge := func(name MetricName) Sample { return Sample{Name: name, Kind: KindGauge, Value: 1} }
	counter := func(name MetricName) Sample { return Sample{Name: name, Kind: KindCounter, Value: 1} }
	for _, tc := range []struct {
		name    string
		samples []Sample
		prefix  string
		want    error
	}{
		{"same series from two groups", []Sample{gauge(MustMetricName("x", "a", "")), gauge(MustMetricName("x", "b", ""))}, "", ErrExposition},
		{"dash and underscore names collide", []Sample{gauge(MustMetricName("x-y", "a", "")), gauge(MustMetricName("x_y", "a", ""))}, "", ErrExposition},
		{"-count and -total counters collide", []Sample{counter(MustMetricName("x-count", "a", "")), counter(MustMetricName("x-total", "a", ""))}, "", ErrExposition},
		{"family with two kinds", []Sample{counter(MustMetricName("x-count", "a", "")), gauge(MustMetricName("x-total", "a", "", "k", "v"))}, "", ErrExposition},
		{"tag keys collide", []Sample{gauge(MustMetricName("x", "a", "", "k-1", "v", "k_1", "w"))}, "", ErrExposition},
		{"bad prefix", []Sample{gauge(MustMetricName("x", "a", ""))}, "kafka-", ErrExposition},
		{"prefix starting with a digit", []Sample{gauge(MustMetricName("x", "a", ""))}, "9x_", ErrExposition},
		{"bad name", []Sample{gauge(MetricName{Name: "x y", Group: "a"})}, "", ErrInvalidName},
		{"bad kind", []Sample{{Name: MustMetricName("x", "a", "")}}, "", ErrInvalidKind},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			err := WritePrometheus(&b, tc.samples, tc.prefix)
			assert.ErrorIs(t, err, tc.want)
			assert.Empty(t, b.String(), "nothing written")
		})
	}
}

type failingWriter struct{}

var errWrite = errors.New("disk full")

func (failingWriter) Write([]byte) (int, error) { return 0, errWrite }

// TestWriteErrorsPropagate proves a writer's error is returned as is.
func TestWriteErrorsPropagate(t *testing.T) {
	s := []Sample{{Name: MustMetricName("x", "a", ""), Kind: KindGauge, Value: 1}}
	assert.ErrorIs(t, WritePrometheus(failingWriter{}, s, ""), errWrite)
	assert.ErrorIs(t, WriteText(failingWriter{}, s), errWrite)
}

// TestPrometheusHelpTrueForEveryLabel proves a family whose series carry
// different descriptions (Kafka's per-state gauges: "in completing
// rebalance state.", "in stable state.") gets a HELP that gives each
// series' description with the tag value it belongs to, not the first
// series' description for all of them (issue 26); another tag (broker)
// that does not tell them apart is passed over; one description is kept
// as it is.
func TestPrometheusHelpTrueForEveryLabel(t *testing.T) {
	var samples []Sample
	for _, b := range []string{"0", "1"} {
		for _, st := range []struct{ state, words string }{{"CompletingRebalance", "completing rebalance"}, {"Stable", "stable"}} {
			samples = append(samples, Sample{Name: MustMetricName("classic-group-count", testGroup,
				"The number of classic groups in "+st.words+" state.", "broker", b, "state", st.state), Kind: KindGauge})
		}
		samples = append(samples, Sample{Name: MustMetricName("offset-count", testGroup, "The number of offsets.", "broker", b), Kind: KindGauge})
	}
	var out bytes.Buffer
	require.NoError(t, WritePrometheus(&out, samples, "k_"))
	assert.Contains(t, out.String(), "# HELP k_classic_group_count By state: CompletingRebalance: The number of classic groups in completing rebalance state. Stable: The number of classic groups in stable state.\n")
	assert.Contains(t, out.String(), "# HELP k_offset_count The number of offsets.\n")

	// No tag tells them apart: every description, joined.
	mixed := []Sample{
		{Name: MustMetricName("m", testGroup, "first"), Kind: KindGauge},
		{Name: MustMetricName("m", testGroup, "second", "k", "v"), Kind: KindGauge},
	}
	out.Reset()
	require.NoError(t, WritePrometheus(&out, mixed, "k_"))
	assert.Contains(t, out.String(), "# HELP k_m first / second\n")
}
