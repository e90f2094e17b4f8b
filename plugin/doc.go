// Package plugin is the topology-store SPI of coordsim: the Go mirror of Kafka's
// StreamsGroupTopologyDescriptionPlugin (KIP-1331), the TopologyDescription a Kafka
// Streams client pushes, and the safe-call layer through which the coordinator talks
// to a store.
//
// # The contract
//
// A [Store] keeps at most what the coordinator pushed for each streams group:
//
//   - SetTopology stores the description of (group, epoch). Several members of one
//     group may push the same (group, epoch, description) at once, so it must be
//     idempotent.
//   - GetTopology is epoch-scoped: it returns the description only if the stored one is
//     for that epoch. (nil, nil) means "not stored" and is a normal answer: Kafka's
//     describe reports NOT_STORED for it, not ERROR.
//   - DeleteTopology is keyed by group id only (no epoch) and idempotent, including
//     when nothing is stored. The cleanup cycle and DeleteGroups call it.
//   - Close releases the store; every later call fails, preferably with [ErrClosed].
//
// Errors are permanent or transient. Wrap them with [Permanent] or [Transient] (or
// wrap the sentinels [ErrPermanent] and [ErrTransient] with %w); [Classify] reads the
// class back, and an unclassified error counts as transient, as in Kafka, where only
// StreamsTopologyDescriptionPermanentFailureException is permanent.
//
// # The safe-call layer
//
// The coordinator never calls a Store directly: it uses [SafeSet], [SafeGet],
// [SafeDelete] and [SafeClose]. They turn a panic inside the plugin, or a nonsensical
// answer (a description and an error at once, an invalid description, a nil pointer
// posing as an error), into a permanent error with Kafka's fixed message
// "Topology description plugin failed.", so a misbehaving plugin never crashes the
// coordinator. Every error they return is classified.
//
// # What this package must never do
//
// It never reads a clock, never draws from a random source other than the one a caller
// passes in, and never starts a goroutine, with one exception: a Safe call whose
// context has a deadline runs the plugin on a goroutine so that it can give up at the
// deadline. Without a deadline the call runs inline, which is what the simulator does,
// so a simulation stays single-threaded and deterministic.
package plugin
