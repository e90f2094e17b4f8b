package sharebroker

import (
	"fmt"
	"sort"

	"github.com/coordsim/coordsim/share"
)

// Keys returns the cached share-partitions, sorted by (group, topic,
// partition).
func (b *Broker) Keys() []share.Key {
	out := make([]share.Key, 0, b.byGroup.Len())
	b.byGroup.Ascend(func(e *entry) bool {
		out = append(out, e.key)
		return true
	})
	return out
}

// Partition returns the cached share-partition of k, for read-only use
// (inspection, invariants): calling its mutating methods bypasses the
// broker's timers and sessions.
func (b *Broker) Partition(k share.Key) (*share.SharePartition, bool) {
	e, ok := b.entries[k]
	if !ok {
		return nil, false
	}
	return e.sp, true
}

// Stats returns the counters summed over every share-partition object this
// broker created, including those evicted or replaced by a leader move.
func (b *Broker) Stats() share.Stats {
	s := b.retired
	b.byGroup.Ascend(func(e *entry) bool {
		addStats(&s, e.sp.Stats())
		return true
	})
	return s
}

// Evictions returns how many share-partitions left the cache other than by
// a leader-move rebuild: the share-group listener (last session of a group
// closed), admin resets, fencing, or a failed rebuild.
func (b *Broker) Evictions() int64 { return b.evictions }

// DLQRecords returns the records in topic's log summed over its partitions
// (its log ends): for a DLQ topic, the dead-letter records written to it.
// An unknown topic has none.
func (b *Broker) DLQRecords(topic string) int64 {
	var n int64
	for _, l := range b.topics[topic] {
		n += l.logEnd
	}
	return n
}

// CheckInvariants checks every cached share-partition (share's own
// CheckInvariants) and what the broker keeps around them: each cached
// share-partition is live, led at its partition's leader epoch and belongs
// to a group with a session; its lock timer exists iff it holds locks, at
// its next lock deadline; its pending DLQ writes cover exactly its
// ARCHIVING records, each with a timer; no other timer exists; the
// sessions and the per-group session counts agree and stay within the
// limit; the indexes agree; logs are contiguous. The simulator calls it
// after every event; it costs O(cached records + sessions + batches).
func (b *Broker) CheckInvariants() error {
	if err := b.checkSessions(); err != nil {
		return err
	}
	if err := b.checkLogs(); err != nil {
		return err
	}
	if b.byGroup.Len() != len(b.entries) || b.byTopic.Len() != len(b.entries) {
		return fmt.Errorf("sharebroker: indexes hold %d/%d entries, map %d", b.byGroup.Len(), b.byTopic.Len(), len(b.entries))
	}
	timers := 0
	var err error
	b.byGroup.Ascend(func(e *entry) bool {
		var n int
		n, err = b.checkEntry(e)
		timers += n
		return err == nil
	})
	if err != nil {
		return err
	}
	if timers != b.timers.Len() {
		return fmt.Errorf("sharebroker: %d timers queued, %d accounted for", b.timers.Len(), timers)
	}
	return nil
}

func (b *Broker) checkSessions() error {
	if len(b.sessions) > b.cfg.MaxShareSessions {
		return fmt.Errorf("sharebroker: %d sessions over the limit %d", len(b.sessions), b.cfg.MaxShareSessions)
	}
	keys := make([]sessionKey, 0, len(b.sessions))
	for k := range b.sessions {
		keys = append(keys, k)
	}
	// Sorted so the first error reported does not depend on map order.
	sort.Slice(keys, func(i, j int) bool {
		return keys[i].group < keys[j].group || keys[i].group == keys[j].group && keys[i].member < keys[j].member
	})
	perGroup := make(map[string]int, len(b.groupSessions)) // lookups only
	for _, k := range keys {
		if s := b.sessions[k]; k.group == "" || k.member == "" || s.nextEpoch < 1 {
			return fmt.Errorf("sharebroker: session %+v expects epoch %d", k, s.nextEpoch)
		}
		perGroup[k.group]++
	}
	for _, k := range keys {
		if n := b.groupSessions[k.group]; n != perGroup[k.group] {
			return fmt.Errorf("sharebroker: group %q counts %d sessions, has %d", k.group, n, perGroup[k.group])
		}
	}
	if len(perGroup) != len(b.groupSessions) {
		return fmt.Errorf("sharebroker: %d groups with sessions, %d counted", len(perGroup), len(b.groupSessions))
	}
	return nil
}

