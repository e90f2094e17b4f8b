package wire

import (
	fkerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/sharebroker"
)

// ShareAcknowledge: v1-2 (KIP-932, Kafka 4.x). sharebroker checks and
// advances the session epoch and applies the acknowledgements (all or
// nothing within a partition); the final epoch closes the session. The
// batches are checked first (validateAckBatches: INVALID_REQUEST for the
// partition, nothing applied), where v2's IsRenewAck allows type 4;
// AcquisitionLockTimeoutMs is the group's lock duration.

var apiShareAcknowledge = api{key: 79, min: 1, max: 2, handle: handleShareAcknowledge}

func handleShareAcknowledge(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.ShareAcknowledgeRequest)
	resp := req.ResponseKind().(*kmsg.ShareAcknowledgeResponse)
	key, lockTimeoutMs, code := r.shareSession(req.GroupID, req.MemberID)
	resp.ErrorCode, resp.AcquisitionLockTimeoutMillis = code, lockTimeoutMs // 0 with an error
	if code != 0 {
		return resp, nil
	}
	out := newSharePartitions(r)
	areq := sharebroker.AckRequest{GroupID: key.group, MemberID: key.brokerMember()}
	var in []sharePartitionIn
	for _, rt := range req.Topics {
		for _, rp := range rt.Partitions {
			in = append(in, newSharePartitionIn(rt.TopicID, rp.Partition, rp.AcknowledgementBatches, req.Version, req.IsRenewAck))
		}
	}
	// A partition without acknowledgements is answered NONE without
	// acknowledging, as KafkaApis.handleAcknowledgements does.
	_, areq.Acks = translateShare(r, out, in, func(p sharePartitionIn, _, pcode int16) {
		out.fail(p.topicID, p.partition, ackCodeFor(pcode))
	}, func(p sharePartitionIn) bool {
		out.fail(p.topicID, p.partition, fkerr.InvalidRequest.Code)
		return true
	})
	var results []sharebroker.AckResult
	var err error
	r.cl.share.with(func(b *sharebroker.Broker, nowMs int64) {
		areq.SessionEpoch = r.cl.share.shift(key, req.ShareSessionEpoch)
		results, err = b.ShareAcknowledge(nowMs, areq)
		if err == nil && req.ShareSessionEpoch == sharebroker.FinalEpoch {
			delete(r.cl.share.shifts, key)
		}
	})
	if err != nil {
		resp.ErrorCode, resp.ErrorMessage = errCode(err)
		return resp, nil
	}
	if req.ShareSessionEpoch == sharebroker.FinalEpoch {
		r.conn.closeShareSession(key)
	}
	out.addAcks(results)
	resp.Topics = out.ackTopics()
	resp.NodeEndpoints = shareNodeEndpoints[kmsg.ShareAcknowledgeResponseNodeEndpoint](out)
	return resp, nil
}
