package wire

import (
	fkerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/coordinator/live"
	"github.com/coordsim/coordsim/offsets"
	"github.com/coordsim/coordsim/shard"
)

// TxnOffsetCommit: v0-6 (Kafka 4.x); v6 names topics by id. The offsets are
// written pending for the producer id, as Kafka writes them; with no
// transaction coordinator here nothing ever writes their marker, so they
// stay pending (and block RequireStable fetches) until the group's
// retention removes them. InitProducerId refuses transactional ids, so only
// a hand-built client reaches this.

var apiTxnOffsetCommit = api{key: 28, min: 0, max: 6, handle: handleTxnOffsetCommit}

func handleTxnOffsetCommit(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.TxnOffsetCommitRequest)
	resp := req.ResponseKind().(*kmsg.TxnOffsetCommitResponse)
	byID := req.Version >= 6
	creq := shard.TxnOffsetCommitRequest{TransactionalID: req.TransactionalID, GroupID: req.Group,
		ProducerID: req.ProducerID, ProducerEpoch: req.ProducerEpoch,
		MemberID: req.MemberID, GroupInstanceID: derefOr(req.InstanceID), MemberEpoch: req.Generation}
	unknown := make([]bool, len(req.Topics))
	for i, rt := range req.Topics {
		name := rt.Topic
		if byID {
			n, ok := r.topicName(rt.TopicID)
			if !ok {
				unknown[i] = true
				continue
			}
			name = n
		}
		ct := shard.OffsetCommitTopic{Topic: name}
		for _, rp := range rt.Partitions {
			cp := shard.OffsetCommitPartition{Partition: rp.Partition, Offset: rp.Offset, LeaderEpoch: rp.LeaderEpoch}
			if req.Version < 2 {
				cp.LeaderEpoch = offsets.NoLeaderEpoch
			}
			if rp.Metadata != nil {
				cp.Metadata = *rp.Metadata
			}
			ct.Partitions = append(ct.Partitions, cp)
		}
		creq.Topics = append(creq.Topics, ct)
	}
	var code int16
	var codes map[topicPartition]int16
	if len(creq.Topics) > 0 {
		res, err := live.Call(r.ctx, r.driver(), func(c *coordinator.Coordinator) *coordinator.Future[shard.OffsetCommitResponse] {
			return c.CommitTransactionalOffsets(creq)
		})
		code, _ = errCode(err)
		codes = partitionCodes(res.Topics)
	}
	for i, rt := range req.Topics {
		st := kmsg.NewTxnOffsetCommitResponseTopic()
		st.Topic, st.TopicID = rt.Topic, rt.TopicID
		name := rt.Topic
		if byID {
			name, _ = r.topicName(rt.TopicID)
		}
		for _, rp := range rt.Partitions {
			sp := kmsg.NewTxnOffsetCommitResponseTopicPartition()
			sp.Partition, sp.ErrorCode = rp.Partition, code
			if unknown[i] {
				sp.ErrorCode = fkerr.UnknownTopicID.Code
			} else if c, ok := codes[topicPartition{name, rp.Partition}]; ok && code == 0 {
				sp.ErrorCode = c
			}
			st.Partitions = append(st.Partitions, sp)
		}
		resp.Topics = append(resp.Topics, st)
	}
	return resp, nil
}
