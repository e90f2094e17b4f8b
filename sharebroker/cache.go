package sharebroker

import (
	"fmt"
	"math"
	"strconv"

	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/share"
)

// entry is one cached share-partition: Kafka's partitionCache value.
type entry struct {
	key      share.Key
	timerKey string // the lock timer's key; DLQ timers append to it
	sp       *share.SharePartition
	// dlqTopic and maxRecords are fixed when the object is built, like the
	// rest of its config.
	dlqTopic   string
	maxRecords int32
	pending    []pendingDLQ // DLQ writes in flight, in issue order
	pollGen    uint64       // last Poll that touched it
}

// pendingDLQ is one DLQ write waiting for its virtual completion time.
type pendingDLQ struct {
	timerKey string
	write    share.DLQWrite
}

// timerPayload is what a timer fires: a lock expiry of e, or the
// completion of e's DLQ write w (dlq true).
type timerPayload struct {
	e   *entry
	dlq bool
	w   share.DLQWrite
}

// timerKeyOf is the string form of a share.Key the timer queue indexes by;
// quoting keeps two different keys from ever printing the same.
func timerKeyOf(k share.Key) string {
	return fmt.Sprintf("%q/%q/%d", k.Group, k.Topic, k.Partition)
}

func dlqTimerKey(e *entry, first int64) string {
	return e.timerKey + "#dlq@" + strconv.FormatInt(first, 10)
}

// entriesOfGroup returns the cached share-partitions of group, sorted.
func (b *Broker) entriesOfGroup(group string) []*entry {
	var out []*entry
	b.byGroup.AscendGreaterOrEqual(&entry{key: share.Key{Group: group, Partition: -1}}, func(e *entry) bool {
		if e.key.Group != group {
			return false
		}
		out = append(out, e)
		return true
	})
	return out
}

// entriesOfTopicPartition returns the cached share-partitions of tp, sorted
// by group.
func (b *Broker) entriesOfTopicPartition(tp TopicPartition) []*entry {
	var out []*entry
	b.byTopic.AscendGreaterOrEqual(&entry{key: share.Key{Topic: tp.Topic, Partition: tp.Partition}}, func(e *entry) bool {
		if e.key.Topic != tp.Topic || e.key.Partition != tp.Partition {
			return false
		}
		out = append(out, e)
		return true
	})
	return out
}

// build creates the share-partition of key as a new leader does: share.New
// initialises the persisted state when new, reads it (fencing older
// leaders) and recovers it; pending DLQ writes found ARCHIVING are issued.
// The entry is cached and the key remembered.
func (b *Broker) build(nowMs int64, key share.Key, l *partitionLog) (*entry, error) {
	if len(b.entries) >= MaxCachedSharePartitions {
		return nil, kerr.InvalidRequest.WithMessage("sharebroker: %d share-partitions cached", MaxCachedSharePartitions)
	}
	gc := b.groupConfigs[key.Group]
	sp, err := share.New(key, b.shareConfig(gc), l.leaderEpoch, b.persister)
	if err != nil {
		return nil, err
	}
	b.known.ReplaceOrInsert(key)
	maxRecords := b.cfg.Defaults.BatchSize
	e := &entry{key: key, timerKey: timerKeyOf(key), sp: sp, dlqTopic: gc.DLQTopic, maxRecords: maxRecords}
	b.entries[key] = e
	b.byGroup.ReplaceOrInsert(e)
	b.byTopic.ReplaceOrInsert(e)
	b.afterOp(nowMs, e, sp.PendingDLQ())
	return e, nil
}

// drop removes e from the cache: its timers are cancelled (pending DLQ
// writes are re-issued by the next object, from the persisted ARCHIVING
// records) and its counters are kept in the broker's totals.
func (b *Broker) drop(e *entry) {
	b.timers.Cancel(e.timerKey)
	for _, p := range e.pending {
		b.timers.Cancel(p.timerKey)
	}
	e.pending = nil
	addStats(&b.retired, e.sp.Stats())
	delete(b.entries, e.key)
	b.byGroup.Delete(e)
	b.byTopic.Delete(e)
}

// evict drops e and counts it: the group listener, an admin reset, or
// fencing took it out of the cache; the next fetch rebuilds it.
func (b *Broker) evict(e *entry) {
	b.drop(e)
	b.evictions++
}

// afterOp is what follows every operation on a share-partition: a fenced
// one leaves the cache; otherwise the DLQ writes it asked for are scheduled
// at nowMs + DLQWriteDelayMs and its lock timer is moved to its next lock
// deadline (or cancelled). It reports whether e is still cached.
func (b *Broker) afterOp(nowMs int64, e *entry, dlq []share.DLQWrite) bool {
	if e.sp.Fenced() != nil {
		b.evict(e)
		return false
	}
	for _, w := range dlq {
		k := dlqTimerKey(e, w.FirstOffset)
		invariant(!b.timers.Has(k), "a DLQ write issued twice")
		b.timers.Schedule(k, nowMs+b.cfg.DLQWriteDelayMs, timerPayload{e: e, dlq: true, w: w})
		e.pending = append(e.pending, pendingDLQ{timerKey: k, write: w})
	}
	if d, ok := e.sp.NextLockDeadline(); ok {
		if cur, has := b.timers.Deadline(e.timerKey); !has || cur != d {
			b.timers.Schedule(e.timerKey, d, timerPayload{e: e})
		}
	} else {
		b.timers.Cancel(e.timerKey)
	}
	return true
}

