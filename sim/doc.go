// Package sim runs deterministic simulations of a cluster of Kafka group
// coordinators on virtual time (docs/design.md §The simulator).
//
// One simulation is single-threaded: an event queue ordered by (time,
// sequence) (a 4-ary heap, engine.go) and one seeded PCG generator from
// which every random choice is drawn in a fixed order. Brokers are
// coordinators over shared partition logs, so a shard moves by unloading on
// one broker and loading on another. Clients are actors (Kafka Streams
// instances, KIP-848 consumers, share members, simple consumers, an admin,
// and the classic consumers of rolling-upgrade applications, which speak
// JoinGroup/SyncGroup/Heartbeat and assign on the leader: classic_actor.go,
// rolling_upgrade.go; what their rolls cost the applications' records, in
// pauses and duplicates, is measured after every event by package
// consumption, rolling_costs.go, and CompareKIP848 sets a run beside its
// all-KIP-848 baseline, Workload.RollingUpgradeBaseline).
// A Connect workload runs beside them in package connectsim, which sees the
// world only through the engine interface connect.go implements. Faults each
// have a switch and a probability (see Fault kinds below). After every event
// the checker verifies the invariants of docs/invariants.md (with a
// replay-equality check every Options.ReplayCheckEvery events and at the
// end); after the workload the faults heal, the clients leave, and a
// liveness phase requires every group that can expire to be cleaned up. The
// same Options give a byte-identical trace; Result.TraceHash fingerprints
// it.
//
// Choices: an invariant that needs the state an operation ran on reads it
// through the coordinator's OnWrite hook; the plugin-side data-loss probe
// checks a group only when no plugin call for it and no cleanup cycle on its
// broker is in flight; under v1 a loss is counted as "accepted" (the race
// of docs/kip1331.md §1.8) when a race event of the group explains it, and
// is a violation otherwise, as under v2 and v3. The invariants are listed,
// with their promises and mutants, by the registry in sim/invariants.
// Switching a fault off does not keep the random stream of the others
// unchanged.
//
// Fault kinds: each kind is one row of faultKinds (faults.go) and a file of
// its own, fault_<name>.go, which holds everything else about it: its
// scenario keys (its rows of Params, with bounds, docs and swarm draws), its
// values in the light and heavy presets, the rules that tie its keys
// together, and the hooks through which it acts. The world calls the hooks
// at fixed points: building the topology store's fault wrapper, the
// coordinators' configuration and the Connect simulator's faults, the
// workload's start, every plugin call, append and commit, every cleanup
// cycle's start, and every heartbeat and commit of a member; always in
// table order, and only before the faults heal. A new kind at an existing
// point is its row, its file and its fields in Faults; a new point is a
// hook field on faultKind and one call in the world. The table's order is
// part of the trace: the hooks draw from the one random stream in it.
//
// It must never read the wall clock, use the global random generator,
// iterate a Go map where the order can reach the trace, or start a
// goroutine: Run is one goroutine; sweeps run many Runs in parallel.
package sim
