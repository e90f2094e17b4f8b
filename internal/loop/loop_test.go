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
