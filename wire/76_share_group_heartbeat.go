package wire

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/coordinator/live"
	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/shard"
)

// ShareGroupHeartbeat: v1 (KIP-932, Kafka 4.x; v0 was the early-access
// version). The coordinator's ShareGroupHeartbeat; the assignment comes
// back with topic ids, after Kafka's request checks (shareHeartbeatInvalid).
// The member's rack goes through (null is "": unchanged); the share
// assignor does not read it, Describe shows it. The connection's address is
// the member's client host, as Kafka's setClientHost(context.clientAddress()).

var apiShareGroupHeartbeat = api{key: 76, min: 1, max: 1, handle: handleShareGroupHeartbeat}

func handleShareGroupHeartbeat(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.ShareGroupHeartbeatRequest)
	resp := req.ResponseKind().(*kmsg.ShareGroupHeartbeatResponse)
	if !memberIDValid(req.MemberID) {
		// KafkaApis answers before the coordinator's checks, through
		// getErrorResponse, which keeps the code and drops the message.
		resp.ErrorCode = kerr.InvalidRequest.Code
		return resp, nil
	}
	if err := shareHeartbeatInvalid(req); err != nil {
		resp.ErrorCode, resp.ErrorMessage = errCode(err)
		return resp, nil
	}
	sreq := shard.ShareGroupHeartbeatRequest{
		GroupID: req.GroupID, MemberID: req.MemberID, MemberEpoch: req.MemberEpoch, ClientID: r.clientID,
		ClientHost: r.conn.host, SubscribedTopicNames: req.SubscribedTopicNames, RackID: derefOr(req.RackID),
	}
	hb, err := live.Call(r.ctx, r.driver(), func(c *coordinator.Coordinator) *coordinator.Future[shard.ShareGroupHeartbeatResponse] {
		return c.ShareGroupHeartbeat(sreq)
	})
	if err != nil {
		resp.ErrorCode, resp.ErrorMessage = errCode(err)
		return resp, nil
	}
	memberID := hb.MemberID
	resp.MemberID, resp.MemberEpoch, resp.HeartbeatIntervalMillis = &memberID, hb.MemberEpoch, hb.HeartbeatIntervalMs
	if hb.HasAssignment {
		a := kmsg.NewShareGroupHeartbeatResponseAssignment()
		a.TopicPartitions = assignedTopics[kmsg.ShareGroupHeartbeatResponseAssignmentTopicPartition](r, hb.Assignment)
		resp.Assignment = &a
	}
	return resp, nil
}

// memberIDMaxChars is the longest member id KafkaApis.isMemberIdValid
// takes: a UUID's string form.
const memberIDMaxChars = 36

// memberIDValid is KafkaApis.isMemberIdValid, which the broker runs on a
// ShareGroupHeartbeat's member id before the group coordinator sees it:
// non-empty and at most 36 characters.
func memberIDValid(memberID string) bool {
	return memberID != "" && len(memberID) <= memberIDMaxChars
}
