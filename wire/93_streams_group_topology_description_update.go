package wire

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/coordinator/live"
)

// StreamsGroupTopologyDescriptionUpdate: v0 (KIP-1331, key 93). A member
// pushes the full description of its topology at an epoch; the coordinator
// validates it, stores it through the topology store and records the
// outcome (STREAMS_TOPOLOGY_DESCRIPTION_UPDATE_FAILED for any store
// failure).

var apiStreamsGroupTopologyDescriptionUpdate = api{key: 93, min: 0, max: 0, handle: handleStreamsGroupTopologyDescriptionUpdate}

func handleStreamsGroupTopologyDescriptionUpdate(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.StreamsGroupTopologyDescriptionUpdateRequest)
	resp := req.ResponseKind().(*kmsg.StreamsGroupTopologyDescriptionUpdateResponse)
	update := coordinator.TopologyDescriptionUpdateRequest{
		GroupID: req.Group, MemberID: req.MemberID, TopologyEpoch: req.TopologyEpoch,
		Description: descriptionFromWire(req.TopologyDescription),
	}
	_, err := live.Call(r.ctx, r.driver(), func(c *coordinator.Coordinator) *coordinator.Future[struct{}] {
		return c.StreamsGroupTopologyDescriptionUpdate(update)
	})
	resp.ErrorCode, resp.ErrorMessage = errCode(err)
	return resp, nil
}
