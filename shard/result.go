package shard

import (
	"unicode/utf8"

	"github.com/coordsim/coordsim/kerr"
)

// Result is what an operation on a shard produces: the records to append (and
// then replay), the response to release once they are committed, and the
// timer changes to apply if the append succeeds. Operations never mutate the
// shard; the coordinator appends Records and replays them.
type Result[T any] struct {
	Records  []Record
	Response T
	Timers   []TimerOp
	// Completions are the late answers of earlier parked requests (a
	// classic JoinGroup or SyncGroup) that this operation releases; the
	// caller delivers them when Records are committed.
	Completions []Completion
}

// TaskKind says what a fired timer does.
type TaskKind uint8

// Timer tasks.
const (
	// TaskSweep is the per-shard expire-group-metadata sweep.
	TaskSweep TaskKind = iota + 1
	// TaskSessionTimeout fences a member that missed its heartbeats.
	TaskSessionTimeout
	// TaskRebalanceTimeout fences a consumer or streams member still at
	// MemberEpoch, which was asked to revoke partitions (tasks) and did not
	// within its rebalance timeout (Kafka's
	// scheduleConsumerGroupRebalanceTimeout).
	TaskRebalanceTimeout
	// TaskStreamsInitialRebalance computes the first target assignment of
	// a streams group once its initial rebalance delay has passed (Kafka's
	// computeDelayedTargetAssignment).
	TaskStreamsInitialRebalance
	// TaskClassicHeartbeat expires a classic member's session (Kafka's
	// expireClassicGroupMemberHeartbeat).
	TaskClassicHeartbeat
	// TaskClassicJoin ends a classic group's join phase at its rebalance
	// timeout (completeClassicGroupJoin).
	TaskClassicJoin
	// TaskClassicInitialJoin ends (or extends) an empty classic group's
	// initial rebalance delay (tryCompleteInitialRebalanceElseSchedule).
	TaskClassicInitialJoin
	// TaskClassicSync removes the members that have not synced in the
	// generation MemberEpoch (expirePendingSync).
	TaskClassicSync
	// TaskClassicMemberJoin fences a classic member of a consumer group
	// told to rejoin that did not within its rebalance timeout (Kafka's
	// consumerGroupJoinKey timer, migration_members.go).
	TaskClassicMemberJoin
	// TaskClassicMemberSync fences a classic member of a consumer group
	// that did not sync within its rebalance timeout after its join
	// (consumerGroupSyncKey).
	TaskClassicMemberSync
	// TaskRegexRefresh resolves a consumer group's regular expressions
	// (Regexes) against the topic image and writes the result: Kafka's
	// executor task refreshRegularExpressions, completed by
	// handleRegularExpressionsResult (regex.go).
	TaskRegexRefresh
	// TaskShareInitialize completes a share group's pending share-state
	// initialisation: Kafka's persister call and its
	// initializeShareGroupState write (share_init.go).
	TaskShareInitialize
)

// Task is a timer's payload: what to run when it fires.
type Task struct {
	Kind     TaskKind
	Type     GroupType
	GroupID  string
	MemberID string
	// MemberEpoch is the epoch a rebalance timeout was armed at: it fences
	// the member only if it is still there. (A classic sync timer's
	// generation.)
	MemberEpoch int32
	// DelayMs and RemainingMs are a classic initial rebalance's current
	// delay and the time left to extend it by.
	DelayMs, RemainingMs int64
	// Regexes are the regular expressions a regex refresh resolves: those
	// the group subscribed to when it was scheduled, sorted.
	Regexes []string
	// Partitions are the share partitions a share initialisation
	// completes: those its heartbeat asked for.
	Partitions []TopicPartitions
	// StreamsConfigured is filled in by whoever runs a
	// TaskStreamsInitialRebalance, when it fires, from the soft state
	// StreamsGroupHeartbeatResponse.ConfiguredTopology keeps: without one
	// the delayed assignment computes nothing.
	StreamsConfigured *ConfiguredTopology
	// StreamsTaskOffsets is filled in the same way from the task offsets
	// kept for the group's members (TaskOffsetsBook.Group): the delayed
	// assignment reads them.
	StreamsTaskOffsets map[string]MemberTaskOffsets
}

// Key is the timer key a task runs under.
func (t Task) Key() string {
	if key, ok := classicTaskKey(t); ok {
		return key
	}
	switch t.Kind {
	case TaskSweep:
		return SweepTimerKey
	case TaskRebalanceTimeout:
		return RebalanceTimeoutKey(t.GroupID, t.MemberID)
	case TaskStreamsInitialRebalance:
		return StreamsInitialRebalanceKey(t.GroupID)
	case TaskRegexRefresh:
		return RegexRefreshKey(t.GroupID)
	case TaskShareInitialize:
		return ShareInitializeKey(t.GroupID, t.Partitions)
	}
	return SessionTimeoutKey(t.GroupID, t.MemberID)
}

