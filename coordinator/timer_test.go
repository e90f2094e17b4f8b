package coordinator

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"
	"weak"

	"github.com/benbjohnson/clock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// timerFired is one fired timer, as the tests record it.
type timerFired struct {
	key     string
	payload int
}

// popAllDue fires every timer due at nowMs the way a coordinator does: PopDue in a loop.
func popAllDue(q *TimerQueue[int], nowMs int64) []timerFired {
	var fired []timerFired
	for {
		key, payload, ok := q.PopDue(nowMs)
		if !ok {
			return fired
		}
		fired = append(fired, timerFired{key, payload})
	}
}

func TestTimerQueueEqualDeadlinesFireInSchedulingOrder(t *testing.T) {
	// Proves that timers with the same deadline fire in the order they were scheduled, not in
	// key order or map order, and that an earlier deadline still fires first.
	q := NewTimerQueue[int]()
	q.Schedule("c", 100, 1)
	q.Schedule("a", 100, 2)
	q.Schedule("b", 100, 3)
	q.Schedule("z", 99, 4)

	fired := popAllDue(q, 100)

	assert.Equal(t, []timerFired{{"z", 4}, {"c", 1}, {"a", 2}, {"b", 3}}, fired)
	assert.Equal(t, 0, q.Len())
}

func TestTimerQueueScheduleReplacesSameKey(t *testing.T) {
	// Proves that scheduling a key again replaces its timer: the old payload and deadline
	// never fire, and the new timer orders by its new sequence number, behind a timer with the
	// same deadline that was scheduled in between.
	q := NewTimerQueue[int]()
	q.Schedule("session-m1", 50, 1)
	q.Schedule("session-m2", 100, 2)
	q.Schedule("session-m1", 100, 3)

	require.Equal(t, 2, q.Len())
	deadlineMs, ok := q.Deadline("session-m1")
	require.True(t, ok)
	assert.Equal(t, int64(100), deadlineMs)

	assert.Empty(t, popAllDue(q, 99), "the replaced deadline 50 must not fire")
	assert.Equal(t, []timerFired{{"session-m2", 2}, {"session-m1", 3}}, popAllDue(q, 100))
}

func TestTimerQueueScheduleIfAbsent(t *testing.T) {
	// Proves that ScheduleIfAbsent schedules only a key that has no timer and leaves an
	// existing timer, deadline and payload alike, untouched.
	q := NewTimerQueue[int]()

	assert.True(t, q.ScheduleIfAbsent("k", 10, 1))
	assert.False(t, q.ScheduleIfAbsent("k", 5, 2))

	deadlineMs, ok := q.Deadline("k")
	require.True(t, ok)
	assert.Equal(t, int64(10), deadlineMs)
	assert.Equal(t, []timerFired{{"k", 1}}, popAllDue(q, 10))
	assert.True(t, q.ScheduleIfAbsent("k", 20, 3), "a fired key is absent again")
}

func TestTimerQueueCancel(t *testing.T) {
	// Proves that a cancelled timer never fires, that Cancel reports whether there was a timer,
	// and that cancelling one key leaves the others alone.
	q := NewTimerQueue[int]()
	q.Schedule("a", 10, 1)
	q.Schedule("b", 10, 2)

	assert.True(t, q.Cancel("a"))
	assert.False(t, q.Cancel("a"), "a second cancel finds nothing")
	assert.False(t, q.Cancel("never-scheduled"))
	assert.False(t, q.Has("a"))
	_, ok := q.Deadline("a")
	assert.False(t, ok)

	assert.Equal(t, []timerFired{{"b", 2}}, popAllDue(q, 1000))
}

func TestTimerQueueFiresAtDeadlineLessOrEqualNow(t *testing.T) {
	// Proves the MockCoordinatorTimer boundary: a timer whose deadline equals now fires, and one
	// whose deadline is now+1 does not (and stays queued).
	q := NewTimerQueue[int]()
	const nowMs = int64(1_000)
	q.Schedule("at-now", nowMs, 1)
	q.Schedule("after-now", nowMs+1, 2)

	assert.Equal(t, []timerFired{{"at-now", 1}}, popAllDue(q, nowMs))
	assert.True(t, q.Has("after-now"))
	assert.Equal(t, []timerFired{{"after-now", 2}}, popAllDue(q, nowMs+1))
}

