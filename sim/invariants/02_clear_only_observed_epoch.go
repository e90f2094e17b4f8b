package invariants

// ClearOnlyObservedEpoch is invariant 2-clear-only-observed-epoch.
const ClearOnlyObservedEpoch = "2-clear-only-observed-epoch"

func clearOnlyObservedEpoch() Invariant {
	return Invariant{
		Name:    ClearOnlyObservedEpoch,
		Promise: "A conditional clear (v1) or a finalize (v2, v3) clears only the stored epoch its cycle's scan observed.",
		Rule:    "KIP-1331's conditional clear: it compares the epoch the scan read before the delete, so a push that advanced the epoch meanwhile keeps its row referenced.",
		Check:   "sim/invariants.go: checker.onWrite, on the clear and finalize batches",
		Mutants: []string{"ClearUnobservedGroups", "V1ClearIgnoresEpoch"},
	}
}
