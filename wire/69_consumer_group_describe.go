package wire

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/shard"
)

// ConsumerGroupDescribe: v0-1 (KIP-848, Kafka 4.x). A group that does not
// exist or is not a consumer group is GROUP_ID_NOT_FOUND with Kafka's
// messages (GroupMetadataManager.consumerGroupDescribe). The assignor name
// is the group's preferred server assignor, the one most members name
// among group.consumer.assignors (ConsumerGroup.computePreferredServerAssignor,
// as assignor.Registry.Preferred computes it for the shard). Assignments
// carry topic ids and names. Each member's instance id and rack are null
// when it has none; its topic regex is "" when it has none, as Kafka's
// ConsumerGroupMember.Builder defaults subscribedTopicRegex to "" and
// asConsumerGroupDescribeMember passes it through. An empty group id is
// INVALID_GROUP_ID without a message, answered before the other rows
// (typedDescribeOrder); IncludeAuthorizedOperations fills each row without
// error with groupAuthorizedOperations. A member's client host is the one
// its last heartbeat or JoinGroup came from, and its MemberType (KIP-1099)
// is CLASSIC while it speaks the classic protocol.

var apiConsumerGroupDescribe = api{key: 69, min: 0, max: 1, handle: handleConsumerGroupDescribe}

func handleConsumerGroupDescribe(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.ConsumerGroupDescribeRequest)
	resp := req.ResponseKind().(*kmsg.ConsumerGroupDescribeResponse)
	described, err := r.describe(req.Groups)
	for _, row := range typedDescribeRows(req.Groups, err, describedAsCheck(described, shard.Consumer)) {
		g := kmsg.NewConsumerGroupDescribeResponseGroup()
		g.Group, g.ErrorCode, g.ErrorMessage = row.id, row.code, row.msg
		if row.described {
			r.fillConsumerGroup(&g, described[row.i].Description)
			g.AuthorizedOperations = authorizedOperations(req.IncludeAuthorizedOperations, 0, g.AuthorizedOperations)
		}
		resp.Groups = append(resp.Groups, g)
	}
	return resp, nil
}

// fillConsumerGroup is a described consumer group's row.
func (r *request) fillConsumerGroup(g *kmsg.ConsumerGroupDescribeResponseGroup, d shard.GroupDescription) {
	g.State, g.Epoch, g.AssignmentEpoch = stateName(d.State), d.Epoch, d.AssignmentEpoch
	names := make([]string, len(d.Members))
	for i, m := range d.Members {
		names[i] = m.ServerAssignor
	}
	g.AssignorName = r.cl.assignors.Preferred(names).Name()
	for _, m := range d.Members {
		gm := kmsg.NewConsumerGroupDescribeResponseGroupMember()
		gm.MemberID, gm.MemberEpoch, gm.ClientID, gm.ClientHost = m.MemberID, m.MemberEpoch, m.ClientID, m.ClientHost
		gm.InstanceID, gm.RackID = nullIfEmpty(m.InstanceID), nullIfEmpty(m.RackID)
		gm.SubscribedTopics, gm.SubscribedTopicRegex = m.SubscribedTopics, kmsg.StringPtr(m.SubscribedTopicRegex)
		gm.Assignment = r.assignment(m.DescribedAssignment(r.topicExists))
		gm.TargetAssignment = r.assignment(shard.DescribedPartitions(m.TargetAssignment, r.topicExists))
		gm.MemberType = memberType(m)
		g.Members = append(g.Members, gm)
	}
}

// KIP-1099's ConsumerGroupDescribe MemberType (Kafka's
// ConsumerGroupMember.MemberType codes).
const (
	memberTypeClassic  int8 = 0
	memberTypeConsumer int8 = 1
)

// memberType is asConsumerGroupDescribeMember's: a member that joined with
// the classic protocol, or came from a classic group converted online, is
// CLASSIC until its first ConsumerGroupHeartbeat (useClassicProtocol).
func memberType(m shard.MemberDescription) int8 {
	if m.Classic != nil {
		return memberTypeClassic
	}
	return memberTypeConsumer
}

func (r *request) assignment(tps []shard.TopicPartitions) kmsg.Assignment {
	a := kmsg.NewAssignment()
	a.TopicPartitions = memberAssignment[kmsg.AssignmentTopicPartition](r, tps)
	return a
}
