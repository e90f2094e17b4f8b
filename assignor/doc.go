// Package assignor holds the consumer-group server-side partition assignors
// of KIP-848 behind one interface and a name registry: Kafka's
// org.apache.kafka.coordinator.group.assignor package in Go.
//
// An Assignor turns a Spec (the members with their subscriptions, optional
// rack, instance id and current target assignment; the topics with their
// partition counts and the racks of each partition's replicas) into a
// Target, the new target assignment. Two are built in:
//
//   - "uniform" is Kafka's UniformAssignor: when every member subscribes to
//     the same topics it runs UniformHomogeneousAssignmentBuilder (quota per
//     member, keep what fits, hand out the rest; since KAFKA-18688 any member
//     may keep the extra partition), otherwise
//     UniformHeterogeneousAssignmentBuilder (keep every subscribed partition,
//     hand out the rest to the least loaded subscriber, then move partitions
//     from the most to the least loaded subscribers of each topic, at most
//     16 rounds). Balance comes before stickiness.
//   - "range" is Kafka's server-side RangeAssignor: per topic, members sorted
//     by instance id (static members first) then member id receive
//     contiguous ranges, so co-partitioned topics line up. It is not sticky
//     beyond that order. When members and partitions carry racks and the
//     racks differ between partitions, a rack-matching pass runs first
//     (co-partitioned topics keep their partition numbers together).
//
// Racks: in Kafka trunk the uniform builders ignore racks (KAFKA-19909, the
// rack-aware homogeneous builder, was still open when this was written), and
// so do ours; range follows trunk's rack pass. A Spec may carry racks for
// any assignor; one that does not use them ignores them.
//
// Choices where Go needs one or Kafka's order is a hash order: topics are
// identified and ordered by name (Kafka uses topic ids and HashSet order, so
// where Kafka's tests depend on that order our expected outputs name the
// difference); members are ordered by member id; a partition is never
// assigned twice (range's fallback path in Kafka can re-hand out a range;
// ours hands out only unassigned partitions). The output lists every member,
// sorted by id, with topics sorted by name and partitions ascending.
//
// Every Assign validates its Spec and returns a kerr error (wrapping
// UNKNOWN_SERVER_ERROR, as Kafka turns a PartitionAssignorException into
// one) and no target for a bad one. The package must never keep state
// between calls, iterate a Go map where the order can reach an output, read
// a clock or start a goroutine: it runs inside the coordinator's pure core.
package assignor
