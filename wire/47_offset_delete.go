package wire

import (
	"errors"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/coordinator/live"
	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/shard"
)

// OffsetDelete: v0 (Kafka 4.x). The coordinator's GROUP_SUBSCRIBED_TO_TOPIC
// is answered per partition, as Kafka's GroupMetadataManager.deleteOffsets
// does; every other error is the group's.

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
	_, err := live.Call(r.ctx, r.driver(), func(c *coordinator.Coordinator) *coordinator.Future[int] {
		return c.DeleteOffsets(req.Group, topics)
	})
	var partitionCode int16
	if errors.Is(err, kerr.GroupSubscribedToTopic) {
		partitionCode, _ = errCode(err)
	} else if err != nil {
		resp.ErrorCode, _ = errCode(err)
		return resp, nil
	}
	for _, t := range req.Topics {
		st := kmsg.NewOffsetDeleteResponseTopic()
		st.Topic = t.Topic
		for _, p := range t.Partitions {
			sp := kmsg.NewOffsetDeleteResponseTopicPartition()
			sp.Partition, sp.ErrorCode = p.Partition, partitionCode
			st.Partitions = append(st.Partitions, sp)
		}
		resp.Topics = append(resp.Topics, st)
	}
	return resp, nil
}
