package report_test

import (
	"fmt"
	"io"
	"time"

	"github.com/coordsim/coordsim/sim"
	"github.com/coordsim/coordsim/sim/report"
)

// ExampleWriteHTML writes the report of a (tiny, hand-made) result. The CLI
// does the same with the Result of a run and an *os.File for --report.
func ExampleWriteHTML() {
	r := &sim.Result{
		Seed: 1, Scenario: "default", Protocol: "v2",
		Events: 1200, VirtualTime: 2 * time.Hour, WallTime: 3 * time.Millisecond,
		Marks: map[string]int64{"tick_dropped_single_flight": 0},
	}
	for m := int64(0); m <= 120; m += 10 {
		r.Series.Samples = append(r.Series.Samples, sim.Sample{
			AtMs:         m * 60_000,
			Groups:       map[string]int{"streams/EMPTY": int(m / 10), "streams/STABLE": 12 - int(m/10)},
			StoredEpochs: map[string]int{"stored": 12 - int(m/10), "none": int(m / 10)},
			Offsets:      100 + int(m), PluginRows: 12 - int(m/10),
		})
	}
	r.Series.Cycles = []sim.CycleRecord{{AtMs: 3_600_000, Eligible: 6, DeletesOK: 6}}

	if err := report.WriteHTML(io.Discard, r); err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println("report written")
	// Output: report written
}
