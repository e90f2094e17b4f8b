package wire

import (
	fkerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/coordinator/live"
	"github.com/coordsim/coordsim/shard"
	"github.com/coordsim/coordsim/sharebroker"
)

// AlterShareGroupOffsets: v0 (KIP-932). Two halves, as in Kafka: the group
// coordinator checks that the share group exists and is EMPTY and bumps its
// epoch (coordinator.AlterShareGroupOffsets: GROUP_ID_NOT_FOUND,
// NON_EMPTY_GROUP), then the share-partitions are re-initialised at the
// new start offsets (sharebroker.AlterShareGroupOffsets, all or nothing:
// an offset outside the log is every partition's error). A topic not in
// the metadata image (KafkaApis) and a partition outside its topic (the
// coordinator) are answered on their own rows, UNKNOWN_TOPIC_OR_PARTITION
// with the error's default message, and go no further: the real broker's
// answer (oracle/brokerdiff).

var apiAlterShareGroupOffsets = api{key: 91, min: 0, max: 0, handle: handleAlterShareGroupOffsets}

func handleAlterShareGroupOffsets(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.AlterShareGroupOffsetsRequest)
	resp := req.ResponseKind().(*kmsg.AlterShareGroupOffsetsResponse)
	var topics []shard.TopicPartitions
	var offsets []sharebroker.PartitionOffset
	unknown := map[sharebroker.TopicPartition]bool{}
	for _, t := range req.Topics {
		tp := shard.TopicPartitions{Topic: t.Topic}
		info, exists := r.cl.data.lookup(t.Topic)
		for _, p := range t.Partitions {
			if !exists || p.Partition < 0 || p.Partition >= info.partitions {
				unknown[sharebroker.TopicPartition{Topic: t.Topic, Partition: p.Partition}] = true
				continue
			}
			tp.Partitions = append(tp.Partitions, p.Partition)
			offsets = append(offsets, sharebroker.PartitionOffset{TopicPartition: sharebroker.TopicPartition{Topic: t.Topic, Partition: p.Partition}, StartOffset: p.StartOffset})
		}
		if len(tp.Partitions) > 0 {
			topics = append(topics, tp)
		}
	}
	var partitionErr error
	// With every partition answered here nothing is left for the
	// coordinator, which refuses a request naming no topic.
	if len(topics) > 0 || len(unknown) == 0 {
		_, err := live.Call(r.ctx, r.driver(), func(c *coordinator.Coordinator) *coordinator.Future[int32] {
			return c.AlterShareGroupOffsets(req.GroupID, topics)
		})
		if err != nil {
			resp.ErrorCode, resp.ErrorMessage = errCode(err)
			return resp, nil
		}
		r.cl.share.with(func(b *sharebroker.Broker, _ int64) { partitionErr = b.AlterShareGroupOffsets(req.GroupID, offsets) })
	}
	code, msg := errCode(partitionErr)
	for _, t := range req.Topics {
		rt := kmsg.NewAlterShareGroupOffsetsResponseTopic()
		rt.Topic, rt.TopicID = t.Topic, r.topicID(t.Topic)
		for _, p := range t.Partitions {
			rp := kmsg.NewAlterShareGroupOffsetsResponseTopicPartition()
			rp.Partition, rp.ErrorCode, rp.ErrorMessage = p.Partition, code, msg
			if unknown[sharebroker.TopicPartition{Topic: t.Topic, Partition: p.Partition}] {
				unknownMsg := msgUnknownTopic
				rp.ErrorCode, rp.ErrorMessage = fkerr.UnknownTopicOrPartition.Code, &unknownMsg
			}
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	return resp, nil
}
