package coordinator

import (
	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/shard"
)

// The streams application-shutdown request (shard/streams_shutdown.go) is
// soft state, as in Kafka, where StreamsGroup.shutdownRequestMemberId is a
// plain field outside the timeline and no record carries it: it lives on
// the hosted shard, starts empty at every load (a coordinator that takes
// the partition over forgets it, as Kafka's does), is not restored by a
// rollback, and is dropped once the group has no member.

// shutdownRequester is the group's recorded shutdown requester, "" for none.
func (c *Coordinator) shutdownRequester(p int32, groupID string) string {
	h, err := c.shardFor(p)
	if err != nil {
		return ""
	}
	return h.shutdownRequests[groupID]
}

// noteShutdownRequest records the requester a streams heartbeat leaves
// behind, when the operation ran (Kafka sets it before the write commits,
// and a failed write does not undo it). A leave sets it before looking the
// member up (GroupMetadataManager.streamsGroupLeave), so a leave of an
// unknown member of a streams group sets it too.
func (c *Coordinator) noteShutdownRequest(p int32, req shard.StreamsGroupHeartbeatRequest, resp shard.StreamsGroupHeartbeatResponse, opErr error) {
	id := resp.ShutdownRequestMemberID
	if opErr != nil {
		if req.MemberEpoch >= 0 || !req.ShutdownApplication || kerr.As(opErr) != kerr.UnknownMemberID {
			return
		}
		id = req.ShutdownRequestMemberID
		if id == "" {
			id = req.MemberID
		}
	}
	h, err := c.shardFor(p)
	if id == "" || err != nil || h.shutdownRequests[req.GroupID] == id {
		return
	}
	if h.shutdownRequests == nil {
		h.shutdownRequests = map[string]string{}
	}
	h.shutdownRequests[req.GroupID] = id
}

// forgetEmptyShutdownRequests drops the requests of groups left with no
// member (StreamsGroup.maybeUpdateGroupState clears it on the way to
// EMPTY). It runs after a rollback; after a replay into the latest state
// forgetReplayedEmptyShutdownRequests does, for the groups replayed.
func (c *Coordinator) forgetEmptyShutdownRequests(h *hosted) {
	for id := range h.shutdownRequests { // deleting only: the order shows nowhere
		if !h.latest.StreamsGroupHasMembers(id) {
			delete(h.shutdownRequests, id)
		}
	}
}

// forgetReplayedEmptyShutdownRequests is forgetEmptyShutdownRequests for
// the groups records were just replayed for: Kafka re-derives a group's
// state, and clears its request, only when it replays one of its streams
// records (not an offset commit of the group),
// so a request made while the group is empty (a leave of a member already
// gone) stays for the group's next member to hear. With no request
// recorded, as in the simulator, it costs a length check.
func (c *Coordinator) forgetReplayedEmptyShutdownRequests(h *hosted, records []shard.Record) {
	if len(h.shutdownRequests) == 0 {
		return
	}
	for _, r := range records {
		id := r.GroupID()
		if _, ok := h.shutdownRequests[id]; ok && shard.RederivesStreamsGroup(r) && !h.latest.StreamsGroupHasMembers(id) {
			delete(h.shutdownRequests, id)
		}
	}
}
