package shard

import (
	"slices"

	"github.com/coordsim/coordsim/kerr"
)

// Share-group offsets admin (docs/share-groups.md §2.7): Kafka's
// AlterShareGroupOffsets and DeleteShareGroupOffsets at the group
// coordinator. A share group's "offsets" are its share-partition state (the
// SPSO and the state batches), which lives with the broker side (package
// share) and not in this shard: these operations only check the group and
// the request, and bump the group epoch where Kafka does. The caller acts on
// the share state once the response is released.
//
// Unlike Kafka, which answers per topic and partition, a request with any
// invalid or unknown partition fails whole and changes nothing (as
// CommitOffsets does).

// AlterShareGroupOffsets is the group-coordinator half of
// AlterShareGroupOffsets: an existing group must be a share group
// (GROUP_ID_NOT_FOUND, "Group X is not a share group." for another type) and
// EMPTY (NON_EMPTY_GROUP: no member may be consuming while its start offsets
// move), and every named partition must exist in the metadata image
// (UNKNOWN_TOPIC_OR_PARTITION). A missing group is created, EMPTY at epoch 1,
// as Kafka's trunk does: that is how a consumer-group application migrates
// to a share group (KIP-1302, docs/share-groups.md §4.2), setting the new group's
// start offsets before its first member joins.
//
// It writes one ShareGroupMetadata record with the group epoch + 1 (the
// metadata hash kept) and returns the new group epoch. The caller, the
// broker side, then re-initialises the share state of the named partitions
// at their new start offsets with a new state epoch, which the bump makes
// newer than any state an earlier member generation wrote. Nothing here
// touches that state.
//
// For an existing group Kafka's trunk writes no epoch bump (it records the
// partitions as initialising and uses the current group epoch as the state
// epoch); coordsim bumps the epoch so that the state epoch is new
// (docs/share-groups.md §2.7).
func (s *Shard) AlterShareGroupOffsets(nowMs int64, groupID string, topics []TopicPartitions) (Result[int32], error) {
	var res Result[int32]
	if err := ValidateGroupID(groupID); err != nil {
		return res, err
	}
	if len(topics) == 0 {
		return res, kerr.InvalidRequest.WithMessage("request for share group %s names no topic", groupID)
	}
	g, _, err := s.validateShareOffsetsAdmin(groupID, topics, true)
	if err != nil {
		return res, err
	}
	// The partitions become initialising (addInitializingTopicsRecords)
	// and their initialisation is scheduled, as after a heartbeat
	// (share_init.go): Kafka's persister call sets their start offsets.
	var st *shareStatePartitions
	if g == nil { // created, as Kafka's trunk does
		res.Records = []Record{&ShareGroupMetadata{Group: groupID, Epoch: 1}}
		res.Response = 1
	} else {
		st = g.shareState
		epoch := g.epoch + 1
		res.Records = []Record{&ShareGroupMetadata{Group: g.id, Epoch: epoch, MetadataHash: g.metadataHash}}
		res.Response = epoch
	}
	r, t := s.requestShareInitialization(nowMs, groupID, st, distinctTopicPartitions(topics))
	res.Records = append(res.Records, r)
	res.Timers = append(res.Timers, t)
	return res, nil
}

// distinctTopicPartitions is topics sorted by name, each once, its
// partitions ascending and distinct.
func distinctTopicPartitions(topics []TopicPartitions) []TopicPartitions {
	var out []TopicPartitions
	for _, tp := range topics {
		ps := slices.Clone(tp.Partitions)
		slices.Sort(ps)
		out = combineTopicPartitions(out, []TopicPartitions{{Topic: tp.Topic, Partitions: slices.Compact(ps)}})
	}
	return out
}

