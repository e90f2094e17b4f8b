package wire

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/shard"
)

// ShareGroupDescribe: v1 (KIP-932, Kafka 4.x; v0 was the early-access
// version). A group that does not exist or is not a share group is
// GROUP_ID_NOT_FOUND with Kafka's messages
// (GroupMetadataManager.shareGroupDescribe); the assignor is Kafka's one
// share assignor, "simple". Assignments carry topic ids and names; a
// member's rack is null when it has none (ShareGroupMember.asShareGroupDescribeMember).
// An empty group id is INVALID_GROUP_ID without a message, answered before
// the other rows (typedDescribeOrder, as GroupCoordinatorService.shareGroupDescribe);
// IncludeAuthorizedOperations fills each row without error with
// groupAuthorizedOperations (KafkaApis.handleShareGroupDescribe).

var apiShareGroupDescribe = api{key: 77, min: 1, max: 1, handle: handleShareGroupDescribe}

func handleShareGroupDescribe(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.ShareGroupDescribeRequest)
	resp := req.ResponseKind().(*kmsg.ShareGroupDescribeResponse)
	described, err := r.describe(req.GroupIDs)
	for _, row := range typedDescribeRows(req.GroupIDs, err, describedAsCheck(described, shard.Share)) {
		g := kmsg.NewShareGroupDescribeResponseGroup()
		g.GroupID, g.ErrorCode, g.ErrorMessage = row.id, row.code, row.msg
		if row.described {
			r.fillShareGroup(&g, described[row.i].Description)
			g.AuthorizedOperations = authorizedOperations(req.IncludeAuthorizedOperations, 0, g.AuthorizedOperations)
		}
		resp.Groups = append(resp.Groups, g)
	}
	return resp, nil
}

// fillShareGroup is a described share group's row.
func (r *request) fillShareGroup(g *kmsg.ShareGroupDescribeResponseGroup, d shard.GroupDescription) {
	g.GroupState, g.GroupEpoch, g.AssignmentEpoch, g.Assignor = stateName(d.State), d.Epoch, d.AssignmentEpoch, "simple"
	for _, m := range d.Members {
		gm := kmsg.NewShareGroupDescribeResponseGroupMember()
		gm.MemberID, gm.MemberEpoch, gm.ClientID, gm.ClientHost = m.MemberID, m.MemberEpoch, m.ClientID, m.ClientHost
		gm.SubscribedTopicNames, gm.RackID = m.SubscribedTopics, nullIfEmpty(m.RackID)
		gm.Assignment.TopicPartitions = memberAssignment[kmsg.ShareGroupDescribeResponseGroupMemberAssignmentTopicPartition](r, m.DescribedAssignment(r.topicExists))
		g.Members = append(g.Members, gm)
	}
}