func TestTimerQueuePopDueOnEmptyOrNotDueChangesNothing(t *testing.T) {
	// Proves that PopDue with nothing due returns the zero key and payload and leaves the queue
	// as it was.
	q := NewTimerQueue[*int]()
	key, payload, ok := q.PopDue(0)
	assert.False(t, ok)
	assert.Empty(t, key)
	assert.Nil(t, payload)

	q.Schedule("k", 5, new(int))
	_, _, ok = q.PopDue(4)
	assert.False(t, ok)
	assert.Equal(t, 1, q.Len())
}

func TestTimerQueueNextDeadline(t *testing.T) {
	// Proves that NextDeadline is the minimum deadline and follows replaces, cancels and pops.
	q := NewTimerQueue[int]()
	_, ok := q.NextDeadline()
	assert.False(t, ok, "an empty queue has no next deadline")

	q.Schedule("a", 30, 1)
	q.Schedule("b", 20, 2)
	next, ok := q.NextDeadline()
	require.True(t, ok)
	assert.Equal(t, int64(20), next)

	q.Schedule("b", 40, 2)
	next, _ = q.NextDeadline()
	assert.Equal(t, int64(30), next, "rescheduling the earliest key later moves the next deadline")

	q.Schedule("c", 5, 3)
	next, _ = q.NextDeadline()
	assert.Equal(t, int64(5), next)

	q.Cancel("c")
	next, _ = q.NextDeadline()
	assert.Equal(t, int64(30), next)

	_, _, ok = q.PopDue(30)
	require.True(t, ok)
	next, _ = q.NextDeadline()
	assert.Equal(t, int64(40), next)
}

func TestTimerQueueRescheduleFromFiredPayload(t *testing.T) {
	// Proves that payloads may change the queue while the caller pops in a loop: a payload that
	// reschedules its own key later does not fire again in this loop, one that schedules a new
	// timer due now fires in the same loop after the timers already due, and one that cancels
	// a due timer stops it from firing.
	type action func(q *TimerQueue[action], nowMs int64, log *[]string)
	q := NewTimerQueue[action]()
	var log []string

	// "heartbeat" refreshes itself 10 ms ahead each time it fires, like a periodic task.
	var heartbeat action
	heartbeat = func(q *TimerQueue[action], nowMs int64, log *[]string) {
		*log = append(*log, "heartbeat")
		q.Schedule("heartbeat", nowMs+10, heartbeat)
	}
	q.Schedule("heartbeat", 100, heartbeat)
	q.Schedule("expire", 100, func(q *TimerQueue[action], nowMs int64, log *[]string) {
		*log = append(*log, "expire")
		// Follow-up work due at once, as a cleanup that triggers another step would be.
		q.Schedule("follow-up", nowMs, func(_ *TimerQueue[action], _ int64, log *[]string) {
			*log = append(*log, "follow-up")
		})
		q.Cancel("doomed")
	})
	q.Schedule("late", 100, func(_ *TimerQueue[action], _ int64, log *[]string) {
		*log = append(*log, "late")
	})
	q.Schedule("doomed", 100, func(_ *TimerQueue[action], _ int64, log *[]string) {
		*log = append(*log, "doomed")
	})

	const nowMs = int64(100)
	for {
		_, run, ok := q.PopDue(nowMs)
		if !ok {
			break
		}
		run(q, nowMs, &log)
	}

	assert.Equal(t, []string{"heartbeat", "expire", "late", "follow-up"}, log)
	assert.Equal(t, []string{"heartbeat"}, q.Keys())
	deadlineMs, ok := q.Deadline("heartbeat")
	require.True(t, ok)
	assert.Equal(t, int64(110), deadlineMs)
}

func TestTimerQueueClearAndKeys(t *testing.T) {
	// Proves that Keys is sorted whatever the scheduling order, that Clear drops every timer
	// without firing it, and that the queue works normally afterwards.
	q := NewTimerQueue[int]()
	for i, key := range []string{"m", "b", "x", "a"} {
		q.Schedule(key, int64(i), i)
	}
	assert.Equal(t, []string{"a", "b", "m", "x"}, q.Keys())

	q.Clear()
	assert.Equal(t, 0, q.Len())
	assert.Empty(t, q.Keys())
	assert.Empty(t, popAllDue(q, 1_000))

	q.Schedule("b", 7, 1)
	q.Schedule("a", 7, 2)
	assert.Equal(t, []timerFired{{"b", 1}, {"a", 2}}, popAllDue(q, 7))
}

