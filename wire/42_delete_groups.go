package wire

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/coordinator/live"
	"github.com/coordsim/coordsim/shard"
	"github.com/coordsim/coordsim/sharebroker"
)

// DeleteGroups: v0-3 (Kafka 4.x). The coordinator answers per group:
// GROUP_ID_NOT_FOUND, NON_EMPTY_GROUP, NOT_COORDINATOR for a group whose
// partition this broker does not lead, and KIP-1331's
// GROUP_DELETION_FAILED; the message (v3+) is the coordinator's. A deleted
// group's share state is then forgotten (sharebroker.DeleteShareGroupState;
// nothing for a group that had none), the share coordinator's half of
// Kafka's deleteShareGroups.

var apiDeleteGroups = api{key: 42, min: 0, max: 3, handle: handleDeleteGroups}

func handleDeleteGroups(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.DeleteGroupsRequest)
	resp := req.ResponseKind().(*kmsg.DeleteGroupsResponse)
	results, err := live.Call(r.ctx, r.driver(), func(c *coordinator.Coordinator) *coordinator.Future[[]shard.DeleteGroupResult] {
		return c.DeleteGroups(req.Groups)
	})
	for i, id := range req.Groups {
		g := kmsg.NewDeleteGroupsResponseGroup()
		g.Group = id
		rowErr := err
		if err == nil && i < len(results) {
			rowErr = results[i].Err
		}
		if rowErr == nil {
			r.cl.share.with(func(b *sharebroker.Broker, _ int64) {
				if err := b.DeleteShareGroupState(id); err != nil {
					r.cl.log.Warn("forgetting a deleted group's share state failed", "group", id, "err", err)
				}
			})
		}
		code, msg := errCode(rowErr)
		g.ErrorCode = code
		if req.Version >= 3 {
			g.ErrorMessage = msg
		}
		resp.Groups = append(resp.Groups, g)
	}
	return resp, nil
}
