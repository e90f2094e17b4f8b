package metrics

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func newRegistry(t testing.TB) *Registry {
	t.Helper()
	r, err := NewRegistry(Config{})
	require.NoError(t, err)
	return r
}

func textOf(t testing.TB, samples []Sample) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, WriteText(&b, samples))
	return b.String()
}

// TestMetricNameCanonical proves tags are sorted by key whatever order they
// come in, that String is canonical and escaped, and that a registry never
// aliases the caller's tag slice.
func TestMetricNameCanonical(t *testing.T) {
	a := MustMetricName("group-count", testGroup, "", "state", "stable", "protocol", "consumer")
	b := MustMetricName("group-count", testGroup, "other text", "protocol", "consumer", "state", "stable")
	assert.Equal(t, Tags{{"protocol", "consumer"}, {"state", "stable"}}, a.Tags)
	assert.Equal(t, a.String(), b.String())
	assert.Equal(t, 0, a.Compare(b), "description is not identity")
	assert.Equal(t, `group-coordinator-metrics:group-count{protocol="consumer",state="stable"}`, a.String())
	assert.Equal(t, `g:n{k="a\\b\"c\nd"}`, MustMetricName("n", "g", "", "k", "a\\b\"c\nd").String())
	assert.Equal(t, "g:n", MustMetricName("n", "g", "").String())
	v, ok := a.Tags.Get("state")
	assert.True(t, ok)
	assert.Equal(t, "stable", v)

	r := newRegistry(t)
	tags := Tags{{"z", "1"}, {"a", "2"}}
	require.NoError(t, r.AddMetric(MetricName{Name: "x", Group: "g", Tags: tags}, func(int64) float64 { return 1 }))
	assert.Equal(t, Tags{{"z", "1"}, {"a", "2"}}, tags, "the caller's slice is not sorted in place")
	tags[0].Value = "changed"
	assert.Equal(t, `g:x{a="2",z="1"} gauge 1`+"\n", textOf(t, r.Snapshot(0)))
}