func TestTimerQueueScheduleReplaceDoesNotAllocate(t *testing.T) {
	// Proves the hot path, a key rescheduled on every heartbeat among many other timers,
	// allocates nothing once the queue has reached its size.
	q := NewTimerQueue[int]()
	keys := timerBenchKeys(1_000)
	for i, key := range keys {
		q.Schedule(key, int64(i), i)
	}
	nowMs := int64(0)
	allocs := testing.AllocsPerRun(1_000, func() {
		nowMs++
		q.Schedule(keys[nowMs%int64(len(keys))], nowMs+45_000, int(nowMs))
	})
	assert.Zero(t, allocs)
}

func TestTimerQueueDoesNotPinPayloadsThatLeft(t *testing.T) {
	// Proves that reusing entries keeps no payload alive: once a timer has fired, been
	// cancelled or been replaced, the queue (its free list included) holds no reference to
	// the payload.
	// A kilobyte, so each payload is its own allocation (the tiny allocator
	// packs small pointer-free objects together, and a zero-size one is
	// never freed), which the weak pointers below can see go.
	type state struct{ _ [1 << 10]byte }
	q := NewTimerQueue[*state]()
	var gone []weak.Pointer[state]
	for i, key := range []string{"fires", "cancelled", "replaced"} {
		payload := &state{}
		gone = append(gone, weak.Make(payload))
		q.Schedule(key, int64(i), payload)
	}

	_, _, ok := q.PopDue(0)
	require.True(t, ok)
	require.True(t, q.Cancel("cancelled"))
	q.Schedule("replaced", 10, nil)

	runtime.GC()
	for i, p := range gone {
		assert.Nil(t, p.Value(), "payload %d is still reachable", i)
	}
	runtime.KeepAlive(q)
}

// timerModelEntry is one timer in the reference model.
type timerModelEntry struct {
	key        string
	deadlineMs int64
	seq        int
	payload    int
}

// timerModel is the naive reference for TimerQueue: an unsorted slice searched linearly,
// simple enough to be obviously right.
type timerModel struct {
	entries []timerModelEntry
	seq     int
}

func (m *timerModel) find(key string) int {
	return slices.IndexFunc(m.entries, func(e timerModelEntry) bool { return e.key == key })
}

func (m *timerModel) schedule(key string, deadlineMs int64, payload int) {
	m.cancel(key)
	m.entries = append(m.entries, timerModelEntry{key, deadlineMs, m.seq, payload})
	m.seq++
}

func (m *timerModel) scheduleIfAbsent(key string, deadlineMs int64, payload int) bool {
	if m.find(key) >= 0 {
		return false
	}
	m.schedule(key, deadlineMs, payload)
	return true
}

func (m *timerModel) cancel(key string) bool {
	i := m.find(key)
	if i < 0 {
		return false
	}
	m.entries = slices.Delete(m.entries, i, i+1)
	return true
}

// earliest returns the index of the entry with the smallest (deadline, seq), or -1.
func (m *timerModel) earliest() int {
	best := -1
	for i, e := range m.entries {
		if best < 0 || e.deadlineMs < m.entries[best].deadlineMs ||
			(e.deadlineMs == m.entries[best].deadlineMs && e.seq < m.entries[best].seq) {
			best = i
		}
	}
	return best
}

func (m *timerModel) popDue(nowMs int64) (timerFired, bool) {
	i := m.earliest()
	if i < 0 || m.entries[i].deadlineMs > nowMs {
		return timerFired{}, false
	}
	e := m.entries[i]
	m.entries = slices.Delete(m.entries, i, i+1)
	return timerFired{e.key, e.payload}, true
}

func (m *timerModel) keys() []string {
	keys := []string{}
	for _, e := range m.entries {
		keys = append(keys, e.key)
	}
	slices.Sort(keys)
	return keys
}

