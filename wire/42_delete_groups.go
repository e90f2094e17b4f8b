package wire

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/coordinator/live"
	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/shard"
	"github.com/coordsim/coordsim/sharebroker"
)

// DeleteGroups: v0-3 (Kafka 4.x). The coordinator answers per group:
// GROUP_ID_NOT_FOUND, NON_EMPTY_GROUP, NOT_COORDINATOR for a group whose
// partition this broker does not lead, and KIP-1331's
// GROUP_DELETION_FAILED. A group named twice is answered once, as
// KafkaApis.handleDeleteGroupsRequest takes the distinct names. The message
// (v3+) is null, as GroupCoordinatorShard.deleteGroups sets only the code,
// except for GROUP_DELETION_FAILED, whose message names the topology
// store's failure (Kafka's filterStreamsTopologyErrors). A deleted
// group's share state is then forgotten (sharebroker.DeleteShareGroupState;
// nothing for a group that had none), the share coordinator's half of
// Kafka's deleteShareGroups.

var apiDeleteGroups = api{key: 42, min: 0, max: 3, handle: handleDeleteGroups}

func handleDeleteGroups(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.DeleteGroupsRequest)
	resp := req.ResponseKind().(*kmsg.DeleteGroupsResponse)
	groups := distinct(req.Groups)
	results, err := live.Call(r.ctx, r.driver(), func(c *coordinator.Coordinator) *coordinator.Future[[]shard.DeleteGroupResult] {
		return c.DeleteGroups(groups)
	})
	for i, id := range groups {
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
		if req.Version >= 3 && code == kerr.GroupDeletionFailed.Code {
			g.ErrorMessage = msg
		}
		resp.Groups = append(resp.Groups, g)
	}
	return resp, nil
}

// distinct returns ids without repeats, each at its first place (Scala's
// Seq.distinct).
func distinct(ids []string) []string {
	seen := make(map[string]bool, len(ids))
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}