// TestValidation proves every malformed input is a typed error of the right
// class and changes nothing.
func TestValidation(t *testing.T) {
	gauge := func(int64) float64 { return 1 }
	good := MustMetricName("m", testGroup, "")
	for _, tc := range []struct {
		name string
		do   func(r *Registry, s *Sensor) error
		want error
	}{
		{"empty name", func(r *Registry, _ *Sensor) error {
			return r.AddMetric(MetricName{Group: testGroup}, gauge)
		}, ErrInvalidName},
		{"name with a dot", func(r *Registry, _ *Sensor) error {
			return r.AddMetric(MetricName{Name: "a.b", Group: testGroup}, gauge)
		}, ErrInvalidName},
		{"name starting with a digit", func(r *Registry, _ *Sensor) error {
			return r.AddMetric(MetricName{Name: "1a", Group: testGroup}, gauge)
		}, ErrInvalidName},
		{"empty group", func(r *Registry, _ *Sensor) error {
			return r.AddMetric(MetricName{Name: "a"}, gauge)
		}, ErrInvalidName},
		{"bad tag key", func(r *Registry, _ *Sensor) error {
			return r.AddMetric(MetricName{Name: "a", Group: "g", Tags: Tags{{"group id", "x"}}}, gauge)
		}, ErrInvalidName},
		{"repeated tag key", func(r *Registry, _ *Sensor) error {
			return r.AddMetric(MetricName{Name: "a", Group: "g", Tags: Tags{{"k", "x"}, {"k", "y"}}}, gauge)
		}, ErrInvalidName},
		{"tag value not UTF-8", func(r *Registry, _ *Sensor) error {
			return r.AddMetric(MetricName{Name: "a", Group: "g", Tags: Tags{{"k", "\xff"}}}, gauge)
		}, ErrInvalidName},
		{"empty sensor name", func(r *Registry, _ *Sensor) error {
			_, err := r.Sensor("")
			return err
		}, ErrInvalidName},
		{"duplicate gauge", func(r *Registry, _ *Sensor) error {
			return r.AddMetric(MustMetricName("existing", testGroup, "other description"), gauge)
		}, ErrDuplicateMetric},
		{"duplicate stat", func(_ *Registry, s *Sensor) error {
			return s.Add(MustMetricName("existing", testGroup, ""), NewCumulativeCount())
		}, ErrDuplicateMetric},
		{"meter whose count collides", func(_ *Registry, s *Sensor) error {
			return s.AddMeter(MustMetricName("existing-m", testGroup, ""), NewMeter(WithCountSuffix("-count")))
		}, ErrDuplicateMetric},
		{"meter count suffix -rate", func(_ *Registry, s *Sensor) error {
			return s.AddMeter(MustMetricName("fresh", testGroup, ""), NewMeter(WithCountSuffix("-rate")))
		}, ErrDuplicateMetric},
		{"meter count suffix without dash", func(_ *Registry, s *Sensor) error {
			return s.AddMeter(MustMetricName("fresh", testGroup, ""), NewMeter(WithCountSuffix("count")))
		}, ErrInvalidName},
		{"nil gauge func", func(r *Registry, _ *Sensor) error {
			return r.AddMetric(good, nil)
		}, ErrNilFunc},
		{"nil collector", func(r *Registry, _ *Sensor) error {
			_, err := r.RegisterCollector(nil)
			return err
		}, ErrNilFunc},
		{"nil stat", func(_ *Registry, s *Sensor) error { return s.Add(good, nil) }, ErrNilStat},
		{"typed nil stat", func(_ *Registry, s *Sensor) error { return s.Add(good, (*Rate)(nil)) }, ErrNilStat},
		{"nil meter", func(_ *Registry, s *Sensor) error { return s.AddMeter(good, nil) }, ErrNilStat},
		{"nil parent", func(r *Registry, _ *Sensor) error {
			_, err := r.Sensor("child", nil)
			return err
		}, ErrNilStat},
		{"stat added twice", func(_ *Registry, s *Sensor) error {
			st := NewWindowedCount()
			_, other, _ := newTestSensor(t, Config{}, st)
			other.Record(0)
			return s.Add(MustMetricName("second", testGroup, ""), NewRateOf(st))
		}, ErrStatInUse},
		{"meter added twice", func(_ *Registry, s *Sensor) error {
			m := NewMeter()
			if err := newSensor(t).AddMeter(good, m); err != nil {
				return err
			}
			return s.AddMeter(MustMetricName("fresh", testGroup, ""), m)
		}, ErrStatInUse},
		{"parent of another registry", func(_ *Registry, _ *Sensor) error {
			other := newRegistry(t)
			p, err := other.Sensor("p")
			if err != nil {
				return err
			}
			_, err = newRegistry(t).Sensor("child", p)
			return err
		}, ErrForeignSensor},
		{"add to a removed sensor", func(r *Registry, _ *Sensor) error {
			s, err := r.Sensor("doomed")
			if err != nil {
				return err
			}
			r.RemoveSensor("doomed")
			return s.Add(MustMetricName("fresh", testGroup, ""), NewCumulativeCount())
		}, ErrSensorRemoved},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRegistry(t)
			s, err := r.Sensor("s")
			require.NoError(t, err)
			require.NoError(t, s.Add(MustMetricName("existing", testGroup, ""), NewCumulativeCount()))
			require.NoError(t, s.AddMeter(MustMetricName("existing-m", testGroup, ""), NewMeter(WithCountSuffix("-total"))))
			require.NoError(t, r.AddMetric(MustMetricName("existing-count", testGroup, ""), gauge))
			s.Record(0)
			before := textOf(t, r.Snapshot(1_000))
			sensorsBefore := len(r.sensors)

			err = tc.do(r, s)
			require.Error(t, err)
			assert.ErrorIs(t, err, tc.want)
			var me *Error
			assert.ErrorAs(t, err, &me)

			assert.Equal(t, before, textOf(t, r.Snapshot(1_000)), "nothing changed")
			assert.Equal(t, sensorsBefore, len(r.sensors))
		})
	}
}

func newSensor(t testing.TB) *Sensor {
	t.Helper()
	s, err := newRegistry(t).Sensor("s")
	require.NoError(t, err)
	return s
}

