package wire

import (
	"crypto/rand"
	"encoding/base64"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/assignor"
	"github.com/coordsim/coordsim/kerr"
)

// The request checks Kafka's GroupCoordinatorService runs on the three
// group heartbeats before it schedules the coordinator's write
// (throwIfConsumerGroupHeartbeatRequestIsInvalid,
// throwIfShareGroupHeartbeatRequestIsInvalid,
// throwIfStreamsGroupHeartbeatRequestIsUsingUnsupportedFeatures and
// throwIfStreamsGroupHeartbeatRequestIsInvalid), in Kafka's order, with
// Kafka's error codes and messages. They read the request as it came off
// the wire, where null and empty differ; the coordinator's request types
// read "" as null. A request that fails one is answered here and never
// reaches the coordinator, so it changes nothing. The coordinator's own
// checks (coordsim's bounds on ids and topologies) run after these.

// Heartbeat epochs with a meaning of their own (Kafka's
// ConsumerGroupHeartbeatRequest and ShareGroupHeartbeatRequest constants).
const (
	joinGroupMemberEpoch        int32 = 0
	leaveGroupMemberEpoch       int32 = -1
	leaveGroupStaticMemberEpoch int32 = -2
)

// consumerGeneratedMemberIDRequiredVersion is Kafka's
// ConsumerGroupHeartbeatRequest.CONSUMER_GENERATED_MEMBER_ID_REQUIRED_VERSION
// (KIP-1082): from ConsumerGroupHeartbeat v1 the client generates its member
// id; a v0 client may join with an empty one and the coordinator makes one.
const consumerGeneratedMemberIDRequiredVersion = 1

// blank is Kafka's Utils.throwIfEmptyString test on a non-null string:
// empty after Java's String.trim, which cuts every char up to U+0020.
func blank(s string) bool {
	return strings.TrimFunc(s, func(r rune) bool { return r <= ' ' }) == ""
}

// sentBlank is the same test on a nullable field: sent (not null) and blank.
func sentBlank(s *string) bool { return s != nil && blank(*s) }

func invalidRequest(msg string) error { return kerr.InvalidRequest.WithMessage("%s", msg) }

// consumerHeartbeatInvalid is GroupCoordinatorService.
// throwIfConsumerGroupHeartbeatRequestIsInvalid, its last check against
// the broker's group.consumer.assignors (an empty ServerAssignor is read as
// null, as this endpoint always has: kgo sends "" for balancers the server
// does not offer). The member id may be empty only on a v0 join (epoch 0)
// or a v0 static leave (-2); every other request must carry one.
func consumerHeartbeatInvalid(req *kmsg.ConsumerGroupHeartbeatRequest, assignors *assignor.Registry) error {
	if req.Version >= consumerGeneratedMemberIDRequiredVersion || req.MemberEpoch > 0 || req.MemberEpoch == leaveGroupMemberEpoch {
		if blank(req.MemberID) {
			return invalidRequest("MemberId can't be empty.")
		}
	}
	if err := idsInvalid(req.Group, req.InstanceID, req.RackID); err != nil {
		return err
	}
	switch {
	case req.MemberEpoch == joinGroupMemberEpoch:
		if req.RebalanceTimeoutMillis == -1 {
			return invalidRequest("RebalanceTimeoutMs must be provided in first request.")
		}
		if req.Topics == nil || len(req.Topics) > 0 {
			return invalidRequest("TopicPartitions must be empty when (re-)joining.")
		}
		// An empty list of names or an empty regex is a member subscribed
		// to nothing, which Kafka accepts; only both null is refused.
		if req.SubscribedTopicNames == nil && req.SubscribedTopicRegex == nil {
			return invalidRequest("Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining.")
		}
	case req.MemberEpoch == leaveGroupStaticMemberEpoch:
		if req.InstanceID == nil {
			return invalidRequest("InstanceId can't be null.")
		}
	case req.MemberEpoch < leaveGroupStaticMemberEpoch:
		return invalidRequest("MemberEpoch is invalid.")
	}
	if req.ServerAssignor != nil && *req.ServerAssignor != "" {
		return assignors.CheckSupported(*req.ServerAssignor)
	}
	return nil
}

