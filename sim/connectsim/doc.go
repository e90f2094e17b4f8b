// Package connectsim simulates Kafka Connect beside the group coordinators
// (docs/design.md §The simulator): producers writing to data topics, and
// sink connectors reading them, either as KIP-1302 share sinks
// (WorkerShareSinkTask on a share group) or as classic WorkerSinkTasks on a
// consumer group, over a sharebroker.Broker that holds the data topics and
// the share partitions.
//
// It runs inside a simulation it does not own: package sim builds a Sim with
// New over an Engine and calls it back at four points (Start, then
// AfterEvent and SchedulePoll after every event, Finish at the end), and
// reads its results (Samples, Produced, MetricSamples, and ShareBroker for
// the share checks it runs). The Engine is all it sees of the rest of the
// world: virtual time and the event queue, the run's one random stream, the
// coordinators its groups live on (group membership, offsets and admin calls
// go through them like any client's), whether the faults healed, and the
// run's trace, marks and violations. Every task is an actor on that engine,
// like the group members of package sim. The Sim checks invariants 8 and 19
// of docs/invariants.md itself, on the state only it holds.
//
// Like sim, it must never read the wall clock, use the global random
// generator, iterate a Go map where the order can reach the trace, or start
// a goroutine: a run's trace, and so its hash, depends on the seed alone.
package connectsim
