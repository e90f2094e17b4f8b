package metrics

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const testGroup = "group-coordinator-metrics"

// newTestSensor returns a registry with cfg and a sensor "s" holding stat as
// metric "m".
func newTestSensor(t testing.TB, cfg Config, stat Stat) (*Registry, *Sensor, MetricName) {
	t.Helper()
	r, err := NewRegistry(cfg)
	require.NoError(t, err)
	s, err := r.Sensor("s")
	require.NoError(t, err)
	name := MustMetricName("m", testGroup, "")
	require.NoError(t, s.Add(name, stat))
	return r, s, name
}

func value(t *testing.T, r *Registry, name MetricName, nowMs int64) float64 {
	t.Helper()
	v, ok := r.Value(name, nowMs)
	require.True(t, ok, "metric %s not registered", name)
	return v
}

// TestRateWorkedExample proves the worked example of docs/design.md §Metrics with Kafka's
// defaults (2 samples of 30 s): 0.25/s at 10 s, 15/45 s at 45 s, and 5/51 s at
// 61 s once the t=0 sample is purged.
func TestRateWorkedExample(t *testing.T) {
	for _, tc := range []struct {
		name string
		stat func() Stat
	}{
		{"rate of values", func() Stat { return NewRate() }},
		{"rate of records", func() Stat { return NewRateOf(NewWindowedCount()) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, s, name := newTestSensor(t, Config{}, tc.stat())
			for range 10 {
				s.Record(0)
			}
			// 10 / (10 s + one padded 30 s window).
			assert.Equal(t, 0.25, value(t, r, name, 10_000))

			for range 5 {
				s.Record(40_000) // 40 s - 0 s >= 30 s: opens a new sample
			}
			// Two samples since t=0: 15 events over 45 s, no padding.
			assert.Equal(t, 15.0/45.0, value(t, r, name, 45_000))
			assert.InDelta(t, 0.333, value(t, r, name, 45_000), 0.001)

			// 61 s - 0 s >= 60 s: the t=0 sample is purged; the t=40 s sample
			// is 21 s old, padded by one window.
			assert.Equal(t, 5.0/51.0, value(t, r, name, 61_000))
			assert.InDelta(t, 0.098, value(t, r, name, 61_000), 0.001)
		})
	}
}

// TestPurgeBoundary proves a sample is purged exactly when now - lastEventMs
// reaches Samples*TimeWindowMs, measured from its last event, not its start.
func TestPurgeBoundary(t *testing.T) {
	r, s, name := newTestSensor(t, Config{}, NewWindowedSum())
	s.RecordValue(1, 0)
	s.RecordValue(1, 29_000) // same sample: started at 0, last event at 29 s

	// A start-based purge would drop the sample at 60 s; Kafka keeps it
	// because it overlaps the monitored window.
	assert.Equal(t, 2.0, value(t, r, name, 60_000))
	assert.Equal(t, 2.0, value(t, r, name, 88_999), "one ms before the boundary")
	assert.Equal(t, 0.0, value(t, r, name, 89_000), "at the boundary: 89 s - 29 s = 60 s")
}

// TestPurgeBoundaryRate proves a rate drops a purged sample at the boundary and
// measures its window from the oldest sample that remains.
func TestPurgeBoundaryRate(t *testing.T) {
	r, s, name := newTestSensor(t, Config{}, NewRate())
	s.RecordValue(6, 0)
	s.RecordValue(3, 30_000) // new sample starting at 30 s
	assert.InDelta(t, 9.0/59.999, value(t, r, name, 59_999), 1e-12, "both samples, 59.999 s")
	// At 60 s the t=0 sample is purged (reset to start at 60 s); the oldest
	// is the 30 s sample, 30 s old: one full window, no padding.
	assert.Equal(t, 3.0/30.0, value(t, r, name, 60_000))
}

// TestRateWindowSize proves the window-size rule: padding to Samples-1 full
// windows, and the 1 ms floor when the window would be empty.
func TestRateWindowSize(t *testing.T) {
	t.Run("empty rate is zero over a padded window", func(t *testing.T) {
		r, _, name := newTestSensor(t, Config{}, NewRate())
		assert.Equal(t, 0.0, value(t, r, name, 5_000))
	})
	t.Run("padding uses samples-1-full windows", func(t *testing.T) {
		r, s, name := newTestSensor(t, Config{Samples: 4, TimeWindowMs: 1_000}, NewRate())
		s.RecordValue(10, 0)
		// 1.5 s elapsed, 1 full window, padded by 4-1-1 = 2 windows: 3.5 s.
		assert.Equal(t, 10/3.5, value(t, r, name, 1_500))
	})
	t.Run("one sample measured at its start uses 1 ms", func(t *testing.T) {
		r, s, name := newTestSensor(t, Config{Samples: 1}, NewRate())
		s.RecordValue(5, 1_000)
		assert.Equal(t, 5/0.001, value(t, r, name, 1_000))
	})
}

// TestEventWindowRing proves a sample completes at EventWindow events and that
// the ring has Samples+1 slots: with 2 samples and an event window of 2, seven
// records at one instant leave 1+2+2 events (a 2-slot ring would leave 3).
func TestEventWindowRing(t *testing.T) {
	r, s, name := newTestSensor(t, Config{EventWindow: 2}, NewWindowedCount())
	for range 7 {
		s.Record(0)
	}
	assert.Equal(t, 5.0, value(t, r, name, 0))
}