// shareHeartbeatInvalid is GroupCoordinatorService.
// throwIfShareGroupHeartbeatRequestIsInvalid. A share member leaves with
// -1 only (share groups have no static members), so -2 and below are
// "MemberEpoch is invalid.".
func shareHeartbeatInvalid(req *kmsg.ShareGroupHeartbeatRequest) error {
	switch {
	case blank(req.MemberID):
		return invalidRequest("MemberId can't be empty.")
	case blank(req.GroupID):
		return invalidRequest("GroupId can't be empty.")
	case sentBlank(req.RackID):
		return invalidRequest("RackId can't be empty.")
	}
	if req.MemberEpoch == joinGroupMemberEpoch {
		if len(req.SubscribedTopicNames) == 0 {
			return invalidRequest("SubscribedTopicNames must be set in first request.")
		}
	} else if req.MemberEpoch < leaveGroupMemberEpoch {
		return invalidRequest("MemberEpoch is invalid.")
	}
	return nil
}

// streamsHeartbeatInvalid is GroupCoordinatorService's
// throwIfStreamsGroupHeartbeatRequestIsUsingUnsupportedFeatures (source
// topic regexes) then throwIfStreamsGroupHeartbeatRequestIsInvalid with
// throwIfInvalidTopology. On a join each owned-task list must be sent and
// empty (Kafka's throwIfNotEmptyCollection refuses null too); otherwise the
// three lists are sent together or not at all.
func streamsHeartbeatInvalid(req *kmsg.StreamsGroupHeartbeatRequest) error {
	if req.Topology != nil {
		for _, st := range req.Topology.Subtopologies {
			if len(st.SourceTopicRegex) > 0 {
				return invalidRequest("Regular expressions for source topics are not supported yet.")
			}
		}
	}
	if blank(req.MemberID) {
		return invalidRequest("MemberId can't be empty.")
	}
	if err := idsInvalid(req.Group, req.InstanceID, req.RackID); err != nil {
		return err
	}
	switch {
	case req.MemberEpoch == joinGroupMemberEpoch:
		if req.RebalanceTimeoutMillis == -1 {
			return invalidRequest("RebalanceTimeoutMs must be provided in first request.")
		}
		for _, l := range []struct {
			tasks []kmsg.TaskIDs
			msg   string
		}{
			{req.ActiveTasks, "ActiveTasks must be empty when (re-)joining."},
			{req.StandbyTasks, "StandbyTasks must be empty when (re-)joining."},
			{req.WarmupTasks, "WarmupTasks must be empty when (re-)joining."},
		} {
			if l.tasks == nil || len(l.tasks) > 0 {
				return invalidRequest(l.msg)
			}
		}
		if req.Topology == nil {
			return invalidRequest("Topology must be non-null when (re-)joining.")
		}
		for _, st := range req.Topology.Subtopologies {
			for _, ti := range st.StateChangelogTopics {
				if ti.NumPartitions != 0 {
					return kerr.StreamsInvalidTopology.WithMessage("Changelog topic %s must have an undefined partition count, but it is set to %d.", ti.Topic, ti.NumPartitions)
				}
			}
		}
	case req.MemberEpoch == leaveGroupStaticMemberEpoch:
		if req.InstanceID == nil {
			return invalidRequest("InstanceId can't be null.")
		}
	case req.MemberEpoch < leaveGroupStaticMemberEpoch:
		return kerr.InvalidRequest.WithMessage("MemberEpoch is %d, but must be greater than or equal to -2.", req.MemberEpoch)
	}
	if req.ActiveTasks != nil || req.StandbyTasks != nil || req.WarmupTasks != nil {
		if req.ActiveTasks == nil || req.StandbyTasks == nil || req.WarmupTasks == nil {
			return invalidRequest("If one task-type is non-null, all must be non-null.")
		}
	}
	if req.MemberEpoch != joinGroupMemberEpoch && req.Topology != nil {
		return invalidRequest("Topology can only be provided when (re-)joining.")
	}
	return nil
}

// newMemberID is Kafka's Uuid.randomUuid().toString() for the member id the
// coordinator gives a v0 ConsumerGroupHeartbeat join that sent none: 16
// random bytes in URL-safe base64 without padding (22 chars), never the
// zero id and never starting with '-', as Uuid.randomUuid retries. The wire
// is live-only (the simulator never reaches it), so crypto/rand is fine.
func newMemberID() string {
	var b [16]byte
	for {
		_, _ = rand.Read(b[:])
		id := base64.RawURLEncoding.EncodeToString(b[:])
		if b != [16]byte{} && id[0] != '-' {
			return id
		}
	}
}

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
