package wire

import (
	"fmt"

	fkerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// InitProducerId: v0-5 (Kafka 4.x). An idempotent producer (no
// transactional id) gets a new producer id at epoch 0; a bump request
// (v3+, an id and epoch given) gets the same id at the next epoch, as
// Kafka's ProducerIdManager and TransactionCoordinator answer an idempotent
// producer. Transactional ids are refused: no transaction coordinator.

var apiInitProducerID = api{key: 22, min: 0, max: 5, handle: handleInitProducerID}

func handleInitProducerID(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.InitProducerIDRequest)
	resp := req.ResponseKind().(*kmsg.InitProducerIDResponse)
	resp.ProducerID, resp.ProducerEpoch = -1, -1
	switch {
	case req.TransactionalID != nil:
		resp.ErrorCode = fkerr.TransactionalIDAuthorizationFailed.Code
		r.cl.log.Info("refused a transactional producer", "transactional_id", *req.TransactionalID, "reason", "no transaction coordinator")
	case req.ProducerID >= 0 && req.ProducerEpoch >= 0:
		if req.ProducerEpoch == 32767 {
			resp.ProducerID, resp.ProducerEpoch = r.cl.nextProducerID.Add(1), 0
			break
		}
		resp.ProducerID, resp.ProducerEpoch = req.ProducerID, req.ProducerEpoch+1
	case req.ProducerID >= 0 || req.ProducerEpoch >= 0:
		return nil, frameErrorf("%s", fmt.Sprintf("InitProducerId with producer id %d and epoch %d: both or neither must be set", req.ProducerID, req.ProducerEpoch))
	default:
		resp.ProducerID, resp.ProducerEpoch = r.cl.nextProducerID.Add(1), 0
	}
	return resp, nil
}
