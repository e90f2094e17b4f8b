package wire

import (
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/coordinator/live"
	"github.com/coordsim/coordsim/shard"
)

// SyncGroup: v0-5 (Kafka 4.x). A follower's SyncGroup is parked until the
// leader's assignment is committed, as Kafka's is; like JoinGroup's, the
// wait ends when the client disconnects. From v5 the protocol type and
// name are checked against the group's (INCONSISTENT_GROUP_PROTOCOL).

var apiSyncGroup = api{key: 14, min: 0, max: 5, handle: handleSyncGroup}

// syncWaitBound is the safety net of a parked SyncGroup: the shard answers
// it by the group's rebalance timeout (its pending-sync timer).
const syncWaitBound = 30 * time.Minute

func handleSyncGroup(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.SyncGroupRequest)
	resp := req.ResponseKind().(*kmsg.SyncGroupResponse)
	sreq := shard.SyncGroupRequest{GroupID: req.Group, MemberID: req.MemberID, InstanceID: derefOr(req.InstanceID),
		GenerationID: req.Generation, ProtocolType: derefOr(req.ProtocolType), ProtocolName: derefOr(req.Protocol)}
	for _, a := range req.GroupAssignment {
		sreq.Assignments = append(sreq.Assignments, shard.SyncGroupAssignment{MemberID: a.MemberID, Assignment: a.MemberAssignment})
	}
	ctx, cancel := r.parkedContext(syncWaitBound)
	defer cancel()
	sr, err := live.Call(ctx, r.driver(), func(c *coordinator.Coordinator) *coordinator.Future[shard.SyncGroupResponse] {
		return c.SyncGroup(sreq)
	})
	if err == nil {
		err = sr.Err
	}
	if err != nil {
		resp.ErrorCode, _ = errCode(err)
		resp.MemberAssignment = []byte{}
		return resp, nil
	}
	resp.ProtocolType, resp.Protocol = nullIfEmpty(sr.ProtocolType), nullIfEmpty(sr.ProtocolName)
	resp.MemberAssignment = sr.Assignment
	if resp.MemberAssignment == nil {
		resp.MemberAssignment = []byte{}
	}
	return resp, nil
}
