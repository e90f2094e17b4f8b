package wire

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/txn"
)

// AddOffsetsToTxn: v0-4 (Kafka 4.x). The group's __consumer_offsets
// partition (the group coordinator's partitionFor) joins the transaction,
// as KafkaApis.handleAddOffsetsToTxnRequest adds it through
// handleAddPartitionsToTransaction; the group is remembered so its pending
// offsets are completed with the transaction. The group id is not
// checked, as Kafka does not. PRODUCER_FENCED is
// INVALID_PRODUCER_EPOCH below v2 (KIP-588).

var apiAddOffsetsToTxn = api{key: 25, min: 0, max: 4, handle: handleAddOffsetsToTxn}

func handleAddOffsetsToTxn(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.AddOffsetsToTxnRequest)
	resp := req.ResponseKind().(*kmsg.AddOffsetsToTxnResponse)
	if r.notTxnCoordinator(req.TransactionalID) {
		resp.ErrorCode = errNotCoordinator
		return resp, nil
	}
	// KafkaApis passes TV_0: a TV2 client adds its group through
	// TxnOffsetCommit v5 instead.
	err := r.cl.txn.AddOffsets(r.ctx, req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.Group, r.cl.cfg.Coordinator.NumPartitions, txn.TV0)
	code, _ := txnErrCode(err)
	resp.ErrorCode = fencedForVersion(code, req.Version, 2)
	return resp, nil
}
