// Package difftest is the differential runner: it checks coordsim's shard
// against Kafka's own group coordinator. The oracle (the Maven module in
// oracle/ at the repository root) runs Kafka 4.4's GroupCoordinatorShard in
// a JVM behind a JSON-lines pipe; this package generates seeded sequences of
// typed operations (heartbeats of consumer, share and streams groups, valid
// and invalid, fencing, leaves, static members, streams topologies and the
// internal topics they ask for, offset commits, fetches and deletes,
// transactional commits and their markers, DeleteGroups, describes of the
// three types, ListGroups, topic image changes, time advances that fire
// timers, reloads, and the classic protocol: JoinGroup, SyncGroup,
// Heartbeat, LeaveGroup and DescribeGroups of classic consumers that share
// groups with KIP-848 members, so groups are upgraded and downgraded
// online), runs each op through both, and compares what a client and the
// log observe after a small, documented normalisation (normalise.go,
// outcome.go, memberids.go).
//
// A classic JoinGroup or SyncGroup the coordinator parks (the delayed
// join, a follower waiting for its leader) carries a request number (Req):
// its answer is {"pending": true}, and the op or timer that completes it
// reports it in its outcome's Completed list, Kafka's response future on
// one side, a shard.Completion of that handle on the other (classic.go).
// The member ids a coordinator generates differ (Kafka draws UUIDs, coordsim
// hashes the request): each side's are shown as labels "@m<n>" in order of
// first appearance, and an op naming a label is sent to each side with its
// own id (memberids.go). A sequence stops at its first
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
