package invariants

// OneOwner is invariant 9-one-owner.
const OneOwner = "9-one-owner"

func oneOwner() Invariant {
	return Invariant{
		Name:    OneOwner,
		Promise: "No partition is held by two members of one consumer group, and no active task by two members of one streams group, as the clients hold them.",
		Rule:    "KIP-848 and KIP-1071 reconciliation (CurrentAssignmentBuilder): a partition or task goes to a new member only once its previous owner has revoked it.",
		Check:   "sim/invariant_owner.go: world.checkOneOwner, whenever a client takes partitions or tasks",
		Mutants: []string{"SkipRevocation", "SkipTaskRevocation", "UpgradeDropsAssignment"},
	}
}
