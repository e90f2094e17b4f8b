package wire

import (
	fkerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/offsets"
	"github.com/coordsim/coordsim/shard"
)

// What OffsetCommit (08), TxnOffsetCommit (28) and OffsetDelete (47) share:
// KafkaApis' own pass over the requested topics before the group
// coordinator sees them (handleOffsetCommitRequest,
// handleTxnOffsetCommitRequest, handleOffsetDeleteRequest). An unknown topic
// id (v10 and v6 on) answers UNKNOWN_TOPIC_ID for its partitions, an unknown
// topic or a partition beyond its count UNKNOWN_TOPIC_OR_PARTITION; these
// rows go into the response builder first, and only the other partitions
// reach the coordinator, whose answer is merged after them
// (OffsetCommitResponse.Builder.merge and its twins). So the rows answered
// here lead the response, keep their code when the coordinator fails the
// request as a whole (GroupCoordinatorService answers getErrorResponse of
// the filtered request), and a request with no partition left never reaches
// the coordinator: even a group id it would refuse answers only these rows.

// commitTopicIn is one requested topic, in the shape the requests share.
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

// wireCommitRequestTopic is a topic of an OffsetCommit or TxnOffsetCommit
// request, P its partition type (kmsg has one named type for each).
type wireCommitRequestTopic[P any] = struct {
	Topic       string
	TopicID     [16]byte
	Partitions  []P
	UnknownTags kmsg.Tags
}

// commitTopicsIn is an OffsetCommit's or TxnOffsetCommit's requested topics
// in the shape the requests share; partition is one requested partition
// (commitPartition, with the leader epoch when the version has it).
func commitTopicsIn[T ~wireCommitRequestTopic[P], P any](topics []T, partition func(P) shard.OffsetCommitPartition) []commitTopicIn {
	in := make([]commitTopicIn, len(topics))
	for i, t := range topics {
		rt := wireCommitRequestTopic[P](t)
		in[i] = commitTopicIn{name: rt.Topic, id: rt.TopicID}
		for _, rp := range rt.Partitions {
			in[i].partitions = append(in[i].partitions, partition(rp))
		}
	}
	return in
}

// rowsTopic is one topic of a per-partition response as the builder holds
// it: the request's name and id, and its rows in response order.
type rowsTopic struct {
	name string
	id   [16]byte
	rows []partitionRow
}

type partitionRow struct {
	partition int32
	code      int16
}

// wirePartitionCode is a partition row, its error code alone, of an
// OffsetCommit, TxnOffsetCommit or AddPartitionsToTxn response (kmsg has one
// named type for each, and two for AddPartitionsToTxn: v3's and v4's).
type wirePartitionCode = struct {
	Partition   int32
	ErrorCode   int16
	UnknownTags kmsg.Tags
}

// responsePartitions is a topic's rows as a response's partitions, in
// response order.
func responsePartitions[P ~wirePartitionCode](t rowsTopic) []P {
	out := make([]P, 0, len(t.rows))
	for _, row := range t.rows {
		out = append(out, P(wirePartitionCode{Partition: row.partition, ErrorCode: row.code}))
	}
	return out
}

// wireCommitTopic is a topic of an OffsetCommit or TxnOffsetCommit
// response, P its partition type (kmsg has one named type for each).
type wireCommitTopic[P ~wirePartitionCode] = struct {
	Topic       string
	TopicID     [16]byte
	Partitions  []P
	UnknownTags kmsg.Tags
}

// commitResponseTopics is a commit's answered topics (commitPlan.out) as
// its response's, each named by name and id (the version decides which
// reaches the wire), in response order.
func commitResponseTopics[T ~wireCommitTopic[P], P ~wirePartitionCode](topics []rowsTopic) []T {
	out := make([]T, 0, len(topics))
	for _, t := range topics {
		out = append(out, T(wireCommitTopic[P]{Topic: t.name, TopicID: t.id, Partitions: responsePartitions[P](t)}))
	}
	return out
}

// commitPlan is a request resolved: the partitions that go to the
// coordinator, and the response builder with the rows answered here.
type commitPlan struct {
	byID bool
	// topics are the coordinator's topics, by name; sent[i] is the
	// request topic topics[i] came from.
	topics []shard.OffsetCommitTopic
	sent   []commitTopicIn
	out    []rowsTopic
}

// planCommit resolves the requested topics, by id when byID.
func (r *request) planCommit(in []commitTopicIn, byID bool) *commitPlan {
	p := &commitPlan{byID: byID}
	for _, t := range in {
		name, known := t.name, true
		if byID {
			name, known = r.topicName(t.id)
		}
		if !known {
			p.addRows(t, t.partitions, fkerr.UnknownTopicID.Code)
			continue
		}
		info, exists := r.cl.data.lookup(name)
		if !exists {
			p.addRows(t, t.partitions, fkerr.UnknownTopicOrPartition.Code)
			continue
		}
		keep := shard.OffsetCommitTopic{Topic: name}
		for _, cp := range t.partitions {
			if cp.Partition < 0 || cp.Partition >= info.partitions {
				p.addRows(t, []shard.OffsetCommitPartition{cp}, fkerr.UnknownTopicOrPartition.Code)
				continue
			}
			keep.Partitions = append(keep.Partitions, cp)
		}
		if len(keep.Partitions) > 0 {
			p.topics = append(p.topics, keep)
			p.sent = append(p.sent, t)
		}
	}
	return p
}

// addRows is the builder's addPartitions: the topic is created when absent,
// even for no partition.
func (p *commitPlan) addRows(t commitTopicIn, parts []shard.OffsetCommitPartition, code int16) {
	rt := p.topic(t)
	for _, cp := range parts {
		rt.rows = append(rt.rows, partitionRow{cp.Partition, code})
	}
}

// topic is the builder's getOrCreateTopic, keyed by id when byID, else by
// name.
func (p *commitPlan) topic(t commitTopicIn) *rowsTopic {
	for i := range p.out {
		if p.byID && p.out[i].id == t.id || !p.byID && p.out[i].name == t.name {
			return &p.out[i]
		}
	}
	p.out = append(p.out, rowsTopic{name: t.name, id: t.id})
	return &p.out[len(p.out)-1]
}

// committed merges the coordinator's answer: err fails every partition
// sent; otherwise each gets its own code.
func (p *commitPlan) committed(res shard.OffsetCommitResponse, err error) {
	code, _ := errCode(err)
	codes := partitionCodes(res.Topics)
	// Builder.merge: with nothing answered here the coordinator's topics
	// are taken as they are (a topic named twice stays twice); otherwise
	// each joins the topic of the same key.
	merge := len(p.out) > 0
	for i, t := range p.topics {
		var rt *rowsTopic
		if merge {
			rt = p.topic(p.sent[i])
		} else {
			p.out = append(p.out, rowsTopic{name: p.sent[i].name, id: p.sent[i].id})
			rt = &p.out[len(p.out)-1]
		}
		for _, cp := range t.Partitions {
			c := code
			if c == 0 {
				c = codes[topicPartition{t.Topic, cp.Partition}]
			}
			rt.rows = append(rt.rows, partitionRow{cp.Partition, c})
		}
	}
}