// NextDeadline returns the earliest lock expiry or DLQ completion, for the
// driver's clock; false when nothing is pending.
func (b *Broker) NextDeadline() (int64, bool) { return b.timers.NextDeadline() }

// maxPollTimers bounds one Poll's loop. Every fired timer either ends or
// moves its lock timer past nowMs, and DLQ completions start no timer, so
// the loop ends by itself; the bound turns a bug into a panic instead of a
// hang.
const maxPollTimers = 1 << 26

// Poll fires every timer due at nowMs in (deadline, scheduling) order:
// lock expiries (share's ExpireLocks; persist failures are only counted,
// the expiry stands) and DLQ write completions (the DLQ fault hook decides
// success; on success the records are appended to the DLQ topic partition
// sourcePartition % partitions; either way they become ARCHIVED). It
// returns how many share-partitions it touched. nowMs must not go back.
func (b *Broker) Poll(nowMs int64) (int, error) {
	if err := b.checkNow(nowMs); err != nil {
		return 0, err
	}
	b.lastNowMs = nowMs
	b.pollGen++
	touched := 0
	for i := 0; ; i++ {
		invariant(i < maxPollTimers, "Poll does not converge")
		_, p, ok := b.timers.PopDue(nowMs)
		if !ok {
			break
		}
		e := p.e
		invariant(b.entries[e.key] == e, "a timer fired for a share-partition not cached")
		if e.pollGen != b.pollGen {
			e.pollGen = b.pollGen
			touched++
		}
		if p.dlq {
			b.completeDLQ(nowMs, e, p.w)
			continue
		}
		res, err := e.sp.ExpireLocks(nowMs)
		invariant(err == nil, "ExpireLocks failed on a live share-partition")
		b.afterOp(nowMs, e, res.DLQ)
	}
	return touched, nil
}

func (b *Broker) completeDLQ(nowMs int64, e *entry, w share.DLQWrite) {
	k := dlqTimerKey(e, w.FirstOffset)
	for i, p := range e.pending {
		if p.timerKey == k {
			e.pending = append(e.pending[:i], e.pending[i+1:]...)
			break
		}
	}
	ok := b.dlqFault == nil || !b.dlqFault(e.key, w)
	// A DLQ topic deleted since the write was issued (DeleteTopic) fails it.
	logs := b.topics[e.dlqTopic]
	ok = ok && len(logs) > 0
	if ok && !b.cfg.Mutants.DropDLQWrites {
		l := logs[share.DLQPartition(e.key.Partition, int32(len(logs)))]
		l.append(nowMs, w.LastOffset-w.FirstOffset+1)
	}
	res, err := e.sp.CompleteDLQWrite(w.FirstOffset, w.LastOffset, ok)
	invariant(err == nil, fmt.Sprintf("CompleteDLQWrite [%d, %d]: %v", w.FirstOffset, w.LastOffset, err))
	b.afterOp(nowMs, e, res.DLQ)
}

// MoveLeader moves tp's leadership: its leader epoch goes up by one and
// every cached share-partition of tp is rebuilt by the new leader with
// share.New at the new epoch (current group config), which reads the
// persister and so fences the old objects' writes. Acquired records come
// back AVAILABLE with their persisted counts; the old leader's pending DLQ
// writes are dropped and the new leader re-issues them from the ARCHIVING
// records it recovers. A share-partition that cannot be rebuilt is evicted.
func (b *Broker) MoveLeader(nowMs int64, tp TopicPartition) error {
	if err := b.checkNow(nowMs); err != nil {
		return err
	}
	l, err := b.log(tp)
	if err != nil {
		return err
	}
	if l.leaderEpoch == math.MaxInt32 {
		return kerr.InvalidRequest.WithMessage("sharebroker: leader epoch of %s-%d exhausted", tp.Topic, tp.Partition)
	}
	b.lastNowMs = nowMs
	l.leaderEpoch++
	for _, old := range b.entriesOfTopicPartition(tp) {
		b.drop(old)
		if _, err := b.build(nowMs, old.key, l); err != nil {
			b.evictions++
		}
	}
	return nil
}

// addStats adds every counter of s to t.
func addStats(t *share.Stats, s share.Stats) {
	t.Deliveries += s.Deliveries
	t.Redeliveries += s.Redeliveries
	t.Accepted += s.Accepted
	t.Released += s.Released
	t.Rejected += s.Rejected
	t.LockExpired += s.LockExpired
	t.SessionReleased += s.SessionReleased
	t.ArchivedAtLimit += s.ArchivedAtLimit
	t.DLQWritten += s.DLQWritten
	t.DLQFailed += s.DLQFailed
	t.PersistFailures += s.PersistFailures
	t.LockRenewals += s.LockRenewals
	t.ArchivedLogStart += s.ArchivedLogStart
	t.ArchivedGaps += s.ArchivedGaps
	t.AcquireThrottled += s.AcquireThrottled
	t.AcksRefused += s.AcksRefused
}
