package wire

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/shard"
)

// ConsumerGroupHeartbeat: v0-1 (KIP-848, Kafka 4.x). The request's fields
// go to the coordinator's ConsumerGroupHeartbeat as they are; the
// assignment comes back with topic ids. What the coordinator does not model
// yet is refused rather than ignored: a topic regex (INVALID_REQUEST), an
// assignor other than Kafka's built-in "uniform" and "range"
// (UNSUPPORTED_ASSIGNOR, as Kafka's ConsumerGroupHeartbeat validation
// answers). Fields the coordinator does not take yet (instance id, rack,
// owned partitions) are dropped.

var apiConsumerGroupHeartbeat = api{key: 68, min: 0, max: 1, handle: handleConsumerGroupHeartbeat}

func handleConsumerGroupHeartbeat(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.ConsumerGroupHeartbeatRequest)
	resp := req.ResponseKind().(*kmsg.ConsumerGroupHeartbeatResponse)
	fail := func(err error) (kmsg.Response, error) {
		resp.ErrorCode, resp.ErrorMessage = errCode(err)
		return resp, nil
	}
	if req.SubscribedTopicRegex != nil && *req.SubscribedTopicRegex != "" {
		return fail(kerr.InvalidRequest.WithMessage("coordsim's coordinator does not take SubscribedTopicRegex yet"))
	}
	if a := req.ServerAssignor; a != nil && *a != "" && *a != "uniform" && *a != "range" {
		return fail(kerr.UnsupportedAssignor.WithMessage("ServerAssignor %s is not supported. Supported assignors: uniform, range.", *a))
	}
	hb, err := r.driver().ConsumerGroupHeartbeat(r.ctx, shard.ConsumerGroupHeartbeatRequest{
		GroupID: req.Group, MemberID: req.MemberID, MemberEpoch: req.MemberEpoch, ClientID: r.clientID,
		RebalanceTimeoutMs: req.RebalanceTimeoutMillis, SubscribedTopicNames: req.SubscribedTopicNames,
	})
	if err != nil {
		return fail(err)
	}
	memberID := hb.MemberID
	resp.MemberID, resp.MemberEpoch, resp.HeartbeatIntervalMillis = &memberID, hb.MemberEpoch, hb.HeartbeatIntervalMs
	if hb.HasAssignment {
		a := kmsg.NewConsumerGroupHeartbeatResponseAssignment()
		a.Topics = []kmsg.ConsumerGroupHeartbeatResponseAssignmentTopic{}
		for _, tp := range hb.Assignment {
			t := kmsg.NewConsumerGroupHeartbeatResponseAssignmentTopic()
			t.TopicID, t.Partitions = r.topicID(tp.Topic), tp.Partitions
			a.Topics = append(a.Topics, t)
		}
		resp.Assignment = &a
	}
	return resp, nil
}
