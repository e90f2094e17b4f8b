package shard

import (
	"slices"

	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/offsets"
)

// OnPartitionsDeleted is Kafka's GroupCoordinatorShard.onPartitionsDeleted
// (OffsetMetadataManager.onPartitionsDeleted; trunk's onTopicsDeleted does
// the same per whole topic): the partitions of a deleted topic lose every
// group's offsets. It writes one OffsetCommit tombstone per (group, topic,
// partition) that has a committed offset or a pending transactional one;
// replaying it removes both, as a tombstone from OffsetDelete or the expiry
// sweep does. The response is the number of tombstones.
//
// The records come in (group, topic, partition) order, each key once. Kafka
// walks its hash maps and writes a second tombstone for a partition that is
// both committed and pending (one per producer); the state they leave is the
// same. Groups are not removed here: one left without offsets goes at the
// next expire-group-metadata sweep, as in Kafka. Kafka's metadata publisher
// installs the image without the topic first (SetTopicImage here), so no
// commit for the deleted partitions is accepted after these tombstones.
//
// Trunk checks the topic id stored with each offset, so that a topic
// re-created under the same name keeps its new offsets; coordsim's offsets
// carry no topic id, and the caller must not re-create the topic before the
// call returns (wire serialises topic creation and deletion for this).
//
// Bad input (an empty topic name, a topic without partitions, a negative
// partition) is refused with INVALID_TOPIC_EXCEPTION or INVALID_REQUEST and
// changes nothing. A partition or topic no group has offsets for is fine.
func (s *Shard) OnPartitionsDeleted(topics []TopicPartitions) (Result[int], error) {
	var res Result[int]
	deleted, err := DeletedPartitions(topics)
	if err != nil {
		return res, err
	}
	names := make([]string, 0, len(deleted))
	for topic := range deleted {
		names = append(names, topic)
	}
	slices.Sort(names)
	tombstone := func(k offsets.Key) {
		res.Records = append(res.Records, &OffsetCommit{Group: k.Group, Topic: k.Topic, Partition: k.Partition, ProducerID: NoProducerID, Tombstone: true})
	}
	var keys []offsets.Key
	s.groups.Ascend(func(g *group) bool {
		keys = keys[:0]
		for _, topic := range names {
			s.offsets.AscendTopic(g.id, topic, func(k offsets.Key, _ offsets.OffsetAndMetadata) bool {
				if deleted[topic][k.Partition] {
					keys = append(keys, k)
				}
				return true
			})
		}
		if s.offsets.HasOpenTransaction(g.id) {
			for _, k := range s.offsets.PendingKeys(g.id) {
				if deleted[k.Topic][k.Partition] {
					keys = append(keys, k)
				}
			}
			slices.SortFunc(keys, compareKeys)
			keys = slices.Compact(keys) // committed and pending: one tombstone
		}
		for _, k := range keys {
			tombstone(k)
		}
		return true
	})
	res.Response = len(res.Records)
	return res, nil
}

// DeletedPartitions validates the partitions of deleted topics as
// OnPartitionsDeleted takes them and returns them as a set per topic. The
// group coordinator calls it once before writing to any shard, so a bad
// request changes nothing anywhere.
func DeletedPartitions(topics []TopicPartitions) (map[string]map[int32]bool, error) {
	out := make(map[string]map[int32]bool, len(topics)) // lookups only
	for _, t := range topics {
		if t.Topic == "" {
			return nil, kerr.InvalidTopicException.WithMessage("a deleted topic has an empty name")
		}
		if len(t.Partitions) == 0 {
			return nil, kerr.InvalidRequest.WithMessage("deleted topic %s names no partition", t.Topic)
		}
		set := out[t.Topic]
		if set == nil {
			set = make(map[int32]bool, len(t.Partitions))
			out[t.Topic] = set
		}
		for _, p := range t.Partitions {
			if p < 0 {
				return nil, kerr.InvalidRequest.WithMessage("deleted partition %s-%d is negative", t.Topic, p)
			}
			set[p] = true
		}
	}
	return out, nil
}
