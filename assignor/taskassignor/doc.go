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
// One is built in, "sticky", Kafka's StickyTaskAssignor as of trunk with
// the stateful/stateless split (no rack-aware standby placement):
//
//   - Active tasks, stateful ones first, then stateless ones, each flavour
//     balanced on its own: (1) a task stays with its previous active owner
//     while that member is under the flavour's quota; (2) otherwise it goes
//     to the least-loaded member that held it as standby or warm-up (or
//     reported an offset sum for it) and is under quota; (3) the rest go, in
//     subtopology then partition order, to the least-loaded member of the
//     least-loaded process (load is tasks per member of the process; ties
//     to the process with fewer stateless active tasks). Quotas are
//     ceil(tasks / members), lowered as members fill up.
//   - Standby tasks, only when num.standby.replicas > 0 and only for tasks of
//     stateful subtopologies: per task, up to num.standby.replicas copies,
//     never on a process that already holds the task (as active or standby).
//     A copy goes first to the task's previous active owner, then to the
//     least-loaded previous standby or warm-up holder (current standbys and
//     warm-ups before members that only report offsets, most caught-up
//     first), each while under the total quota; the rest go to the
//     least-loaded process without the task. When no process can take a
//     copy, fewer copies are assigned (Kafka logs a warning; so would a
//     caller).
//   - Warm-up tasks are never assigned by the sticky assignor: a member's
//     previous warm-ups count as previous standbys for stickiness.
//
// Choices where Kafka's order is a hash order: Kafka's HashMaps of members
// and processes and its PriorityQueues break ties in no fixed order; here
// members are ordered by member id, processes by process id, and every tie
// goes to the smaller id. Loads are compared exactly (cross-multiplied
// counts) where Kafka divides doubles; equal ratios compare equal in both.
// Not modelled: rack.aware.assignment.tags (Kafka's RackAwareStandbyPicker)
// and the "mock" assignor of Kafka's tests.
//
// Every Assign validates its input and returns a kerr error
// (UNKNOWN_SERVER_ERROR, as the coordinator reports a TaskAssignorException)
// and no assignment for a bad one. The package must never keep state between
// calls, iterate a Go map where the order can reach an output, read a clock
// or start a goroutine: it runs inside the coordinator's pure core.
package taskassignor
