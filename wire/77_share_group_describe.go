package wire

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/kerr"
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
	for _, i := range typedDescribeOrder(req.GroupIDs, err) {
		id := req.GroupIDs[i]
		g := kmsg.NewShareGroupDescribeResponseGroup()
		g.GroupID = id
		if emptyGroupIDRow(id, err) {
			g.ErrorCode = kerr.InvalidGroupID.Code
			resp.Groups = append(resp.Groups, g)
			continue
		}
		d, rowErr := describedAs(described, err, i, shard.Share)
		if rowErr != nil {
			g.ErrorCode, g.ErrorMessage = groupErr(id, rowErr)
			resp.Groups = append(resp.Groups, g)
			continue
		}
		g.GroupState, g.GroupEpoch, g.AssignmentEpoch, g.Assignor = stateName(d.State), d.Epoch, d.AssignmentEpoch, "simple"
		for _, m := range d.Members {
			gm := kmsg.NewShareGroupDescribeResponseGroupMember()
			gm.MemberID, gm.MemberEpoch, gm.ClientID, gm.ClientHost = m.MemberID, m.MemberEpoch, m.ClientID, "/127.0.0.1"
			gm.SubscribedTopicNames, gm.RackID = m.SubscribedTopics, nullIfEmpty(m.RackID)
			for _, tp := range m.Assignment {
				t := kmsg.NewShareGroupDescribeResponseGroupMemberAssignmentTopicPartition()
				t.Topic, t.TopicID, t.Partitions = tp.Topic, r.topicID(tp.Topic), tp.Partitions
				gm.Assignment.TopicPartitions = append(gm.Assignment.TopicPartitions, t)
			}
			g.Members = append(g.Members, gm)
		}
		resp.Groups = append(resp.Groups, g)
	}
	for i := range resp.Groups {
		g := &resp.Groups[i]
		g.AuthorizedOperations = authorizedOperations(req.IncludeAuthorizedOperations, g.ErrorCode, g.AuthorizedOperations)
	}
	return resp, nil
}
