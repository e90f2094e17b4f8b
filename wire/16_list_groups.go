package wire

import (
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/coordinator/live"
	"github.com/coordsim/coordsim/shard"
)

// ListGroups: v0-5 (Kafka 4.x). Each broker lists the groups of the
// __consumer_offsets partitions it leads (clients ask every broker), with
// the state (v4+) and type (v5+) filters matched case-insensitively, as
// Kafka's GroupCoordinatorService.listGroups does. A partition that cannot
// answer (loading) makes the whole answer COORDINATOR_LOAD_IN_PROGRESS.

var apiListGroups = api{key: 16, min: 0, max: 5, handle: handleListGroups}

type listing struct {
	groups []shard.GroupListing
	failed []coordinator.PartitionResult[struct{}]
}

func handleListGroups(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.ListGroupsRequest)
	resp := req.ResponseKind().(*kmsg.ListGroupsResponse)
	got, err := live.Read(r.ctx, r.driver(), func(c *coordinator.Coordinator) (listing, error) {
		g, f := c.ListGroups()
		return listing{g, f}, nil
	})
	if err == nil && len(got.failed) > 0 {
		err = got.failed[0].Err
	}
	if err != nil {
		resp.ErrorCode, _ = errCode(err)
		return resp, nil
	}
	matches := func(filter []string, v string) bool {
		if len(filter) == 0 {
			return true
		}
		for _, f := range filter {
			if strings.EqualFold(f, v) {
				return true
			}
		}
		return false
	}
	for _, l := range got.groups {
		state, typ := stateName(l.State), l.Type.String()
		if !matches(req.StatesFilter, state) || !matches(req.TypesFilter, typ) {
			continue
		}
		g := kmsg.NewListGroupsResponseGroup()
		g.Group, g.ProtocolType, g.GroupState, g.GroupType = l.GroupID, protocolType(l.Type), state, typ
		resp.Groups = append(resp.Groups, g)
	}
	return resp, nil
}
