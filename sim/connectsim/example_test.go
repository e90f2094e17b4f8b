package connectsim_test

import (
	"fmt"
	"time"

	"github.com/coordsim/coordsim/sim"
	"github.com/coordsim/coordsim/sim/connectsim"
)

// A Connect workload rides on a coordinator simulation: sim.Options.Connect
// adds producers and sink connectors, here one KIP-1302 share sink with two
// tasks, and the result holds each connector's outcome.
func ExampleWorkload() {
	o := sim.DefaultOptions()
	o.Duration, o.Retention, o.CheckInterval = 10*time.Minute, 10*time.Minute, 2*time.Minute
	o.Workload = sim.Workload{MembersMin: 1, MembersMax: 1, LifetimeMin: time.Minute, LifetimeMax: time.Minute, ArrivalWindow: 1, CommitInterval: time.Second}
	o.Faults = sim.Faults{}
	o.Connect = &connectsim.Workload{
		Topics:    map[string]int32{"orders": 2},
		Producers: []connectsim.Producer{{Topic: "orders", RatePerSec: 50, BatchRecords: 10}},
		Connectors: []connectsim.Connector{{
			Config:        map[string]string{"name": "ledger", "topics": "orders", "tasks.max": "2", "consumer.override.group.protocol": "share"},
			PutLatencyMin: 10 * time.Millisecond, PutLatencyMax: 100 * time.Millisecond,
		}},
	}
	res, err := sim.Run(o, nil)
	if err != nil {
		panic(err)
	}
	s := res.Connect[0]
	fmt.Printf("%s (%s): produced %d, put %d distinct, lost %d; invariants held: %v\n", s.Name, s.Kind, res.Produced, s.Unique, s.Lost, res.InvariantsHeld())
	// Output: ledger (share): produced 30000, put 30000 distinct, lost 0; invariants held: true
}
