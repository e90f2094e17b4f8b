package invariants

// V1LossExplained is invariant 24-v1-loss-explained.
const V1LossExplained = "24-v1-loss-explained"

func v1LossExplained() Invariant {
	return Invariant{
		Name:    V1LossExplained,
		Promise: "Under v1, a group whose metadata claims a stored description the store does not have is counted as the accepted race only when an observed event of that group explains it; any other loss is a violation.",
		Rule:    "KIP-1331 v1 (docs/kip1331.md §1.8) accepts losing a row only to its races: a push overlapping the cycle's delete (a setTopology and a deleteTopology of the group in flight together, or a conditional clear that found a newer epoch), a call that failed and may have applied, a clear write that failed after its delete, or a DeleteGroups that deleted the row and then failed to tombstone the group.",
		Check:   "sim/invariants.go: checker.probeDataLoss, with the race events of checker.onPluginCall, onPluginDone and onTopologyEvent",
		Mutants: []string{"V1SkipsClearAfterDelete"},
	}
}
