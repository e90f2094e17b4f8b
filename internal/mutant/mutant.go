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
	// SkipTaskRevocation makes the shard's streams reconciliation treat the
	// tasks a member must revoke as already revoked, so another member may
	// take an active task while the first still runs it (the one-owner
	// invariant, for streams groups).
	SkipTaskRevocation bool
	// SkipStandbyRelease makes the shard's streams reconciliation give a
	// standby or warm-up task at once, even while the member's process
	// still holds the task in another role (the standby-apart invariant).
	SkipStandbyRelease bool

	// The bugs below were planted by hand once and missed by the checker
	// (issue 10); each now has the invariant that catches it, listed in
	// docs/mutants.md.

	// V1ClearIgnoresEpoch makes the v1 conditional clear skip its epoch
	// compare: it clears a stored epoch a concurrent push advanced (2).
	V1ClearIgnoresEpoch bool
	// NoOffsetsLeftIgnoresTxn makes the sweep's "nothing left" ignore open
	// transactions, so a group with pending transactional offsets is
	// tombstoned (13-group-expiry).
	NoOffsetsLeftIgnoresTxn bool
	// ExpireStrictlyAfter makes the sweep expire offsets only strictly after
	// their deadline (> instead of >=) (12-offset-expiry-on-time).
	ExpireStrictlyAfter bool
	// IgnoreLegacyExpireTimestamp makes the sweep judge offsets committed
	// with an explicit retention by offsets.retention.minutes alone
	// (12-offset-expiry-on-time).
	IgnoreLegacyExpireTimestamp bool
	// ReadsSeeUncommitted makes the coordinator's reads (OffsetFetch,
	// DescribeGroups) answer from the latest, uncommitted state
	// (10-reads-committed).
	ReadsSeeUncommitted bool
	// DescribeSeesUncommitted makes only the describe APIs (DescribeGroups,
	// ConsumerGroupDescribe, ShareGroupDescribe, StreamsGroupDescribe)
	// answer from the latest, uncommitted state; OffsetFetch stays correct,
	// so only the describe half of the shadow check can catch it
	// (10-reads-committed).
	DescribeSeesUncommitted bool
	// PlainAbsPartitionFor makes the coordinator route with Math.abs instead
	// of Utils.abs, so an id hashing to Integer.MIN_VALUE gets a negative
	// partition (16-routing).
	PlainAbsPartitionFor bool
	// DeleteNonEmptyGroups makes DeleteGroups delete groups with members
	// (11-delete-only-empty).
	DeleteNonEmptyGroups bool
	// HeartbeatKeepsSessionTimer makes a steady heartbeat leave the member's
	// session timer where it was, so live members are fenced
	// (14-no-live-member-fenced).
	HeartbeatKeepsSessionTimer bool
	// ClassicHeartbeatKeepsTimer makes a classic Heartbeat in a Stable or
	// CompletingRebalance classic group leave the member's heartbeat timer
	// where it was, so a classic member that keeps heartbeating is removed
	// a session timeout after it last joined (14-no-live-member-fenced).
	ClassicHeartbeatKeepsTimer bool
	// V1FailedDeletesSucceed makes the v1 cycle clear the stored epoch of a
	// group whose delete failed, leaking its row (15-v1-leaks-explained).
	V1FailedDeletesSucceed bool
	// ExpireSubscribed makes the sweep expire offsets of topics a member
	// subscribes to (5).
	ExpireSubscribed bool
	// ShareIgnoresMaxInFlight makes share partitions acquire new records
	// past share.partition.max.record.locks (17-share-in-flight-cap).
	ShareIgnoresMaxInFlight bool

	// The bugs below were planted for issue 27's protocol invariants.

	// DropDLQWrites makes the share broker report a dead-letter write as
	// successful without appending its records to the DLQ topic
	// (19-dlq-conservation).
	DropDLQWrites bool
	// ExpirePendingTxnOffsets makes the sweep expire a due offset even when
	// its partition has a pending transactional offset
	// (20-pending-txn-offsets-kept).
	ExpirePendingTxnOffsets bool
	// LoadDropsShareTimers makes a freshly loaded shard arm no session
	// timer for share members, so a share member that stops heartbeating
	// after a shard move is never fenced (21-member-timers).
	LoadDropsShareTimers bool
	// RevokingMemberGetsTargetEpoch makes consumer reconciliation move a
	// member that must still revoke partitions to the target epoch at
	// once, instead of keeping its epoch until it acknowledges the
	// revocation (22-member-epochs).
	RevokingMemberGetsTargetEpoch bool
	// SkipCoordinatorFence makes a v3 coordinator apply a KIP-1331 write
	// that follows a read made under an earlier load of its partition, as
	// v2 does: only the store's fence is left (23-coordinator-fence).
	SkipCoordinatorFence bool
	// V1SkipsClearAfterDelete makes the v1 cycle write no conditional
	// clear after its deletes succeed: the groups keep a stored epoch whose
	// row is gone, a loss no race explains (24-v1-loss-explained).
	V1SkipsClearAfterDelete bool
	// RebalanceTimerTooLate makes the shard arm a revoking member's
	// rebalance timer at ten times its rebalance timeout, so a member that
	// never acknowledges holds its partitions far too long
	// (25-revocation-bounded).
	RebalanceTimerTooLate bool
	// V2PushSkipsMark makes v2's push path skip its first write, the -2
	// mark of a group with nothing stored: a setTopology that fails after
	// the store applied it leaves a row the group does not know of, and
	// the row outlives the group (6-liveness), with none of v2's known
	// holes to explain it.
	V2PushSkipsMark bool

	// The bug below was planted for issue 24's rolling upgrade.

	// UpgradeDropsAssignment makes the online upgrade of a classic group
	// convert its first member with no assignment, so the consumer group
	// hands that member's partitions to others while the classic client
	// still holds them (9-one-owner).
	UpgradeDropsAssignment bool

	// The bug below was planted for issue 27's independent models.

	// ReplayCommitsAbortedTxn makes the shard's replay of an aborting end
	// transaction marker commit the producer's pending offsets, as a
	// committing marker does. It is a bug in replay itself (InReplay): every
	// shard rebuilt from the log repeats it, so only the reference model
	// catches it (26-reference-model).
	ReplayCommitsAbortedTxn bool
}

// InReplay returns the mutants of s that are planted in shard's replay code
// itself, as a real bug there would be: every shard rebuilt from the log
// with that code replays them too, so the checker's own rebuilds
// (7-replay-equality, 10-reads-committed) keep them, and only a model that
// does not replay with shard's code (26-reference-model) can catch them.
func (s Set) InReplay() Set {
	return Set{ReplayCommitsAbortedTxn: s.ReplayCommitsAbortedTxn}
}