// TestConfigValidation proves defaults fill zero fields and that each bad
// field is an ErrInvalidConfig error naming that field.
func TestConfigValidation(t *testing.T) {
	r, err := NewRegistry(Config{})
	require.NoError(t, err)
	assert.Equal(t, DefaultConfig(), r.Config())
	assert.Equal(t, Config{Samples: 2, TimeWindowMs: 30_000, EventWindow: 1<<63 - 1}, DefaultConfig())

	for _, tc := range []struct {
		cfg   Config
		field string
	}{
		{Config{Samples: -1}, "Samples"},
		{Config{Samples: MaxSamples + 1}, "Samples"},
		{Config{TimeWindowMs: -5}, "TimeWindowMs"},
		{Config{EventWindow: -1}, "EventWindow"},
		{Config{Samples: 4, TimeWindowMs: 1 << 62}, "TimeWindowMs"},
	} {
		t.Run(fmt.Sprintf("%+v", tc.cfg), func(t *testing.T) {
			r, err := NewRegistry(tc.cfg)
			assert.Nil(t, r)
			require.ErrorIs(t, err, ErrInvalidConfig)
			var me *Error
			require.ErrorAs(t, err, &me)
			assert.Equal(t, tc.field, me.Subject)
			assert.Contains(t, err.Error(), tc.field)
		})
	}
}

// TestSensorParents proves a record reaches the sensor's stats and then its
// parents', that removing a parent removes its children and all their
// metrics, and that a removed sensor's handle records nothing.
func TestSensorParents(t *testing.T) {
	r := newRegistry(t)
	parent, err := r.Sensor("all-commits")
	require.NoError(t, err)
	child, err := r.Sensor("consumer-commits", parent)
	require.NoError(t, err)
	again, err := r.Sensor("consumer-commits")
	require.NoError(t, err)
	assert.Same(t, child, again, "get-or-create returns the existing sensor")

	require.NoError(t, parent.Add(MustMetricName("all", "g", ""), NewCumulativeSum()))
	require.NoError(t, child.Add(MustMetricName("consumer", "g", ""), NewCumulativeSum()))
	child.RecordValue(2, 0)
	parent.RecordValue(5, 0)
	assert.Equal(t, "g:all counter 7\ng:consumer counter 2\n", textOf(t, r.Snapshot(0)))

	assert.True(t, r.RemoveSensor("all-commits"))
	assert.False(t, r.RemoveSensor("all-commits"))
	assert.Empty(t, r.Snapshot(0), "the child and its metric went with the parent")
	child.Record(0) // a stale handle is harmless

	// The names are free again.
	s, err := r.Sensor("consumer-commits")
	require.NoError(t, err)
	assert.NotSame(t, child, s)
	require.NoError(t, s.Add(MustMetricName("consumer", "g", ""), NewCumulativeSum()))
	assert.Equal(t, "g:consumer counter 0\n", textOf(t, r.Snapshot(0)))
}

// TestRemoveMetric proves removing one metric of a meter keeps the other
// recording, removing both stops the sensor recording into the meter, and the
// names become free.
func TestRemoveMetric(t *testing.T) {
	r := newRegistry(t)
	s, err := r.Sensor("s")
	require.NoError(t, err)
	m := NewMeter()
	require.NoError(t, s.AddMeter(MustMetricName("x", "g", ""), m))
	require.NoError(t, r.AddMetric(MustMetricName("gauge", "g", ""), func(nowMs int64) float64 { return float64(nowMs) }))
	s.Record(0)

	assert.True(t, r.RemoveMetric(MustMetricName("x-rate", "g", "")))
	assert.False(t, r.RemoveMetric(MustMetricName("x-rate", "g", "")))
	s.Record(0)
	assert.Equal(t, "g:gauge gauge 7\ng:x-count counter 2\n", textOf(t, r.Snapshot(7)))

	assert.True(t, r.RemoveMetric(MustMetricName("x-count", "g", "")))
	assert.Empty(t, s.entries, "nothing left to record into")
	s.Record(0)
	assert.Equal(t, 2.0, m.total)

	assert.True(t, r.RemoveMetric(MustMetricName("gauge", "g", "")))
	assert.Empty(t, r.Snapshot(0))
	require.NoError(t, r.AddMetric(MustMetricName("x-rate", "g", ""), func(int64) float64 { return 1 }))
}

