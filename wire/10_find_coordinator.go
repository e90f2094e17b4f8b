package wire

import (
	"fmt"

	fkerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/coordinator"
)

// FindCoordinator: v0-6 (Kafka 4.x); v4+ batches keys. A group key
// (type 0) is routed to its __consumer_offsets partition with Kafka's
// partitionFor and answered with the broker leading that partition now, so
// after a move clients that got NOT_COORDINATOR find the new one. A share
// key (type 2, "group:topicId:partition") is answered by the broker leading
// the share group's partition: here the share coordinator's state lives with
// sharebroker, not on a share-state topic. A transaction key (type 1) is
// routed with the same partitionFor over the __transaction_state
// partitions (transaction.state.log.num.partitions) and answered with the
// broker leading that partition (txn.go). Any other type is INVALID_REQUEST, as Kafka's CoordinatorType.forId refuses it.

var apiFindCoordinator = api{key: 10, min: 0, max: 6, handle: handleFindCoordinator}

func handleFindCoordinator(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.FindCoordinatorRequest)
	resp := req.ResponseKind().(*kmsg.FindCoordinatorResponse)
	keys := req.CoordinatorKeys
	if req.Version < 4 {
		keys = []string{req.CoordinatorKey}
	}
	for _, key := range keys {
		c := kmsg.NewFindCoordinatorResponseCoordinator()
		c.Key = key
		c.NodeID, c.Port = -1, -1
		switch req.CoordinatorType {
		case 0, 2:
			group := key
			if req.CoordinatorType == 2 {
				group = shareKeyGroup(key)
			}
			node, _ := r.cl.CoordinatorFor(coordinator.PartitionFor(group, r.cl.cfg.Coordinator.NumPartitions))
			b := r.cl.brokers[node]
			c.NodeID, c.Host, c.Port = b.node, b.host, b.port
		case 1:
			b := r.cl.brokers[r.cl.txnNode(key)]
			c.NodeID, c.Host, c.Port = b.node, b.host, b.port
		default:
			// FindCoordinatorRequest.CoordinatorType.forId throws
			// InvalidRequestException for any other type.
			c.ErrorCode = fkerr.InvalidRequest.Code
			msg := fmt.Sprintf("Unknown coordinator type received: %d", req.CoordinatorType)
			c.ErrorMessage = &msg
		}
		resp.Coordinators = append(resp.Coordinators, c)
	}
	if req.Version < 4 {
		c := resp.Coordinators[0]
		resp.Coordinators = nil
		resp.ErrorCode, resp.ErrorMessage, resp.NodeID, resp.Host, resp.Port = c.ErrorCode, c.ErrorMessage, c.NodeID, c.Host, c.Port
	}
	return resp, nil
}

// shareKeyGroup returns the group of a share-coordinator key
// "group:topicId:partition" (the group may itself contain ':').
func shareKeyGroup(key string) string {
	n := 0
	for i := len(key) - 1; i >= 0; i-- {
		if key[i] == ':' {
			n++
			if n == 2 {
				return key[:i]
			}
		}
	}
	return key
}
