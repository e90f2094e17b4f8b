package shard

import (
	"strings"

	"github.com/coordsim/coordsim/assignor"
	"github.com/coordsim/coordsim/kerr"
)

// The request checks Kafka's GroupCoordinatorService runs on the three
// group heartbeats before it schedules the coordinator's write
// (throwIfConsumerGroupHeartbeatRequestIsInvalid,
// throwIfShareGroupHeartbeatRequestIsInvalid,
// throwIfStreamsGroupHeartbeatRequestIsUsingUnsupportedFeatures and
// throwIfStreamsGroupHeartbeatRequestIsInvalid), written once, in Kafka's
// order, with Kafka's error codes and messages. The wire calls them on the
// request as it came off the wire, where null and empty differ; the shard
// calls them on its own request types, which read "" as null, before its
// own bounds (validateHeartbeat). A request that fails one changes
// nothing.

// Heartbeat epochs with a meaning of their own (Kafka's
// ConsumerGroupHeartbeatRequest and ShareGroupHeartbeatRequest constants).
const (
	// JoinGroupMemberEpoch is the epoch of a (re-)join.
	JoinGroupMemberEpoch int32 = 0
	// RebalanceTimeoutNotSent is a heartbeat's RebalanceTimeoutMs when the
	// member sends none (Kafka's -1 sentinel, ofSentinel). Any other value,
	// 0 included, sets the member's rebalance timeout.
	RebalanceTimeoutNotSent int32 = -1
	// LeaveGroupMemberEpoch is the epoch of a leave.
	LeaveGroupMemberEpoch int32 = -1
)

// ConsumerGeneratedMemberIDRequiredVersion is Kafka's
// ConsumerGroupHeartbeatRequest.CONSUMER_GENERATED_MEMBER_ID_REQUIRED_VERSION
// (KIP-1082): from ConsumerGroupHeartbeat v1 the client generates its
// member id; a v0 client may join with an empty one and the coordinator
// makes one.
const ConsumerGeneratedMemberIDRequiredVersion = 1

// List is the presence and length of a nullable request list.
type List struct {
	// Null is true when the request did not send the list.
	Null bool
	// Len is its length when sent.
	Len int
}

// ListOf is the List of a slice as it came off the wire (nil is null).
func ListOf[T any](s []T) List { return List{Null: s == nil, Len: len(s)} }

// ConsumerHeartbeatCheck is what throwIfConsumerGroupHeartbeatRequestIsInvalid
// reads of a ConsumerGroupHeartbeat request; nil is null.
type ConsumerHeartbeatCheck struct {
	Version              int16
	GroupID, MemberID    string
	InstanceID, RackID   *string
	MemberEpoch          int32
	RebalanceTimeoutMs   int32
	TopicPartitions      List
	SubscribedTopicNames []string
	SubscribedTopicRegex *string
	ServerAssignor       *string
}

// CheckConsumerHeartbeat is GroupCoordinatorService.
// throwIfConsumerGroupHeartbeatRequestIsInvalid, its last check against
// the broker's group.consumer.assignors. The member id may be empty only
// on a v0 join (epoch 0) or a v0 static leave (-2); every other request
// must carry one.
func CheckConsumerHeartbeat(r ConsumerHeartbeatCheck, assignors *assignor.Registry) error {
	if r.Version >= ConsumerGeneratedMemberIDRequiredVersion || r.MemberEpoch > 0 || r.MemberEpoch == LeaveGroupMemberEpoch {
		if blank(r.MemberID) {
			return invalidRequest("MemberId can't be empty.")
		}
	}
	if err := idsInvalid(r.GroupID, r.InstanceID, r.RackID); err != nil {
		return err
	}
	switch {
	case r.MemberEpoch == JoinGroupMemberEpoch:
		if r.RebalanceTimeoutMs == -1 {
			return invalidRequest("RebalanceTimeoutMs must be provided in first request.")
		}
		if r.TopicPartitions.Null || r.TopicPartitions.Len > 0 {
			return invalidRequest("TopicPartitions must be empty when (re-)joining.")
		}
		// An empty list of names or an empty regex is a member subscribed
		// to nothing, which Kafka accepts; only both null is refused.
		if r.SubscribedTopicNames == nil && r.SubscribedTopicRegex == nil {
			return invalidRequest("Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining.")
		}
	case r.MemberEpoch == LeaveGroupStaticMemberEpoch:
		if r.InstanceID == nil {
			return invalidRequest("InstanceId can't be null.")
		}
	case r.MemberEpoch < LeaveGroupStaticMemberEpoch:
		return invalidRequest("MemberEpoch is invalid.")
	}
	if r.ServerAssignor != nil {
		return assignors.CheckSupported(*r.ServerAssignor)
	}
	return nil
}

// ShareHeartbeatCheck is what throwIfShareGroupHeartbeatRequestIsInvalid
// reads of a ShareGroupHeartbeat request; nil is null.
type ShareHeartbeatCheck struct {
	GroupID, MemberID    string
	RackID               *string
	MemberEpoch          int32
	SubscribedTopicNames []string
}

