package wire

import (
	fkerr "github.com/twmb/franz-go/pkg/kerr"

	"github.com/coordsim/coordsim/offsets"
	"github.com/coordsim/coordsim/shard"
)

// What OffsetCommit (08) and TxnOffsetCommit (28) share: topics named by
// name or by id (v10 and v6 on), per-partition answers, and the unknown-id
// rule of KafkaApis (an unknown topic id answers UNKNOWN_TOPIC_ID for its
// partitions; the other topics are committed).

// commitTopicIn is one requested topic, in the shape both requests share.
type commitTopicIn struct {
	name       string
	id         [16]byte
	partitions []shard.OffsetCommitPartition
}

// commitPartition is one requested partition; withLeaderEpoch is false for
// the versions before the field existed.
func commitPartition(partition int32, offset int64, leaderEpoch int32, metadata *string, withLeaderEpoch bool) shard.OffsetCommitPartition {
	cp := shard.OffsetCommitPartition{Partition: partition, Offset: offset, LeaderEpoch: leaderEpoch, Metadata: derefOr(metadata)}
	if !withLeaderEpoch {
		cp.LeaderEpoch = offsets.NoLeaderEpoch
	}
	return cp
}

// commitPlan is a commit request resolved: the coordinator's topics, and
// each requested topic's name and whether its id is unknown.
type commitPlan struct {
	topics    []shard.OffsetCommitTopic
	names     []string
	unknownID []bool
	// code is the request's own error, every committed partition's;
	// codes the coordinator's per-partition answers.
	code  int16
	codes map[topicPartition]int16
}

// planCommit resolves the requested topics, by id when byID.
func (r *request) planCommit(in []commitTopicIn, byID bool) *commitPlan {
	p := &commitPlan{names: make([]string, len(in)), unknownID: make([]bool, len(in))}
	for i, t := range in {
		name, known := t.name, true
		if byID {
			name, known = r.topicName(t.id)
		}
		p.names[i], p.unknownID[i] = name, !known
		if known {
			p.topics = append(p.topics, shard.OffsetCommitTopic{Topic: name, Partitions: t.partitions})
		}
	}
	return p
}

// committed records the coordinator's answer.
func (p *commitPlan) committed(res shard.OffsetCommitResponse, err error) {
	p.code, _ = errCode(err)
	p.codes = partitionCodes(res.Topics)
}

// answer is the error code of partition of requested topic i.
func (p *commitPlan) answer(i int, partition int32) int16 {
	if p.unknownID[i] {
		return fkerr.UnknownTopicID.Code
	}
	if c, ok := p.codes[topicPartition{p.names[i], partition}]; ok && p.code == 0 {
		return c
	}
	return p.code
}
