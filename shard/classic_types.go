package shard

// The classic group protocol's requests, responses, records and
// configuration (Kafka's JoinGroup, SyncGroup, Heartbeat and LeaveGroup;
// ClassicGroup and ClassicGroupMember). The operations are in classic.go
// (join), classic_sync.go (sync, heartbeat, leave) and classic_timers.go.

// ClassicConfig is the classic group protocol's broker configuration.
// A zero field means Kafka's default (InitialRebalanceDelayMs excepted:
// DefaultClassicConfig sets it, and 0 disables the delay).
type ClassicConfig struct {
	// MinSessionTimeoutMs and MaxSessionTimeoutMs are
	// group.classic.min.session.timeout.ms (6000) and
	// group.classic.max.session.timeout.ms (1800000): a JoinGroup's session
	// timeout outside them is INVALID_SESSION_TIMEOUT.
	MinSessionTimeoutMs, MaxSessionTimeoutMs int32
	// MaxSize is group.classic.max.size (Integer.MAX_VALUE): a join past it
	// is GROUP_MAX_SIZE_REACHED.
	MaxSize int
	// InitialRebalanceDelayMs is group.initial.rebalance.delay.ms (3000):
	// how long the first rebalance of an empty group waits for more members.
	InitialRebalanceDelayMs int32
	// NewMemberJoinTimeoutMs is Kafka's classicGroupNewMemberJoinTimeoutMs
	// (5 minutes, not configurable there): a new member whose JoinGroup is
	// still parked after it is removed.
	NewMemberJoinTimeoutMs int32
	// MigrationPolicy is group.consumer.migration.policy: the online
	// conversions between classic and consumer groups the coordinator
	// performs (migration_types.go). The zero value is Kafka's default,
	// BIDIRECTIONAL.
	MigrationPolicy MigrationPolicy
}

// DefaultClassicConfig is Kafka's defaults.
func DefaultClassicConfig() ClassicConfig {
	return ClassicConfig{MinSessionTimeoutMs: 6_000, MaxSessionTimeoutMs: 1_800_000, MaxSize: 1<<31 - 1,
		InitialRebalanceDelayMs: 3_000, NewMemberJoinTimeoutMs: 300_000}
}

func (c ClassicConfig) maxSize() int {
	if c.MaxSize <= 0 {
		return 1<<31 - 1
	}
	return c.MaxSize
}

func (c ClassicConfig) newMemberJoinTimeoutMs() int64 {
	if c.NewMemberJoinTimeoutMs <= 0 {
		return 300_000
	}
	return int64(c.NewMemberJoinTimeoutMs)
}

// ClassicProtocol is one protocol a classic member supports (JoinGroup's
// Protocols): a name (an assignor, for the consumer protocol type) and
// opaque metadata (the consumer protocol's Subscription bytes).
type ClassicProtocol struct {
	Name     string
	Metadata []byte
}

// JoinGroupRequest is one JoinGroup. "" stands for Kafka's null (member id
// UNKNOWN_MEMBER_ID, no instance id).
type JoinGroupRequest struct {
	GroupID            string
	MemberID           string
	InstanceID         string
	ClientID           string
	ClientHost         string
	SessionTimeoutMs   int32
	RebalanceTimeoutMs int32
	ProtocolType       string
	Protocols          []ClassicProtocol
	// RequireKnownMemberID is KIP-394 (JoinGroup v4 and later): a new
	// dynamic member is first sent back with MEMBER_ID_REQUIRED and the id
	// it must join with.
	RequireKnownMemberID bool
	Reason               string
	// Handle identifies this request to later Completions: a response
	// that must wait (Pending) arrives as a Completion with this handle.
	// The caller picks it, nonzero and unique among the shard's waiting
	// requests.
	Handle uint64
}

// JoinGroupMember is one member of the leader's JoinGroup response.
type JoinGroupMember struct {
	MemberID   string
	InstanceID string
	Metadata   []byte
}

// JoinGroupResponse is JoinGroup's answer. Err is the response's error
// code (a *kerr.Error), nil for none; a JoinGroup answers its errors in
// the response because some of them (MEMBER_ID_REQUIRED) change the group.
type JoinGroupResponse struct {
	Err            error
	MemberID       string
	GenerationID   int32
	ProtocolType   string
	ProtocolName   string
	Leader         string
	SkipAssignment bool
	Members        []JoinGroupMember
	// Pending says the answer comes later, as a Completion of the
	// request's Handle (Kafka's parked JoinGroup).
	Pending bool
}

// SyncGroupAssignment is the leader's assignment for one member.
type SyncGroupAssignment struct {
	MemberID   string
	Assignment []byte
}

// SyncGroupRequest is one SyncGroup. "" stands for null.
type SyncGroupRequest struct {
	GroupID      string
	MemberID     string
	InstanceID   string
	GenerationID int32
	ProtocolType string
	ProtocolName string
	Assignments  []SyncGroupAssignment
	// Handle is as JoinGroupRequest.Handle.
	Handle uint64
}

