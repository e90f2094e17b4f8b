package metrics

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// recordSetups are the sensors the benchmark and the allocation test record
// into: one counter, a meter (the coordinator's common case), and a meter with
// a Max on a child sensor whose parent holds a second meter.
func recordSetups() []recordSetup {
	return []recordSetup{
		{"count", func(t testing.TB) *Sensor {
			_, s, _ := newTestSensor(t, Config{}, NewCumulativeCount())
			return s
		}},
		{"meter", func(t testing.TB) *Sensor {
			s, err := newRegistry(t).Sensor("s")
			require.NoError(t, err)
			require.NoError(t, s.AddMeter(MustMetricName("offset-commit", testGroup, ""), NewMeter()))
			return s
		}},
		{"meter+max+parent", func(t testing.TB) *Sensor {
			r := newRegistry(t)
			p, err := r.Sensor("parent")
			require.NoError(t, err)
			require.NoError(t, p.AddMeter(MustMetricName("all", testGroup, ""), NewMeter(WithWindowedCount())))
			s, err := r.Sensor("child", p)
			require.NoError(t, err)
			require.NoError(t, s.AddMeter(MustMetricName("offset-commit", testGroup, ""), NewMeter()))
			require.NoError(t, s.Add(MustMetricName("offset-commit-max", testGroup, ""), NewMax()))
			return s
		}},
	}
}

type recordSetup struct {
	name  string
	build func(t testing.TB) *Sensor
}

// TestRecordDoesNotAllocate proves recording allocates nothing, across sample
// rollovers and purges, once the ring is full.
func TestRecordDoesNotAllocate(t *testing.T) {
	for _, setup := range recordSetups() {
		t.Run(setup.name, func(t *testing.T) {
			s := setup.build(t)
			var nowMs int64
			allocs := testing.AllocsPerRun(1000, func() {
				nowMs += 7_919 // crosses windows often
				s.RecordValue(3, nowMs)
			})
			require.Zero(t, allocs)
		})
	}
}

// BenchmarkSensorRecord measures Sensor.RecordValue for the setups above;
// it must report 0 allocs/op.
func BenchmarkSensorRecord(b *testing.B) {
	for _, setup := range recordSetups() {
		b.Run(setup.name, func(b *testing.B) {
			s := setup.build(b)
			b.ReportAllocs()
			var nowMs int64
			for b.Loop() {
				nowMs += 10 // a new 30 s sample every 3000 records
				s.RecordValue(3, nowMs)
			}
		})
	}
}
