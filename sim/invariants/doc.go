// Package invariants is the registry of the invariants the simulator's
// checker enforces (issue 23 item 4): one file per invariant, each with its
// name as violations report it, the promise it makes in one sentence, the
// Kafka rule it guards, where package sim checks it, and the mutants
// (internal/mutant) that must trip it. `coordsim invariants` lists the
// registry, `--skip-invariant NAME` refuses any name not in it,
// docs/invariants.md's table is generated from it (Markdown; a test fails
// when the page is stale), and sim's mutation-score test holds its mutant
// cases to it.
//
// The checks themselves stay in package sim: they read the simulated
// world's internals (the coordinators' committed and latest shards, the
// clients' holdings, the plugin calls in flight, the share brokers), and a
// view interface narrow enough to be worth having would have had to export
// most of that. The registry is what a user and a test need to know about
// an invariant; Check says where the code is.
//
// It is a leaf: pure data, no imports of the module, no state.
package invariants
