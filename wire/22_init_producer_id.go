package wire

import (
	fkerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/txn"
)

// InitProducerId: v0-5 (Kafka 4.x), as KafkaApis.handleInitProducerIdRequest
// and TransactionCoordinator.handleInitProducerId answer it:
//
//   - exactly one of ProducerID and ProducerEpoch set (the other -1, Kafka's
//     NO_PRODUCER_ID / NO_PRODUCER_EPOCH) is INVALID_REQUEST, id -1, epoch -1;
//   - a null transactional id always gets a fresh producer id at epoch 0,
//     whatever id and epoch the request carries ("blindly accept the
//     request"): an idempotent producer that re-initialises never continues
//     an old id, so no two producers ever share one;
//   - a transactional id goes to the transaction coordinator
//     (initTransactionalProducerID).
//
// Producer ids come from the endpoint's one producerIDManager.

var apiInitProducerID = api{key: 22, min: 0, max: 5, handle: handleInitProducerID}

// Kafka's RecordBatch.NO_PRODUCER_ID and NO_PRODUCER_EPOCH.
const (
	noProducerID    = -1
	noProducerEpoch = -1
)

func handleInitProducerID(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.InitProducerIDRequest)
	resp := req.ResponseKind().(*kmsg.InitProducerIDResponse)
	resp.ProducerID, resp.ProducerEpoch = noProducerID, noProducerEpoch
	// KafkaApis matches (id, epoch) against exactly (-1, -1) and a pair
	// with exactly one -1; any other pair is "both set", even negative.
	if (req.ProducerID == noProducerID) != (req.ProducerEpoch == noProducerEpoch) {
		resp.ErrorCode = fkerr.InvalidRequest.Code
		return resp, nil
	}
	if req.TransactionalID != nil {
		return initTransactionalProducerID(r, req, resp)
	}
	resp.ProducerID, resp.ProducerEpoch = r.cl.producerIDs.generateProducerID(), 0
	return resp, nil
}

// initTransactionalProducerID answers an InitProducerId that names a
// transactional id: the transaction coordinator's (txn.Coordinator's
// InitProducerID) epoch bump, fencing and producer id rotation. An empty
// id is INVALID_REQUEST; a broker that does not coordinate the id answers
// NOT_COORDINATOR; PRODUCER_FENCED is INVALID_PRODUCER_EPOCH below v4
// (KIP-588).
func initTransactionalProducerID(r *request, req *kmsg.InitProducerIDRequest, resp *kmsg.InitProducerIDResponse) (kmsg.Response, error) {
	id := *req.TransactionalID
	if id != "" && r.notTxnCoordinator(id) {
		resp.ErrorCode = errNotCoordinator
		return resp, nil
	}
	out, err := r.cl.txn.InitProducerID(r.ctx, txn.InitProducerIDRequest{TransactionalID: id, TimeoutMs: req.TransactionTimeoutMillis,
		ExpectedProducerID: req.ProducerID, ExpectedProducerEpoch: req.ProducerEpoch})
	if err == nil {
		err = out.Err
	}
	if err != nil {
		code, _ := txnErrCode(err)
		resp.ErrorCode = fencedForVersion(code, req.Version, 4)
		return resp, nil
	}
	resp.ProducerID, resp.ProducerEpoch = out.ProducerID, out.ProducerEpoch
	return resp, nil
}