// FromState reports whether the group state alone says if this task's
// timer must exist (Shard.SessionTimers lists all of those): a member's
// session, rebalance or classic heartbeat timer, a classic group's join or
// sync timer. Others (the sweep, a streams group's initial delay, a classic
// member of a consumer group asked to rejoin or sync) are not rebuilt
// after a rollback.
func (t Task) FromState() bool {
	switch t.Kind {
	case TaskSessionTimeout, TaskRebalanceTimeout, TaskClassicHeartbeat, TaskClassicJoin, TaskClassicInitialJoin, TaskClassicSync:
		return true
	}
	return false
}

// TimerOp schedules (or, with Cancel, cancels) the keyed timer Key. Keys
// follow Kafka's: "expire-group-metadata", "session-timeout-<group>-<member>",
// "rebalance-timeout-<group>-<member>", "initial-rebalance-timeout-<group>".
type TimerOp struct {
	Key        string
	DeadlineMs int64
	Cancel     bool
	// IfAbsent schedules only when no timer of Key is scheduled (Kafka's
	// CoordinatorTimer.scheduleIfAbsent): an existing one keeps its deadline.
	IfAbsent bool
	Task     Task
}

// SweepTimerKey is Kafka's GROUP_EXPIRATION_KEY.
const SweepTimerKey = "expire-group-metadata"

// SessionTimeoutKey is the key of a member's session timer.
func SessionTimeoutKey(groupID, memberID string) string {
	return "session-timeout-" + groupID + "-" + memberID
}

// RebalanceTimeoutKey is the key of a member's rebalance timer (Kafka's
// groupRebalanceTimeoutKey).
func RebalanceTimeoutKey(groupID, memberID string) string {
	return "rebalance-timeout-" + groupID + "-" + memberID
}

// RegexRefreshKey is the key of a consumer group's regex refresh. Kafka's
// executor keys it "<group>-regex" in a namespace of its own; here it
// shares the timers' keys, so it takes a prefix no other key starts with.
func RegexRefreshKey(groupID string) string {
	return "regex-refresh-" + groupID
}

// StreamsInitialRebalanceKey is the key of a streams group's initial
// rebalance delay timer (Kafka's StreamsGroup.initialRebalanceTimeoutKey).
func StreamsInitialRebalanceKey(groupID string) string {
	return "initial-rebalance-timeout-" + groupID
}

// GroupIDMaxBytes bounds group ids. Kafka has no explicit limit (the record
// key is bounded by the message size); coordsim refuses ids over this size
// with INVALID_GROUP_ID so a runaway workload fails loudly.
const GroupIDMaxBytes = 1024

// MemberIDMaxBytes bounds member ids (client-generated UUIDs are 22–36 bytes).
const MemberIDMaxBytes = 256

// ValidateGroupID returns INVALID_GROUP_ID for an empty, oversized or
// non-UTF-8 id: Kafka's isGroupIdNotEmpty, which the heartbeats,
// TxnOffsetCommit and OffsetDelete apply (GroupCoordinatorService).
func ValidateGroupID(id string) error {
	if id == "" {
		return kerr.InvalidGroupID.WithMessage("group id is empty")
	}
	return ValidateGroupIDOrEmpty(id)
}

// ValidateGroupIDOrEmpty is ValidateGroupID for the APIs where "" is a group
// id like any other: OffsetCommit, OffsetFetch, DescribeGroups and
// DeleteGroups. GroupCoordinatorService.commitOffsets, fetchOffsets,
// fetchAllOffsets, describeGroups and deleteGroups refuse only a null id
// ("For backwards compatibility, we support ... the empty group id"), which
// Go cannot express; the size and UTF-8 bounds still apply.
func ValidateGroupIDOrEmpty(id string) error {
	switch {
	case len(id) > GroupIDMaxBytes:
		return kerr.InvalidGroupID.WithMessage("group id is %d bytes, more than %d", len(id), GroupIDMaxBytes)
	case !utf8.ValidString(id):
		return kerr.InvalidGroupID.WithMessage("group id is not valid UTF-8")
	}
	return nil
}

// RackIDMaxBytes bounds a member's rack id (client.rack). Kafka takes any
// string; coordsim refuses longer ones with INVALID_REQUEST, as it bounds
// member ids.
const RackIDMaxBytes = 256

func validateRackID(rack string) error {
	if len(rack) > RackIDMaxBytes || !utf8.ValidString(rack) {
		return kerr.InvalidRequest.WithMessage("RackId is invalid (%d bytes)", len(rack))
	}
	return nil
}

func validateMemberID(id string) error {
	if len(id) > MemberIDMaxBytes || !utf8.ValidString(id) {
		return kerr.InvalidRequest.WithMessage("member id is invalid (%d bytes)", len(id))
	}
	return nil
}

func notTypeErr(id string, want GroupType) error {
	return kerr.GroupIDNotFound.WithMessage("Group %s is not a %s group.", id, want)
}