func (b *Broker) checkLogs() error {
	names := make([]string, 0, len(b.topics))
	for name := range b.topics {
		names = append(names, name)
	}
	sort.Strings(names) // the first error found must not depend on map order
	for _, name := range names {
		for p, l := range b.topics[name] {
			if l.logStart < 0 || l.logStart > l.logEnd {
				return fmt.Errorf("sharebroker: %s-%d log bounds [%d, %d)", name, p, l.logStart, l.logEnd)
			}
			next := int64(-1)
			for i, bt := range l.batches {
				if bt.LastOffset < bt.BaseOffset || (next >= 0 && bt.BaseOffset != next) || bt.LastOffset < l.logStart ||
					(i > 0 && bt.MaxTimestampMs < l.batches[i-1].MaxTimestampMs) {
					return fmt.Errorf("sharebroker: %s-%d batch %d %+v out of place", name, p, i, bt)
				}
				next = bt.LastOffset + 1
			}
			if next >= 0 && next != l.logEnd {
				return fmt.Errorf("sharebroker: %s-%d batches end at %d, log at %d", name, p, next, l.logEnd)
			}
			if len(l.batches) == 0 && l.logStart != l.logEnd {
				return fmt.Errorf("sharebroker: %s-%d has no batches in [%d, %d)", name, p, l.logStart, l.logEnd)
			}
		}
	}
	return nil
}

// checkEntry checks one cached share-partition and returns the number of
// timers it owns.
func (b *Broker) checkEntry(e *entry) (int, error) {
	k := e.key
	if b.entries[k] != e || e.sp.Key() != k {
		return 0, fmt.Errorf("sharebroker: entry %+v indexed apart from its key", k)
	}
	if err := e.sp.CheckInvariants(); err != nil {
		return 0, fmt.Errorf("sharebroker: %+v: %w", k, err)
	}
	if err := e.sp.Fenced(); err != nil {
		return 0, fmt.Errorf("sharebroker: fenced %+v still cached: %w", k, err)
	}
	if b.groupSessions[k.Group] == 0 {
		return 0, fmt.Errorf("sharebroker: %+v cached without a session of its group", k)
	}
	if !b.known.Has(k) {
		return 0, fmt.Errorf("sharebroker: %+v cached but not known", k)
	}
	l, err := b.log(TopicPartition{k.Topic, k.Partition})
	if err != nil {
		return 0, fmt.Errorf("sharebroker: %+v cached: %w", k, err)
	}
	if e.sp.LeaderEpoch() != l.leaderEpoch {
		return 0, fmt.Errorf("sharebroker: %+v led at epoch %d, partition at %d", k, e.sp.LeaderEpoch(), l.leaderEpoch)
	}
	timers := 0
	d, locked := e.sp.NextLockDeadline()
	td, timed := b.timers.Deadline(e.timerKey)
	switch {
	case locked != timed:
		return 0, fmt.Errorf("sharebroker: %+v holds locks %v, has a timer %v", k, locked, timed)
	case locked && d != td:
		return 0, fmt.Errorf("sharebroker: %+v next lock at %d, timer at %d", k, d, td)
	case locked:
		timers++
	}
	// Pending writes must cover the ARCHIVING records exactly: each record
	// once, nothing else.
	covered := int64(0)
	for _, p := range e.pending {
		if !b.timers.Has(p.timerKey) {
			return 0, fmt.Errorf("sharebroker: %+v DLQ write %+v has no timer", k, p.write)
		}
		timers++
		for off := p.write.FirstOffset; off <= p.write.LastOffset; off++ {
			if r, ok := e.sp.Record(off); !ok || r.State != share.Archiving {
				return 0, fmt.Errorf("sharebroker: %+v DLQ write %+v covers offset %d in state %v", k, p.write, off, r.State)
			}
		}
		covered += p.write.LastOffset - p.write.FirstOffset + 1
	}
	archiving := int64(0)
	for _, w := range e.sp.PendingDLQ() {
		archiving += w.LastOffset - w.FirstOffset + 1
	}
	if covered != archiving {
		return 0, fmt.Errorf("sharebroker: %+v has %d ARCHIVING records, %d in DLQ writes", k, archiving, covered)
	}
	return timers, nil
}
