package shard

import (
	"fmt"

	"github.com/coordsim/coordsim/offsets"
)

// RecordType names a record kind; the values follow Kafka's CoordinatorRecordType
// (docs/kip1331.md §4.4) in spirit, not in number.
type RecordType uint8

// Record types. A record whose Tombstone field is true deletes what its key
// names, as a null value does in Kafka.
const (
	TypeOffsetCommit RecordType = iota + 1
	TypeEndTransactionMarker
	TypeGroupMetadata // classic groups
	TypeConsumerGroupMetadata
	TypeConsumerGroupMemberMetadata
	TypeConsumerGroupTargetAssignmentMetadata
	TypeConsumerGroupTargetAssignmentMember
	TypeConsumerGroupCurrentMemberAssignment
	TypeStreamsGroupMetadata
	TypeStreamsGroupTopology
	TypeStreamsGroupMemberMetadata
	TypeStreamsGroupTargetAssignmentMetadata
	TypeStreamsGroupTargetAssignmentMember
	TypeStreamsGroupCurrentMemberAssignment
	TypeShareGroupMetadata
	TypeShareGroupMemberMetadata
	TypeShareGroupTargetAssignmentMetadata
	TypeShareGroupTargetAssignmentMember
	TypeShareGroupCurrentMemberAssignment
	TypeConsumerGroupRegularExpression
	TypeClassicGroupState
	TypeShareGroupStatePartitionMetadata
	typeEnd
)

var recordTypeNames = [...]string{
	TypeOffsetCommit:                          "OffsetCommit",
	TypeEndTransactionMarker:                  "EndTransactionMarker",
	TypeGroupMetadata:                         "GroupMetadata",
	TypeConsumerGroupMetadata:                 "ConsumerGroupMetadata",
	TypeConsumerGroupMemberMetadata:           "ConsumerGroupMemberMetadata",
	TypeConsumerGroupTargetAssignmentMetadata: "ConsumerGroupTargetAssignmentMetadata",
	TypeConsumerGroupTargetAssignmentMember:   "ConsumerGroupTargetAssignmentMember",
	TypeConsumerGroupCurrentMemberAssignment:  "ConsumerGroupCurrentMemberAssignment",
	TypeStreamsGroupMetadata:                  "StreamsGroupMetadata",
	TypeStreamsGroupTopology:                  "StreamsGroupTopology",
	TypeStreamsGroupMemberMetadata:            "StreamsGroupMemberMetadata",
	TypeStreamsGroupTargetAssignmentMetadata:  "StreamsGroupTargetAssignmentMetadata",
	TypeStreamsGroupTargetAssignmentMember:    "StreamsGroupTargetAssignmentMember",
	TypeStreamsGroupCurrentMemberAssignment:   "StreamsGroupCurrentMemberAssignment",
	TypeShareGroupMetadata:                    "ShareGroupMetadata",
	TypeShareGroupMemberMetadata:              "ShareGroupMemberMetadata",
	TypeShareGroupTargetAssignmentMetadata:    "ShareGroupTargetAssignmentMetadata",
	TypeShareGroupTargetAssignmentMember:      "ShareGroupTargetAssignmentMember",
	TypeShareGroupCurrentMemberAssignment:     "ShareGroupCurrentMemberAssignment",
	TypeConsumerGroupRegularExpression:        "ConsumerGroupRegularExpression",
	TypeClassicGroupState:                     "ClassicGroupState",
	TypeShareGroupStatePartitionMetadata:      "ShareGroupStatePartitionMetadata",
}

func (t RecordType) String() string {
	if t == 0 || t >= typeEnd {
		return fmt.Sprintf("RecordType(%d)", uint8(t))
	}
	return recordTypeNames[t]
}

// Record is one entry of a shard's log. Replaying records is the only way a
// shard's state changes.
type Record interface {
	// Type is the record's kind.
	Type() RecordType
	// GroupID is the group the record belongs to ("" for none).
	GroupID() string
}

// NoProducerID marks a non-transactional offset commit.
const NoProducerID int64 = -1

// OffsetCommit is Kafka's OffsetCommit record (key group/topic/partition). With
// a ProducerID it is a pending transactional offset until an
// EndTransactionMarker of that producer arrives. (Kafka carries the producer id
// on the record batch; we carry it on the record.)
type OffsetCommit struct {
	Group      string
	Topic      string
	Partition  int32
	Value      offsets.OffsetAndMetadata
	ProducerID int64
	Tombstone  bool
}