// SyncGroupResponse is SyncGroup's answer; Err as JoinGroupResponse's.
type SyncGroupResponse struct {
	Err          error
	ProtocolType string
	ProtocolName string
	Assignment   []byte
	// Pending says the answer comes later, as a Completion of the
	// request's Handle (a follower waiting for the leader's assignment).
	Pending bool
}

// HeartbeatRequest is one classic Heartbeat.
type HeartbeatRequest struct {
	GroupID      string
	MemberID     string
	InstanceID   string
	GenerationID int32
}

// LeaveGroupMember is one member a LeaveGroup removes: by member id, or
// by instance id with an empty member id (an admin's removal, KIP-345).
type LeaveGroupMember struct {
	MemberID   string
	InstanceID string
	Reason     string
}

// LeaveGroupRequest is one LeaveGroup (v3 and later carry several members).
type LeaveGroupRequest struct {
	GroupID string
	Members []LeaveGroupMember
}

// LeaveGroupMemberResponse is one member's answer; Err nil for none.
type LeaveGroupMemberResponse struct {
	MemberID   string
	InstanceID string
	Err        error
}

// LeaveGroupResponse is LeaveGroup's answer, one row per member asked.
type LeaveGroupResponse struct {
	Members []LeaveGroupMemberResponse
}

// Completion is the late answer of a parked JoinGroup or SyncGroup: the
// request with Handle gets Join or Sync (exactly one is set). Completions
// ride on the Result of whatever operation or timer releases them, and
// are released with it, once its records are committed.
type Completion struct {
	Handle uint64
	Join   *JoinGroupResponse
	Sync   *SyncGroupResponse
}

// ClassicMember is one classic group member as ClassicGroupState records
// it: Kafka's ClassicGroupMember, with the handles of its parked requests
// in place of Kafka's response futures.
type ClassicMember struct {
	MemberID           string
	InstanceID         string
	ClientID           string
	ClientHost         string
	RebalanceTimeoutMs int32
	SessionTimeoutMs   int32
	// Protocols are the member's supported protocols in its order of
	// preference.
	Protocols  []ClassicProtocol
	Assignment []byte
	// JoinHandle and SyncHandle are the handles of the member's parked
	// JoinGroup and SyncGroup, 0 for none (Kafka's awaitingJoinFuture and
	// awaitingSyncFuture).
	JoinHandle uint64
	SyncHandle uint64
	// IsNew is Kafka's ClassicGroupMember.isNew: a member added in the
	// current rebalance, whose session may expire while it is parked.
	IsNew bool
}

// metadata returns the member's metadata for protocol, nil if it does not
// support it.
func (m *ClassicMember) metadata(protocol string) []byte {
	for _, p := range m.Protocols {
		if p.Name == protocol {
			return p.Metadata
		}
	}
	return nil
}

// ClassicGroupState is coordsim's record of a classic group's whole
// membership state (Kafka keeps the rebalance in progress in memory only
// and writes GroupMetadata at its end; coordsim writes this snapshot at
// every change so that replay stays the only mutator and a replayed shard
// equals the live one). It is written after the GroupMetadata record
// wherever Kafka writes that one. Members and the pending lists are sorted
// by member id.
type ClassicGroupState struct {
	Group                   string
	State                   GroupState
	PreviousState           GroupState
	Generation              int32
	ProtocolType            string
	ProtocolName            string
	Leader                  string
	CurrentStateTimestampMs int64
	// NewMemberAdded is Kafka's ClassicGroup.newMemberAdded: a member
	// joined during the initial rebalance, which extends its delay.
	NewMemberAdded bool
	Members        []ClassicMember
	// PendingMembers are KIP-394's members sent MEMBER_ID_REQUIRED that
	// have not joined yet; PendingSyncMembers those that have not synced
	// in this generation.
	PendingMembers     []string
	PendingSyncMembers []string
	// SubscribedTopics are Kafka's ClassicGroup.subscribedTopics (sorted),
	// when SubscribedTopicsKnown (Kafka's Optional is present): the
	// topics of the members' consumer-protocol subscriptions as
	// computeSubscribedTopics found them at the group's last generation,
	// downgrade or load (classic_subscriptions.go).
	SubscribedTopics      []string
	SubscribedTopicsKnown bool
}

// GroupMetadataMember is one member of Kafka's GroupMetadataValue.
type GroupMetadataMember struct {
	MemberID           string
	InstanceID         string
	ClientID           string
	ClientHost         string
	RebalanceTimeoutMs int32
	SessionTimeoutMs   int32
	Subscription       []byte
	Assignment         []byte
}

// Type is TypeClassicGroupState.
func (*ClassicGroupState) Type() RecordType { return TypeClassicGroupState }

// GroupID is the group's id.
func (r *ClassicGroupState) GroupID() string { return r.Group }