// DeleteShareGroupOffsets is the group-coordinator half of
// DeleteShareGroupOffsets, with AlterShareGroupOffsets' checks: an existing
// share group, EMPTY, and partitions that exist. It writes nothing and
// returns the number of distinct partitions named; the caller, the broker
// side, deletes their share state so that the next member starts from
// share.auto.offset.reset. Unlike the alter, it accepts a request naming no
// topic and checks the group alone, as Kafka's
// GroupCoordinatorShard.initiateDeleteShareGroupOffsets looks the group up
// before it reads the topics (a wire request whose every topic is unknown
// still gets GROUP_ID_NOT_FOUND or NON_EMPTY_GROUP first).
//
// Kafka's OffsetDelete refuses topics the group is subscribed to
// (GROUP_SUBSCRIBED_TO_TOPIC); share groups need no such rule, because only
// an EMPTY share group is accepted and an empty share group subscribes to
// nothing. Kafka also answers UNKNOWN_TOPIC_OR_PARTITION for a topic whose
// share state was never initialised; this shard does not track
// initialisation, so that answer is the caller's.
func (s *Shard) DeleteShareGroupOffsets(groupID string, topics []TopicPartitions) (Result[int], error) {
	var res Result[int]
	_, n, err := s.validateShareOffsetsAdmin(groupID, topics, false)
	if err != nil {
		return res, err
	}
	res.Response = n
	return res, nil
}

// shareOffsetsAdminPartitionsMax bounds the partitions one request may name,
// so a runaway admin request fails loudly instead of building a huge set.
const shareOffsetsAdminPartitionsMax = 1 << 16

// validateShareOffsetsAdmin checks a share offsets admin request in Kafka's
// order of severity: a malformed request (INVALID_GROUP_ID, INVALID_REQUEST,
// INVALID_TOPIC_EXCEPTION) first, then the group (GROUP_ID_NOT_FOUND,
// NON_EMPTY_GROUP, Kafka's top-level errors), then the partitions against
// the metadata image (UNKNOWN_TOPIC_OR_PARTITION, Kafka's per-partition
// error). It returns the group (nil when missing and createMissing is set)
// and the number of distinct partitions.
func (s *Shard) validateShareOffsetsAdmin(groupID string, topics []TopicPartitions, createMissing bool) (*group, int, error) {
	if err := ValidateGroupID(groupID); err != nil {
		return nil, 0, err
	}
	named := 0
	for _, t := range topics {
		if err := validateTopicName(t.Topic); err != nil {
			return nil, 0, err
		}
		if len(t.Partitions) == 0 {
			return nil, 0, kerr.InvalidRequest.WithMessage("topic %s names no partition", t.Topic)
		}
		for _, p := range t.Partitions {
			if p < 0 {
				return nil, 0, kerr.UnknownTopicOrPartition.WithMessage("%s-%d: negative partition", t.Topic, p)
			}
		}
		named += len(t.Partitions)
		if named > shareOffsetsAdminPartitionsMax {
			return nil, 0, kerr.InvalidRequest.WithMessage("request names more than %d partitions", shareOffsetsAdminPartitionsMax)
		}
	}
	g := s.lookup(groupID)
	switch {
	case g == nil && !createMissing:
		return nil, 0, kerr.GroupIDNotFound.WithMessage("Group %s not found.", groupID)
	case g == nil: // the caller creates it
	case g.typ != Share:
		return nil, 0, notTypeErr(groupID, Share)
	case len(g.members) > 0:
		// Errors.NON_EMPTY_GROUP's default message, as Kafka 4.4's broker
		// answers it (oracle/brokerdiff).
		return nil, 0, kerr.NonEmptyGroup.WithMessage("The group is not empty.")
	}
	type topicPartition struct {
		topic     string
		partition int32
	}
	seen := make(map[topicPartition]bool, named)
	for _, t := range topics {
		count := s.TopicPartitions(t.Topic)
		if count == 0 {
			return nil, 0, kerr.UnknownTopicOrPartition.WithMessage("topic %s is not in the metadata image", t.Topic)
		}
		for _, p := range t.Partitions {
			if p >= count {
				return nil, 0, kerr.UnknownTopicOrPartition.WithMessage("%s-%d: topic %s has %d partitions", t.Topic, p, t.Topic, count)
			}
			seen[topicPartition{t.Topic, p}] = true
		}
	}
	return g, len(seen), nil
}
