package wire

import (
	fkerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/coordinator/live"
	"github.com/coordsim/coordsim/shard"
)

// TxnOffsetCommit: v0-6 (Kafka 4.x); v6 names topics by id. Unknown topic
// ids, topics and partitions are answered first, as OffsetCommit's
// (commits.go); below v2 COORDINATOR_LOAD_IN_PROGRESS is answered
// COORDINATOR_NOT_AVAILABLE (KafkaApis.handleTxnOffsetCommitRequest, for
// producers before KAFKA-7296). The partitions left are checked against the
// transaction (txnOffsetCommitErr: the producer id and epoch, and the
// group's partition added by AddOffsetsToTxn, or from v5, transaction.version
// 2, added by the commit itself), then written pending for the
// producer id, as Kafka writes them; the transaction's markers commit or
// abort them (txn.go).

var apiTxnOffsetCommit = api{key: 28, min: 0, max: 6, handle: handleTxnOffsetCommit}

func handleTxnOffsetCommit(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.TxnOffsetCommitRequest)
	resp := req.ResponseKind().(*kmsg.TxnOffsetCommitResponse)
	byID := req.Version >= 6
	creq := shard.TxnOffsetCommitRequest{TransactionalID: req.TransactionalID, GroupID: req.Group,
		ProducerID: req.ProducerID, ProducerEpoch: req.ProducerEpoch,
		MemberID: req.MemberID, GroupInstanceID: derefOr(req.InstanceID), MemberEpoch: req.Generation,
		EmptyGroupInstanceID: req.InstanceID != nil && *req.InstanceID == "", TopicIDs: byID}
	in := commitTopicsIn(req.Topics, func(rp kmsg.TxnOffsetCommitRequestTopicPartition) shard.OffsetCommitPartition {
		return commitPartition(rp.Partition, rp.Offset, rp.LeaderEpoch, rp.Metadata, req.Version >= 2)
	})
	plan := r.planCommit(in, byID)
	if creq.Topics = plan.topics; len(creq.Topics) > 0 {
		if err := r.txnOffsetCommitErr(req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.Group, req.Version); err != nil {
			plan.committed(shard.OffsetCommitResponse{}, err)
		} else {
			plan.committed(live.Call(r.ctx, r.driver(), func(c *coordinator.Coordinator) *coordinator.Future[shard.OffsetCommitResponse] {
				return c.CommitTransactionalOffsets(creq)
			}))
		}
	}
	if req.Version < 2 {
		// KafkaApis.handleTxnOffsetCommitRequest: producers before 2.0
		// (KAFKA-7296) could not handle the loading error.
		for _, t := range plan.out {
			for j := range t.rows {
				if t.rows[j].code == fkerr.CoordinatorLoadInProgress.Code {
					t.rows[j].code = fkerr.CoordinatorNotAvailable.Code
				}
			}
		}
	}
	resp.Topics = commitResponseTopics[kmsg.TxnOffsetCommitResponseTopic](plan.out)
	return resp, nil
}
