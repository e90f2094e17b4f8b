package invariants

// V1LeaksExplained is invariant 15-v1-leaks-explained.
const V1LeaksExplained = "15-v1-leaks-explained"

func v1LeaksExplained() Invariant {
	return Invariant{
		Name:    V1LeaksExplained,
		Promise: "Under v1, every row left in the store for a group that no longer exists is attributed to an accepted race event of that group.",
		Rule:    "KIP-1331 v1's accepted races (docs/kip1331.md §1.8): a setTopology overlapping a delete, a failed setTopology, a push whose outcome the coordinator could not record; any other leak is a cleanup bug.",
		Check:   "sim/invariants.go: checker.checkLiveness, with the race events of sim/invariants_rules.go: checker.onPluginCall and onPluginDone",
		Mutants: []string{"V1FailedDeletesSucceed"},
	}
}
