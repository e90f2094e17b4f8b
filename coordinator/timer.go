package coordinator

import (
	"fmt"
	"slices"

	"github.com/google/btree"
)

// timerBTreeDegree is the degree of the btree behind TimerQueue. BenchmarkTimerDegree compares
// degrees on a heartbeat-like workload: 16 and 32 were level there (within 4%), 8 was 25%
// slower and 2 several times slower; 16 keeps each node's item shifts short.
const timerBTreeDegree = 16

// timerEntry is one scheduled timer. The key index points at it and a replace updates it in
// place, so rescheduling a key (a session timeout pushed back by every heartbeat) needs one
// map lookup and no allocation.
type timerEntry[T any] struct {
	key        string
	deadlineMs int64
	seq        uint64
	payload    T
}

// timerItem is a timer as the ordered queue holds it. The order fields are copied out of the
// entry so comparisons never chase the pointer, and the item stays three words: btree passes
// items by value to the less function on every comparison. An earlier version that kept key
// and payload in the item spent over half of Schedule in that comparison call, and this
// layout about halved BenchmarkTimerScheduleReplace.
type timerItem[T any] struct {
	deadlineMs int64
	seq        uint64
	entry      *timerEntry[T]
}

// timerItemLess orders timers by deadline and, for equal deadlines, by scheduling order. The
// sequence number makes the order strict (no two items are ever equal), which btree requires
// and which gives FIFO firing for equal deadlines.
func timerItemLess[T any](a, b timerItem[T]) bool {
	if a.deadlineMs != b.deadlineMs {
		return a.deadlineMs < b.deadlineMs
	}
	return a.seq < b.seq
}

// timerFreeEntriesMax bounds the entries a queue keeps for reuse after they fire or are
// cancelled. It absorbs the churn of timers that expire and are created again without
// holding on to the memory of a past peak of timers.
const timerFreeEntriesMax = 4096

// TimerQueue is a keyed timer queue ordered by (deadline, sequence): the model of Kafka's
// per-shard CoordinatorTimer (docs/kip1331.md §4.3) that the coordinator and the simulator drive
// on virtual time.
//
// Semantics, chosen to make a simulation replayable from its seed:
//
//   - Keyed: scheduling a key replaces the timer of that key. The old timer is removed at
//     once and never fires, which is what Kafka gets by cancelling the old task and dropping
//     an overridden one that fires anyway.
//   - A timer is due when its deadline is <= now. This is Kafka's MockCoordinatorTimer.poll
//     (deadlineMs <= time.milliseconds()), the mock Kafka's own coordinator tests use; the
//     server-common MockTimer instead fires only when now > expirationMs, and the real
//     timing wheel fires on its own thread some time after the deadline, at the wheel's
//     tick granularity, so neither is a better model to copy.
//   - Timers with equal deadlines fire in the order they were scheduled (a rescheduled key
//     counts as scheduled at its latest Schedule). Kafka's mocks keep timers in a
//     java.util.PriorityQueue compared on the deadline only, which promises no order for
//     ties; we fix one so the same inputs always give the same outputs.
//
// Nothing fires by itself: PopDue is the only way to fire a timer, and it returns the timer
// instead of running anything. The caller loops PopDue and runs each payload between calls,
// so a payload may freely Schedule or Cancel timers, its own key included. A timer scheduled
// during that loop with a deadline <= now fires in the same loop, after every timer that
// orders before it; a payload that always reschedules itself at or before now would keep the
// loop going forever, so callers that allow that bound their loop.
//
// A TimerQueue is not safe for concurrent use: like the shard it serves, it belongs to one
// goroutine (the simulation loop or the live driver's loop).
//
// The zero value is not usable; call NewTimerQueue.
type TimerQueue[T any] struct {
	// order holds every scheduled timer, earliest first.
	order *btree.BTreeG[timerItem[T]]
	// byKey finds a key's entry. Map iteration order is random, so nothing may range over
	// byKey where the order could reach an output (Keys sorts).
	byKey map[string]*timerEntry[T]
	// free holds zeroed entries for reuse, at most timerFreeEntriesMax of them.
	free []*timerEntry[T]
	// nextSeq numbers every Schedule; it never goes back, not even on Clear, so the FIFO
	// order of ties holds across the queue's whole life.
	nextSeq uint64
	// changed, when set, runs after every change to the queue: the coordinator keeps each
	// hosted shard's earliest deadline in its due index with it (due.go).
	changed func()
}

