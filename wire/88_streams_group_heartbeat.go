package wire

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/shard"
)

// StreamsGroupHeartbeat: v0-1 (KIP-1071; v1 is KIP-1331's, whose response
// carries TopologyDescriptionRequired when the coordinator solicits a
// push). The member's topology (its epoch, each subtopology's source and
// repartition-source topics) goes to the coordinator; active tasks come
// back. Standby and warm-up tasks, endpoints, client tags and task offsets
// are not modelled: the answer's standby and warm-up lists are empty.

var apiStreamsGroupHeartbeat = api{key: 88, min: 0, max: 1, handle: handleStreamsGroupHeartbeat}

func handleStreamsGroupHeartbeat(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.StreamsGroupHeartbeatRequest)
	resp := req.ResponseKind().(*kmsg.StreamsGroupHeartbeatResponse)
	sreq := shard.StreamsGroupHeartbeatRequest{
		GroupID: req.Group, MemberID: req.MemberID, MemberEpoch: req.MemberEpoch, ClientID: r.clientID,
		RebalanceTimeoutMs: req.RebalanceTimeoutMillis, Version: req.Version,
	}
	if req.ProcessID != nil {
		sreq.ProcessID = *req.ProcessID
	}
	if t := req.Topology; t != nil {
		sreq.Topology = &shard.Topology{Epoch: t.Epoch}
		for _, s := range t.Subtopologies {
			sub := shard.Subtopology{ID: s.SubtopologyID, SourceTopics: s.SourceTopics}
			for _, rs := range s.RepartitionSourceTopics {
				sub.RepartitionSourceTopics = append(sub.RepartitionSourceTopics, rs.Topic)
			}
			sreq.Topology.Subtopologies = append(sreq.Topology.Subtopologies, sub)
		}
	}
	hb, err := r.driver().StreamsGroupHeartbeat(r.ctx, sreq)
	if err != nil {
		resp.ErrorCode, resp.ErrorMessage = errCode(err)
		return resp, nil
	}
	resp.MemberID, resp.MemberEpoch, resp.HeartbeatIntervalMillis = hb.MemberID, hb.MemberEpoch, hb.HeartbeatIntervalMs
	resp.AcceptableRecoveryLag, resp.AcceptableRecoveryLagLegacy = streamsAcceptableRecoveryLag, streamsAcceptableRecoveryLag
	resp.TaskOffsetIntervalMillis = streamsTaskOffsetIntervalMillis
	resp.TopologyDescriptionRequired = hb.TopologyDescriptionRequired
	for _, s := range hb.Status {
		st := kmsg.NewStreamsGroupHeartbeatResponseStatus()
		st.StatusCode, st.StatusDetail = int8(s), s.String()
		resp.Status = append(resp.Status, st)
	}
	if hb.HasAssignment {
		resp.ActiveTasks = tasksToWire(hb.ActiveTasks)
		resp.StandbyTasks, resp.WarmupTasks = []kmsg.TaskIDs{}, []kmsg.TaskIDs{}
	}
	return resp, nil
}
