package invariants

// Routing is invariant 16-routing.
const Routing = "16-routing"

func routing() Invariant {
	return Invariant{
		Name:    Routing,
		Promise: "Every coordinator routes each group id to the partition Kafka routes it to, computed by the checker over UTF-16.",
		Rule:    "GroupCoordinatorService.partitionFor: Utils.abs(groupId.hashCode()) % the __consumer_offsets partition count.",
		Check:   "sim/invariants_rules.go: checker.checkRouting, for every group the workload creates",
		Mutants: []string{"PlainAbsPartitionFor"},
	}
}
