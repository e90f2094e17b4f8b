package invariants

// DLQConservation is invariant 19-dlq-conservation.
const DLQConservation = "19-dlq-conservation"

func dlqConservation() Invariant {
	return Invariant{
		Name:    DLQConservation,
		Promise: "For Connect workloads with a broker-side dead-letter queue, the dead-letter topics hold exactly the records of the dead-letter writes that succeeded, under DLQ write faults too.",
		Rule:    "KIP-1191: a record a share group archives with errors.deadletterqueue.topic.name set is written to that topic; only a failed write leaves it without a copy.",
		Check:   "sim/connectsim/check.go: Sim.checkDLQConservation, when the sinks stop",
		Mutants: []string{"DropDLQWrites"},
	}
}