func TestTimerQueueMatchesReferenceModel(t *testing.T) {
	// Proves, over 200 seeds of random schedules, replaces, cancels, clears and pop loops in
	// which fired payloads schedule further timers, that TimerQueue fires the same timers in
	// the same order as a naive sorted-search model and answers every query the same way.
	// Few keys and a narrow deadline range make replaces and equal deadlines common.
	keys := []string{"a", "b", "c", "d", "e", "f"}
	for seed := uint64(0); seed < 200; seed++ {
		rng := rand.New(rand.NewPCG(seed, 0x7133))
		q := NewTimerQueue[int]()
		model := &timerModel{}
		nowMs := int64(0)
		payload := 0
		for step := 0; step < 300; step++ {
			where := fmt.Sprintf("seed %d step %d", seed, step)
			key := keys[rng.IntN(len(keys))]
			// Deadlines range from one in the past (due at once) to a few ms ahead.
			deadlineMs := nowMs + int64(rng.IntN(6)) - 1
			payload++
			switch op := rng.IntN(100); {
			case op < 35:
				q.Schedule(key, deadlineMs, payload)
				model.schedule(key, deadlineMs, payload)
			case op < 50:
				require.Equal(t, model.scheduleIfAbsent(key, deadlineMs, payload),
					q.ScheduleIfAbsent(key, deadlineMs, payload), where)
			case op < 62:
				require.Equal(t, model.cancel(key), q.Cancel(key), where)
			case op < 72:
				got, gotPayload, gotOK := q.PopDue(nowMs)
				want, wantOK := model.popDue(nowMs)
				require.Equal(t, wantOK, gotOK, where)
				require.Equal(t, want, timerFired{got, gotPayload}, where)
			case op < 98:
				// Advance time and fire everything due; each fired timer may schedule another,
				// sometimes due at once, sometimes under a key that is already queued.
				nowMs += int64(rng.IntN(4))
				for fires := 0; ; fires++ {
					require.Less(t, fires, 1_000, "%s: pop loop does not end", where)
					got, gotPayload, gotOK := q.PopDue(nowMs)
					want, wantOK := model.popDue(nowMs)
					require.Equal(t, wantOK, gotOK, where)
					require.Equal(t, want, timerFired{got, gotPayload}, where)
					if !gotOK {
						break
					}
					if rng.IntN(3) == 0 {
						nextKey := keys[rng.IntN(len(keys))]
						nextDeadlineMs := nowMs + int64(rng.IntN(3))
						payload++
						q.Schedule(nextKey, nextDeadlineMs, payload)
						model.schedule(nextKey, nextDeadlineMs, payload)
					}
				}
			default:
				q.Clear()
				model.entries = nil
			}

			require.Equal(t, len(model.entries), q.Len(), where)
			require.Equal(t, model.keys(), q.Keys(), where)
			for _, k := range keys {
				i := model.find(k)
				require.Equal(t, i >= 0, q.Has(k), "%s key %s", where, k)
				gotDeadlineMs, ok := q.Deadline(k)
				require.Equal(t, i >= 0, ok, "%s key %s", where, k)
				if i >= 0 {
					require.Equal(t, model.entries[i].deadlineMs, gotDeadlineMs, "%s key %s", where, k)
				}
			}
			gotNext, gotOK := q.NextDeadline()
			wantIndex := model.earliest()
			require.Equal(t, wantIndex >= 0, gotOK, where)
			if wantIndex >= 0 {
				require.Equal(t, model.entries[wantIndex].deadlineMs, gotNext, where)
			}
		}
	}
}

func ExampleTimerQueue() {
	// A session timeout, refreshed by each heartbeat, and a rebalance timeout.
	q := NewTimerQueue[string]()
	q.Schedule("session-timeout-m1", 45_000, "fence m1")
	q.Schedule("rebalance-timeout-m2", 30_000, "revoke from m2")
	q.Schedule("session-timeout-m1", 47_000, "fence m1") // heartbeat at 2 s: the 45 s timer is gone

	next, _ := q.NextDeadline()
	fmt.Println("next deadline:", next)
	for {
		key, payload, ok := q.PopDue(50_000)
		if !ok {
			break
		}
		fmt.Println(key, "->", payload)
	}
	// Output:
	// next deadline: 30000
	// rebalance-timeout-m2 -> revoke from m2
	// session-timeout-m1 -> fence m1
}

// timerBenchKeys returns n distinct keys built once, so benchmarks measure the queue and not
// string formatting.
func timerBenchKeys(n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = "session-timeout-member-" + strconv.Itoa(i)
	}
	return keys
}

