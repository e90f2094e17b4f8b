// Package taskassignor holds the streams-group (KIP-1071) task assignors:
// Kafka's org.apache.kafka.coordinator.group.streams.assignor package in Go.
//
// A TaskAssignor turns a GroupSpec (the members with their process ids and
// the tasks they hold now: active, standby and warm-up, and optionally the
// offset sums they report for tasks with local state; the group's
// num.standby.replicas) and a TopologyDescriber (the subtopologies, their
// task counts and whether each is stateful) into a GroupAssignment: active
// and standby tasks per member.
//
// One is built in, "sticky", Kafka 4.4's StickyTaskAssignor (no
// rack-aware standby placement), tie for tie:
//
//   - Active tasks, stateful and stateless together under one quota,
//     ceil(tasks / members), lowered as members fill up: (1) visiting tasks
//     by partition then subtopology, a task stays with its previous active
//     owner while that member is under quota; (2) otherwise the
//     least-loaded of the members that held it as standby (or reported an
//     offset sum for it) takes it if under quota; (3) the rest go, in
//     subtopology then partition order, to the least-loaded member of the
//     least-loaded process (load is tasks per member of the process).
//   - Standby tasks, only when num.standby.replicas > 0 and only for tasks of
//     stateful subtopologies: per task, up to num.standby.replicas copies,
//     never on a process that already holds the task (as active or standby).
//     A copy goes first to the task's previous active owner, then to the
//     least-loaded previous standby (current standbys before members that
//     only report offsets, most caught-up first), each if under the total
//     quota; the rest go to the least-loaded process without the task. When
//     no process can take a copy, fewer copies are assigned (Kafka logs a
//     warning; so would a caller).
//   - Warm-up tasks are never assigned, and Kafka 4.4 does not read a
//     member's previous warm-ups either.
//
// Ties are Kafka's: its "least loaded" is the head of a
// java.util.PriorityQueue comparing loads alone, filled from
// java.util.HashMaps of process and member ids, so equal loads come out in
// an order set by String.hashCode, the HashMaps' bucket order and the
// heap's sift steps. javaorder.go reproduces the three (the members of the
// GroupSpec are taken as put in member id order: where two ids share a
// bucket, Kafka's order is that of its member map, not reproduced).
// TestSticky_KafkaGolden replays 600 random groups answered by Kafka's own
// class (testdata/StickyCases.java). Not modelled:
// rack.aware.assignment.tags (Kafka's RackAwareStandbyPicker) and the
// "mock" assignor of Kafka's tests.
//
// Every Assign validates its input and returns a kerr error
// (UNKNOWN_SERVER_ERROR, as the coordinator reports a TaskAssignorException)
// and no assignment for a bad one. The package must never keep state between
// calls, iterate a Go map where the order can reach an output, read a clock
// or start a goroutine: it runs inside the coordinator's pure core.
package taskassignor
