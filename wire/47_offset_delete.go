package wire

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/coordinator/live"
	"github.com/coordsim/coordsim/shard"
)

// OffsetDelete: v0 (Kafka 4.x). The coordinator answers per partition
// (GROUP_SUBSCRIBED_TO_TOPIC, UNKNOWN_TOPIC_OR_PARTITION), as Kafka's
// OffsetMetadataManager.deleteOffsets and KafkaApis do; its request error
// is the group's.

var apiOffsetDelete = api{key: 47, min: 0, max: 0, handle: handleOffsetDelete}

func handleOffsetDelete(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.OffsetDeleteRequest)
	resp := req.ResponseKind().(*kmsg.OffsetDeleteResponse)
	var topics []shard.TopicPartitions
	for _, t := range req.Topics {
		tp := shard.TopicPartitions{Topic: t.Topic}
		for _, p := range t.Partitions {
			tp.Partitions = append(tp.Partitions, p.Partition)
		}
		topics = append(topics, tp)
	}
	res, err := live.Call(r.ctx, r.driver(), func(c *coordinator.Coordinator) *coordinator.Future[shard.OffsetDeleteResponse] {
		return c.DeleteOffsets(req.Group, topics)
	})
	if err != nil {
		resp.ErrorCode, _ = errCode(err)
		return resp, nil
	}
	codes := partitionCodes(res.Topics)
	for _, t := range req.Topics {
		st := kmsg.NewOffsetDeleteResponseTopic()
		st.Topic = t.Topic
		for _, p := range t.Partitions {
			sp := kmsg.NewOffsetDeleteResponseTopicPartition()
			sp.Partition, sp.ErrorCode = p.Partition, codes[topicPartition{t.Topic, p.Partition}]
			st.Partitions = append(st.Partitions, sp)
		}
		resp.Topics = append(resp.Topics, st)
	}
	return resp, nil
}
