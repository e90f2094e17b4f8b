package sim

import (
	"time"

	"github.com/coordsim/coordsim/coordinator"
)

// faultLoadDelay makes a moved shard take LoadDelay to load on its new
// broker (requests meanwhile get COORDINATOR_LOAD_IN_PROGRESS). It is
// the coordinator's own setting, so it outlives the heal.
func faultLoadDelay() faultKind {
	return faultKind{
		name: "load-delay",
		params: []*Param{
			durParam("faults.load_delay", 0, "how long a moved partition takes to load",
				func(o *Options) any { return &o.Faults.LoadDelay }).swarm(uniformDur(0, 2*time.Second, time.Millisecond)),
		},
		light:     func(f *Faults) { f.LoadDelay = 200 * time.Millisecond },
		heavy:     func(f *Faults) { f.LoadDelay = 2 * time.Second },
		configure: func(f Faults, cfg *coordinator.Config) { cfg.LoadDelay = f.LoadDelay },
	}
}
