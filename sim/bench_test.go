package sim_test

import (
	"testing"
	"time"

	"github.com/coordsim/coordsim/sim"
)

// BenchmarkSimulation measures the simulator's throughput on the default
// scenario cut to six virtual hours (events/s of wall time, one goroutine).
func BenchmarkSimulation(b *testing.B) {
	b.ReportAllocs()
	o := sim.DefaultOptions()
	o.Duration = 6 * time.Hour
	var events int64
	for i := 0; i < b.N; i++ {
		o.Seed = uint64(i + 1)
		r, err := sim.Run(o, nil)
		if err != nil || r.Violation != nil {
			b.Fatalf("%v %v", err, r.Violation)
		}
		events += r.Events
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
}
