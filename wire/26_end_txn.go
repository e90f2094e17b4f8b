package wire

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/txn"
)

// EndTxn: v0-5 (Kafka 4.x). The transaction coordinator writes
// PrepareCommit or PrepareAbort and answers; the markers follow (txn.go),
// and until they are written the transactional id answers
// CONCURRENT_TRANSACTIONS. v5 is a transaction.version 2 client's
// (KIP-890 part 2, TransactionVersion.transactionVersionForEndTxn): every
// commit and abort bumps the producer epoch, and the answer carries the
// producer id and epoch to continue with (-1 and -1 below v5 and on an
// error). PRODUCER_FENCED is INVALID_PRODUCER_EPOCH below v2 (KIP-588).

var apiEndTxn = api{key: 26, min: 0, max: 5, handle: handleEndTxn}

// endTxnProducerIDVersion is the first EndTxn version whose answer carries
// the producer id and epoch.
const endTxnProducerIDVersion = 5

func handleEndTxn(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.EndTxnRequest)
	resp := req.ResponseKind().(*kmsg.EndTxnResponse)
	resp.ProducerID, resp.ProducerEpoch = noProducerID, noProducerEpoch
	if r.notTxnCoordinator(req.TransactionalID) {
		resp.ErrorCode = errNotCoordinator
		return resp, nil
	}
	out, err := r.cl.txn.EndTxn(r.ctx, req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.Commit, txn.EndTxnVersion(req.Version))
	code, _ := txnErrCode(err)
	resp.ErrorCode = fencedForVersion(code, req.Version, 2)
	if err == nil && req.Version >= endTxnProducerIDVersion {
		resp.ProducerID, resp.ProducerEpoch = out.ProducerID, out.ProducerEpoch
	}
	return resp, nil
}
