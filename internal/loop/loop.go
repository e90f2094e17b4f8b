// Package loop runs a pure state machine in real time on one goroutine
// (docs/design.md §Time and scheduling), with nothing of any coordinator in
// it: coordinator/live drives the group coordinator on it and txn/txnlive
// the transaction coordinator, so both are driven the same way.
//
// A Loop owns one goroutine, the only one that touches the core. It waits on
// a request (a function posted by Do), the outcome of background work
// started with Go (delivered on the loop), a wake-up from a clock timer armed
// for the core's NextDeadline, and the end of Start's context or Stop.
// Before every request or outcome it polls the core, so each input sees the
// work due at the clock's now already done; after every input it polls until
// nothing is due and re-arms the timer.
//
// What it must never do: touch the core from any goroutine but the loop
// (not from a timer callback, not from background work, not from a caller of
// Do), or be used inside a simulation: it reads a clock and starts
// goroutines.
package loop

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/benbjohnson/clock"
)

// Limits (STYLE.md: a limit on everything).
const (
	requestQueueMax = 256
	resultQueueMax  = 64
	settleRoundsMax = 64
)

// Errors a Loop returns.
var (
	// ErrNotStarted is returned by calls made before Start.
	ErrNotStarted = errors.New("loop: not started")
	// ErrStopped is returned by calls made after Stop or the end of Start's
	// context.
	ErrStopped = errors.New("loop: stopped")
	// ErrAlreadyStarted is returned by a second Start.
	ErrAlreadyStarted = errors.New("loop: already started")
)

// Core is the state machine a Loop drives. Both methods run on the loop.
type Core interface {
	// Poll runs what is due at the clock's now and returns how much ran.
	Poll() int
	// NextDeadline is when Poll next has work, if ever.
	NextDeadline() (time.Time, bool)
}

// Loop drives one Core. Its methods are safe for concurrent use.
type Loop struct {
	core  Core
	clock clock.Clock
	log   *slog.Logger

	requests chan *request
	results  chan func()
	wake     chan struct{}
	stop     chan struct{}
	done     chan struct{}

	mu      sync.Mutex
	started bool
	stopped bool

	inflight atomic.Int64

	// Owned by the loop.
	timer   *clock.Timer
	armedAt time.Time
}

// New returns a loop for core on clk (nil: the wall clock); nothing runs
// until Start.
func New(core Core, clk clock.Clock, log *slog.Logger) *Loop {
	if clk == nil {
		clk = clock.New()
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Loop{core: core, clock: clk, log: log,
		requests: make(chan *request, requestQueueMax), results: make(chan func(), resultQueueMax),
		wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
}

// Clock is the loop's clock.
func (l *Loop) Clock() clock.Clock { return l.clock }

// Start runs startup on the loop and returns its error; the loop then runs
// until Stop or the end of ctx, which run shutdown on the loop. A startup
// error runs shutdown too and ends the loop.
func (l *Loop) Start(ctx context.Context, startup func() error, shutdown func()) error {
	l.mu.Lock()
	switch {
	case l.stopped:
		l.mu.Unlock()
		return ErrStopped
	case l.started:
		l.mu.Unlock()
		return ErrAlreadyStarted
	}
	l.started = true
	l.mu.Unlock()
	startErr := make(chan error, 1)
	go l.run(ctx, startup, shutdown, startErr)
	return <-startErr
}

// Stop ends the loop and waits for it; idempotent. It must not be called
// from the loop.
func (l *Loop) Stop() {
	l.mu.Lock()
	if !l.stopped {
		l.stopped = true
		close(l.stop)
	}
	started := l.started
	l.mu.Unlock()
	if started {
		<-l.done
	}
}

// Done is closed once the loop has exited.
func (l *Loop) Done() <-chan struct{} { return l.done }

func (l *Loop) usable() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.stopped:
		return ErrStopped
	case !l.started:
		return ErrNotStarted
	}
	select {
	case <-l.done:
		return ErrStopped
	default:
		return nil
	}
}

const (
	requestPending int32 = iota
	requestRunning
	requestAbandoned
)

type request struct {
	fn    func()
	state atomic.Int32
	ran   chan struct{}
}

// Do runs fn on the loop, after a Poll, and returns nil once it has run.
// If ctx ends first fn never runs and Do returns ctx.Err(); if the loop
// stops first, ErrStopped. fn must not block or call the Loop.
func (l *Loop) Do(ctx context.Context, fn func()) error {
	if err := l.usable(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	r := &request{fn: fn, ran: make(chan struct{})}
	select {
	case l.requests <- r:
	case <-l.done:
		return ErrStopped
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-r.ran:
		return nil
	case <-l.done:
		select {
		case <-r.ran:
			return nil
		default:
			return ErrStopped
		}
	case <-ctx.Done():
		if r.state.CompareAndSwap(requestPending, requestAbandoned) {
			return ctx.Err()
		}
		<-r.ran
		return nil
	}
}

// Queued is the number of requests waiting for the loop (tests).
func (l *Loop) Queued() int { return len(l.requests) }

// Go runs work on a goroutine of its own and delivers the function it
// returns on the loop: the way a core starts I/O without blocking the loop.
// An outcome that arrives while the loop shuts down is still delivered
// (after shutdown), so whatever waits on it completes. Call it from the loop.
func (l *Loop) Go(work func() (deliver func())) {
	l.inflight.Add(1)
	go func() {
		deliver := work()
		select {
		case l.results <- deliver:
		case <-l.done:
			l.inflight.Add(-1)
		}
	}()
}

func (l *Loop) run(ctx context.Context, startup func() error, shutdown func(), startErr chan<- error) {
	defer close(l.done)
	if err := startup(); err != nil {
		l.shutdown(shutdown)
		startErr <- err
		return
	}
	startErr <- nil
	for {
		l.settle()
		select {
		case <-ctx.Done():
			l.shutdown(shutdown)
			return
		case <-l.stop:
			l.shutdown(shutdown)
			return
		case r := <-l.requests:
			if r.state.CompareAndSwap(requestPending, requestRunning) {
				l.core.Poll()
				r.fn()
				close(r.ran)
			}
		case deliver := <-l.results:
			l.inflight.Add(-1)
			l.core.Poll()
			deliver()
		case <-l.wake:
		}
	}
}

func (l *Loop) shutdown(shutdown func()) {
	l.disarm()
	shutdown()
	for l.inflight.Load() > 0 {
		deliver := <-l.results
		l.inflight.Add(-1)
		deliver()
	}
}

// settle polls until nothing is due at the clock's now, then arms the timer
// for the next deadline; never for a time already reached (a Mock would not
// fire it).
func (l *Loop) settle() {
	for range settleRoundsMax {
		next, ok := l.core.NextDeadline()
		if !ok {
			l.disarm()
			return
		}
		if wait := l.clock.Until(next); wait > 0 {
			l.arm(next, wait)
			return
		}
		l.core.Poll()
	}
	l.log.Warn("work still due after bounded polls; yielding to other inputs", "rounds", settleRoundsMax)
	l.signalWake()
}

func (l *Loop) arm(next time.Time, wait time.Duration) {
	if l.timer != nil && l.armedAt.Equal(next) {
		return
	}
	l.disarm()
	l.timer = l.clock.AfterFunc(wait, l.signalWake)
	l.armedAt = next
}

func (l *Loop) disarm() {
	if l.timer != nil {
		l.timer.Stop()
		l.timer = nil
	}
}

func (l *Loop) signalWake() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}
