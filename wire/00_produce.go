package wire

import (
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Produce: v3-13 (Kafka 4.x; v0-2 were removed by KIP-896).
//
// One record batch per partition, appended at once (no replication, so
// acks and the timeout change nothing); idempotent producers get Kafka's
// sequence checks and a retried batch its original offset. v13 names
// topics by id. acks=0 gets no response, as in Kafka. Kafka's internal
// topics (__consumer_offsets) are INVALID_TOPIC_EXCEPTION "Cannot append
// to internal topic T" (internal_topics.go).

var apiProduce = api{key: 0, min: 3, max: 13, handle: handleProduce}

func handleProduce(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.ProduceRequest)
	resp := req.ResponseKind().(*kmsg.ProduceResponse)
	byID := req.Version >= 13
	for _, rt := range req.Topics {
		t, code := r.cl.resolveTopic(rt.Topic, rt.TopicID, byID)
		st := kmsg.NewProduceResponseTopic()
		st.Topic, st.TopicID = rt.Topic, rt.TopicID
		for _, rp := range rt.Partitions {
			sp := kmsg.NewProduceResponseTopicPartition()
			sp.Partition = rp.Partition
			sp.BaseOffset, sp.LogAppendTime, sp.LogStartOffset = -1, -1, -1
			pcode := r.cl.partitionCode(r.b, t, code, rp.Partition)
			if icode, imsg, internal := r.cl.internalAppendRefusal(rt.Topic, rt.TopicID, byID, rp.Partition); internal {
				sp.ErrorCode = icode
				if imsg != "" {
					sp.ErrorMessage = &imsg
				}
			} else if pcode != 0 {
				sp.ErrorCode = pcode
			} else {
				res := r.cl.data.produce(t.name, rp.Partition, rp.Records)
				sp.ErrorCode = res.code
				if res.code == 0 {
					sp.BaseOffset, sp.LogStartOffset = res.base, res.logStart
				} else if res.msg != "" {
					msg := res.msg
					sp.ErrorMessage = &msg
				}
			}
			st.Partitions = append(st.Partitions, sp)
		}
		resp.Topics = append(resp.Topics, st)
	}
	if req.Acks == 0 {
		return nil, errNoResponse
	}
	return resp, nil
}