// EndTransactionMarker commits or aborts ProducerID's pending offsets, of
// every group (Kafka's marker belongs to the partition); Group names the
// group the marker was written for, which routes it to its shard.
type EndTransactionMarker struct {
	Group      string
	ProducerID int64
	Commit     bool
}

// GroupMetadata is the classic group record, Kafka's GroupMetadataValue:
// written as Kafka writes it (a new group, a rebalance that ends empty, the
// leader's assignment), with the members, their subscription in the chosen
// protocol and their assignment. Replayed alone (a load) it gives an Empty
// group or a Stable one with those members, as Kafka's load does; the
// ClassicGroupState record after it carries the rest (classic_types.go).
type GroupMetadata struct {
	Group                   string
	ProtocolType            string
	Generation              int32
	Protocol                string
	Leader                  string
	CurrentStateTimestampMs int64
	Members                 []GroupMetadataMember
	Tombstone               bool
}

// ConsumerGroupMetadata carries a consumer group's epoch; its tombstone deletes
// the group.
type ConsumerGroupMetadata struct {
	Group        string
	Epoch        int32
	MetadataHash int64
	Tombstone    bool
}

// ConsumerGroupMemberMetadata is a member's subscription; its tombstone
// removes the member.
type ConsumerGroupMemberMetadata struct {
	Group          string
	MemberID       string
	InstanceID     string // "" for a dynamic member
	RackID         string // the member's client.rack, "" for none
	ServerAssignor string // the assignor the member names, "" for none
	// SubscribedTopicRegex is the member's regular expression, "" for none.
	SubscribedTopicRegex string
	ClientID             string
	// ClientHost is the member's address as Kafka's request context shows
	// it ("/127.0.0.1"), "" when the caller gave none. Describes show it,
	// and a downgrade gives it to the member's classic incarnation.
	ClientHost         string
	SubscribedTopics   []string // sorted, deduplicated
	RebalanceTimeoutMs int32
	// Classic is the member's ClassicMemberMetadata when it uses the
	// classic protocol (online migration), nil otherwise.
	Classic   *ClassicMemberMetadata
	Tombstone bool
}

// ConsumerGroupTargetAssignmentMetadata carries the target assignment epoch
// and when it was computed (AssignmentTimestampMs, 0 when a target was not
// computed: the group emptied or converted), which the assignment interval
// counts from.
type ConsumerGroupTargetAssignmentMetadata struct {
	Group                 string
	AssignmentEpoch       int32
	AssignmentTimestampMs int64
	Tombstone             bool
}

// ConsumerGroupTargetAssignmentMember is one member's target partitions.
type ConsumerGroupTargetAssignmentMember struct {
	Group      string
	MemberID   string
	Partitions []TopicPartitions
	Tombstone  bool
}

// ConsumerGroupCurrentMemberAssignment is a member's reconciliation state,
// Kafka's ConsumerGroupCurrentMemberAssignmentValue: its epochs, its
// MemberState, the partitions it owns (Kafka's AssignedPartitions) and those
// it must revoke before it may move to the next epoch.
type ConsumerGroupCurrentMemberAssignment struct {
	Group                       string
	MemberID                    string
	MemberEpoch                 int32
	PreviousMemberEpoch         int32
	State                       MemberState
	Partitions                  []TopicPartitions
	PartitionsPendingRevocation []TopicPartitions
	Tombstone                   bool
}

// StreamsGroupMetadata is Kafka's StreamsGroupMetadataValue with KIP-1331's two
// tagged fields. Its tombstone deletes the group.
type StreamsGroupMetadata struct {
	Group                          string
	Epoch                          int32
	MetadataHash                   int64
	ValidatedTopologyEpoch         int32
	StoredDescriptionTopologyEpoch int32
	FailedDescriptionTopologyEpoch int32
	// LastNumStandbyReplicas is Kafka's LastAssignmentConfigs, the
	// assignment configuration of the last group-epoch bump: the group's
	// num.standby.replicas then. A heartbeat that sees another value bumps
	// the group epoch, so the change gets assigned.
	LastNumStandbyReplicas int32
	Tombstone              bool
}

// StreamsGroupTopology is the group's configured topology (the part KIP-1071
// sends for assignment).
type StreamsGroupTopology struct {
	Group     string
	Topology  Topology
	Tombstone bool
}