// CheckShareHeartbeat is GroupCoordinatorService.
// throwIfShareGroupHeartbeatRequestIsInvalid. A share member leaves with
// -1 only (share groups have no static members), so -2 and below are
// "MemberEpoch is invalid.".
func CheckShareHeartbeat(r ShareHeartbeatCheck) error {
	switch {
	case blank(r.MemberID):
		return invalidRequest("MemberId can't be empty.")
	case blank(r.GroupID):
		return invalidRequest("GroupId can't be empty.")
	case sentBlank(r.RackID):
		return invalidRequest("RackId can't be empty.")
	}
	if r.MemberEpoch == JoinGroupMemberEpoch {
		if len(r.SubscribedTopicNames) == 0 {
			return invalidRequest("SubscribedTopicNames must be set in first request.")
		}
	} else if r.MemberEpoch < LeaveGroupMemberEpoch {
		return invalidRequest("MemberEpoch is invalid.")
	}
	return nil
}

// StreamsHeartbeatCheck is what the streams heartbeat checks read of a
// StreamsGroupHeartbeat request; nil is null.
type StreamsHeartbeatCheck struct {
	GroupID, MemberID                      string
	InstanceID, RackID                     *string
	MemberEpoch                            int32
	RebalanceTimeoutMs                     int32
	ActiveTasks, StandbyTasks, WarmupTasks List
	// Topology is sent; SourceTopicRegex is true when a subtopology
	// sends a source topic regex, and Changelogs are the state changelog
	// topics with their partition counts, in request order.
	Topology         bool
	SourceTopicRegex bool
	Changelogs       []TopicInfo
}

// CheckStreamsHeartbeat is GroupCoordinatorService's
// throwIfStreamsGroupHeartbeatRequestIsUsingUnsupportedFeatures (source
// topic regexes) then throwIfStreamsGroupHeartbeatRequestIsInvalid with
// throwIfInvalidTopology. On a join each owned-task list must be sent and
// empty (Kafka's throwIfNotEmptyCollection refuses null too); otherwise
// the three lists are sent together or not at all.
func CheckStreamsHeartbeat(r StreamsHeartbeatCheck) error {
	if r.SourceTopicRegex {
		return invalidRequest("Regular expressions for source topics are not supported yet.")
	}
	if blank(r.MemberID) {
		return invalidRequest("MemberId can't be empty.")
	}
	if err := idsInvalid(r.GroupID, r.InstanceID, r.RackID); err != nil {
		return err
	}
	switch {
	case r.MemberEpoch == JoinGroupMemberEpoch:
		if r.RebalanceTimeoutMs == -1 {
			return invalidRequest("RebalanceTimeoutMs must be provided in first request.")
		}
		for _, l := range []struct {
			tasks List
			msg   string
		}{
			{r.ActiveTasks, "ActiveTasks must be empty when (re-)joining."},
			{r.StandbyTasks, "StandbyTasks must be empty when (re-)joining."},
			{r.WarmupTasks, "WarmupTasks must be empty when (re-)joining."},
		} {
			if l.tasks.Null || l.tasks.Len > 0 {
				return invalidRequest(l.msg)
			}
		}
		if !r.Topology {
			return invalidRequest("Topology must be non-null when (re-)joining.")
		}
		for _, ti := range r.Changelogs {
			if ti.Partitions != 0 {
				return kerr.StreamsInvalidTopology.WithMessage("Changelog topic %s must have an undefined partition count, but it is set to %d.", ti.Name, ti.Partitions)
			}
		}
	case r.MemberEpoch == LeaveGroupStaticMemberEpoch:
		if r.InstanceID == nil {
			return invalidRequest("InstanceId can't be null.")
		}
	case r.MemberEpoch < LeaveGroupStaticMemberEpoch:
		return kerr.InvalidRequest.WithMessage("MemberEpoch is %d, but must be greater than or equal to -2.", r.MemberEpoch)
	}
	if !r.ActiveTasks.Null || !r.StandbyTasks.Null || !r.WarmupTasks.Null {
		if r.ActiveTasks.Null || r.StandbyTasks.Null || r.WarmupTasks.Null {
			return invalidRequest("If one task-type is non-null, all must be non-null.")
		}
	}
	if r.MemberEpoch != JoinGroupMemberEpoch && r.Topology {
		return invalidRequest("Topology can only be provided when (re-)joining.")
	}
	return nil
}

// blank is Kafka's Utils.throwIfEmptyString test on a non-null string:
// empty after Java's String.trim, which cuts every char up to U+0020.
func blank(s string) bool {
	return strings.TrimFunc(s, func(r rune) bool { return r <= ' ' }) == ""
}

// sentBlank is the same test on a nullable field: sent (not null) and blank.
func sentBlank(s *string) bool { return s != nil && blank(*s) }

func invalidRequest(msg string) error { return kerr.InvalidRequest.WithMessage("%s", msg) }

// idsInvalid is the group, instance and rack id checks the consumer and
// streams heartbeats share, in GroupCoordinatorService's order: a blank
// group id, then a sent but blank instance id or rack id.
func idsInvalid(group string, instanceID, rackID *string) error {
	switch {
	case blank(group):
		return invalidRequest("GroupId can't be empty.")
	case sentBlank(instanceID):
		return invalidRequest("InstanceId can't be empty.")
	case sentBlank(rackID):
		return invalidRequest("RackId can't be empty.")
	}
	return nil
}

// nullIfEmpty reads a shard request's "" as null, as its types do.
func nullIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
