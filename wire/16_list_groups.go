package wire

import (
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/coordinator/live"
	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/shard"
)

// ListGroups: v0-5 (Kafka 4.x). Each broker lists the groups of the
// __consumer_offsets partitions it leads (clients ask every broker), with
// the state (v4+) and type (v5+) filters of GroupMetadataManager.listGroups:
// a state filter is lower-cased and trimmed (String.trim), a type filter
// only lower-cased (Group.GroupType.parse). As in
// GroupCoordinatorService.listGroups, a partition that is no longer
// coordinated here (NOT_COORDINATOR) is skipped, and any other partition
// error (COORDINATOR_LOAD_IN_PROGRESS while loading) is the whole answer,
// with no groups.

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
	if err == nil {
		err = listingError(got.failed)
	}
	if err != nil {
		resp.ErrorCode, _ = errCode(err)
		return resp, nil
	}
	states, types := map[string]bool{}, map[string]bool{}
	for _, f := range req.StatesFilter {
		states[javaTrim(javaLower(f))] = true
	}
	for _, f := range req.TypesFilter {
		types[javaLower(f)] = true
	}
	for _, l := range got.groups {
		state, typ := stateName(l.State), l.Type.String()
		if len(states) > 0 && !states[javaLower(state)] || len(types) > 0 && !types[javaLower(typ)] {
			continue
		}
		g := kmsg.NewListGroupsResponseGroup()
		g.Group, g.ProtocolType, g.GroupState, g.GroupType = l.GroupID, protocolType(l.Type), state, typ
		if l.Type == shard.Classic {
			g.ProtocolType = l.ProtocolType // ClassicGroup.asListedGroup
		}
		resp.Groups = append(resp.Groups, g)
	}
	return resp, nil
}

// listingError is the error of a listing whose partitions failed as failed
// did: the first that is not NOT_COORDINATOR, which
// GroupCoordinatorService.listGroups maps to an empty list.
func listingError(failed []coordinator.PartitionResult[struct{}]) error {
	for _, f := range failed {
		if kerr.As(f.Err) != kerr.NotCoordinator {
			return f.Err
		}
	}
	return nil
}

// javaLower is Java's String.toLowerCase for the filters: Go's
// strings.ToLower except for U+0130 (İ), which Java lowers to "i" and a
// combining dot above, so that "ASSİGNİNG" matches no state in either.
func javaLower(s string) string {
	return strings.ToLower(strings.ReplaceAll(s, "\u0130", "i\u0307"))
}

// javaTrim is Java's String.trim: it removes the characters up to U+0020
// (controls and space) from both ends, and no other white space.
func javaTrim(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
}