// StreamsGroupMemberMetadata is a streams member's metadata.
type StreamsGroupMemberMetadata struct {
	Group     string
	MemberID  string
	ProcessID string
	ClientID  string
	// ClientHost is the member's address as Kafka's request context shows
	// it ("/127.0.0.1"), "" when the caller gave none (the simulator):
	// StreamsGroupMemberMetadataValue.clientHost. StreamsGroupDescribe
	// shows it.
	ClientHost         string
	RackID             string // the member's client.rack, "" for none
	InstanceID         string // group.instance.id, "" (null) for a dynamic member
	RebalanceTimeoutMs int32
	TopologyEpoch      int32
	// UserEndpoint is the member's application.server (KIP-1071's user
	// endpoint for interactive queries), nil for none: Kafka's
	// StreamsGroupMemberMetadataValue.userEndpoint.
	UserEndpoint *Endpoint
	Tombstone    bool
}

// Endpoint is a Kafka Streams instance's user endpoint (application.server):
// Kafka's StreamsGroupMemberMetadataValue.Endpoint.
type Endpoint struct {
	Host string
	Port uint16
}

func (e *Endpoint) String() string { return fmt.Sprintf("%s:%d", e.Host, e.Port) }

// cloneEndpoint copies an optional endpoint, so a member never aliases a
// request.
func cloneEndpoint(e *Endpoint) *Endpoint {
	if e == nil {
		return nil
	}
	c := *e
	return &c
}

// sameEndpoint reports whether two optional endpoints are equal.
func sameEndpoint(a, b *Endpoint) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// StreamsGroupTargetAssignmentMetadata carries the streams target assignment epoch
// and when it was computed (AssignmentTimestampMs, 0 when a target was not
// computed: the group emptied or converted), which the assignment interval
// counts from.
type StreamsGroupTargetAssignmentMetadata struct {
	Group                 string
	AssignmentEpoch       int32
	AssignmentTimestampMs int64
	Tombstone             bool
}

// StreamsGroupTargetAssignmentMember is one streams member's target tasks,
// Kafka's StreamsGroupTargetAssignmentMemberValue: active, standby and
// warm-up tasks.
type StreamsGroupTargetAssignmentMember struct {
	Group        string
	MemberID     string
	ActiveTasks  []TaskIDs
	StandbyTasks []TaskIDs
	WarmupTasks  []TaskIDs
	Tombstone    bool
}

// StreamsGroupCurrentMemberAssignment is a streams member's reconciliation
// state, Kafka's StreamsGroupCurrentMemberAssignmentValue: its epochs, its
// state (Kafka's streams MemberState values, see StreamsMemberState), the
// active, standby and warm-up tasks it owns and those it must revoke before
// it may move to the next epoch.
type StreamsGroupCurrentMemberAssignment struct {
	Group                         string
	MemberID                      string
	MemberEpoch                   int32
	PreviousMemberEpoch           int32
	State                         StreamsMemberState
	ActiveTasks                   []TaskIDs
	StandbyTasks                  []TaskIDs
	WarmupTasks                   []TaskIDs
	ActiveTasksPendingRevocation  []TaskIDs
	StandbyTasksPendingRevocation []TaskIDs
	WarmupTasksPendingRevocation  []TaskIDs
	Tombstone                     bool
}

// ShareGroupMetadata carries a share group's epoch; its tombstone deletes the group.
type ShareGroupMetadata struct {
	Group        string
	Epoch        int32
	MetadataHash int64
	Tombstone    bool
}

// ShareGroupMemberMetadata is a share member's subscription.
type ShareGroupMemberMetadata struct {
	Group    string
	MemberID string
	ClientID string
	// ClientHost is the member's address as Kafka's request context shows
	// it ("/127.0.0.1"), "" when the caller gave none (the simulator):
	// ShareGroupMemberMetadataValue.clientHost. ShareGroupDescribe shows
	// it.
	ClientHost       string
	RackID           string // the member's client.rack, "" for none
	SubscribedTopics []string
	Tombstone        bool
}

// ShareGroupTargetAssignmentMetadata carries the share target assignment epoch
// and when it was computed (AssignmentTimestampMs, 0 when a target was not
// computed: the group emptied or converted), which the assignment interval
// counts from.
type ShareGroupTargetAssignmentMetadata struct {
	Group                 string
	AssignmentEpoch       int32
	AssignmentTimestampMs int64
	Tombstone             bool
}

// ShareGroupTargetAssignmentMember is one share member's target partitions.
type ShareGroupTargetAssignmentMember struct {
	Group      string
	MemberID   string
	Partitions []TopicPartitions
	Tombstone  bool
}