// notify runs q.changed, if any.
func (q *TimerQueue[T]) notify() {
	if q.changed != nil {
		q.changed()
	}
}

// NewTimerQueue returns an empty timer queue.
func NewTimerQueue[T any]() *TimerQueue[T] {
	return newTimerQueueDegree[T](timerBTreeDegree)
}

// newTimerQueueDegree exists so BenchmarkTimerDegree can compare btree degrees.
func newTimerQueueDegree[T any](degree int) *TimerQueue[T] {
	return &TimerQueue[T]{
		order: btree.NewG[timerItem[T]](degree, timerItemLess[T]),
		byKey: make(map[string]*timerEntry[T]),
	}
}

// Schedule sets the timer of key to fire at deadlineMs with payload, replacing any timer that
// key already has: the old one is gone and never fires. The timer takes a new sequence
// number, so among timers with the same deadline it now fires last.
//
// Replacing is the hot path and allocates nothing: the key's entry is updated in place and
// btree nodes are recycled through the tree's free list. A new key reuses a free entry when
// there is one.
func (q *TimerQueue[T]) Schedule(key string, deadlineMs int64, payload T) {
	e, ok := q.byKey[key]
	if ok {
		q.removeItem(e)
	} else {
		e = q.newEntry(key)
		q.byKey[key] = e
	}
	e.payload = payload
	q.insertItem(e, deadlineMs)
	q.notify()
}

// ScheduleIfAbsent schedules key like Schedule only when key has no timer yet, and reports
// whether it did. An existing timer of key is left untouched.
func (q *TimerQueue[T]) ScheduleIfAbsent(key string, deadlineMs int64, payload T) bool {
	if _, ok := q.byKey[key]; ok {
		return false
	}
	e := q.newEntry(key)
	q.byKey[key] = e
	e.payload = payload
	q.insertItem(e, deadlineMs)
	q.notify()
	return true
}

// Cancel removes the timer of key and reports whether there was one.
func (q *TimerQueue[T]) Cancel(key string) bool {
	e, ok := q.byKey[key]
	if !ok {
		return false
	}
	q.removeItem(e)
	delete(q.byKey, key)
	q.recycle(e)
	q.notify()
	return true
}

// Has reports whether key has a scheduled timer.
func (q *TimerQueue[T]) Has(key string) bool {
	_, ok := q.byKey[key]
	return ok
}

// Payload returns the payload of key's timer and whether key has a timer.
func (q *TimerQueue[T]) Payload(key string) (T, bool) {
	e, ok := q.byKey[key]
	if !ok {
		var zero T
		return zero, false
	}
	return e.payload, true
}

// Deadline returns the deadline of key's timer, in milliseconds of the caller's clock, and
// whether key has a timer.
func (q *TimerQueue[T]) Deadline(key string) (int64, bool) {
	e, ok := q.byKey[key]
	if !ok {
		return 0, false
	}
	return e.deadlineMs, true
}

// Len returns the number of scheduled timers.
func (q *TimerQueue[T]) Len() int {
	return len(q.byKey)
}

// NextDeadline returns the earliest deadline in the queue and whether the queue has any
// timer. A driver sleeps (or a simulator jumps virtual time) until then.
func (q *TimerQueue[T]) NextDeadline() (int64, bool) {
	item, ok := q.order.Min()
	return item.deadlineMs, ok
}

