package invariants

// Liveness is invariant 6-liveness.
const Liveness = "6-liveness"

func liveness() Invariant {
	return Invariant{
		Name:    Liveness,
		Promise: "Once faults heal and clients leave, every group that can expire is gone within bounded virtual time, and the store holds no row of a group that no longer exists.",
		Rule:    "GroupMetadataManager.cleanupGroupMetadata deletes an empty group whose offsets expired; KIP-1331 deletes the description of a group it deletes.",
		Check:   "sim/invariants.go: checker.checkLiveness, at the end of the liveness phase",
		Mutants: []string{"FinalizeNeverClears", "V2PushSkipsMark"},
	}
}
