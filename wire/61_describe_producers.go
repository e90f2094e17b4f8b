package wire

import (
	"github.com/twmb/franz-go/pkg/kmsg"
)

// DescribeProducers: v0, as KafkaApis.handleDescribeProducersRequest and
// ReplicaManager.activeProducerState answer it, per partition: an unknown
// topic or partition UNKNOWN_TOPIC_OR_PARTITION, one this broker does not
// lead NOT_LEADER_OR_FOLLOWER, else every producer the partition has state
// of (producer_state.go), by producer id: its epoch, last sequence (-1
// without a batch), last batch's timestamp, coordinator epoch (-1) and open
// transaction's first offset (-1).

var apiDescribeProducers = api{key: 61, min: 0, max: 0, handle: handleDescribeProducers}

func handleDescribeProducers(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.DescribeProducersRequest)
	resp := req.ResponseKind().(*kmsg.DescribeProducersResponse)
	for _, rt := range req.Topics {
		st := kmsg.NewDescribeProducersResponseTopic()
		st.Topic = rt.Topic
		t, code := r.cl.resolveTopic(rt.Topic, [16]byte{}, false)
		for _, p := range rt.Partitions {
			sp := kmsg.NewDescribeProducersResponseTopicPartition()
			sp.Partition = p
			if pcode := r.cl.partitionCode(r.b, t, code, p); pcode != 0 {
				sp.ErrorCode = pcode
				st.Partitions = append(st.Partitions, sp)
				continue
			}
			producers, _ := r.cl.data.activeProducers(t.name, p, r.cl.nowMs())
			for _, e := range producers {
				ap := kmsg.NewDescribeProducersResponseTopicPartitionActiveProducer()
				ap.ProducerID, ap.ProducerEpoch, ap.LastSequence = e.producerID, int32(e.epoch), e.lastSeq()
				ap.LastTimestamp, ap.CoordinatorEpoch, ap.CurrentTxnStartOffset = e.lastTimestampMs, e.coordinatorEpoch, e.currentTxnFirstOffset
				sp.ActiveProducers = append(sp.ActiveProducers, ap)
			}
			st.Partitions = append(st.Partitions, sp)
		}
		resp.Topics = append(resp.Topics, st)
	}
	return resp, nil
}
