package invariants

// StandbyApart is invariant 18-standby-apart.
const StandbyApart = "18-standby-apart"

func standbyApart() Invariant {
	return Invariant{
		Name:    StandbyApart,
		Promise: "No process holds two copies of one streams task: never a task active on one member and as a standby or warm-up on another, nor as two standbys; a member converting a task's role in place holds one copy.",
		Rule:    "KIP-1071: StickyTaskAssignor places a standby only on a process without the task, and CurrentAssignmentBuilder withholds a task from a member while another member of its process holds it, converting in place a task the member keeps in another role.",
		Check:   "sim/streams_standby.go: world.checkStandbyApart, after every assignment a client applies",
		Mutants: []string{"SkipStandbyRelease"},
	}
}
