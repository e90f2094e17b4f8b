package invariants

// ReplayEquality is invariant 7-replay-equality.
const ReplayEquality = "7-replay-equality"

func replayEquality() Invariant {
	return Invariant{
		Name:    ReplayEquality,
		Promise: "Every shard rebuilt from its committed log equals the state its broker serves.",
		Rule:    "A group coordinator's state is a function of __consumer_offsets: a shard load (GroupCoordinatorShard's replay) rebuilds exactly what the previous owner served.",
		Check:   "sim/invariants.go: checker.checkReplay, every replay_check_every events and at the end, with a replay free of mutants (of the log's snapshot plus its committed tail, both replays of the log)",
		Mutants: []string{"CorruptLiveReplay"},
	}
}
