package sim

import "github.com/coordsim/coordsim/sim/connectsim"

// faultTaskKills kills a random sink task hard inside put(),
// TaskKillsPerHour on average; it restarts a minute later. The Connect
// simulator runs it.
func faultTaskKills() faultKind {
	return faultKind{
		name: "task-kills",
		params: []*Param{
			rateParam("faults.task_kills_per_hour", "mean rate at which a random sink task is killed inside `put()` (it restarts a minute later)",
				func(o *Options) any { return &o.Faults.TaskKillsPerHour }).swarm(scaleHeavy()),
		},
		light:   func(f *Faults) { f.TaskKillsPerHour = 1 },
		heavy:   func(f *Faults) { f.TaskKillsPerHour = 6 },
		connect: func(f Faults, c *connectsim.Faults) { c.TaskKillsPerHour = f.TaskKillsPerHour },
	}
}
