package offsets

import "math"

// PendingKeys lists, in (topic, partition) order without duplicates, the
// partitions of group that have a pending transactional offset. DeleteGroups
// uses it to tombstone partitions that have nothing committed yet.
func (s *Store) PendingKeys(group string) []Key {
	first, ok := s.symbols.firstPairOf(group)
	if !ok {
		return nil
	}
	var out []Key
	s.pendingByPartition.AscendGreaterOrEqual(pendingRef{pair: first, partition: math.MinInt32, producerID: math.MinInt64},
		func(r pendingRef) bool {
			if r.pair.group != group {
				return false
			}
			k := Key{Group: group, Topic: r.pair.topic, Partition: r.partition}
			if n := len(out); n == 0 || out[n-1] != k {
				out = append(out, k)
			}
			return true
		})
	return out
}

// Ascend calls fn for every committed offset in (group, topic, partition)
// order until fn returns false.
func (s *Store) Ascend(fn func(k Key, v OffsetAndMetadata) bool) {
	s.committed.Ascend(func(it committedItem) bool { return fn(it.key(), it.value()) })
}
