package coordinator

import (
	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/shard"
	"slices"
)

// OnPartitionsDeleted is Kafka's GroupCoordinatorService.onPartitionsDeleted,
// which the broker's metadata publisher calls for the partitions of deleted
// topics: an "on-partition-deleted" write on every hosted shard
// (scheduleWriteAllOperation), each tombstoning the offsets its groups hold
// on those partitions (shard.Shard.OnPartitionsDeleted). Install the topic
// image without the topics first (SetTopicImage), as Kafka's publisher
// does: that is what takes the partitions out of assignments (the metadata
// hash changes, the group epoch goes up); this only removes offsets.
//
// The future completes when every shard's write has, with one result per
// hosted partition in partition order: the number of tombstones, or the
// shard's error (loading, a failed append). Kafka logs such an error and
// carries on with the other shards; so does this, and the caller may log.
//
// An inactive coordinator answers COORDINATOR_NOT_AVAILABLE (Kafka's
// throwIfNotActive); bad input (shard.DeletedPartitions) is refused before
// any shard is written. Either way nothing changes.
func (c *Coordinator) OnPartitionsDeleted(topics []shard.TopicPartitions) *Future[[]PartitionResult[int]] {
	if !c.active {
		return completed[[]PartitionResult[int]](nil, kerr.CoordinatorNotAvailable.WithMessage("the coordinator is not active"))
	}
	if _, err := shard.DeletedPartitions(topics); err != nil {
		return completed[[]PartitionResult[int]](nil, err)
	}
	ps := c.sortedPartitions()
	out := make([]PartitionResult[int], len(ps))
	f := &Future[[]PartitionResult[int]]{}
	if len(ps) == 0 {
		f.complete(out, nil)
		return f
	}
	finish := countdown(len(ps), func() { f.complete(out, nil) })
	for i, p := range ps {
		out[i].Partition = p
		sub := write(c, "on-partition-deleted", p, func(s *shard.Shard, nowMs int64) (shard.Result[int], error) {
			res, err := s.OnPartitionsDeleted(topics)
			if err != nil {
				return res, err
			}
			// And maybeCleanupShareGroupState, which Kafka writes
			// separately for the same deletion: the share groups' state
			// metadata forgets the deleted topics.
			res.Records = append(res.Records, s.MaybeCleanupShareGroupState(nowMs, topicNames(topics)).Records...)
			return res, nil
		})
		sub.OnDone(func(n int, err error) {
			out[i].Value, out[i].Err = n, err
			if err != nil {
				c.log.Warn("could not delete offsets of deleted partitions", "partition", p, "err", err)
			}
			finish()
		})
	}
	return f
}

// topicNames is the distinct names of a deletion's topics.
func topicNames(topics []shard.TopicPartitions) []string {
	var out []string
	for _, t := range topics {
		if !slices.Contains(out, t.Topic) {
			out = append(out, t.Topic)
		}
	}
	return out
}
