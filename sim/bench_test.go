package sim_test

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/coordsim/coordsim/sim"
	"github.com/coordsim/coordsim/sim/connectsim"
)

// BenchmarkSimulation measures the simulator's throughput on the default
// scenario cut to six virtual hours (events/s of wall time, one goroutine).
// allocs/event is the heap allocations of the timed runs over their events:
// allocs/op divides by b.N runs of about half a million events each, so it
// is not a per-event figure.
func BenchmarkSimulation(b *testing.B) {
	b.ReportAllocs()
	o := sim.DefaultOptions()
	o.Duration = 6 * time.Hour
	events := runPerEvent(b, o)
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}

// runPerEvent runs b.N seeds of o (seeds 1..N) and reports ns/event and
// allocs/event: the timed runs' wall time and heap allocations over their
// events. It returns the events.
func runPerEvent(b *testing.B, o sim.Options) (events int64) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := 0; i < b.N; i++ {
		o.Seed = uint64(i + 1)
		r, err := sim.Run(o, nil)
		if err != nil || r.Violation != nil {
			b.Fatalf("%v %v", err, r.Violation)
		}
		events += r.Events
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(events), "allocs/event")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
	return events
}

// BenchmarkEventCostByGroups is the simulator's cost per event as the group
// count grows (issue 25: it should stay nearly flat): the default mix of
// group types scaled to 1 k and 10 k groups, one virtual hour, one
// goroutine. ns/event and allocs/event divide the timed runs' wall time
// and heap allocations by their events; the arrivals, and so the groups
// created, are spread over the hour, so set-up cost is in the figure as it
// is in a run. It is named apart from BenchmarkSimulation, whose documented
// -bench pattern would otherwise run it too.
func BenchmarkEventCostByGroups(b *testing.B) {
	for _, groups := range []int{1_000, 10_000} {
		b.Run(fmt.Sprintf("groups=%d", groups), func(b *testing.B) {
			b.ReportAllocs()
			o := sim.DefaultOptions()
			o.Duration = time.Hour
			w := &o.Workload
			def := w.StreamsApps + w.ConsumerGroups + w.ShareGroups + w.SimpleGroups
			for _, n := range []*int{&w.StreamsApps, &w.ConsumerGroups, &w.ShareGroups} {
				*n = *n * groups / def
			}
			w.SimpleGroups = groups - w.StreamsApps - w.ConsumerGroups - w.ShareGroups
			events := runPerEvent(b, o)
			b.ReportMetric(float64(events)/float64(b.N), "events/op")
		})
	}
}

// BenchmarkSinkScaling is KIP-1302's scaling claim in one run: a share
// sink and a consumer-group sink on a 4-partition topic with a backlog,
// each with 2, 4 and 6 tasks, put() dominating (1–3 s per 100 records).
// It reports the virtual throughput (records/s of virtual time, measured
// over the last 20 of 30 minutes) as custom metrics; the wall-time figures
// are the simulator's cost. The share sink should scale ~3× from 2 to 6
// tasks; the consumer sink stops at 4 (one task per partition).
func BenchmarkSinkScaling(b *testing.B) {
	for _, kind := range []string{"share", "consumer"} {
		for _, tasks := range []int{2, 4, 6} {
			b.Run(kind+"/tasks="+string(rune('0'+tasks)), func(b *testing.B) {
				b.ReportAllocs()
				var perSec float64
				for i := 0; i < b.N; i++ {
					perSec = sinkThroughput(b, kind, tasks, uint64(i+1))
				}
				b.ReportMetric(perSec, "records/vs")
			})
		}
	}
}

// sinkThroughput runs one sink with a fixed task count and returns its
// delivery rate between 10m and 30m of virtual time.
func sinkThroughput(b *testing.B, kind string, tasks int, seed uint64) float64 {
	o := sim.DefaultOptions()
	o.Seed, o.Duration = seed, 30*time.Minute
	o.Retention, o.CheckInterval = 10*time.Minute, 2*time.Minute
	o.Workload = sim.Workload{MembersMin: 1, MembersMax: 1, LifetimeMin: time.Minute, LifetimeMax: time.Minute, ArrivalWindow: 1, CommitInterval: time.Second}
	o.Faults = sim.Faults{}
	cfg := map[string]string{"name": "sink", "topics": "orders", "tasks.max": string(rune('0' + tasks))}
	if kind == "share" {
		cfg["consumer.override.group.protocol"] = "share"
	}
	o.Connect = &connectsim.Workload{
		Topics:    map[string]int32{"orders": 4},
		Producers: []connectsim.Producer{{Topic: "orders", RatePerSec: 1000, BatchRecords: 10}},
		Connectors: []connectsim.Connector{{Config: cfg, MaxPollRecords: 100,
			PutLatencyMin: time.Second, PutLatencyMax: 3 * time.Second}},
		Drain: time.Minute,
	}
	r, err := sim.Run(o, nil)
	if err != nil || r.Violation != nil {
		b.Fatalf("%v %v", err, r.Violation)
	}
	var at10, at30 int64
	for _, s := range r.Series.Sinks {
		if s.AtMs <= (10 * time.Minute).Milliseconds() {
			at10 = s.Unique
		}
		if s.AtMs <= (30 * time.Minute).Milliseconds() {
			at30 = s.Unique
		}
	}
	return float64(at30-at10) / (20 * time.Minute).Seconds()
}
