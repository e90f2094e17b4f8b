package wire

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/coordinator/live"
	"github.com/coordsim/coordsim/shard"
)

// JoinGroup: v0-9, Kafka 4.4's range. The request goes to the
// coordinator's JoinGroup as it is, except that v0, which has no rebalance
// timeout, uses the session timeout as one (JoinGroupRequest's
// maybeOverrideRebalanceTimeout); from v4 a new dynamic member is
// sent back with MEMBER_ID_REQUIRED first (KIP-394). The answer is parked
// until the join phase ends, as Kafka's delayed join is; the wait ends
// early when the client disconnects (nobody would read the answer; the
// group keeps the member until its join or session timer removes it) and
// is bounded by joinWaitBound in case an answer never comes.

var apiJoinGroup = api{key: 11, min: 0, max: 9, handle: handleJoinGroup}

// joinGroupRebalanceTimeoutVersion is RebalanceTimeoutMs's first version.
const joinGroupRebalanceTimeoutVersion = 1

// joinGroupKnownMemberIDVersion is JoinGroupRequest.requiresKnownMemberId's
// first version.
const joinGroupKnownMemberIDVersion = 4

func handleJoinGroup(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.JoinGroupRequest)
	resp := req.ResponseKind().(*kmsg.JoinGroupResponse)
	if req.Version < joinGroupRebalanceTimeoutVersion {
		req.RebalanceTimeoutMillis = req.SessionTimeoutMillis
	}
	jreq := shard.JoinGroupRequest{
		GroupID: req.Group, MemberID: req.MemberID, InstanceID: derefOr(req.InstanceID), ClientID: r.clientID,
		ClientHost: r.conn.host, SessionTimeoutMs: req.SessionTimeoutMillis, RebalanceTimeoutMs: req.RebalanceTimeoutMillis,
		ProtocolType: req.ProtocolType, RequireKnownMemberID: req.Version >= joinGroupKnownMemberIDVersion,
		Reason: derefOr(req.Reason),
	}
	for _, p := range req.Protocols {
		jreq.Protocols = append(jreq.Protocols, shard.ClassicProtocol{Name: p.Name, Metadata: p.Metadata})
	}
	ctx, cancel := r.parkedContext(joinWaitBound(req.RebalanceTimeoutMillis, req.SessionTimeoutMillis))
	defer cancel()
	jr, err := live.Call(ctx, r.driver(), func(c *coordinator.Coordinator) *coordinator.Future[shard.JoinGroupResponse] {
		return c.JoinGroup(jreq)
	})
	resp.MemberID = jr.MemberID
	switch {
	case err != nil:
		resp.ErrorCode, _ = errCode(err)
		resp.MemberID = req.MemberID
	case jr.Err != nil:
		resp.ErrorCode, _ = errCode(jr.Err)
	default:
		resp.Generation, resp.LeaderID, resp.SkipAssignment = jr.GenerationID, jr.Leader, jr.SkipAssignment
		resp.ProtocolType, resp.Protocol = nullIfEmpty(jr.ProtocolType), nullIfEmpty(jr.ProtocolName)
	}
	if req.Version < 7 && resp.Protocol == nil {
		empty := "" // not nullable before v7
		resp.Protocol = &empty
	}
	for _, m := range jr.Members {
		rm := kmsg.NewJoinGroupResponseMember()
		rm.MemberID, rm.InstanceID, rm.ProtocolMetadata = m.MemberID, nullIfEmpty(m.InstanceID), m.Metadata
		resp.Members = append(resp.Members, rm)
	}
	return resp, nil
}

// joinWaitBound is how long the endpoint waits for a parked JoinGroup's
// answer: the shard answers every parked join by its rebalance timeout
// (or the new-member join timeout); this is a safety net well past both.
func joinWaitBound(rebalanceTimeoutMs, sessionTimeoutMs int32) time.Duration {
	return time.Duration(max(rebalanceTimeoutMs, sessionTimeoutMs, 0))*2*time.Millisecond + 5*time.Minute
}

// parkedContext is the context of a request the coordinator may park: it
// ends at bound or when the client disconnects.
func (r *request) parkedContext(bound time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(r.ctx, bound)
	go func() {
		select {
		case <-r.conn.closed:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}
