package sharebroker

import (
	"errors"
	"math"

	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/share"
)

// PartitionOffset is one share-partition's "offset" as the admin API sees
// it (reference §2.7): its start offset (SPSO) and lag (KIP-1226,
// partition end − SPSO − deliveryCompleteCount, never negative). Lag is
// ignored by AlterShareGroupOffsets.
type PartitionOffset struct {
	TopicPartition
	StartOffset int64
	Lag         int64
}

// ListShareGroupOffsets returns the start offset and lag of every
// share-partition of group this broker initialised whose start offset is
// resolved, sorted by (topic, partition): from the live share-partition
// when cached, else from the persisted state (read with the partition's
// current leader epoch). The group coordinator answers NON_EMPTY_GROUP
// checks before calling the admin operations; this one works on any group.
func (b *Broker) ListShareGroupOffsets(group string) []PartitionOffset {
	var out []PartitionOffset
	for _, key := range b.knownKeysOf(group) {
		if po, ok := b.offsetOf(key); ok {
			out = append(out, po)
		}
	}
	return out
}

// offsetOf is key's start offset and lag, from the live share-partition
// when cached, else from the persisted state; ok is false when the start
// offset is unresolved (never initialised, or deleted).
func (b *Broker) offsetOf(key share.Key) (PartitionOffset, bool) {
	tp := TopicPartition{key.Topic, key.Partition}
	l, err := b.log(tp)
	invariant(err == nil, "a known share-partition's topic vanished")
	po := PartitionOffset{TopicPartition: tp}
	if e := b.entries[key]; e != nil {
		po.StartOffset, po.Lag = e.sp.StartOffset(), e.sp.Lag(l.logEnd)
	} else {
		st, err := b.persister.Read(key, l.leaderEpoch)
		if err != nil {
			return po, false // not ours any more (the persister was written around us)
		}
		po.StartOffset = st.StartOffset
		po.Lag = max(0, l.logEnd-st.StartOffset-st.DeliveryCompleteCount)
	}
	return po, po.StartOffset != share.UninitializedStartOffset
}

// AlterShareGroupOffsets resets group's share-partitions to the given start
// offsets (Admin.alterShareGroupOffsets): each key is re-initialised in the
// persister with a state epoch one above the stored one, which fences any
// writer of the old state, and its cached share-partition is evicted (the
// next fetch rebuilds it from the new state; records its members held are
// simply gone). Each offset must lie within [log start, log end]. The group
// coordinator must have checked that the group is EMPTY. Nothing changes
// unless every offset is valid.
func (b *Broker) AlterShareGroupOffsets(group string, offsets []PartitionOffset) error {
	if err := checkID("group", group); err != nil {
		return err
	}
	if err := checkPartitions(len(offsets), func(i int) TopicPartition { return offsets[i].TopicPartition }); err != nil {
		return err
	}
	for _, o := range offsets {
		l, err := b.log(o.TopicPartition)
		if err != nil {
			return err
		}
		if o.StartOffset < l.logStart || o.StartOffset > l.logEnd {
			return kerr.InvalidRequest.WithMessage("sharebroker: start offset %d of %s-%d outside [%d, %d]", o.StartOffset, o.Topic, o.Partition, l.logStart, l.logEnd)
		}
	}
	keys := make([]share.Key, len(offsets))
	for i, o := range offsets {
		keys[i] = share.Key{Group: group, Topic: o.Topic, Partition: o.Partition}
	}
	epochs, err := b.nextStateEpochs(keys)
	if err != nil {
		return err
	}
	for i, key := range keys {
		b.reinitialize(key, epochs[i], offsets[i].StartOffset)
	}
	return nil
}

// DeleteShareGroupState forgets group's share state (deleteShareGroupOffsets
// / deleteShareGroups), so the next start uses share.auto.offset.reset.
// share.Persister has no delete: every key of the group is re-initialised
// with a bumped state epoch (fencing the old state's writers) and
// UninitializedStartOffset, which a new share-partition reads exactly as a
// never-seen key. Cached share-partitions of the group are evicted. The
// group coordinator must have checked that the group is EMPTY.
func (b *Broker) DeleteShareGroupState(group string) error {
	if err := checkID("group", group); err != nil {
		return err
	}
	return b.forget(b.knownKeysOf(group))
}

// HasShareGroupState reports whether the broker ever initialised a
// share-partition of group: Kafka's group coordinator holds a
// ShareGroupStatePartitionMetadata record for it from then on, and
// DeleteShareGroupOffsets of a group without one answers no topic at all
// (GroupMetadataManager.sharePartitionsEligibleForOffsetDeletion).
func (b *Broker) HasShareGroupState(group string) bool {
	return len(b.knownKeysOf(group)) > 0
}

