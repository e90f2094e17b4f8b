package invariants

// OneOwner is invariant 9-one-owner.
const OneOwner = "9-one-owner"

func oneOwner() Invariant {
	return Invariant{
		Name:    OneOwner,
		Promise: "No partition is held by two members of one consumer group, and no active task by two members of one streams group, as the clients hold them; one exception is Kafka's own and counted (mark upgrade-reset-hole): after an online upgrade, a partition still held by a classic member that the upgrade converted with the empty assignment Kafka's reset left, until that client next syncs.",
		Rule:    "KIP-848 and KIP-1071 reconciliation (CurrentAssignmentBuilder): a partition or task goes to a new member only once its previous owner has revoked it. Kafka 4.4's exception: resetAndPropagateAssignmentWithError (a rebalance begun in CompletingRebalance, a failed SyncGroup write) empties the classic assignments cooperative clients still consume, and ConsumerGroup.fromClassicGroup converts an empty assignment as owning nothing.",
		Check:   "sim/invariant_owner.go: world.checkOneOwner, whenever a client takes partitions or tasks; the exception in sim/invariant_owner_upgrade.go",
		Mutants: []string{"SkipRevocation", "SkipTaskRevocation", "UpgradeDropsAssignment"},
	}
}
