package wire

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/coordinator/live"
)

// StreamsGroupDescribe: v0-1 (KIP-1071; v1 adds KIP-1331's
// TopologyDescriptionStatus and, when IncludeTopologyDescription asks and
// the status is AVAILABLE, the description read from the topology store).
// The coordinator decides the status; this only translates. A member's rack
// is null when it has none (StreamsGroupMember.asStreamsGroupDescribeMember).
// An empty group id is INVALID_GROUP_ID without a message, answered before
// the other rows (typedDescribeOrder, as GroupCoordinatorService.streamsGroupDescribe);
// IncludeAuthorizedOperations fills each row without error with
// groupAuthorizedOperations (KafkaApis.handleStreamsGroupDescribe).

var apiStreamsGroupDescribe = api{key: 89, min: 0, max: 1, handle: handleStreamsGroupDescribe}

func handleStreamsGroupDescribe(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.StreamsGroupDescribeRequest)
	resp := req.ResponseKind().(*kmsg.StreamsGroupDescribeResponse)
	include := req.Version >= 1 && req.IncludeTopologyDescription
	rows, err := live.Call(r.ctx, r.driver(), func(c *coordinator.Coordinator) *coordinator.Future[[]coordinator.StreamsGroupDescription] {
		return c.DescribeStreamsGroups(req.Groups, include)
	})
	for _, row := range typedDescribeRows(req.Groups, err, func(i int) error { return rows[i].Err }) {
		g := kmsg.NewStreamsGroupDescribeResponseGroup()
		g.Group, g.ErrorCode, g.ErrorMessage = row.id, row.code, row.msg
		if row.described {
			fillStreamsGroup(&g, rows[row.i])
			g.AuthorizedOperations = authorizedOperations(req.IncludeAuthorizedOperations, 0, g.AuthorizedOperations)
		}
		resp.Groups = append(resp.Groups, g)
	}
	return resp, nil
}

// fillStreamsGroup is a described streams group's row.
func fillStreamsGroup(g *kmsg.StreamsGroupDescribeResponseGroup, row coordinator.StreamsGroupDescription) {
	d := row.Group
	g.State, g.Epoch, g.AssignmentEpoch = stateName(d.State), d.Epoch, d.AssignmentEpoch
	assignor := "sticky" // Kafka's default streams assignor name
	g.AssignorName = &assignor
	if topo := row.Topology; topo != nil {
		// StreamsGroup.asDescribedGroup: the configured topology when
		// ready, else the stored one; sorted either way.
		t := kmsg.NewStreamsGroupDescribeResponseGroupTopology()
		t.Epoch = topo.Epoch
		for _, s := range topo.Subtopologies {
			st := kmsg.NewStreamsGroupDescribeResponseGroupTopologySubtopology()
			st.SubtopologyID, st.SourceTopics, st.RepartitionSinkTopics = s.ID, s.SourceTopics, s.RepartitionSinkTopics
			st.RepartitionSourceTopics = topicInfosToWire(s.RepartitionSourceTopics)
			st.StateChangelogTopics = topicInfosToWire(s.StateChangelogTopics)
			t.Subtopologies = append(t.Subtopologies, st)
		}
		g.Topology = &t
	}
	for _, m := range d.Members {
		gm := kmsg.NewStreamsGroupDescribeResponseGroupMember()
		gm.MemberID, gm.MemberEpoch, gm.ClientID, gm.ClientHost = m.MemberID, m.MemberEpoch, m.ClientID, m.ClientHost
		gm.TopologyEpoch, gm.ProcessID, gm.RackID = m.TopologyEpoch, m.ProcessID, nullIfEmpty(m.RackID)
		gm.InstanceID = nullIfEmpty(m.InstanceID)
		gm.TaskOffsets, gm.TaskEndOffsets = taskOffsetsToWire(m.TaskOffsets), taskOffsetsToWire(m.TaskEndOffsets)
		gm.UserEndpoint = describedEndpoint(m.UserEndpoint)
		// StreamsGroupMember.asStreamsGroupDescribeMember: every role.
		gm.Assignment.ActiveTasks = tasksToWire(m.ActiveTasks)
		gm.Assignment.StandbyTasks, gm.Assignment.WarmupTasks = tasksToWire(m.StandbyTasks), tasksToWire(m.WarmupTasks)
		gm.TargetAssignment.ActiveTasks = tasksToWire(m.TargetActiveTasks)
		gm.TargetAssignment.StandbyTasks = tasksToWire(m.TargetStandbyTasks)
		gm.TargetAssignment.WarmupTasks = tasksToWire(m.TargetWarmupTasks)
		g.Members = append(g.Members, gm)
	}
	g.TopologyDescriptionStatus = int8(row.TopologyDescriptionStatus)
	if row.TopologyDescription != nil {
		g.TopologyDescription = descriptionToWire(row.TopologyDescription)
	}
}
