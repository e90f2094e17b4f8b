package shard

import (
	"maps"
	"slices"

	"github.com/coordsim/coordsim/kerr"
)

// Racks in the topic metadata image. Kafka's coordinator learns a
// partition's racks from its MetadataImage: the partition's replicas and each
// replica broker's rack (SubscribedTopicDescriberImpl.racksForPartition).
// coordsim's image has no brokers, so the caller gives the racks per
// partition directly. They reach the consumer assignors (Kafka's range
// assignor matches members to partitions by rack), and they are part of each
// topic's metadata hash (Kafka's Utils.computeTopicHash hashes every
// partition's sorted racks), so a rack change in the image bumps the epoch
// of every group that reads the topic and reassigns it.

// TopicImage is the topic metadata image a shard reads (Kafka's
// MetadataImage, reduced to what the group coordinator uses).
type TopicImage struct {
	// Partitions maps each topic to its partition count (1 to
	// MaxTopicPartitions); topic names as CreateTopics accepts them.
	Partitions map[string]int32
	// Racks maps a topic of Partitions to one entry per partition: the
	// racks of its replicas (any order; each 1 to RackIDMaxBytes bytes of
	// UTF-8). A topic left out, or whose entries are all empty, has no
	// racks, as on a cluster without broker.rack. A rack list for an
	// unknown topic, or of the wrong length, is INVALID_REQUEST.
	Racks map[string][][]string
	// IDs maps a topic of Partitions to its Kafka topic id (Uuid bytes,
	// most significant long first); a topic left out gets DefaultTopicID.
	// Ids must be unique and neither the zero Uuid nor Kafka's metadata
	// topic id, else INVALID_REQUEST. Only the uniform assignor reads
	// them (topic_ids.go).
	IDs map[string][16]byte
}

// imageRacks validates the racks of an image and returns them normalised
// (each partition's racks sorted, duplicates kept: two replicas on one rack
// count twice in Kafka's hash, and the assignors read the racks as a set)
// with each racked topic's metadata hash.
func imageRacks(partitions map[string]int32, in map[string][][]string) (map[string][][]string, map[string]uint64, error) {
	if len(in) == 0 {
		return nil, nil, nil
	}
	racks := make(map[string][][]string, len(in))
	hashes := make(map[string]uint64, len(in))
	// Sorted, so that of several faults the same one is always named.
	for _, topic := range slices.Sorted(maps.Keys(in)) {
		parts := in[topic]
		n, ok := partitions[topic]
		if !ok {
			return nil, nil, kerr.InvalidRequest.WithMessage("racks given for topic %q, which is not in the image", topic)
		}
		if len(parts) != int(n) {
			return nil, nil, kerr.InvalidRequest.WithMessage("topic %q has %d partitions but racks for %d", topic, n, len(parts))
		}
		sorted := make([][]string, len(parts))
		racked := false
		for p, rs := range parts {
			for _, r := range rs {
				if r == "" {
					return nil, nil, kerr.InvalidRequest.WithMessage("topic %q partition %d has an empty rack", topic, p)
				}
				if err := validateRackID(r); err != nil {
					return nil, nil, err
				}
			}
			sorted[p] = slices.Sorted(slices.Values(rs))
			racked = racked || len(rs) > 0
		}
		if !racked {
			continue
		}
		hashes[topic] = rackedTopicHash(topic, n, sorted)
		racks[topic] = sorted
	}
	if len(racks) == 0 {
		return nil, nil, nil
	}
	return racks, hashes, nil
}

// rackedTopicHash extends topicHash with every partition's sorted racks,
// each prefixed with its length so no separator can collide (as Kafka's
// computeTopicHash writes them).
func rackedTopicHash(topic string, partitions int32, racks [][]string) uint64 {
	h := topicHash(topic, partitions)
	for p, rs := range racks {
		h = fnvInt32(h, int32(p))
		for _, r := range rs {
			h = fnvInt32(h, int32(len(r)))
			for i := 0; i < len(r); i++ {
				h = (h ^ uint64(r[i])) * 1099511628211
			}
		}
	}
	return h
}

func fnvInt32(h uint64, v int32) uint64 {
	for i := 0; i < 4; i++ {
		h = (h ^ uint64(byte(v>>(8*i)))) * 1099511628211
	}
	return h
}

// topicMetadataHash is one topic's part of a group's metadata hash.
func (s *Shard) topicMetadataHash(topic string) uint64 {
	h, ok := s.rackHashes[topic]
	if !ok {
		h = topicHash(topic, s.TopicPartitions(topic))
	}
	if id, ok := s.topicIDs[topic]; ok {
		// Kafka's topic hash mixes the topic id in, so a topic deleted
		// and created again under its name changes the group's hash
		// even with the same partitions (topic-recreated).
		for _, b := range id {
			h = (h ^ uint64(b)) * 1099511628211
		}
	}
	return h
}

// updateRack is Kafka's maybeUpdateRackId: a rack sent replaces the
// member's, and the caller writes the member record. A consumer or share
// group's epoch is not bumped (hasMemberSubscriptionChanged counts only
// subscriptions), so its next assignment reads the new rack; a streams
// group's is (hasStreamsMemberMetadataChanged counts every field). ""
// (Kafka's null) changes nothing.
func updateRack(m *member, h *heartbeat) bool {
	if h.rackID == "" || h.rackID == m.rackID {
		return false
	}
	m.rackID = h.rackID
	return true
}

// TopicImage returns a copy of the topic metadata image: what SetTopicImage
// installed, each partition's racks sorted, topics without racks left out
// of Racks.
func (s *Shard) TopicImage() TopicImage {
	return TopicImage{Partitions: s.topics, Racks: s.racks, IDs: s.topicIDs}.Clone()
}

// Clone returns a deep copy of img, so neither side's later writes reach
// the other.
func (img TopicImage) Clone() TopicImage {
	out := TopicImage{Partitions: maps.Clone(img.Partitions)}
	if out.Partitions == nil {
		out.Partitions = map[string]int32{}
	}
	if len(img.Racks) > 0 {
		out.Racks = make(map[string][][]string, len(img.Racks))
		for t, parts := range img.Racks {
			c := make([][]string, len(parts))
			for i, rs := range parts {
				c[i] = slices.Clone(rs)
			}
			out.Racks[t] = c
		}
	}
	out.IDs = maps.Clone(img.IDs)
	return out
}
