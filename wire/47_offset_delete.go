package wire

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/coordinator/live"
	"github.com/coordsim/coordsim/shard"
)

// OffsetDelete: v0 (Kafka 4.x). KafkaApis.handleOffsetDeleteRequest's
// pass (commits.go) answers unknown topics and partitions
// UNKNOWN_TOPIC_OR_PARTITION first; the coordinator answers the rest per
// partition (GROUP_SUBSCRIBED_TO_TOPIC, as
// OffsetMetadataManager.deleteOffsets), merged after them. A group error
// (INVALID_GROUP_ID, GROUP_ID_NOT_FOUND, NON_EMPTY_GROUP for a classic group
// with members of another protocol type) is the response's only content:
// OffsetDeleteRequest.getErrorResponse has no topics.

var apiOffsetDelete = api{key: 47, min: 0, max: 0, handle: handleOffsetDelete}

func handleOffsetDelete(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.OffsetDeleteRequest)
	resp := req.ResponseKind().(*kmsg.OffsetDeleteResponse)
	in := make([]commitTopicIn, len(req.Topics))
	for i, t := range req.Topics {
		in[i].name = t.Topic
		for _, p := range t.Partitions {
			in[i].partitions = append(in[i].partitions, shard.OffsetCommitPartition{Partition: p.Partition})
		}
	}
	plan := r.planCommit(in, false)
	topics := make([]shard.TopicPartitions, len(plan.topics))
	for i, t := range plan.topics {
		topics[i].Topic = t.Topic
		for _, p := range t.Partitions {
			topics[i].Partitions = append(topics[i].Partitions, p.Partition)
		}
	}
	// The coordinator is called even with no partition left: the group's
	// error answers the request.
	res, err := live.Call(r.ctx, r.driver(), func(c *coordinator.Coordinator) *coordinator.Future[shard.OffsetDeleteResponse] {
		return c.DeleteOffsets(req.Group, topics)
	})
	if err != nil {
		resp.ErrorCode, _ = errCode(err)
		return resp, nil
	}
	plan.committed(shard.OffsetCommitResponse{Topics: res.Topics}, nil)
	for _, t := range plan.out {
		st := kmsg.NewOffsetDeleteResponseTopic()
		st.Topic = t.name
		for _, row := range t.rows {
			sp := kmsg.NewOffsetDeleteResponseTopicPartition()
			sp.Partition, sp.ErrorCode = row.partition, row.code
			st.Partitions = append(st.Partitions, sp)
		}
		resp.Topics = append(resp.Topics, st)
	}
	return resp, nil
}
