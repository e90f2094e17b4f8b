package sim

import "github.com/coordsim/coordsim/sim/connectsim"

// faultTaskKills kills a random sink task hard inside put(),
// TaskKillsPerHour on average; it restarts a minute later. The Connect
// simulator runs it.
func faultTaskKills() faultKind {
	k := scaledKnob("task-kills", rateParam, "faults.task_kills_per_hour", "mean rate at which a random sink task is killed inside `put()` (it restarts a minute later)",
		func(f *Faults) *float64 { return &f.TaskKillsPerHour }, 1, 6)
	k.connect = func(f Faults, c *connectsim.Faults) { c.TaskKillsPerHour = f.TaskKillsPerHour }
	return k
}
