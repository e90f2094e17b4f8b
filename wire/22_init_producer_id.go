package wire

import (
	fkerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
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
//   - a transactional id goes to initTransactionalProducerID.
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
// transactional id. This is the seam for the transaction coordinator;
// without one the producer is refused with
// TRANSACTIONAL_ID_AUTHORIZATION_FAILED, which every client treats as
// fatal rather than retrying forever.
func initTransactionalProducerID(r *request, req *kmsg.InitProducerIDRequest, resp *kmsg.InitProducerIDResponse) (kmsg.Response, error) {
	resp.ErrorCode = fkerr.TransactionalIDAuthorizationFailed.Code
	r.cl.log.Info("refused a transactional producer", "transactional_id", *req.TransactionalID, "reason", "no transaction coordinator")
	return resp, nil
}
