package wire

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/shard"
)

// OffsetCommit: v2-10 (Kafka 4.x). Generation is the member epoch for
// consumer and streams groups (-1 with no member for a simple commit);
// RetentionTimeMillis is passed for v2-4. The version reaches the
// coordinator, whose answers differ below v9 (ILLEGAL_GENERATION for a
// group that does not exist, UNSUPPORTED_VERSION for a KIP-848 or streams
// member). The group id "" is a group like any other. v10 names topics by
// id. KafkaApis' pass (commits.go) answers an unknown topic id
// UNKNOWN_TOPIC_ID and an unknown topic or partition
// UNKNOWN_TOPIC_OR_PARTITION, first in the response; the coordinator
// answers the other partitions (OFFSET_METADATA_TOO_LARGE per partition),
// and its request error, if any, is each of those partitions'.

var apiOffsetCommit = api{key: 8, min: 2, max: 10, handle: handleOffsetCommit}

func handleOffsetCommit(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.OffsetCommitRequest)
	resp := req.ResponseKind().(*kmsg.OffsetCommitResponse)
	byID := req.Version >= 10
	creq := shard.OffsetCommitRequest{GroupID: req.Group, MemberID: req.MemberID, GroupInstanceID: derefOr(req.InstanceID),
		MemberEpoch: req.Generation, RetentionTimeMs: -1, APIVersion: req.Version}
	if req.Version <= 4 {
		creq.RetentionTimeMs = req.RetentionTimeMillis
	}
	in := commitTopicsIn(req.Topics, func(rp kmsg.OffsetCommitRequestTopicPartition) shard.OffsetCommitPartition {
		return commitPartition(rp.Partition, rp.Offset, rp.LeaderEpoch, rp.Metadata, req.Version >= 6)
	})
	plan := r.planCommit(in, byID)
	if creq.Topics = plan.topics; len(creq.Topics) > 0 {
		plan.committed(r.driver().CommitOffsets(r.ctx, creq))
	}
	resp.Topics = commitResponseTopics[kmsg.OffsetCommitResponseTopic](plan.out)
	return resp, nil
}
