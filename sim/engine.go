package sim

import (
	"math/rand/v2"
	"time"
)

// startMs is where virtual time begins: 2026-01-01T00:00:00Z.
const startMs int64 = 1767225600000

// event is one thing that happens at a virtual instant. Events with equal
// times run in the order they were scheduled.
type event struct {
	atMs int64
	seq  uint64
	fn   func()
	// pos is the event's index in the engine's heap while it is queued.
	pos int
}

func lessEvent(a, b *event) bool {
	if a.atMs != b.atMs {
		return a.atMs < b.atMs
	}
	return a.seq < b.seq
}

// engine is a single-threaded discrete-event loop on virtual time with one
// seeded generator. It is also the clock every coordinator reads.
//
// The queue is a 4-ary min-heap on (time, sequence). The order is strict,
// so events pop in exactly the order any priority queue on it gives (a
// btree did it before, at about twice the cost per event); each event
// knows its place, so a cancel is O(log n) too.
type engine struct {
	nowMs int64
	seq   uint64
	queue []*event
	rng   *rand.Rand
	step  int64
	free  []*event
}

func newEngine(seed uint64) *engine {
	return &engine{
		nowMs: startMs,
		rng:   rand.New(rand.NewPCG(seed, 0x636f6f7264)), // "coord"
	}
}

// heapArity is the heap's fan-out: four children keep it shallow, and a
// node's children share a cache line or two.
const heapArity = 4

// push adds ev to the heap.
func (e *engine) push(ev *event) {
	ev.pos = len(e.queue)
	e.queue = append(e.queue, ev)
	e.up(ev.pos)
}

// remove takes the event at index i out of the heap.
func (e *engine) remove(i int) {
	last := len(e.queue) - 1
	if i != last {
		e.place(i, e.queue[last])
	}
	e.queue[last] = nil
	e.queue = e.queue[:last]
	if i < last {
		e.down(i)
		e.up(i)
	}
}

func (e *engine) up(i int) {
	q := e.queue
	ev := q[i]
	for i > 0 {
		parent := (i - 1) / heapArity
		if !lessEvent(ev, q[parent]) {
			break
		}
		e.place(i, q[parent])
		i = parent
	}
	e.place(i, ev)
}

func (e *engine) down(i int) {
	q := e.queue
	ev := q[i]
	for {
		first := i*heapArity + 1
		if first >= len(q) {
			break
		}
		least := first
		for c := first + 1; c < first+heapArity && c < len(q); c++ {
			if lessEvent(q[c], q[least]) {
				least = c
			}
		}
		if !lessEvent(q[least], ev) {
			break
		}
		e.place(i, q[least])
		i = least
	}
	e.place(i, ev)
}

// place puts ev at index i of the heap and keeps ev.pos, which a cancel
// goes by, in step with it.
func (e *engine) place(i int, ev *event) {
	e.queue[i] = ev
	ev.pos = i
}

// Now is the virtual time (the coordinator.Clock interface).
func (e *engine) Now() time.Time { return time.UnixMilli(e.nowMs).UTC() }

// at schedules fn at an absolute virtual time (never in the past) and
// returns a handle that cancel accepts until the event fires.
func (e *engine) at(atMs int64, fn func()) *event {
	if atMs < e.nowMs {
		atMs = e.nowMs
	}
	var ev *event
	if n := len(e.free); n > 0 {
		ev, e.free = e.free[n-1], e.free[:n-1]
	} else {
		ev = &event{}
	}
	e.seq++
	ev.atMs, ev.seq, ev.fn = atMs, e.seq, fn
	e.push(ev)
	return ev
}

// cancel removes a scheduled event that has not fired.
func (e *engine) cancel(ev *event) {
	if ev == nil || ev.fn == nil {
		return
	}
	e.remove(ev.pos)
	ev.fn = nil
	e.free = append(e.free, ev)
}

// after schedules fn d from now.
func (e *engine) after(d time.Duration, fn func()) { e.at(e.nowMs+d.Milliseconds(), fn) }

// next pops the earliest event at or before limitMs, moves time to it and
// returns its function; ok is false when none is due.
func (e *engine) next(limitMs int64) (fn func(), ok bool) {
	if len(e.queue) == 0 || e.queue[0].atMs > limitMs {
		return nil, false
	}
	ev := e.queue[0]
	e.remove(0)
	e.nowMs = ev.atMs
	fn = ev.fn
	ev.fn = nil
	e.free = append(e.free, ev)
	e.step++
	return fn, true
}

// uniformMs draws a duration in [lo, hi] milliseconds.
func (e *engine) uniform(lo, hi time.Duration) time.Duration {
	if hi <= lo {
		return lo
	}
	return lo + time.Duration(e.rng.Int64N(int64(hi-lo)+1))
}

// chance reports true with probability p. It draws nothing when p is 0 or
// 1, so a fault that is off from the start consumes no randomness.
func (e *engine) chance(p float64) bool {
	if p <= 0 {
		return false
	}
	if p >= 1 {
		return true
	}
	return e.rng.Float64() < p
}
