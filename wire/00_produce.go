package wire

import (
	"fmt"
	"strings"

	fkerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Produce: v3-13 (Kafka 4.x; v0-2 were removed by KIP-896, yet ApiVersions
// advertises 0-13 as Kafka does, KAFKA-18659, and a v0-2 request still
// closes the connection, as Kafka's request parsing refuses it).
//
// One record batch per partition, validated as Kafka's broker validates it
// (ProduceRequest.validateRecords, UnifiedLog.analyzeAndValidateRecords,
// LogValidator: dataPlane.produce) and appended at once (no replication,
// so acks -1 and 1 and the timeout change nothing); idempotent producers
// get Kafka's sequence checks and a retried batch its original offset. v13
// names topics by id. Kafka's internal topics (__consumer_offsets) are
// INVALID_TOPIC_EXCEPTION "Cannot append to internal topic T"
// (internal_topics.go). Otherwise, per partition, in
// KafkaApis.handleProduceRequest's order: an unknown topic or partition; a
// zstd batch below v7 (UNSUPPORTED_COMPRESSION_TYPE); acks other than -1,
// 0, 1 (INVALID_REQUIRED_ACKS, ReplicaManager.appendRecords); not the
// leader; the batch's own checks. acks=0 gets no response, and when any
// partition failed the connection is closed instead, so that the producer
// notices and refreshes its metadata, as Kafka does. A transactional batch
// is first checked against its transaction (txnProduceCode): below v12 only
// the partitions of the producer's ongoing transaction take one; from v12
// (transaction.version 2, KIP-890 part 2) the batch adds its partition to
// the transaction, starting it if needed.

var apiProduce = api{key: 0, min: 3, max: 13, handle: handleProduce}

// produceAdvertisedMin is ApiKeys.PRODUCE_API_VERSIONS_RESPONSE_MIN_VERSION:
// what ApiVersions advertises as Produce's oldest version.
const produceAdvertisedMin = 0

func handleProduce(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.ProduceRequest)
	resp := req.ResponseKind().(*kmsg.ProduceResponse)
	byID := req.Version >= 13
	validAcks := req.Acks == -1 || req.Acks == 0 || req.Acks == 1
	var failed []string
	for _, rt := range req.Topics {
		t, code := r.cl.resolveTopic(rt.Topic, rt.TopicID, byID)
		st := kmsg.NewProduceResponseTopic()
		st.Topic, st.TopicID = rt.Topic, rt.TopicID
		for _, rp := range rt.Partitions {
			sp := kmsg.NewProduceResponseTopicPartition()
			sp.Partition = rp.Partition
			sp.BaseOffset, sp.LogAppendTime, sp.LogStartOffset = -1, -1, -1
			pcode := r.cl.partitionCode(r.b, t, code, rp.Partition)
			icode, imsg, internal := r.cl.internalAppendRefusal(rt.Topic, rt.TopicID, byID, rp.Partition)
			switch {
			case internal:
				sp.ErrorCode = icode
				if imsg != "" {
					sp.ErrorMessage = &imsg
				}
			case pcode != 0 && pcode != fkerr.NotLeaderForPartition.Code:
				sp.ErrorCode = pcode
			case req.Version < 7 && batchCodec(rp.Records) == codecZstd:
				// ProduceRequest.validateRecords
				sp.ErrorCode = fkerr.UnsupportedCompressionType.Code
				msg := fmt.Sprintf("Produce requests with version %d are not allowed to use ZStandard compression", req.Version)
				sp.ErrorMessage = &msg
			case !validAcks:
				sp.ErrorCode = fkerr.InvalidRequiredAcks.Code
			case pcode != 0:
				sp.ErrorCode = pcode
			case req.Acks == -1 && r.cl.data.minInsyncReplicas(t.name) > 1:
				// Partition.appendRecordsToLeader: one replica is in sync.
				sp.ErrorCode = fkerr.NotEnoughReplicas.Code
				msg := fmt.Sprintf("The size of the current ISR Set(%d) is insufficient to satisfy the min.isr requirement of %d for partition %s-%d", r.b.node, r.cl.data.minInsyncReplicas(t.name), t.name, rp.Partition)
				sp.ErrorMessage = &msg
			default:
				if pid, epoch, isTxn := transactionalBatch(rp.Records); isTxn {
					if code, msg := r.txnProduceCode(req.TransactionID, pid, epoch, t.name, rp.Partition, req.Version); code != 0 {
						sp.ErrorCode = code
						if msg != "" {
							sp.ErrorMessage = &msg
						}
						break
					}
				}
				res := r.cl.data.produce(t.name, rp.Partition, rp.Records, r.cl.nowMs())
				sp.ErrorCode = res.code
				if res.code == 0 {
					sp.BaseOffset, sp.LogStartOffset = res.base, res.logStart
				} else if res.msg != "" {
					msg := res.msg
					sp.ErrorMessage = &msg
				}
			}
			if sp.ErrorCode != 0 {
				failed = append(failed, fmt.Sprintf("%s-%d: %s", rt.Topic, rp.Partition, fkerr.ErrorForCode(sp.ErrorCode)))
			}
			st.Partitions = append(st.Partitions, sp)
		}
		resp.Topics = append(resp.Topics, st)
	}
	if req.Acks == 0 {
		if len(failed) > 0 {
			return nil, fmt.Errorf("closing the connection due to an error in a produce request with acks=0 (%s)", strings.Join(failed, ", "))
		}
		return nil, errNoResponse
	}
	return resp, nil
}
