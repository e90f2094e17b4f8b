package wire

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/coordinator/live"
	"github.com/coordsim/coordsim/shard"
)

// Heartbeat: v0-4 (Kafka 4.x), the classic protocol's heartbeat:
// REBALANCE_IN_PROGRESS asks the member to rejoin.

var apiHeartbeat = api{key: 12, min: 0, max: 4, handle: handleHeartbeat}

func handleHeartbeat(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.HeartbeatRequest)
	resp := req.ResponseKind().(*kmsg.HeartbeatResponse)
	hreq := shard.HeartbeatRequest{GroupID: req.Group, MemberID: req.MemberID, InstanceID: derefOr(req.InstanceID), GenerationID: req.Generation}
	_, err := live.Call(r.ctx, r.driver(), func(c *coordinator.Coordinator) *coordinator.Future[struct{}] {
		return c.Heartbeat(hreq)
	})
	resp.ErrorCode, _ = errCode(err)
	return resp, nil
}