// BenchmarkTimerScheduleReplace reschedules one key after another among a queue of n
// timers, the way each member's heartbeat pushes its session timeout back: the queue's hot
// path.
func BenchmarkTimerScheduleReplace(b *testing.B) {
	for _, n := range []int{1, 1_000, 100_000} {
		b.Run("timers="+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			q := NewTimerQueue[int]()
			keys := timerBenchKeys(n)
			for i, key := range keys {
				q.Schedule(key, int64(i), i)
			}
			const sessionTimeoutMs = 45_000
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				nowMs := int64(i)
				q.Schedule(keys[i%n], nowMs+sessionTimeoutMs, i)
			}
		})
	}
}

// BenchmarkTimerPopDue fires n timers with random deadlines; only the pops are timed, and
// ns/timer is the cost of one PopDue.
func BenchmarkTimerPopDue(b *testing.B) {
	for _, n := range []int{100, 10_000, 1_000_000} {
		b.Run("timers="+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			keys := timerBenchKeys(n)
			rng := rand.New(rand.NewPCG(1, 2))
			deadlinesMs := make([]int64, n)
			for i := range deadlinesMs {
				deadlinesMs[i] = rng.Int64N(int64(n))
			}
			q := NewTimerQueue[int]()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				for j, key := range keys {
					q.Schedule(key, deadlinesMs[j], j)
				}
				b.StartTimer()
				fired := 0
				for {
					if _, _, ok := q.PopDue(int64(n)); !ok {
						break
					}
					fired++
				}
				if fired != n {
					b.Fatalf("fired %d timers, want %d", fired, n)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/timer")
		})
	}
}

// BenchmarkTimerVersusClockMock runs one workload, n timers at distinct deadlines all
// fired by advancing time past the last, on TimerQueue and on benbjohnson/clock's Mock
// (AfterFunc + Add), to show why docs/design.md keeps simulated time off clock.Mock. Mock sleeps
// 1 ms of real time per fired timer and runs each callback on its own goroutine, so n is
// small and the figure to compare is ns/timer.
func BenchmarkTimerVersusClockMock(b *testing.B) {
	const n = 100
	b.Run("TimerQueue", func(b *testing.B) {
		b.ReportAllocs()
		keys := timerBenchKeys(n)
		q := NewTimerQueue[func()]()
		fired := 0
		onFire := func() { fired++ }
		for i := 0; i < b.N; i++ {
			fired = 0
			for j, key := range keys {
				q.Schedule(key, int64(j+1), onFire)
			}
			for {
				_, run, ok := q.PopDue(n)
				if !ok {
					break
				}
				run()
			}
			if fired != n {
				b.Fatalf("fired %d timers, want %d", fired, n)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/timer")
	})
	b.Run("ClockMock", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			mock := clock.NewMock()
			var wg sync.WaitGroup
			wg.Add(n)
			for j := 0; j < n; j++ {
				mock.AfterFunc(time.Duration(j+1)*time.Millisecond, wg.Done)
			}
			mock.Add(n * time.Millisecond)
			// Callbacks run on their own goroutines; the workload is done when all have run.
			wg.Wait()
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/timer")
	})
}

// BenchmarkTimerDegree compares btree degrees on a heartbeat-like mix (reschedule among
// 10,000 timers, fire what is due) to justify timerBTreeDegree.
func BenchmarkTimerDegree(b *testing.B) {
	const n = 10_000
	for _, degree := range []int{2, 4, 8, 16, 32, 64} {
		b.Run("degree="+strconv.Itoa(degree), func(b *testing.B) {
			b.ReportAllocs()
			keys := timerBenchKeys(n)
			q := newTimerQueueDegree[int](degree)
			rng := rand.New(rand.NewPCG(3, 4))
			for i, key := range keys {
				q.Schedule(key, rng.Int64N(45_000), i)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				nowMs := int64(i)
				// Each step: a heartbeat reschedules a random member, then due timers fire and
				// are re-armed, so the queue keeps its size.
				q.Schedule(keys[rng.IntN(n)], nowMs+45_000, i)
				for {
					key, payload, ok := q.PopDue(nowMs)
					if !ok {
						break
					}
					q.Schedule(key, nowMs+45_000, payload)
				}
			}
		})
	}
}
