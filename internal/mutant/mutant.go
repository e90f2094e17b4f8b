// Package mutant holds deliberate bugs that tests switch on to prove the
// simulator's invariant checker catches each invariant's violation. It is
// internal: only code in this module can set a mutant, and nothing outside
// tests ever should. A zero Set changes nothing.
package mutant

// Set lists the mutants; each breaks exactly one invariant of docs/invariants.md.
type Set struct {
	// SkipSweepDeferral makes the sweep tombstone streams groups whose
	// stored description epoch is set (invariant 1).
	SkipSweepDeferral bool
	// ClearUnobservedGroups makes the v1 conditional clear also clear the
	// stored epoch of every other streams group on the shard, groups its
	// scan never observed (invariant 2).
	ClearUnobservedGroups bool
	// ListNonEmptyForCleanup makes the eligibility scan also return
	// non-empty streams groups with a stored epoch (invariant 3).
	ListNonEmptyForCleanup bool
	// NoSingleFlight lets a cleanup cycle start while one is in flight
	// (invariant 4).
	NoSingleFlight bool
	// ExpireEarly makes the sweep expire offsets at half their retention
	// (invariant 5).
	ExpireEarly bool
	// FinalizeNeverClears makes the v2 finalize leave -2 in place, so
	// groups never become tombstone-able (invariant 6, liveness).
	FinalizeNeverClears bool
	// FinalizeKeepsAdvanced makes the v2 finalize skip groups whose stored
	// epoch advanced during the delete, reopening the race (invariant 6,
	// no plugin-side data loss under v2).
	FinalizeKeepsAdvanced bool
	// StaleFencingToken makes a v3 coordinator send the epoch of the
	// partition's first load as its fencing token, not the epoch of its own
	// load, so a new owner's calls tie with its predecessor's and a late
	// delete is no longer refused (invariant 6, no plugin-side data loss
	// under v3).
	StaleFencingToken bool
	// StoreIgnoresFencingToken makes the simulator's store claim
	// plugin.FencedStore while running fenced calls as plain ones (invariant
	// 6, no plugin-side data loss under v3).
	StoreIgnoresFencingToken bool
	// CorruptLiveReplay makes the shard's replay of offset commits store a
	// different offset than the record holds, so live state (and any rebuild
	// with the same mutant) departs from a correct replay of the log
	// (invariant 7).
	CorruptLiveReplay bool
	// ShareSinkAckBeforePut makes the simulated share sink task ACCEPT its
	// records when put() starts instead of when it returns, so a task killed
	// inside put() loses them (invariant 8: none is lost).
	ShareSinkAckBeforePut bool
	// ShareAckIgnoresOwner makes the share broker apply an acknowledgement
	// as if it came from the record's holder, whoever sent it (invariant 8:
	// an acknowledgement from a non-owner is refused).
	ShareAckIgnoresOwner bool
	// SkipRevocation makes the shard's consumer reconciliation treat the
	// partitions a member must revoke as already revoked, so another member
	// may take them while the first still holds them (the one-owner
	// invariant).
	SkipRevocation bool
}