// TestMeterCountSemantics proves a Meter's total adds the value over a
// WindowedSum and 1 per record over a WindowedCount, that its twin is named
// "-count" by default or by option, and that the kinds are gauge and counter.
func TestMeterCountSemantics(t *testing.T) {
	for _, tc := range []struct {
		name      string
		opts      []MeterOption
		countName string
		wantCount float64
		wantRate  float64
	}{
		{"sum", nil, "offset-commit-count", 7, 7.0 / 30},
		{"windowed count", []MeterOption{WithWindowedCount()}, "offset-commit-count", 2, 2.0 / 30},
		{"total suffix", []MeterOption{WithCountSuffix("-total")}, "offset-commit-total", 7, 7.0 / 30},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := NewRegistry(Config{})
			require.NoError(t, err)
			s, err := r.Sensor("OffsetCommits")
			require.NoError(t, err)
			require.NoError(t, s.AddMeter(MustMetricName("offset-commit", testGroup, "Offset commits"), NewMeter(tc.opts...)))

			s.RecordValue(3, 0) // a commit of 3 offsets
			s.RecordValue(4, 0)

			snap := r.Snapshot(0)
			require.Len(t, snap, 2)
			byName := map[string]Sample{}
			for _, smp := range snap {
				byName[smp.Name.Name] = smp
			}
			require.Contains(t, byName, tc.countName)
			require.Contains(t, byName, "offset-commit-rate")
			assert.Equal(t, KindCounter, byName[tc.countName].Kind)
			assert.Equal(t, tc.wantCount, byName[tc.countName].Value)
			assert.Equal(t, KindGauge, byName["offset-commit-rate"].Kind)
			assert.Equal(t, tc.wantRate, byName["offset-commit-rate"].Value)
		})
	}
}

// TestMeterDescriptions proves both meter metrics take the base description
// unless WithDescriptions sets them.
func TestMeterDescriptions(t *testing.T) {
	r, err := NewRegistry(Config{})
	require.NoError(t, err)
	s, err := r.Sensor("s")
	require.NoError(t, err)
	require.NoError(t, s.AddMeter(MustMetricName("a", testGroup, "base"), NewMeter()))
	require.NoError(t, s.AddMeter(MustMetricName("b", testGroup, "base"), NewMeter(WithDescriptions("per second", "in total"))))
	var got []string
	for _, smp := range r.Snapshot(0) {
		got = append(got, smp.Name.Name+"="+smp.Name.Description)
	}
	assert.Equal(t, []string{"a-count=base", "a-rate=base", "b-count=in total", "b-rate=per second"}, got)
}

// TestCumulativeAndExtremes proves the cumulative stats never forget, and that
// Max, Min and Avg cover the retained samples and are NaN when there are none.
func TestCumulativeAndExtremes(t *testing.T) {
	r, err := NewRegistry(Config{})
	require.NoError(t, err)
	s, err := r.Sensor("s")
	require.NoError(t, err)
	stats := map[string]Stat{
		"sum": NewCumulativeSum(), "count": NewCumulativeCount(), "wsum": NewWindowedSum(),
		"max": NewMax(), "min": NewMin(), "avg": NewAvg(),
	}
	for _, n := range []string{"sum", "count", "wsum", "max", "min", "avg"} {
		require.NoError(t, s.Add(MustMetricName(n, testGroup, ""), stats[n]))
	}
	get := func(n string, nowMs int64) float64 { return value(t, r, MustMetricName(n, testGroup, ""), nowMs) }

	assert.True(t, math.IsNaN(get("max", 0)))
	assert.True(t, math.IsNaN(get("min", 0)))
	assert.True(t, math.IsNaN(get("avg", 0)))

	s.RecordValue(-2, 0)
	s.RecordValue(5, 10_000)
	s.RecordValue(3, 40_000)
	assert.Equal(t, 6.0, get("sum", 40_000))
	assert.Equal(t, 3.0, get("count", 40_000))
	assert.Equal(t, 6.0, get("wsum", 40_000))
	assert.Equal(t, 5.0, get("max", 40_000))
	assert.Equal(t, -2.0, get("min", 40_000))
	assert.Equal(t, 2.0, get("avg", 40_000))

	// At 70 s the first sample (last event 10 s) is purged; cumulative
	// stats keep everything.
	assert.Equal(t, 6.0, get("sum", 70_000))
	assert.Equal(t, 3.0, get("count", 70_000))
	assert.Equal(t, 3.0, get("wsum", 70_000))
	assert.Equal(t, 3.0, get("max", 70_000))
	assert.Equal(t, 3.0, get("min", 70_000))
	assert.Equal(t, 3.0, get("avg", 70_000))
}

// TestZeroValueStats proves zero-value stats behave like their constructors'.
func TestZeroValueStats(t *testing.T) {
	r, err := NewRegistry(Config{})
	require.NoError(t, err)
	s, err := r.Sensor("s")
	require.NoError(t, err)
	require.NoError(t, s.Add(MustMetricName("max", testGroup, ""), &Max{}))
	require.NoError(t, s.Add(MustMetricName("rate", testGroup, ""), &Rate{}))
	s.RecordValue(-4, 0)
	assert.Equal(t, -4.0, value(t, r, MustMetricName("max", testGroup, ""), 0))
	assert.Equal(t, -4.0/30, value(t, r, MustMetricName("rate", testGroup, ""), 0))
}