// TestCollectorSeriesComeAndGo proves collector series follow the collector's
// state: a deleted group's per-group series and an emptied state's series
// disappear from the next snapshot, and an unregistered collector emits
// nothing.
func TestCollectorSeriesComeAndGo(t *testing.T) {
	r := newRegistry(t)
	groups := map[string]string{"g1": "stable", "g2": "empty", "g3": "stable"} // group -> state
	// The collector ranges over Go maps on purpose: the snapshot sorts, so
	// emission order never reaches the output.
	id, err := r.RegisterCollector(func(nowMs int64, emit func(MetricName, Kind, float64)) {
		byState := map[string]int{}
		for g, state := range groups {
			byState[state]++
			emit(MustMetricName("group-offset-count", testGroup, "Offsets of a group", "group-id", g), KindGauge, 1)
		}
		for state, n := range byState {
			emit(MustMetricName("consumer-group-count", testGroup, "Groups by state", "state", state), KindGauge, float64(n))
		}
	})
	require.NoError(t, err)

	want := `group-coordinator-metrics:consumer-group-count{state="empty"} gauge 1
group-coordinator-metrics:consumer-group-count{state="stable"} gauge 2
group-coordinator-metrics:group-offset-count{group-id="g1"} gauge 1
group-coordinator-metrics:group-offset-count{group-id="g2"} gauge 1
group-coordinator-metrics:group-offset-count{group-id="g3"} gauge 1
`
	assert.Equal(t, want, textOf(t, r.Snapshot(0)))

	delete(groups, "g2")
	want = `group-coordinator-metrics:consumer-group-count{state="stable"} gauge 2
group-coordinator-metrics:group-offset-count{group-id="g1"} gauge 1
group-coordinator-metrics:group-offset-count{group-id="g3"} gauge 1
`
	assert.Equal(t, want, textOf(t, r.Snapshot(1)))

	assert.True(t, r.UnregisterCollector(id))
	assert.False(t, r.UnregisterCollector(id))
	assert.Empty(t, r.Snapshot(2))
}

// TestCollectorBadEmissions proves invalid or repeated collector emissions are
// dropped from the snapshot and reported by SnapshotChecked.
func TestCollectorBadEmissions(t *testing.T) {
	r := newRegistry(t)
	require.NoError(t, r.AddMetric(MustMetricName("offset-count", testGroup, ""), func(int64) float64 { return 3 }))
	_, err := r.RegisterCollector(func(_ int64, emit func(MetricName, Kind, float64)) {
		emit(MustMetricName("ok", testGroup, ""), KindGauge, 1)
		emit(MustMetricName("ok", testGroup, ""), KindGauge, 2)
		emit(MustMetricName("offset-count", testGroup, ""), KindGauge, 4)
		emit(MetricName{Name: "bad name", Group: testGroup}, KindGauge, 5)
		emit(MustMetricName("no-kind", testGroup, ""), 0, 6)
	})
	require.NoError(t, err)

	samples, err := r.SnapshotChecked(0)
	assert.ErrorIs(t, err, ErrDuplicateMetric)
	assert.ErrorIs(t, err, ErrInvalidName)
	assert.ErrorIs(t, err, ErrInvalidKind)
	want := "group-coordinator-metrics:offset-count gauge 3\ngroup-coordinator-metrics:ok gauge 1\n"
	assert.Equal(t, want, textOf(t, samples))
	assert.Equal(t, want, textOf(t, r.Snapshot(0)))
}

// TestSnapshotSorted proves snapshots are sorted by name, then group, then
// tags, whatever order metrics were registered and emitted in.
func TestSnapshotSorted(t *testing.T) {
	r := newRegistry(t)
	one := func(int64) float64 { return 1 }
	for _, n := range []MetricName{
		MustMetricName("b", "g1", ""),
		MustMetricName("a", "g2", ""),
		MustMetricName("a", "g1", "", "k", "y"),
		MustMetricName("a", "g1", ""),
		MustMetricName("a", "g1", "", "k", "x", "l", "1"),
	} {
		require.NoError(t, r.AddMetric(n, one))
	}
	_, err := r.RegisterCollector(func(_ int64, emit func(MetricName, Kind, float64)) {
		emit(MustMetricName("a", "g1", "", "k", "x"), KindGauge, 1)
		emit(MustMetricName("a-", "g0", ""), KindGauge, 1)
	})
	require.NoError(t, err)
	want := `g1:a gauge 1
g1:a{k="x"} gauge 1
g1:a{k="x",l="1"} gauge 1
g1:a{k="y"} gauge 1
g2:a gauge 1
g0:a- gauge 1
g1:b gauge 1
`
	assert.Equal(t, want, textOf(t, r.Snapshot(0)))
}

