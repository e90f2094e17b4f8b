package invariants

// NoTombstoneWhileStored is invariant 1-no-tombstone-while-stored.
const NoTombstoneWhileStored = "1-no-tombstone-while-stored"

func noTombstoneWhileStored() Invariant {
	return Invariant{
		Name:    NoTombstoneWhileStored,
		Promise: "With a topology store configured, offset expiry never tombstones a streams group whose stored description epoch is set.",
		Rule:    "KIP-1331 (docs/kip1331.md §2.1): expiry defers a streams group whose description may still be in the plugin store until the cleanup cycle has deleted it and cleared the epoch.",
		Check:   "sim/invariants.go: checker.onWrite, on the sweep's records",
		Mutants: []string{"SkipSweepDeferral"},
	}
}
