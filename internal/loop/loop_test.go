package loop

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeCore has work due at deadline (if set) and counts the polls that found
// it due; it is touched only on the loop.
type fakeCore struct {
	clock    clock.Clock
	deadline time.Time
	fired    chan struct{}
	polls    atomic.Int64
}

func (c *fakeCore) Poll() int {
	c.polls.Add(1)
	if !c.deadline.IsZero() && !c.clock.Now().Before(c.deadline) {
		c.deadline = time.Time{}
		close(c.fired)
		return 1
	}
	return 0
}

func (c *fakeCore) NextDeadline() (time.Time, bool) { return c.deadline, !c.deadline.IsZero() }

func start(t *testing.T, core *fakeCore, clk clock.Clock) *Loop {
	t.Helper()
	l := New(core, clk, nil)
	require.NoError(t, l.Start(context.Background(), func() error { return nil }, func() {}))
	t.Cleanup(l.Stop)
	return l
}

// TestDoPollsFirstAndStopsCleanly proves Do's contract: the function runs
// on the loop after a Poll, and after Stop every call returns ErrStopped.
func TestDoPollsFirstAndStopsCleanly(t *testing.T) {
	core := &fakeCore{fired: make(chan struct{})}
	l := start(t, core, clock.NewMock())
	var pollsSeen int64
	require.NoError(t, l.Do(context.Background(), func() { pollsSeen = core.polls.Load() }))
	assert.Positive(t, pollsSeen, "a poll ran before the request")
	l.Stop()
	assert.ErrorIs(t, l.Do(context.Background(), func() {}), ErrStopped)
	assert.ErrorIs(t, l.Start(context.Background(), func() error { return nil }, func() {}), ErrStopped)
}

// TestTimerWakesTheLoopAtTheDeadline proves that the core's next deadline
// arms a clock timer that wakes the loop with no request arriving.
func TestTimerWakesTheLoopAtTheDeadline(t *testing.T) {
	mock := clock.NewMock()
	core := &fakeCore{clock: mock, fired: make(chan struct{})}
	l := start(t, core, mock)
	require.NoError(t, l.Do(context.Background(), func() { core.deadline = mock.Now().Add(time.Second) }))
	mock.Add(time.Second)
	select {
	case <-core.fired:
	case <-time.After(5 * time.Second):
		t.Fatal("the loop did not wake at the deadline")
	}
}

// TestGoOutcomeDeliveredEvenWhileStopping proves that background work
// started with Go has its outcome delivered on the loop, and that work
// still running when the loop stops is delivered after shutdown rather
// than lost, so whatever waits on it completes.
func TestGoOutcomeDeliveredEvenWhileStopping(t *testing.T) {
	release := make(chan struct{})
	l := New(&fakeCore{fired: make(chan struct{})}, clock.NewMock(), nil)
	// The work finishes only once shutdown has begun.
	require.NoError(t, l.Start(context.Background(), func() error { return nil }, func() { close(release) }))
	var delivered atomic.Bool
	require.NoError(t, l.Do(context.Background(), func() {
		l.Go(func() func() {
			<-release
			return func() { delivered.Store(true) }
		})
	}))
	l.Stop()
	assert.True(t, delivered.Load(), "delivered during shutdown")
}

// TestConcurrentDoRunsOneAtATime proves that Do's two paths (the caller's
// goroutine when the loop is idle, the loop's goroutine when it is busy)
// never run two functions, or a function and a Poll, at once: many
// goroutines call Do together and a function that saw another inside
// fails the test (the race detector sees the rest).
func TestConcurrentDoRunsOneAtATime(t *testing.T) {
	core := &fakeCore{fired: make(chan struct{})}
	l := start(t, core, clock.NewMock())
	var inside atomic.Int32
	var overlaps atomic.Int32
	count := 0 // touched only inside Do: the race detector checks that
	done := make(chan struct{})
	const callers, calls = 8, 200
	for range callers {
		go func() {
			defer func() { done <- struct{}{} }()
			for range calls {
				require.NoError(t, l.Do(context.Background(), func() {
					if inside.Add(1) != 1 {
						overlaps.Add(1)
					}
					count++
					inside.Add(-1)
				}))
			}
		}()
	}
	for range callers {
		<-done
	}
	var total int
	require.NoError(t, l.Do(context.Background(), func() { total = count }))
	assert.Zero(t, overlaps.Load(), "functions overlapped")
	assert.Equal(t, callers*calls, total)
}

// TestDeadlineMovedLaterStillFires proves that keeping a timer armed for
// an earlier deadline loses nothing: the core's deadline moves later, the
// early timer fires, and the loop arms again and runs the work at the new
// deadline.
func TestDeadlineMovedLaterStillFires(t *testing.T) {
	mock := clock.NewMock()
	core := &fakeCore{clock: mock, fired: make(chan struct{})}
	l := start(t, core, mock)
	require.NoError(t, l.Do(context.Background(), func() { core.deadline = mock.Now().Add(time.Second) }))
	require.NoError(t, l.Do(context.Background(), func() { core.deadline = mock.Now().Add(3 * time.Second) }))
	mock.Add(time.Second) // the early timer fires: nothing due yet
	require.NoError(t, l.Do(context.Background(), func() {}))
	select {
	case <-core.fired:
		t.Fatal("the work ran before its deadline")
	default:
	}
	mock.Add(2 * time.Second)
	select {
	case <-core.fired:
	case <-time.After(5 * time.Second):
		t.Fatal("the loop did not wake at the moved deadline")
	}
}