// ShareGroupCurrentMemberAssignment is a share member's current state.
type ShareGroupCurrentMemberAssignment struct {
	Group               string
	MemberID            string
	MemberEpoch         int32
	PreviousMemberEpoch int32
	Partitions          []TopicPartitions
	Tombstone           bool
}

func (*OffsetCommit) Type() RecordType         { return TypeOffsetCommit }
func (*EndTransactionMarker) Type() RecordType { return TypeEndTransactionMarker }
func (*GroupMetadata) Type() RecordType        { return TypeGroupMetadata }
func (*ConsumerGroupMetadata) Type() RecordType {
	return TypeConsumerGroupMetadata
}
func (*ConsumerGroupMemberMetadata) Type() RecordType {
	return TypeConsumerGroupMemberMetadata
}
func (*ConsumerGroupTargetAssignmentMetadata) Type() RecordType {
	return TypeConsumerGroupTargetAssignmentMetadata
}
func (*ConsumerGroupTargetAssignmentMember) Type() RecordType {
	return TypeConsumerGroupTargetAssignmentMember
}
func (*ConsumerGroupCurrentMemberAssignment) Type() RecordType {
	return TypeConsumerGroupCurrentMemberAssignment
}
func (*StreamsGroupMetadata) Type() RecordType { return TypeStreamsGroupMetadata }
func (*StreamsGroupTopology) Type() RecordType { return TypeStreamsGroupTopology }
func (*StreamsGroupMemberMetadata) Type() RecordType {
	return TypeStreamsGroupMemberMetadata
}
func (*StreamsGroupTargetAssignmentMetadata) Type() RecordType {
	return TypeStreamsGroupTargetAssignmentMetadata
}
func (*StreamsGroupTargetAssignmentMember) Type() RecordType {
	return TypeStreamsGroupTargetAssignmentMember
}
func (*StreamsGroupCurrentMemberAssignment) Type() RecordType {
	return TypeStreamsGroupCurrentMemberAssignment
}
func (*ShareGroupMetadata) Type() RecordType { return TypeShareGroupMetadata }
func (*ShareGroupMemberMetadata) Type() RecordType {
	return TypeShareGroupMemberMetadata
}
func (*ShareGroupTargetAssignmentMetadata) Type() RecordType {
	return TypeShareGroupTargetAssignmentMetadata
}
func (*ShareGroupTargetAssignmentMember) Type() RecordType {
	return TypeShareGroupTargetAssignmentMember
}
func (*ShareGroupCurrentMemberAssignment) Type() RecordType {
	return TypeShareGroupCurrentMemberAssignment
}

func (r *OffsetCommit) GroupID() string                          { return r.Group }
func (r *EndTransactionMarker) GroupID() string                  { return r.Group }
func (r *GroupMetadata) GroupID() string                         { return r.Group }
func (r *ConsumerGroupMetadata) GroupID() string                 { return r.Group }
func (r *ConsumerGroupMemberMetadata) GroupID() string           { return r.Group }
func (r *ConsumerGroupTargetAssignmentMetadata) GroupID() string { return r.Group }
func (r *ConsumerGroupTargetAssignmentMember) GroupID() string   { return r.Group }
func (r *ConsumerGroupCurrentMemberAssignment) GroupID() string  { return r.Group }
func (r *StreamsGroupMetadata) GroupID() string                  { return r.Group }
func (r *StreamsGroupTopology) GroupID() string                  { return r.Group }
func (r *StreamsGroupMemberMetadata) GroupID() string            { return r.Group }
func (r *StreamsGroupTargetAssignmentMetadata) GroupID() string  { return r.Group }
func (r *StreamsGroupTargetAssignmentMember) GroupID() string    { return r.Group }
func (r *StreamsGroupCurrentMemberAssignment) GroupID() string   { return r.Group }
func (r *ShareGroupMetadata) GroupID() string                    { return r.Group }
func (r *ShareGroupMemberMetadata) GroupID() string              { return r.Group }
func (r *ShareGroupTargetAssignmentMetadata) GroupID() string    { return r.Group }
func (r *ShareGroupTargetAssignmentMember) GroupID() string      { return r.Group }
func (r *ShareGroupCurrentMemberAssignment) GroupID() string     { return r.Group }

// TopicPartitions is a topic and a sorted list of its partitions.
type TopicPartitions struct {
	Topic      string
	Partitions []int32
}

// TaskIDs is a subtopology and a sorted list of its task partitions.
type TaskIDs struct {
	SubtopologyID string
	Partitions    []int32
}

