// Package sharebroker is the broker side of KIP-932 share groups: Kafka's
// SharePartitionManager, ShareSessionCache and the data-topic logs they read
// (docs/share-groups.md §1.10, §1.11, §3.1). It drives many
// share.SharePartition state machines, one per (share group, topic,
// partition), and one share.Persister standing for the share coordinator.
//
// A Broker holds the topics and their logs (Produce, DeleteRecords, leader
// epochs), the share sessions keyed by (group, member) with their epochs,
// the cache of live share-partitions (created on first fetch from the
// persisted state, evicted when the last session of their group goes,
// rebuilt on a leader move), one lock-expiry timer per cached
// share-partition and one timer per pending dead-letter write (KIP-1191).
// ShareFetch applies piggy-backed acknowledgements, then acquires records
// from each requested partition; ShareAcknowledge applies acknowledgements;
// a FINAL epoch or DropConnection releases the member's records in the
// session's partitions (releaseSession).
//
// It must never read a clock (nowMs is always an argument, and must not go
// back between calls), start a goroutine, hold global state, or let Go map
// iteration order reach an output (every listing is sorted). Every public
// entry point validates its input first and returns a kerr error that
// changed nothing; per-partition failures go into the response instead,
// as Kafka's per-partition error codes do. It is not safe for concurrent
// use: the simulator owns it from one goroutine.
//
// The caller drives time: call Poll(nowMs) before handling requests at
// nowMs (lock expiries and DLQ completions first, reference §8), and
// sleep or jump virtual time to NextDeadline.
//
// Choices where Kafka is unsure, or where we simplify:
//
//   - One session cache for the whole cluster rather than one per broker:
//     MaxShareSessions bounds all sessions. A client talks to one broker per
//     partition leader in Kafka; here a session covers every partition.
//   - Epoch 0 on a key that already has a session replaces it, like Kafka's
//     newContext: the old session's records are NOT released, they come back
//     by lock expiry (or a later FINAL/drop of the same member).
//   - Acknowledgements for a share-partition that is not cached (never
//     fetched, or evicted by the group listener, an admin reset, fencing)
//     answer UNKNOWN_TOPIC_OR_PARTITION for that partition, as Kafka's
//     SharePartitionManager.acknowledge does when the partition cache misses.
//   - The per-fetch MaxRecords cannot be passed to share.SharePartition
//     (its BatchSize is fixed at creation), so share-partitions are created
//     with BatchSize = share.MaxBatchSize and the broker bounds what one
//     fetch acquires by the log window it hands over: whole log batches from
//     the next fetch offset until they hold MaxRecords acquirable records
//     (cached AVAILABLE ones and new ones; the group's default,
//     Config.Defaults.BatchSize, when 0). That is share's own budget rule
//     (batch_optimized: whole batches, a soft limit); share still applies
//     the in-flight limit and poison-pill throttling. sp.Config().BatchSize
//     therefore reads share.MaxBatchSize.
//   - FetchRequest.RequestMaxRecords bounds a whole ShareFetch, as Kafka's
//     MaxRecords does (ShareFetchUtils.processFetchResponse): the
//     partitions are served in order, each with what those before it left
//     (soft, whole log batches), and once nothing is left the rest acquire
//     nothing. The wire endpoint sets it and orders the partitions as
//     PartitionRotateStrategy.rotateRoundRobin; the simulator's share sink
//     leaves it 0 and divides its poll budget per partition itself.
//   - FetchRequest.BatchSize passes a ShareFetch's BatchSize to share
//     (share.Fetch.BatchSize): new records come back in AcquiredRecords
//     entries cut at log batch bases every BatchSize records, as Kafka's
//     SharePartition.createBatches. 0 (the simulator) merges contiguous
//     runs.
//   - RecordLockDurationMs(group) is the lock a group's records get
//     (ShareGroupConfigProvider.recordLockDurationMsOrDefault), which the
//     wire endpoint reports as AcquisitionLockTimeoutMs.
//   - Group configs (SetGroupConfig) reach live share-partitions at once,
//     as trunk's SharePartition reads the group config on every use
//     (share.SharePartition.UpdateConfig): a lower delivery limit archives
//     AVAILABLE records at or over it at once and ACQUIRED ones on their
//     next release; a new lock duration applies to new acquisitions and
//     renewals; share.auto.offset.reset to a partition that initialises
//     later. The DLQ topic is the exception: a live share-partition keeps
//     the one it was built with until it is rebuilt. A zero GroupConfig
//     field takes the broker default, so a group cannot set
//     share.auto.offset.reset=latest (the zero value) or renew enabled over
//     a broker default that differs.
//   - Kafka's config bounds are enforced (INVALID_CONFIG): broker defaults
//     within group.share.*'s ranges, a group's delivery limit within [2, 10]
//     and lock duration within [15 s, 60 s]. Config.WideBounds lifts them
//     to share's own ranges, for reproducing Kafka's unit tests.
//   - A share session remembers the partitions it fetched (Kafka's
//     cachedPartitions; requests never forget one), and closing it (FINAL
//     epoch or DropConnection) releases the member's records in those
//     partitions only, as releaseSession does.
//   - Dead-letter writes take DLQWriteDelayMs of virtual time; the records
//     stay ARCHIVING meanwhile. A write becomes one batch of the DLQ topic
//     partition sourcePartition % partitions. A share-partition evicted or
//     rebuilt while writes are pending drops them; the next object finds
//     ARCHIVING in the persisted state and re-issues them (PendingDLQ), so
//     no DLQ record is written twice here (Kafka may duplicate).
//   - Evicting a group's share-partitions (last session gone, admin reset)
//     drops their in-memory state; what was not persisted (acquisitions,
//     lock expiries whose write failed) comes back as persisted.
//   - share.Persister has no delete and no listing: the broker remembers
//     every key it initialised (ListShareGroupOffsets covers those), and
//     DeleteShareGroupState (a whole group) and DeleteShareGroupOffsets
//     (named topics) re-initialise each key with a bumped state
//     epoch and UninitializedStartOffset, which is what the next start sees
//     (share.auto.offset.reset applies). Listing skips keys whose start
//     offset is unresolved. Listing reads the persister with the partition's
//     current leader epoch, which records that epoch: harmless, since every
//     live share-partition already writes with it.
//   - Admin operations (ListShareGroupOffsets, AlterShareGroupOffsets,
//     DeleteShareGroupState, DeleteShareGroupOffsets) trust the group coordinator to have checked
//     that the group is EMPTY (NON_EMPTY_GROUP is its answer, not ours).
//   - Topic deletion (DeleteTopic) takes the topic's share state along at
//     once: cached share-partitions, persisted state (share.Persister.Delete)
//     and the sessions' partitions; a topic re-created under the name starts
//     from nothing. Kafka gets there in several steps (the brokers drop the
//     partitions, the group coordinator's maybeCleanupShareGroupState and
//     the share coordinator remove the state); no request sees them apart
//     here. A pending dead-letter write to a deleted DLQ topic fails.
//   - Not modelled: fetch sessions' incremental partition lists (every
//     ShareFetch names its partitions), MaxWaitMs/MinBytes (a fetch never
//     waits), record_limit mode, transactions.
package sharebroker
