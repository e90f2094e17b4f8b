package wire

import (
	fkerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// DeleteRecords: v0-2 (Kafka 4.4's DeleteRecordsRequest.json keeps v0,
// which segmentio/kafka-go sends; v1 only changed throttling), as
// KafkaApis.handleDeleteRecordsRequest, ReplicaManager.deleteRecords and
// Partition.deleteRecordsOnLeader answer it, per partition: an unknown
// topic or partition UNKNOWN_TOPIC_OR_PARTITION; Kafka's internal topic
// (__consumer_offsets) INVALID_TOPIC_EXCEPTION; a partition this broker
// does not lead NOT_LEADER_OR_FOLLOWER; then the data plane's
// deleteRecords (a compact-only topic POLICY_VIOLATION; -1 is the high
// watermark; negative or past the high watermark OFFSET_OUT_OF_RANGE).
// The low watermark is the new log start offset, -1 on an error
// (DeleteRecordsResponse.INVALID_LOW_WATERMARK). With one replica the
// answer is immediate: Kafka's DelayedDeleteRecords waits for every
// replica's log start. The share plane archives what the new start
// passes, as after retention.

var apiDeleteRecords = api{key: 21, min: 0, max: 2, handle: handleDeleteRecords}

func handleDeleteRecords(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.DeleteRecordsRequest)
	resp := req.ResponseKind().(*kmsg.DeleteRecordsResponse)
	for _, rt := range req.Topics {
		st := kmsg.NewDeleteRecordsResponseTopic()
		st.Topic = rt.Topic
		t, code := r.cl.resolveTopic(rt.Topic, [16]byte{}, false)
		for _, rp := range rt.Partitions {
			sp := kmsg.NewDeleteRecordsResponseTopicPartition()
			sp.Partition, sp.LowWatermark = rp.Partition, -1
			switch {
			case rt.Topic == offsetsTopicName && rp.Partition >= 0 && rp.Partition < r.cl.cfg.Coordinator.NumPartitions:
				// ReplicaManager.deleteRecordsOnLocalLog: "Cannot delete
				// records of internal topic".
				sp.ErrorCode = fkerr.InvalidTopicException.Code
			default:
				if pcode := r.cl.partitionCode(r.b, t, code, rp.Partition); pcode != 0 {
					sp.ErrorCode = pcode
					break
				}
				res := r.cl.data.deleteRecords(t.name, rp.Partition, rp.Offset)
				sp.ErrorCode, sp.LowWatermark = res.code, res.lowWatermark
				if res.code != 0 {
					r.cl.log.Debug("refused a DeleteRecords", "topic", t.name, "partition", rp.Partition, "reason", res.msg)
				}
			}
			st.Partitions = append(st.Partitions, sp)
		}
		resp.Topics = append(resp.Topics, st)
	}
	return resp, nil
}
