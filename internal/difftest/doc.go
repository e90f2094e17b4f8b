// Package difftest is the differential runner: it checks coordsim's shard
// against Kafka's own group coordinator. The oracle (the Maven module in
// oracle/ at the repository root) runs Kafka 4.4's GroupCoordinatorShard in
// a JVM behind a JSON-lines pipe; this package generates seeded sequences of
// typed operations (heartbeats of consumer, share and streams groups, valid
// and invalid, fencing, leaves, static members, streams topologies and the
// internal topics they ask for, offset commits, fetches and deletes,
// transactional commits and their markers, DeleteGroups, describes of the
// three types, ListGroups, topic image changes, time advances that fire
// timers, reloads), runs each op through both, and compares what a client
// and the log observe after a small, documented normalisation
// (normalise.go, epochshift.go, outcome.go). A sequence stops at its first
// divergence; a divergence the Known table does not explain is reduced
// (pebble's TryToReduce) and can be written as a datadriven reproduction
// that replays against coordsim alone (repro.go).
//
// The shard is driven as package coordinator drives it: an operation's
// records are replayed at once, its timer changes go to a keyed timer queue
// with Kafka's semantics, and timers fire only when an Advance moves time.
// The oracle's side is driven the same way (oracle/README.md).
//
// It must never be imported by the simulator or the coordinator: it is a
// test harness, and it starts a JVM. Nothing here is reached by a
// simulation, so the oracle process and its pipe are allowed here.
package difftest