// DeleteShareGroupOffsets forgets group's share state of each named topic
// (Admin.deleteShareGroupOffsets, the persister's deleteState that Kafka's
// GroupCoordinatorService.deleteShareGroupOffsets calls), as
// DeleteShareGroupState does for a whole group: the next start of a
// member on those partitions uses share.auto.offset.reset. It answers, per
// topic in request order, whether the group had state there to delete: a
// topic none of whose share-partitions has a resolved start offset is
// Kafka's "There is no offset information to delete." (the group
// coordinator's sharePartitionsEligibleForOffsetDeletion refuses a topic
// the group has not initialised). A topic named twice is deleted once and
// answered false the second time. Every topic must exist
// (UNKNOWN_TOPIC_OR_PARTITION otherwise; nothing changes). The group
// coordinator must have checked that the group is EMPTY.
func (b *Broker) DeleteShareGroupOffsets(group string, topics []string) ([]bool, error) {
	if err := checkID("group", group); err != nil {
		return nil, err
	}
	if len(topics) > MaxTopics {
		return nil, kerr.InvalidRequest.WithMessage("sharebroker: %d topics in one request, at most %d", len(topics), MaxTopics)
	}
	for _, t := range topics {
		if _, ok := b.topics[t]; !ok {
			return nil, kerr.UnknownTopicOrPartition.WithMessage("sharebroker: topic %q does not exist", t)
		}
	}
	deleted := make([]bool, len(topics))
	first := make(map[string]int, len(topics))
	for i, t := range topics {
		if _, dup := first[t]; !dup {
			first[t] = i
		}
	}
	var keys []share.Key
	for _, key := range b.knownKeysOf(group) {
		i, named := first[key.Topic]
		if !named {
			continue
		}
		if _, ok := b.offsetOf(key); ok {
			keys = append(keys, key)
			deleted[i] = true
		}
	}
	if err := b.forget(keys); err != nil {
		return nil, err
	}
	return deleted, nil
}

// forget re-initialises every key at a bumped state epoch with an
// unresolved start offset, evicting its cached share-partition: the share
// state is gone, and a writer of the old state is fenced.
func (b *Broker) forget(keys []share.Key) error {
	epochs, err := b.nextStateEpochs(keys)
	if err != nil {
		return err
	}
	for i, key := range keys {
		b.reinitialize(key, epochs[i], share.UninitializedStartOffset)
	}
	return nil
}

// knownKeysOf returns the keys of group the broker initialised, sorted.
func (b *Broker) knownKeysOf(group string) []share.Key {
	var out []share.Key
	b.known.AscendGreaterOrEqual(share.Key{Group: group, Partition: -1}, func(k share.Key) bool {
		if k.Group != group {
			return false
		}
		out = append(out, k)
		return true
	})
	return out
}

// nextStateEpochs returns, per key, the state epoch that fences the stored
// state: one above it, or 0 for a key the persister never saw. It changes
// nothing but the persister's recorded leader epoch (a Read with the
// partition's current one, which every live share-partition already has).
func (b *Broker) nextStateEpochs(keys []share.Key) ([]int32, error) {
	epochs := make([]int32, len(keys))
	for i, key := range keys {
		l, err := b.log(TopicPartition{key.Topic, key.Partition})
		invariant(err == nil, "state of a share-partition without its topic")
		st, err := b.persister.Read(key, l.leaderEpoch)
		switch {
		case err == nil && st.StateEpoch == math.MaxInt32:
			return nil, kerr.InvalidRequest.WithMessage("sharebroker: state epoch of %+v exhausted", key)
		case err == nil:
			epochs[i] = st.StateEpoch + 1
		case errors.Is(err, kerr.InvalidRequest) && !b.known.Has(key):
			epochs[i] = 0 // never initialised
		default:
			return nil, err
		}
	}
	return epochs, nil
}

// reinitialize writes the new state of key and evicts its cached
// share-partition, whose writes the new state epoch now fences anyway.
func (b *Broker) reinitialize(key share.Key, stateEpoch int32, startOffset int64) {
	err := b.persister.Initialize(key, stateEpoch, startOffset)
	invariant(err == nil, "Initialize refused a validated state epoch")
	b.known.ReplaceOrInsert(key)
	if e := b.entries[key]; e != nil {
		b.evict(e)
	}
}
