package wire

import (
	fkerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/offsets"
	"github.com/coordsim/coordsim/shard"
)

// OffsetCommit: v2-10 (Kafka 4.x). Generation is the member epoch for
// consumer and streams groups (-1 with no member for a simple commit);
// RetentionTimeMillis is passed for v2-4. v10 names topics by id: an
// unknown id answers UNKNOWN_TOPIC_ID for its partitions and the others are
// committed. The coordinator answers per partition (UNKNOWN_TOPIC_OR_PARTITION,
// OFFSET_METADATA_TOO_LARGE); its request error, if any, is every
// partition's.

var apiOffsetCommit = api{key: 8, min: 2, max: 10, handle: handleOffsetCommit}

func handleOffsetCommit(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.OffsetCommitRequest)
	resp := req.ResponseKind().(*kmsg.OffsetCommitResponse)
	byID := req.Version >= 10
	creq := shard.OffsetCommitRequest{GroupID: req.Group, MemberID: req.MemberID, GroupInstanceID: derefOr(req.InstanceID),
		MemberEpoch: req.Generation, RetentionTimeMs: -1}
	if req.Version <= 4 {
		creq.RetentionTimeMs = req.RetentionTimeMillis
	}
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
			if req.Version < 6 {
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
		res, err := r.driver().CommitOffsets(r.ctx, creq)
		code, _ = errCode(err)
		codes = partitionCodes(res.Topics)
	}
	for i, rt := range req.Topics {
		st := kmsg.NewOffsetCommitResponseTopic()
		st.Topic, st.TopicID = rt.Topic, rt.TopicID
		name := rt.Topic
		if byID {
			name, _ = r.topicName(rt.TopicID)
		}
		for _, rp := range rt.Partitions {
			sp := kmsg.NewOffsetCommitResponseTopicPartition()
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
