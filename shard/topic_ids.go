package shard

import (
	"encoding/base64"
	"hash/fnv"
	"maps"
	"slices"

	"github.com/coordsim/coordsim/kerr"
)

// Topic ids in the topic metadata image. Kafka names a topic by its id in
// assignments and records; coordsim's shard names it by its name, and
// reads the id for one thing: Kafka's uniform assignor visits topics in
// the order of hash tables keyed by topic id and breaks ties by id, so the
// same group gets Kafka's target only when the assignor sees Kafka's ids.
// The wire endpoint and the differential runner give the ids their
// clients and Kafka see; a topic given none gets DefaultTopicID.

// DefaultTopicID is the id of a topic the image gives none: 128 bits of
// FNV-1a over the name, never zero. It is a stand-in, stable across runs,
// so a simulation repeats; a topic re-created under its name keeps it.
func DefaultTopicID(name string) [16]byte {
	h := fnv.New128a()
	_, _ = h.Write([]byte(name))
	var id [16]byte
	h.Sum(id[:0])
	if id == ([16]byte{}) || id == metadataTopicID {
		id[15] ^= 0x80
	}
	return id
}

// metadataTopicID is Kafka's Uuid.METADATA_TOPIC_ID (Uuid(0, 1)),
// reserved, as the zero Uuid is.
var metadataTopicID = [16]byte{15: 1}

// imageTopicIDs validates the ids of an image (a topic of partitions
// each, unique, neither reserved Uuid) and returns a copy, nil for none.
func imageTopicIDs(partitions map[string]int32, in map[string][16]byte) (map[string][16]byte, error) {
	if len(in) == 0 {
		return nil, nil
	}
	out := make(map[string][16]byte, len(in))
	owner := make(map[[16]byte]string, len(in)) // looked up only
	// Sorted, so that of several faults the same one is always named.
	for _, topic := range slices.Sorted(maps.Keys(in)) {
		id := in[topic]
		if _, ok := partitions[topic]; !ok {
			return nil, kerr.InvalidRequest.WithMessage("topic id given for topic %q, which is not in the image", topic)
		}
		if id == ([16]byte{}) || id == metadataTopicID {
			return nil, kerr.InvalidRequest.WithMessage("topic %q has the reserved topic id %s", topic, base64.RawURLEncoding.EncodeToString(id[:]))
		}
		if other, ok := owner[id]; ok {
			return nil, kerr.InvalidRequest.WithMessage("topics %q and %q have the same topic id %s", other, topic, base64.RawURLEncoding.EncodeToString(id[:]))
		}
		owner[id] = topic
		out[topic] = id
	}
	return out, nil
}

// topicID is the id of topic in the installed image.
func (s *Shard) topicID(topic string) [16]byte {
	if id, ok := s.topicIDs[topic]; ok {
		return id
	}
	return DefaultTopicID(topic)
}

// DescribedPartitions is the part of an assignment a group describe
// answers: only topics the metadata image has (exists). Kafka names a
// member's partitions by topic id and describes each through the image
// (ConsumerGroupMember.asConsumerGroupDescribeMember,
// ShareGroupMember.asShareGroupDescribeMember), so a deleted topic's
// partitions, still held until the member's next heartbeat, are left out.
// tps is not modified; it is returned as is when nothing is left out.
func DescribedPartitions(tps []TopicPartitions, exists func(topic string) bool) []TopicPartitions {
	return keepTopics(tps, exists)
}

// keepTopics is tps without the topics keep refuses; tps itself, not a
// copy, when it keeps them all.
func keepTopics(tps []TopicPartitions, keep func(topic string) bool) []TopicPartitions {
	for i, tp := range tps {
		if keep(tp.Topic) {
			continue
		}
		out := slices.Clone(tps[:i])
		for _, rest := range tps[i+1:] {
			if keep(rest.Topic) {
				out = append(out, rest)
			}
		}
		return out
	}
	return tps
}

// DescribedAssignment is the assignment a consumer or share group describe
// answers for m: the partitions it holds and those pending revocation
// (Kafka's accumulateTopicPartitions over both), of topics in the image.
func (m MemberDescription) DescribedAssignment(exists func(topic string) bool) []TopicPartitions {
	return DescribedPartitions(mergeAssignments(m.Assignment, m.PartitionsPendingRevocation), exists)
}
