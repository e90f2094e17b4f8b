package invariants

// StandbyApart is invariant 18-standby-apart.
const StandbyApart = "18-standby-apart"

func standbyApart() Invariant {
	return Invariant{
		Name:    StandbyApart,
		Promise: "No process holds two copies of one streams task: never a task active and as a standby or warm-up, nor as two standbys.",
		Rule:    "KIP-1071: StickyTaskAssignor places a standby only on a process without the task, and CurrentAssignmentBuilder withholds a task from a member while its process holds it in another role.",
		Check:   "sim/streams_standby.go: world.checkStandbyApart, after every assignment a client applies",
		Mutants: []string{"SkipStandbyRelease"},
	}
}