// Topology is the part of a streams topology KIP-1071 sends for assignment,
// Kafka's StreamsGroupTopologyValue: its epoch and subtopologies.
type Topology struct {
	Epoch         int32
	Subtopologies []Subtopology
}

// Subtopology is Kafka's StreamsGroupTopologyValue.Subtopology: the topics a
// subtopology reads, writes for repartitioning and backs its state stores
// with. It has as many tasks as the largest partition count among its source
// and repartition source topics (InternalTopicManager.computeNumberOfTasks).
type Subtopology struct {
	ID string
	// SourceTopics are the user topics the subtopology reads; they must
	// exist (else MISSING_SOURCE_TOPICS).
	SourceTopics []string
	// RepartitionSinkTopics are the repartition topics the subtopology
	// writes; another subtopology reads each of them.
	RepartitionSinkTopics []string
	// RepartitionSourceTopics are the internal repartition topics the
	// subtopology reads; the coordinator decides their partition counts
	// (RepartitionTopics) unless Partitions fixes one.
	RepartitionSourceTopics []TopicInfo
	// StateChangelogTopics are the internal changelog topics of the
	// subtopology's state stores; each gets the subtopology's task count
	// (ChangelogTopics). A subtopology with any is stateful.
	StateChangelogTopics []TopicInfo
	// CopartitionGroups are sets of the subtopology's source and repartition
	// source topics that must have the same partition count
	// (CopartitionedTopicsEnforcer).
	CopartitionGroups []CopartitionGroup
}

// TopicInfo is Kafka's StreamsGroupTopologyValue.TopicInfo: an internal topic
// of a topology. Partitions 0 lets the coordinator decide the count (always
// 0 for changelog topics); ReplicationFactor 0 takes the broker's default.
type TopicInfo struct {
	Name              string
	Partitions        int32
	ReplicationFactor int16
	Configs           []TopicConfig
}

// TopicConfig is one topic-level configuration of an internal topic.
type TopicConfig struct {
	Key   string
	Value string
}

// CopartitionGroup is Kafka's StreamsGroupTopologyValue.CopartitionGroup:
// indexes into the subtopology's SourceTopics and RepartitionSourceTopics of
// topics that must be copartitioned.
type CopartitionGroup struct {
	SourceTopics            []int16
	RepartitionSourceTopics []int16
}

// ShareGroupStatePartitionMetadata is Kafka's record of the same name (key
// the group): which share partitions of the group have their state
// initialised (KIP-932's share-group state, kept by the share coordinator),
// which are being initialised and which topics' state is being deleted. A
// share group is assigned only initialised partitions (share_init.go).
// Topics are by name (coordsim has no topic ids), sorted, partitions
// ascending. Its tombstone forgets the group's share-state metadata.
type ShareGroupStatePartitionMetadata struct {
	Group        string
	Initializing []TopicPartitions
	Initialized  []TopicPartitions
	// Unnamed are the initialised topics Kafka names "<UNKNOWN>": the
	// topic had left the metadata image when its initialisation completed
	// (initializeShareGroupState's attachInitValue), so the entry matches
	// no subscription and no topic of the image by name. Sorted, each one
	// of Initialized.
	Unnamed  []string
	Deleting []string
	// TimestampMs is when the record was written; coordsim's own field
	// (Kafka stamps the initialising topics with the replay time, which for
	// a write is the same instant). A load restamps them (OnLoaded).
	TimestampMs int64
	Tombstone   bool
}

// Type implements Record.
func (*ShareGroupStatePartitionMetadata) Type() RecordType {
	return TypeShareGroupStatePartitionMetadata
}

// GroupID implements Record.
func (r *ShareGroupStatePartitionMetadata) GroupID() string { return r.Group }

// ConsumerGroupRegularExpression is Kafka's ConsumerGroupRegularExpression
// record (key group and regex): the topics a regular expression resolved
// to, the fingerprint of the topic names it was resolved against (Kafka:
// the metadata image version) and when. Its tombstone forgets the regex.
type ConsumerGroupRegularExpression struct {
	Group       string
	Regex       string
	Topics      []string // sorted
	Version     uint64
	TimestampMs int64
	Tombstone   bool
}

// Type implements Record.
func (*ConsumerGroupRegularExpression) Type() RecordType { return TypeConsumerGroupRegularExpression }

// GroupID implements Record.
func (r *ConsumerGroupRegularExpression) GroupID() string { return r.Group }
