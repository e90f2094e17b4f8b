// Package shard is one __consumer_offsets partition of Kafka's group
// coordinator as a pure state machine: the role etcd-io/raft's RawNode plays
// for raft.
//
// Operations (CommitOffsets, ConsumerGroupHeartbeat, StreamsGroupHeartbeat,
// the sweep, the KIP-1331 writes, ...) read the shard and return a Result:
// the records to append, the response to release once they are committed,
// and timer changes. They never change the shard. Replay is the only
// mutator: a shard rebuilt by replaying its log equals the live one, which
// tests check after random workloads. Reads (FetchOffsets, DescribeGroup,
// the eligibility scan) run on whatever state they are given; the
// coordinator gives them the committed one. Clone is an O(1) copy-on-write
// snapshot.
//
// What it models: consumer groups (KIP-848: join, heartbeat, leave, fencing,
// group and member epochs, targets from the server assignors of package
// assignor, the one most members name in ServerAssignor or else the first
// of group.consumer.assignors; subscriptions by name and by RE2 regular
// expression, resolved asynchronously by a refresh timer as Kafka's
// executor does, see regex.go; reconciliation as Kafka's
// CurrentAssignmentBuilder with member states, partitions pending
// revocation, per-partition owner epochs, the heartbeat's owned partitions,
// rebalance timeouts, and static membership with temporary leaves),
// streams groups
// (KIP-1071: static members as Kafka 4.4's
// getOrMaybeCreateStaticStreamsGroupMember, streams_heartbeat.go: a
// member that leaves with -2 keeps its tasks until its session times out
// or a join under a new member id with its instance id takes them over,
// UNRELEASED_INSTANCE_ID while the instance id is held, FENCED_INSTANCE_ID
// to another member id, UNKNOWN_MEMBER_ID "Instance id X is unknown.", and
// a static member's metadata change bumps the group epoch only for its
// topology epoch, rack or process; task offsets checked and handed back
// for the coordinator's soft state, streams_task_offsets.go; topologies
// with epochs carrying what Kafka's
// StreamsGroupTopologyValue carries (source, repartition sink and source,
// state changelog topics, copartition groups), Kafka's refusal of topology
// updates unless Config.StreamsTopologyUpdates opts in, active, standby and
// warm-up tasks assigned by Kafka's sticky task assignor of package
// taskassignor over the members' processes with
// group.streams.num.standby.replicas (standbys for the subtopologies with
// changelog topics, see streams_assignor.go) and reconciled as Kafka's
// streams CurrentAssignmentBuilder does, with revocation, unreleased tasks,
// owned tasks and rebalance timeouts, NOT_READY / STALE_TOPOLOGY /
// MISSING_SOURCE_TOPICS, internal topics configured as Kafka's
// InternalTopicManager does (MISSING_INTERNAL_TOPICS with the topics for
// the caller to create, INCORRECTLY_PARTITIONED_TOPICS; internal_topics.go),
// the initial rebalance delay (ASSIGNMENT_DELAYED,
// streams_delay.go; the coordinator tells the shard whether its timer is
// pending), the application shutdown (SHUTDOWN_APPLICATION,
// streams_shutdown.go: the requester is Kafka's soft state, kept by the
// coordinator and passed in, never in a record, so a coordinator move
// forgets it as Kafka's does), a member's client id and process id taken
// on any heartbeat (a null process id keeps the stored one;
// streams_member_update.go), the described topology configured and sorted
// as StreamsGroup.asDescribedGroup does (DescribedStreamsTopology),
// KIP-1331's stored and failed description epochs),
// share groups (KIP-932: membership with the simple assignor, a port of
// Kafka's SimpleAssignor and its Simple{Homogeneous,Heterogeneous}
// AssignmentBuilder with members in Kafka's HashMap order and topics by name
// where Kafka walks hash maps, over the initialised partitions only
// (share_init.go: ShareGroupStatePartitionMetadata, initialised by a timer
// task standing for the persister call), no revocation
// phase, states EMPTY/STABLE, Kafka's cross-type GROUP_ID_NOT_FOUND answers,
// and the group-coordinator half of AlterShareGroupOffsets, which bumps the
// group epoch, and DeleteShareGroupOffsets, which writes nothing; the
// share-partition state itself belongs to the caller, package share, and
// neither the sweep nor the KIP-1331 cleanup ever deletes a share group),
// the simple classic groups memberless commits create, committed and
// transactional offsets with Kafka's expiry rules and validation
// (per-partition answers, KafkaApis' UNKNOWN_TOPIC_OR_PARTITION for a
// partition the metadata image does not hold, KIP-1251's commit at an older
// member epoch, the OffsetCommit version checks below v9, the simple
// group's ClassicGroup.validateOffsetCommit rules, TxnOffsetCommit's
// exemption of a producer without group metadata, which needs a null
// instance id (TxnOffsetCommitRequest.EmptyGroupInstanceID), offset metadata
// bounded in Java characters, the member checks of OffsetFetch and its
// no-error answer for a share group), OffsetFetch / OffsetDelete /
// DeleteGroups,
// the offsets of deleted topics (OnPartitionsDeleted, Kafka's
// onPartitionsDeleted; the topic image without the topic is what changes
// assignments), and the per-shard
// expire-group-metadata sweep with KIP-1331's deferral. What it simplifies,
// on purpose: no per-task assignment epochs on
// the record (they are derived on replay, as for consumers) and no in-place
// promotion of a standby or warm-up task to active (a newer Kafka
// development: here the standby is revoked and the active granted through
// the ordinary steps). Racks are (racks.go): a member's RackId is on its record, the
// topic image carries each partition's replica racks (SetTopicImage, in
// place of Kafka's broker registrations), the range assignor reads both
// (uniform ignores them, as trunk's does), and the racks are part of each topic's metadata hash. Go has no null: an
// empty InstanceID or RackID is Kafka's null, and a nil TopicPartitions is
// Kafka's null except on a join, where it reads as the empty list Kafka
// requires.
//
// Choices where Kafka's behaviour was unclear or Go needs one: the sweep
// visits only groups that can change (an expiry index and a deletable-group
// index), with results identical to Kafka's scan of every group; group ids
// are limited to GroupIDMaxBytes; Go has no null group id, so "" is Kafka's
// empty id, a group like any other for OffsetCommit, OffsetFetch,
// DescribeGroups and DeleteGroups (ValidateGroupIDOrEmpty) and refused
// elsewhere (ValidateGroupID); OffsetCommitRequest.APIVersion 0 means the
// newest version, for callers that speak no wire version; the
// KIP-1251 assignment epochs are derived on replay from the previous
// assignment instead of read from the record, which gives the same epochs
// on an uncompacted log; timer keys follow Kafka's ("expire-group-metadata",
// "session-timeout-<group>-<member>", "rebalance-timeout-<group>-<member>",
// "initial-rebalance-timeout-<group>").
//
// Each group type keeps its behaviour in its own files: its heartbeat
// pipeline (consumer.go, streams_heartbeat.go, share_heartbeat.go, looked
// up in heartbeatPaths) and its groupSteps (consumer_kind.go,
// streams_kind.go, share_kind.go, classic_kind.go, looked up in
// groupKinds), which the shared code asks by name for the type's records,
// state, member description, offset checks, tombstones and expiry. A new
// type is a new entry in those tables, not a new arm in shared switches.
//
// Heartbeats check a known member's epoch the same way for all three types,
// with Kafka's messages (validateMemberEpoch, Kafka trunk's
// throwIf{Consumer,Share,Streams}GroupMemberEpochIsInvalid): epoch 0 is a
// (re)join and always passes, even from a member that still exists with
// another epoch (KIP-848 fenced member recovery, KAFKA-19233), which goes on
// from its current epoch and assignment; a greater epoch is fenced, a
// smaller one passes only as the previous epoch (consumer and streams: with
// what it owns within its assignment). A consumer or streams heartbeat's
// RebalanceTimeoutMs is not sent only when it is -1 (RebalanceTimeoutNotSent,
// Kafka's sentinel); 0 is a rebalance timeout of 0, valid on a join, so a Go
// caller that sends none must say -1.
// Streams members' user endpoints (KIP-1071 interactive queries) are on
// their member records, and the heartbeat answers PartitionsByUserEndpoint
// as Kafka does (streams_endpoints.go); the group's endpoint information
// epoch, soft state in Kafka, is kept by the coordinator and handed in.
//
// Classic groups (classic*.go) run Kafka's JoinGroup, SyncGroup, Heartbeat
// and LeaveGroup as GroupMetadataManager's classic paths do, with
// ClassicGroup's states, generations, protocol vote, KIP-394 pending
// members, static members and keyed timers ("heartbeat-<group>-<member>",
// "join-<group>", "sync-<group>"). Kafka mutates its ClassicGroup in
// memory during a rebalance and writes GroupMetadata at its end; here
// every change is a ClassicGroupState record (coordsim's), written after
// Kafka's GroupMetadata where Kafka writes that one, so replay stays the
// only mutator. A load then forgets what Kafka keeps in memory only
// (classic_load.go): each classic group becomes what its last GroupMetadata
// gives, Stable with the recorded members (each supporting the group's
// protocol only) or Empty, and a group only ever in memory is gone; the
// groups it changed stay listed (ForgottenAtLoad) until a record rewrites
// them, so a replay of the log can forget the same (ForgetAsLoaded).
// OnLoaded arms every member's heartbeat as Kafka's onLoaded does. A
// rollback to the committed state is not a load and keeps a rebalance in
// progress: SessionTimers then arms the join or sync timer it needs, and
// KIP-394 pending members expire at once (classic_timers.go). Kafka breaks a
// protocol-vote tie and picks a new leader by HashMap order; coordsim by
// the first member's preference and the smallest member id. Member ids are
// the client id and a UUID-shaped hash of the request handle and the time,
// where Kafka draws a random UUID. A classic group's subscribed topics
// (what OffsetDelete refuses and the sweep keeps) are Kafka's
// computeSubscribedTopics over the members' consumer-protocol
// subscriptions, computed at each generation, downgrade and load and kept
// in the snapshot (classic_subscriptions.go).
//
// Online migration (migration_*.go, group.consumer.migration.policy in
// ClassicConfig.MigrationPolicy): a consumer-protocol join upgrades a
// classic group with members (convertToConsumerGroup: the classic group's
// tombstone, then the consumer group's records, each classic member STABLE
// at the generation with its assignment decoded from the consumer
// protocol, consumer_protocol.go, and ClassicMemberMetadata on its member
// record); the classic requests of a consumer group's classic members run
// Kafka's classicGroup*ToConsumerGroup paths over the consumer group's
// assignment and reconciliation, with join and sync timeouts
// ("join-<group>-<member>", "sync-<group>-<member>"); fencing that leaves
// only classic members, or a classic member replacing the last
// consumer-protocol static member, downgrades the group
// (convertToClassicGroup). A Kafka conversion updates its in-memory groups
// directly; here it is records, replayed like any others. Member ids a
// consumer group gives classic members are Kafka's Uuid form, hashed from
// the request's handle and the time.
//
// Delayed responses. A JoinGroup or SyncGroup that must wait (Kafka parks
// its response future on the member) answers Pending; its request's Handle,
// chosen by the caller, is kept on the member (ClassicMember.JoinHandle,
// SyncHandle). The operation or timer that later answers it returns a
// Completion (handle and response) in its Result's Completions, to be
// delivered when that Result's records are committed. Every parked request
// is answered: by the join or sync phase's end, by its member's removal
// (UNKNOWN_MEMBER_ID), by a newer request of the same member
// (REBALANCE_IN_PROGRESS, where Kafka drops the older future) or by a
// static replacement (FENCED_INSTANCE_ID).
//
// It must never read a clock (time arrives as an argument), start a
// goroutine, iterate a Go map where the order can reach an output, or
// mutate state outside Replay. It is not safe for concurrent use; a Clone and
// its origin may each be used by its own goroutine.
package shard