// PopDue removes and returns the earliest timer whose deadline is <= nowMs; among equal
// deadlines, the one scheduled first. ok is false when no timer is due, and then the queue is
// unchanged. Call it in a loop until ok is false and run each payload between calls; see the
// TimerQueue doc for what a payload may do.
func (q *TimerQueue[T]) PopDue(nowMs int64) (key string, payload T, ok bool) {
	item, found := q.order.Min()
	if !found || item.deadlineMs > nowMs {
		var zero T
		return "", zero, false
	}
	if _, removed := q.order.DeleteMin(); !removed {
		panic("coordinator: TimerQueue.PopDue: Min found an item that DeleteMin did not")
	}
	e := item.entry
	delete(q.byKey, e.key)
	key, payload = e.key, e.payload
	q.recycle(e)
	q.notify()
	return key, payload, true
}

// Clear removes every timer without firing any, as when a shard is unloaded (Kafka drops the
// timers of an unloaded shard, docs/kip1331.md §4.3).
func (q *TimerQueue[T]) Clear() {
	// Keeping the nodes on the btree's free list lets a reloaded shard refill the queue
	// without allocating them again. The entries are left to the garbage collector: walking
	// them to recycle would make Clear O(timers) for a saving of at most
	// timerFreeEntriesMax allocations.
	q.order.Clear(true)
	clear(q.byKey)
	q.notify()
}

// Keys returns the keys that have a timer, sorted, for inspection in tests and traces.
func (q *TimerQueue[T]) Keys() []string {
	keys := make([]string, 0, len(q.byKey))
	for key := range q.byKey {
		keys = append(keys, key)
	}
	// The map gave the keys in random order; sorting is what makes the result an output.
	slices.Sort(keys)
	return keys
}

// newEntry returns an entry for key, reused from the free list when possible.
func (q *TimerQueue[T]) newEntry(key string) *timerEntry[T] {
	if n := len(q.free); n > 0 {
		e := q.free[n-1]
		q.free[n-1] = nil
		q.free = q.free[:n-1]
		e.key = key
		return e
	}
	return &timerEntry[T]{key: key}
}

// recycle zeroes an entry that left the queue, so the free list pins no payload, and keeps
// it for reuse if the free list has room.
func (q *TimerQueue[T]) recycle(e *timerEntry[T]) {
	*e = timerEntry[T]{}
	if len(q.free) < timerFreeEntriesMax {
		q.free = append(q.free, e)
	}
}

// insertItem gives e a deadline and a new sequence number and queues it; e must not be queued.
func (q *TimerQueue[T]) insertItem(e *timerEntry[T], deadlineMs int64) {
	e.deadlineMs = deadlineMs
	e.seq = q.nextSeq
	q.nextSeq++
	item := timerItem[T]{deadlineMs: deadlineMs, seq: e.seq, entry: e}
	if _, replaced := q.order.ReplaceOrInsert(item); replaced {
		// Sequence numbers are unique, so an equal item means the counter wrapped or the
		// tree is corrupt; either way the queue can no longer be trusted.
		panic(fmt.Sprintf("coordinator: TimerQueue: sequence %d already in the queue", e.seq))
	}
}

// removeItem takes e out of order; the caller updates byKey.
func (q *TimerQueue[T]) removeItem(e *timerEntry[T]) {
	// The probe needs only the order fields: timerItemLess looks at nothing else.
	probe := timerItem[T]{deadlineMs: e.deadlineMs, seq: e.seq}
	if _, removed := q.order.Delete(probe); !removed {
		// The index and the queue disagree: a timer would fire that was replaced, or never
		// fire at all. Stop here rather than let the simulation drift.
		panic(fmt.Sprintf("coordinator: TimerQueue: key %q indexed at (%d, %d) but not queued",
			e.key, e.deadlineMs, e.seq))
	}
}