// TestDeterminism proves two registries fed the same seeded workload, with
// metrics registered in different orders, give byte-identical snapshots and
// Prometheus text at every step.
func TestDeterminism(t *testing.T) {
	build := func(reverse bool) (*Registry, []*Sensor) {
		r := newRegistry(t)
		names := []string{"OffsetCommits", "OffsetExpired", "ConsumerRebalances"}
		if reverse {
			names = []string{"ConsumerRebalances", "OffsetExpired", "OffsetCommits"}
		}
		byName := map[string]*Sensor{}
		for _, n := range names {
			s, err := r.Sensor(n)
			require.NoError(t, err)
			byName[n] = s
		}
		require.NoError(t, byName["OffsetCommits"].AddMeter(MustMetricName("offset-commit", testGroup, "Committed offsets"), NewMeter()))
		require.NoError(t, byName["OffsetExpired"].AddMeter(MustMetricName("offset-expiration", testGroup, "Expired offsets"), NewMeter()))
		require.NoError(t, byName["ConsumerRebalances"].AddMeter(MustMetricName("consumer-group-rebalance", testGroup, "Rebalances"), NewMeter(WithWindowedCount())))
		require.NoError(t, byName["OffsetCommits"].Add(MustMetricName("offset-commit-max", testGroup, ""), NewMax()))
		return r, []*Sensor{byName["OffsetCommits"], byName["OffsetExpired"], byName["ConsumerRebalances"]}
	}
	ra, sa := build(false)
	rb, sb := build(true)
	rng := rand.New(rand.NewPCG(42, 1331))
	var nowMs int64
	for step := range 2_000 {
		nowMs += rng.Int64N(5_000)
		i := rng.IntN(3)
		v := float64(rng.IntN(10))
		sa[i].RecordValue(v, nowMs)
		sb[i].RecordValue(v, nowMs)
		if step%97 == 0 {
			a, b := ra.Snapshot(nowMs), rb.Snapshot(nowMs)
			require.Equal(t, textOf(t, a), textOf(t, b), "step %d", step)
			var pa, pb bytes.Buffer
			require.NoError(t, WritePrometheus(&pa, a, "kafka_coordinator_"))
			require.NoError(t, WritePrometheus(&pb, b, "kafka_coordinator_"))
			require.Equal(t, pa.String(), pb.String(), "step %d", step)
		}
	}
	assert.Len(t, ra.Snapshot(nowMs), 7)
}

// TestErrorFormat proves an *Error prints its class, subject and reason and
// unwraps to its class.
func TestErrorFormat(t *testing.T) {
	err := error(newError(ErrInvalidConfig, "Samples", "-1 is negative"))
	assert.Equal(t, "metrics: invalid config: Samples: -1 is negative", err.Error())
	assert.True(t, errors.Is(err, ErrInvalidConfig))
	assert.False(t, errors.Is(err, ErrInvalidName))
}

// TestSensorDiamond proves a record reaches a shared ancestor once per path,
// as in Kafka, and that removing one branch removes its subtree only.
func TestSensorDiamond(t *testing.T) {
	r := newRegistry(t)
	root, err := r.Sensor("root")
	require.NoError(t, err)
	left, err := r.Sensor("left", root)
	require.NoError(t, err)
	right, err := r.Sensor("right", root)
	require.NoError(t, err)
	leaf, err := r.Sensor("leaf", left, right)
	require.NoError(t, err)
	for _, s := range []*Sensor{root, left, right, leaf} {
		require.NoError(t, s.Add(MustMetricName(s.Name(), "g", ""), NewCumulativeCount()))
	}
	leaf.Record(0)
	assert.Equal(t, "g:leaf counter 1\ng:left counter 1\ng:right counter 1\ng:root counter 2\n", textOf(t, r.Snapshot(0)))

	assert.True(t, r.RemoveSensor("left"))
	assert.Equal(t, "g:right counter 1\ng:root counter 2\n", textOf(t, r.Snapshot(0)), "leaf went with left")
	right.Record(0)
	assert.Equal(t, "g:right counter 2\ng:root counter 3\n", textOf(t, r.Snapshot(0)))
	assert.Empty(t, right.children, "leaf is detached from its other parent")
}

// TestSnapshotCopiesTags proves modifying a snapshot cannot corrupt the
// registry.
func TestSnapshotCopiesTags(t *testing.T) {
	r := newRegistry(t)
	require.NoError(t, r.AddMetric(MustMetricName("x", "g", "", "k", "v"), func(int64) float64 { return 1 }))
	r.Snapshot(0)[0].Name.Tags[0].Value = "changed"
	assert.Equal(t, "g:x{k=\"v\"} gauge 1\n", textOf(t, r.Snapshot(0)))
}
