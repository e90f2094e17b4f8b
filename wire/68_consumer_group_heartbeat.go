package wire

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/shard"
)

// ConsumerGroupHeartbeat: v0-1 (KIP-848, Kafka 4.x). The request's fields
// go to the coordinator's ConsumerGroupHeartbeat as they are, the topic
// regex and the server assignor included (the coordinator answers
// INVALID_REGULAR_EXPRESSION itself); the
// assignment comes back with topic ids. The owned partitions
// (TopicPartitions, by topic id), the instance id and the rack go through:
// KIP-848 reconciliation needs the first to advance a member that was asked
// to revoke, static membership the second, and the range assignor places
// partitions on members in their replicas' racks by the third. A null
// instance id or rack is "" (for the rack: unchanged, as Kafka's
// maybeUpdateRackId reads it). The connection's address is the member's
// client host, as Kafka's setClientHost(context.clientAddress()). Kafka's request checks run first
// (consumerHeartbeatInvalid); a v0 join without a member id gets one
// generated here, as Kafka's coordinator generates it.

var apiConsumerGroupHeartbeat = api{key: 68, min: 0, max: 1, handle: handleConsumerGroupHeartbeat}

func handleConsumerGroupHeartbeat(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.ConsumerGroupHeartbeatRequest)
	resp := req.ResponseKind().(*kmsg.ConsumerGroupHeartbeatResponse)
	fail := func(err error) (kmsg.Response, error) {
		resp.ErrorCode, resp.ErrorMessage = errCode(err)
		return resp, nil
	}
	if err := consumerHeartbeatInvalid(req, r.cl.assignors); err != nil {
		return fail(err)
	}
	memberID := req.MemberID
	if memberID == "" && req.MemberEpoch == shard.JoinGroupMemberEpoch {
		// A v0 join may come without a member id (KIP-1082): the
		// coordinator generates one, as Kafka's GroupMetadataManager does.
		memberID = newMemberID()
	}
	assignorName := serverAssignorOf(req)
	creq := shard.ConsumerGroupHeartbeatRequest{
		GroupID: req.Group, MemberID: memberID, MemberEpoch: req.MemberEpoch, ClientID: r.clientID, ClientHost: r.conn.host,
		RebalanceTimeoutMs: req.RebalanceTimeoutMillis, SubscribedTopicNames: req.SubscribedTopicNames,
		ServerAssignor: assignorName, SubscribedTopicRegex: req.SubscribedTopicRegex,
	}
	creq.InstanceID, creq.RackID = derefOr(req.InstanceID), derefOr(req.RackID)
	if req.Topics != nil {
		// Kafka's null (not sent) stays nil; a sent list, even empty, is not.
		creq.TopicPartitions = []shard.TopicPartitions{}
		for _, t := range req.Topics {
			if name, ok := r.topicName(t.TopicID); ok {
				creq.TopicPartitions = append(creq.TopicPartitions, shard.TopicPartitions{Topic: name, Partitions: t.Partitions})
			}
		}
	}
	hb, err := r.driver().ConsumerGroupHeartbeat(r.ctx, creq)
	if err != nil {
		return fail(err)
	}
	memberID = hb.MemberID
	resp.MemberID, resp.MemberEpoch, resp.HeartbeatIntervalMillis = &memberID, hb.MemberEpoch, hb.HeartbeatIntervalMs
	if hb.HasAssignment {
		a := kmsg.NewConsumerGroupHeartbeatResponseAssignment()
		a.Topics = assignedTopics[kmsg.ConsumerGroupHeartbeatResponseAssignmentTopic](r, hb.Assignment)
		resp.Assignment = &a
	}
	return resp, nil
}
