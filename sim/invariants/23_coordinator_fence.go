package invariants

// CoordinatorFence is invariant 23-coordinator-fence.
const CoordinatorFence = "23-coordinator-fence"

func coordinatorFence() Invariant {
	return Invariant{
		Name:    CoordinatorFence,
		Promise: "Under v3 the coordinator itself never applies a KIP-1331 write (a push's stored or failed epoch, a mark, a finalize) that follows a plugin call made under an earlier load of its partition, whether or not the store fenced that call.",
		Rule:    "docs/kip1331-v3.md: a fencing token is the partition's load epoch, checked twice, by a plugin.FencedStore on the call and by the coordinator on the write that records its outcome (NOT_COORDINATOR), so neither layer can rot behind the other.",
		Check:   "sim/invariant_coordinator_fence.go: checker.checkCoordinatorFence, on the writes made while a plugin call's completion is delivered",
		Mutants: []string{"SkipCoordinatorFence"},
	}
}
