package wire

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/coordinator/live"
	"github.com/coordsim/coordsim/shard"
)

// LeaveGroup: v0-5 (Kafka 4.x). Before v3 the request names one member
// and the answer is its error; from v3 a batch (KIP-345), each member with
// its own answer, a member named by instance id alone being an admin's
// removal.

var apiLeaveGroup = api{key: 13, min: 0, max: 5, handle: handleLeaveGroup}

// leaveGroupBatchVersion is the first LeaveGroup version with Members.
const leaveGroupBatchVersion = 3

func handleLeaveGroup(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.LeaveGroupRequest)
	resp := req.ResponseKind().(*kmsg.LeaveGroupResponse)
	lreq := shard.LeaveGroupRequest{GroupID: req.Group}
	if req.Version < leaveGroupBatchVersion {
		lreq.Members = []shard.LeaveGroupMember{{MemberID: req.MemberID}}
	}
	for _, m := range req.Members {
		lreq.Members = append(lreq.Members, shard.LeaveGroupMember{MemberID: m.MemberID, InstanceID: derefOr(m.InstanceID), Reason: derefOr(m.Reason)})
	}
	lr, err := live.Call(r.ctx, r.driver(), func(c *coordinator.Coordinator) *coordinator.Future[shard.LeaveGroupResponse] {
		return c.LeaveGroup(lreq)
	})
	if err != nil {
		resp.ErrorCode, _ = errCode(err)
		return resp, nil
	}
	if req.Version < leaveGroupBatchVersion {
		// LeaveGroupResponse's single-member form: the member's error.
		if len(lr.Members) > 0 {
			resp.ErrorCode, _ = errCode(lr.Members[0].Err)
		}
		return resp, nil
	}
	for _, m := range lr.Members {
		rm := kmsg.NewLeaveGroupResponseMember()
		rm.MemberID, rm.InstanceID = m.MemberID, nullIfEmpty(m.InstanceID)
		rm.ErrorCode, _ = errCode(m.Err)
		resp.Members = append(resp.Members, rm)
	}
	return resp, nil
}
