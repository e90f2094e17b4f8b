package wire

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/txn"
)

// AddPartitionsToTxn: v0-5 (Kafka 4.x). v0-3 is the producer's request,
// one transaction; v4+ batches transactions (each answered in
// ResultsByTransaction) and may be VerifyOnly (KIP-890 part 1), which
// checks the partitions are in the ongoing transaction and writes nothing.
// As KafkaApis.handleAddPartitionsToTxnRequest: partitions of unknown
// topics, or past a topic's partition count, are UNKNOWN_TOPIC_OR_PARTITION
// and the others OPERATION_NOT_ATTEMPTED; otherwise the transaction
// coordinator's answer goes to every partition (PRODUCER_FENCED is
// INVALID_PRODUCER_EPOCH below v2, KIP-588). A transactional id this broker
// does not coordinate is NOT_COORDINATOR. v4+ adds (not VerifyOnly) at
// transaction.version 2, as a broker adds a TV2 produce's partition
// (TransactionVersion.transactionVersionForAddPartitionsToTxn).

var apiAddPartitionsToTxn = api{key: 24, min: 0, max: 5, handle: handleAddPartitionsToTxn}

func handleAddPartitionsToTxn(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.AddPartitionsToTxnRequest)
	resp := req.ResponseKind().(*kmsg.AddPartitionsToTxnResponse)
	if req.Version < 4 {
		codes := r.addPartitionsToTxn(req.TransactionalID, req.ProducerID, req.ProducerEpoch, false, v3Topics(req.Topics), req.Version)
		for _, t := range codes {
			rt := kmsg.NewAddPartitionsToTxnResponseTopic()
			rt.Topic, rt.Partitions = t.name, responsePartitions[kmsg.AddPartitionsToTxnResponseTopicPartition](t)
			resp.Topics = append(resp.Topics, rt)
		}
		return resp, nil
	}
	for _, t := range req.Transactions {
		in := make([]txnTopic, len(t.Topics))
		for i, rt := range t.Topics {
			in[i] = txnTopic{topic: rt.Topic, partitions: rt.Partitions}
		}
		codes := r.addPartitionsToTxn(t.TransactionalID, t.ProducerID, t.ProducerEpoch, t.VerifyOnly, in, req.Version)
		rt := kmsg.NewAddPartitionsToTxnResponseTransaction()
		rt.TransactionalID = t.TransactionalID
		for _, tc := range codes {
			tt := kmsg.NewAddPartitionsToTxnResponseTransactionTopic()
			tt.Topic, tt.Partitions = tc.name, responsePartitions[kmsg.AddPartitionsToTxnResponseTransactionTopicPartition](tc)
			rt.Topics = append(rt.Topics, tt)
		}
		resp.Transactions = append(resp.Transactions, rt)
	}
	return resp, nil
}

// txnTopic is one topic of an AddPartitionsToTxn.
type txnTopic struct {
	topic      string
	partitions []int32
}

func v3Topics(in []kmsg.AddPartitionsToTxnRequestTopic) []txnTopic {
	out := make([]txnTopic, len(in))
	for i, t := range in {
		out[i] = txnTopic{topic: t.Topic, partitions: t.Partitions}
	}
	return out
}

// addPartitionsToTxn answers one transaction of an AddPartitionsToTxn.
func (r *request) addPartitionsToTxn(id string, producerID int64, epoch int16, verifyOnly bool, topics []txnTopic, version int16) []rowsTopic {
	out := make([]rowsTopic, len(topics))
	var ps []txn.TopicPartition
	unknown := false
	for i, t := range topics {
		out[i].name = t.topic
		info, ok := r.cl.data.lookup(t.topic)
		for _, p := range t.partitions {
			code := int16(0)
			if !ok || p < 0 || p >= info.partitions {
				code, unknown = kerr.UnknownTopicOrPartition.Code, true
			}
			out[i].rows = append(out[i].rows, partitionRow{partition: p, code: code})
			ps = append(ps, txn.TopicPartition{Topic: t.topic, Partition: p})
		}
	}
	set := func(f func(i, j int) int16) {
		for i := range out {
			for j := range out[i].rows {
				out[i].rows[j].code = f(i, j)
			}
		}
	}
	if unknown {
		set(func(i, j int) int16 {
			if c := out[i].rows[j].code; c != 0 {
				return c
			}
			return kerr.OperationNotAttempted.Code
		})
		return out
	}
	if r.notTxnCoordinator(id) {
		set(func(int, int) int16 { return kerr.NotCoordinator.Code })
		return out
	}
	if verifyOnly {
		errs, err := r.cl.txn.VerifyPartitions(r.ctx, id, producerID, epoch, ps)
		k := 0
		set(func(i, j int) int16 {
			defer func() { k++ }()
			if err != nil {
				code, _ := txnErrCode(err)
				return code
			}
			code, _ := txnErrCode(errs[k])
			return code
		})
		return out
	}
	code, _ := txnErrCode(r.cl.txn.AddPartitions(r.ctx, id, producerID, epoch, ps, txn.AddPartitionsVersion(version)))
	code = fencedForVersion(code, version, 2)
	set(func(int, int) int16 { return code })
	return out
}
