package sharebroker

import (
	"math"
	"slices"

	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/share"
)

// DeleteTopic removes topic name and every share group's state of it, as a
// topic deletion does in Kafka: the brokers drop its partitions (and with
// them the cached share-partitions: SharePartitionManager's partition
// cache), the group coordinator takes it out of each share group's
// ShareGroupStatePartitionMetadata (GroupMetadataManager
// .maybeCleanupShareGroupState) and the share coordinator drops its
// persisted state. So here: the cached share-partitions of the topic leave
// the cache (their lock and DLQ timers cancelled, their counters kept in
// the totals), the persisted state and the known keys of every group on it
// are deleted, and every share session forgets its partitions. A topic
// created later under the same name starts from nothing: its share groups
// start where share.auto.offset.reset says.
//
// A group whose config names the topic as its DLQ topic keeps the config;
// a dead-letter write that completes after the topic is gone fails (the
// records are archived without a copy), as a write to a missing topic does.
//
// An unknown topic is UNKNOWN_TOPIC_OR_PARTITION and changes nothing.
func (b *Broker) DeleteTopic(name string) error {
	if _, ok := b.topics[name]; !ok {
		return kerr.UnknownTopicOrPartition.WithMessage("sharebroker: topic %q does not exist", name)
	}
	var cached []*entry
	b.byTopic.AscendGreaterOrEqual(&entry{key: share.Key{Topic: name, Partition: math.MinInt32}}, func(e *entry) bool {
		if e.key.Topic != name {
			return false
		}
		cached = append(cached, e)
		return true
	})
	for _, e := range cached {
		b.drop(e)
	}
	var keys []share.Key
	b.known.Ascend(func(k share.Key) bool {
		if k.Topic == name {
			keys = append(keys, k)
		}
		return true
	})
	for _, k := range keys {
		b.known.Delete(k)
		_, err := b.persister.Delete(k)
		invariant(err == nil, "a known share-partition key is invalid")
	}
	for _, s := range b.sessions {
		s.partitions = slices.DeleteFunc(s.partitions, func(tp TopicPartition) bool { return tp.Topic == name })
	}
	delete(b.topics, name)
	return nil
}
