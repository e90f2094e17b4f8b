package invariants

// ReadsCommitted is invariant 10-reads-committed.
const ReadsCommitted = "10-reads-committed"

func readsCommitted() Invariant {
	return Invariant{
		Name:    ReadsCommitted,
		Promise: "OffsetFetch and the describes answer exactly what a replica built from the committed log alone (its snapshot and tail) answers.",
		Rule:    "CoordinatorRuntime serves reads at the last committed offset of the snapshot registry, never from uncommitted writes.",
		Check:   "sim/invariants_rules.go: checker.checkRead and checker.checkDescribe, on every read the workload makes",
		Mutants: []string{"ReadsSeeUncommitted", "DescribeSeesUncommitted"},
	}
}
