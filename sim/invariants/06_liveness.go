package invariants

// Liveness is invariant 6-liveness.
const Liveness = "6-liveness"

func liveness() Invariant {
	return Invariant{
		Name:    Liveness,
		Promise: "Once faults heal and clients leave, every group that can expire is gone within bounded virtual time, and the store holds no row of a group that no longer exists (under v2 with v2_known_holes, unless an event of the group ties the row to hole 2 or 4 of docs/kip1331-v3.md).",
		Rule:    "GroupMetadataManager.cleanupGroupMetadata deletes an empty group whose offsets expired; KIP-1331 deletes the description of a group it deletes.",
		Check:   "sim/invariants.go: checker.checkLiveness, at the end of the liveness phase; v2's hole events in sim/invariant_v2_holes.go",
		Mutants: []string{"FinalizeNeverClears", "V2PushSkipsMark"},
	}
}
