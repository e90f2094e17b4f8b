package wire

import (
	"github.com/twmb/franz-go/pkg/kmsg"
)

// EndTxn: v0-5 (Kafka 4.x). The transaction coordinator writes
// PrepareCommit or PrepareAbort and answers; the markers follow (txn.go),
// and until they are written the transactional id answers
// CONCURRENT_TRANSACTIONS. transaction.version 2 is not finalized here, so
// v5's producer id and epoch are -1: the epoch is not bumped on every
// commit (KIP-890 part 2 is not modelled). PRODUCER_FENCED is
// INVALID_PRODUCER_EPOCH below v2 (KIP-588).

var apiEndTxn = api{key: 26, min: 0, max: 5, handle: handleEndTxn}

func handleEndTxn(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.EndTxnRequest)
	resp := req.ResponseKind().(*kmsg.EndTxnResponse)
	resp.ProducerID, resp.ProducerEpoch = noProducerID, noProducerEpoch
	if r.notTxnCoordinator(req.TransactionalID) {
		resp.ErrorCode = errNotCoordinator
		return resp, nil
	}
	err := r.cl.txn.EndTxn(r.ctx, req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.Commit)
	code, _ := txnErrCode(err)
	resp.ErrorCode = fencedForVersion(code, req.Version, 2)
	return resp, nil
}
