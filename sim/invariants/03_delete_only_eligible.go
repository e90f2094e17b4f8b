package invariants

// DeleteOnlyEligible is invariant 3-delete-only-eligible.
const DeleteOnlyEligible = "3-delete-only-eligible"

func deleteOnlyEligible() Invariant {
	return Invariant{
		Name:    DeleteOnlyEligible,
		Promise: "A cleanup delete is issued only for a group eligible in committed state: under v1 an empty streams group with a stored epoch and no offsets or open transaction, under v2 and v3 a streams group with a stored epoch (the -2 mark re-checked the rest, and the finalize solicits a member that joined since).",
		Rule:    "KIP-1331: only a group that expiry would otherwise delete loses its description in the plugin store.",
		Check:   "sim/invariants.go: checker.onTopologyEvent, on EventDeleteIssued",
		Mutants: []string{"ListNonEmptyForCleanup"},
	}
}
