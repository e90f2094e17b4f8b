package wire

import (
	"encoding/base64"
	"strconv"
	"strings"

	fkerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/coordinator"
)

// FindCoordinator: v0-6 (Kafka 4.x); v4+ batches keys. A group key
// (type 0) is routed to its __consumer_offsets partition with Kafka's
// partitionFor and answered with the broker leading that partition now, so
// after a move clients that got NOT_COORDINATOR find the new one. A share
// key (type 2, "group:topicId:partition", v6 only) is checked as Kafka's
// SharePartitionKey.getInstance checks it and answered by the broker
// leading the share group's partition: here the share coordinator's state
// lives with sharebroker, not on a share-state topic. A transaction key
// (type 1) is routed with the same partitionFor over the
// __transaction_state partitions (transaction.state.log.num.partitions)
// and answered with the broker leading that partition (txn.go). Any other
// type refuses the whole request with INVALID_REQUEST, as KafkaApis does
// (CoordinatorType.forId).
//
// The messages are Kafka's, as the real broker answers them
// (oracle/brokerdiff): a v4+ key's ErrorMessage is never set, so it reads
// "" (the field's default) whether the key was found or refused; a v0-3
// answer carries Errors.message() of its code ("NONE" when found); a
// refused request carries INVALID_REQUEST's default message.

var apiFindCoordinator = api{key: 10, min: 0, max: 6, handle: handleFindCoordinator}

// msgInvalidRequest is Kafka's Errors.INVALID_REQUEST default message.
const msgInvalidRequest = "This most likely occurs because of a request being malformed by the client " +
	"library or the message was sent to an incompatible broker. See the broker logs for more details."

// findCoordinatorShareMinVersion is the first FindCoordinator version that
// may name a share key (KafkaApis.getCoordinator refuses one below it).
const findCoordinatorShareMinVersion = 6

func handleFindCoordinator(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.FindCoordinatorRequest)
	resp := req.ResponseKind().(*kmsg.FindCoordinatorResponse)
	keys := req.CoordinatorKeys
	if req.Version < 4 {
		keys = []string{req.CoordinatorKey}
	}
	known := req.CoordinatorType >= 0 && req.CoordinatorType <= 2
	for _, key := range keys {
		c := kmsg.NewFindCoordinatorResponseCoordinator()
		c.Key = key
		c.NodeID, c.Port = -1, -1
		unset := ""
		c.ErrorMessage = &unset
		switch {
		case !known:
			c.ErrorCode = fkerr.InvalidRequest.Code
			msg := msgInvalidRequest
			c.ErrorMessage = &msg
		case req.CoordinatorType == 1:
			b := r.cl.brokers[r.cl.txnNode(key)]
			c.NodeID, c.Host, c.Port = b.node, b.host, b.port
		default:
			group, ok := key, true
			if req.CoordinatorType == 2 {
				group, ok = sharePartitionKeyGroup(key)
				ok = ok && req.Version >= findCoordinatorShareMinVersion
			}
			if !ok {
				c.ErrorCode = fkerr.InvalidRequest.Code
				break
			}
			node, _ := r.cl.CoordinatorFor(coordinator.PartitionFor(group, r.cl.cfg.Coordinator.NumPartitions))
			b := r.cl.brokers[node]
			c.NodeID, c.Host, c.Port = b.node, b.host, b.port
		}
		resp.Coordinators = append(resp.Coordinators, c)
	}
	if req.Version < 4 {
		c := resp.Coordinators[0]
		resp.Coordinators = nil
		msg := "NONE" // Errors.NONE.message()
		if c.ErrorCode != 0 {
			msg = msgInvalidRequest // the only error answered here
		}
		resp.ErrorCode, resp.ErrorMessage, resp.NodeID, resp.Host, resp.Port = c.ErrorCode, &msg, c.NodeID, c.Host, c.Port
	}
	return resp, nil
}

// sharePartitionKeyGroup returns the group of a share-coordinator key
// "group:topicId:partition", and whether Kafka 4.4's
// SharePartitionKey.getInstance takes the key: split on ':' as Java's
// String.split (trailing empty parts dropped), at least three parts, the
// group (every part but the last two, joined, trimmed) not empty, a topic
// id Uuid.fromString reads, and a partition Integer.parseInt reads.
func sharePartitionKeyGroup(key string) (string, bool) {
	parts := strings.Split(key, ":")
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	if len(parts) < 3 {
		return "", false
	}
	n := len(parts)
	group := strings.TrimFunc(strings.Join(parts[:n-2], ":"), func(r rune) bool { return r <= ' ' })
	if group == "" || !uuidString(parts[n-2]) {
		return "", false
	}
	if _, err := strconv.ParseInt(parts[n-1], 10, 32); err != nil {
		return "", false
	}
	return group, true
}

// uuidString reports whether Kafka's Uuid.fromString reads s: at most 24
// characters of URL-safe base64, padded or not, decoding to 16 bytes.
func uuidString(s string) bool {
	if len(s) > 24 {
		return false
	}
	enc := base64.RawURLEncoding
	if strings.HasSuffix(s, "=") {
		enc = base64.URLEncoding
	}
	b, err := enc.DecodeString(s)
	return err == nil && len(b) == 16
}
