// Package coordinator is one broker's group coordinator: Kafka's
// GroupCoordinatorService over its CoordinatorRuntime, hosting the shards
// (package shard) this broker leads.
//
// It routes each group to its partition with PartitionFor (Java's
// String.hashCode, bit for bit); runs write operations against a shard's
// latest state, appends their records to the partition's Log, replays them
// and releases the response as a Future when the high watermark passes them;
// runs reads against committed state; loads a shard by replaying its log
// (a snapshot of its older records plus the tail: log.go, snapshot.go) and
// unloads it (NOT_COORDINATOR after, COORDINATOR_LOAD_IN_PROGRESS while
// loading); owns the keyed timers (TimerQueue: same key replaces, fire at
// deadline <= now, FIFO among equal deadlines); records Kafka's coordinator
// metrics; writes to every hosted shard when topics are deleted
// (OnPartitionsDeleted, after SetTopicImage without them, as Kafka's
// metadata publisher calls onPartitionsDeleted); and runs the KIP-1331 engine: the per-broker back-off,
// solicitation, the push, describe statuses, DeleteGroups' plugin interplay
// and the single-flight cleanup cycle in protocols v1, v2 and v3 (the
// default).
//
// Share groups (KIP-932) get membership, DeleteGroups (EMPTY only) and the
// group-coordinator half of the share offsets admin: AlterShareGroupOffsets
// answers the bumped group epoch, DeleteShareGroupOffsets the partitions
// named. Re-initialising or deleting the share-partition state is the
// caller's (package share); the offsets sweep and the KIP-1331 cleanup
// cycle skip share groups.
//
// A failed append rolls the shard back to its committed state (docs/design.md),
// failing every uncommitted write and reconciling session timers with the
// restored state; Kafka reverts only the failing write. Plugin calls go
// through a PluginExecutor: inline here, at virtual times in the simulator,
// on goroutines in the live driver (package coordinator/live).
//
// Classic groups' JoinGroup and SyncGroup may be parked by the shard
// (shard.JoinGroupResponse.Pending): the coordinator gives each request a
// handle (the shard's load epoch and a counter, so a handle left in a
// replayed state never names a request of a later load), keeps the
// parked request's future by handle on the hosted shard, and completes it
// when a later write or timer's shard.Completion for it commits
// (classic.go); unloading the shard fails them with NOT_COORDINATOR.
//
// It reads time only through the Clock it is given, starts no goroutine
// (InlineExecutor with a Timeout is the one exception, for live use) and is
// single-threaded: every method must be called from one goroutine.
package coordinator
