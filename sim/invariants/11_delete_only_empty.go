package invariants

// DeleteOnlyEmpty is invariant 11-delete-only-empty.
const DeleteOnlyEmpty = "11-delete-only-empty"

func deleteOnlyEmpty() Invariant {
	return Invariant{
		Name:    DeleteOnlyEmpty,
		Promise: "DeleteGroups never removes a group with members.",
		Rule:    "GroupCoordinatorShard.deleteGroups: validateDeleteGroup answers NON_EMPTY_GROUP for a group with members.",
		Check:   "sim/invariants_rules.go: checker.onWriteRules, on delete-groups writes",
		Mutants: []string{"DeleteNonEmptyGroups"},
	}
}
