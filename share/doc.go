// Package share is the record state machine of one KIP-932 share-partition
// (one share group × topic × partition), as the partition leader keeps it:
// Kafka's SharePartition (docs/share-groups.md §1).
//
// A SharePartition hands records to members (Acquire), takes their
// acknowledgements (Acknowledge: ACCEPT, RELEASE, REJECT, RENEW, all or
// nothing per request), expires acquisition locks (NextLockDeadline,
// ExpireLocks, driven by the coordinator's timers), releases a member's
// records when its share session closes (ReleaseMember), follows the log
// start (UpdateLogStartOffset), follows live group-config changes
// (UpdateConfig), routes rejected and exhausted records
// through ARCHIVING to a dead-letter queue (KIP-1191, CompleteDLQWrite),
// and keeps SPSO, SPEO, the next fetch offset, deliveryCompleteCount and
// lag. A Persister models the share coordinator: snapshots with state and
// leader epochs, fencing, and Recover after a leader move.
//
// It must never read a clock (nowMs is always an argument), start a
// goroutine, hold global state, or let Go map iteration order reach an
// output. It imports no coordsim package but kerr. Every public method
// validates its input first and returns a kerr error that changed nothing;
// an illegal §1.2 transition is a bug and panics (invariant). It is not safe
// for concurrent use.
//
// Choices where the reference is unsure or Go needs one:
//
//   - State is per offset in one contiguous window [first cached, SPEO]
//     (16 bytes a record) rather than Kafka's batches with optional
//     per-offset maps; batches survive where they are observable: one lock
//     per contiguous run acquired by one Acquire call, whole log batches
//     acquired (the soft limits of §1.6), throttling by log batch size.
//   - AcquiredRecords merge every contiguous run of one delivery count,
//     unless Fetch.BatchSize splits the new records as Kafka's
//     SharePartition.createBatches does (cut at a log batch base once an
//     entry holds BatchSize records); the locks are not split (same
//     deadline either way). Redelivered records of a per-offset batch,
//     which Kafka answers one entry per offset, stay merged.
//   - Poison-pill throttling (§1.4) reads the highest delivery count among
//     the AVAILABLE records of a fetched log batch and halves that batch's
//     length; the acquisition stops after a throttled batch.
//   - A lock whose deadline is <= nowMs counts as expired for
//     acknowledgements even before ExpireLocks runs (INVALID_RECORD_STATE);
//     Acquire does not expire locks itself. Time must not go backwards
//     between calls (INVALID_REQUEST).
//   - Persistence writes a full snapshot from SPSO to SPEO (the merged
//     result of Kafka's snapshot+delta), ACQUIRED written as AVAILABLE with
//     count − 1 (acquisition is never persisted). Lock expiry, releases, log
//     start movement and DLQ completion stand when the write fails; an
//     acknowledgement is rolled back. A fenced write (stale leader or state
//     epoch) answers FENCED_STATE_EPOCH (kerr has no FENCED_LEADER_EPOCH)
//     and fences the partition: every later call returns that error.
//   - Because failed lock-expiry writes stand in memory only, a leader move
//     can bring SPSO back to the last persisted value; SPSO never moves
//     back within one leadership, and the persisted start offset never
//     moves back (the Persister refuses it).
//   - Recovered AVAILABLE records already at the delivery limit (the limit
//     was lowered) are archived at once; persisted counts above the limit
//     are clamped to it. Offsets between persisted batches come back
//     AVAILABLE with count 0 (Kafka's gap window, fetched as new).
//   - Offsets missing between fetched batches are archived as gaps; when
//     the cache is empty SPSO jumps to the first fetched batch instead. The
//     caller must pass the log's batches from NextFetchOffset on, or from
//     the log start while the partition is uninitialised.
//   - While records below a moved log start are still ACQUIRED they stay
//     cached below SPSO; SPEO is then max(last cached offset, SPSO), so the
//     in-flight count never goes negative.
//   - Records below SPSO that are still ACQUIRED become ARCHIVED, never
//     ARCHIVING, on release: they left the log, there is nothing to copy.
//   - Delivery limit bounds are [2, 25] (the widest of Kafka's group and
//     broker ranges); lock duration, in-flight and batch limits are wider
//     than Kafka's so its unit tests (100 ms locks, 20 in flight) run as-is.
//   - Not modelled: read_committed and aborted transactions, per-offset
//     acknowledgement types inside one batch (send one AckBatch per type),
//     share sessions and their epochs (the caller's concern: ReleaseMember
//     is the hook), record_limit acquire mode.
//   - UpdateConfig applies a changed group config to a live partition, as
//     trunk reads the group config on every use: a lower delivery limit
//     archives AVAILABLE records at or over it at once and ACQUIRED ones on
//     their next release (their count may stay above the new limit until
//     then); a new lock duration applies to new acquisitions and renewals.
package share
