// Package loop runs a pure state machine in real time, one input at a time
// (docs/design.md §Time and scheduling), with nothing of any coordinator in
// it: coordinator/live drives the group coordinator on it and txn/txnlive
// the transaction coordinator, so both are driven the same way.
//
// A Loop owns the core: whoever touches it holds the loop's ownership, a
// mutex, so the core only ever sees one input at a time. The loop's own
// goroutine waits on a request (a function posted by Do) that found the
// loop busy, the outcome of background work started with Go (delivered on
// the loop), a wake-up from a clock timer armed for the core's
// NextDeadline, and the end of Start's context or Stop. A Do that finds the
// loop idle takes ownership and runs its function on the caller's
// goroutine instead: a request then costs no goroutine switch, as a
// Kafka request handler thread runs its coordinator operation itself
// (CoordinatorRuntime's event processor) without a hop per request. Before
// every request or outcome the owner polls the core, so each input sees the
// work due at the clock's now already done; after every input it polls
// until nothing is due and re-arms the timer.
//
// What it must never do: touch the core without ownership (not from a
// timer callback, not from background work, not from a function given to
// Do that calls back into the Loop), or be used inside a simulation: it
// reads a clock and starts goroutines.
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

// Core is the state machine a Loop drives. Both methods run with the loop's
// ownership, one call at a time, on whichever goroutine holds it.
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
	// running is set once startup has succeeded, until shutdown begins:
	// Do's way in reads it instead of taking mu.
	running atomic.Bool

	inflight atomic.Int64
	// queued counts requests posted to the loop's goroutine that have
	// neither run nor been abandoned.
	queued atomic.Int64

	// owner is held by whoever touches the core: the loop's goroutine
	// while it handles an input, or a caller of Do that found the loop
	// idle. Everything below is guarded by it.
	owner sync.Mutex
	// exited is set when shutdown has begun: nothing touches the core
	// after that but shutdown and the outcomes it drains.
	exited  bool
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
// from a function running on the loop.
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
	if l.running.Load() {
		return nil
	}
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
		return nil // starting up: a request waits for startup
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
//
// When the loop is idle, fn runs on the caller's goroutine with the loop's
// ownership; otherwise it is queued for the loop's goroutine. Either way it
// runs alone with the core.
func (l *Loop) Do(ctx context.Context, fn func()) error {
	if err := l.usable(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if l.owner.TryLock() {
		if l.exited {
			l.owner.Unlock()
			return ErrStopped
		}
		l.core.Poll()
		fn()
		l.settle()
		l.owner.Unlock()
		return nil
	}
	return l.post(ctx, fn)
}

// post queues fn for the loop's goroutine and waits for it to run.
func (l *Loop) post(ctx context.Context, fn func()) error {
	r := &request{fn: fn, ran: make(chan struct{})}
	l.queued.Add(1)
	select {
	case l.requests <- r:
	case <-l.done:
		l.queued.Add(-1)
		return ErrStopped
	case <-ctx.Done():
		l.queued.Add(-1)
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
			l.queued.Add(-1)
			return ctx.Err()
		}
		<-r.ran
		return nil
	}
}

// Queued is the number of requests waiting for the loop's goroutine (tests).
func (l *Loop) Queued() int { return int(l.queued.Load()) }

// Go runs work on a goroutine of its own and delivers the function it
// returns on the loop: the way a core starts I/O without blocking the loop.
// An outcome that arrives while the loop shuts down is still delivered
// (after shutdown), so whatever waits on it completes. Call it with the
// loop's ownership (from the core, or a function given to Do).
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
	l.owner.Lock()
	if err := startup(); err != nil {
		l.shutdown(shutdown)
		l.owner.Unlock()
		startErr <- err
		return
	}
	l.settle()
	l.owner.Unlock()
	l.running.Store(true)
	startErr <- nil
	for {
		var r *request
		var deliver func()
		select {
		case <-ctx.Done():
		case <-l.stop:
		case r = <-l.requests:
		case deliver = <-l.results:
			l.inflight.Add(-1)
		case <-l.wake:
		}
		l.owner.Lock()
		switch {
		case r != nil:
			if r.state.CompareAndSwap(requestPending, requestRunning) {
				l.queued.Add(-1)
				l.core.Poll()
				r.fn()
				close(r.ran)
			}
		case deliver != nil:
			l.core.Poll()
			deliver()
		case ctx.Err() != nil || l.isStopping():
			l.running.Store(false)
			l.shutdown(shutdown)
			l.owner.Unlock()
			return
		}
		l.settle()
		l.owner.Unlock()
	}
}

// isStopping reports whether Stop has been called.
func (l *Loop) isStopping() bool {
	select {
	case <-l.stop:
		return true
	default:
		return false
	}
}

// shutdown runs shutdown and then every outcome still in flight. Called
// with ownership.
func (l *Loop) shutdown(shutdown func()) {
	l.exited = true
	l.disarm()
	shutdown()
	for l.inflight.Load() > 0 {
		deliver := <-l.results
		l.inflight.Add(-1)
		deliver()
	}
}

// settle polls until nothing is due at the clock's now, then makes sure a
// timer will wake the loop by the next deadline; never arms one for a time
// already reached (a Mock would not fire it). Called with ownership.
func (l *Loop) settle() {
	for range settleRoundsMax {
		next, ok := l.core.NextDeadline()
		if !ok {
			l.disarm()
			return
		}
		now := l.clock.Now()
		if next.After(now) {
			l.arm(next, now)
			return
		}
		l.core.Poll()
	}
	l.log.Warn("work still due after bounded polls; yielding to other inputs", "rounds", settleRoundsMax)
	l.signalWake()
}

// arm makes sure a timer fires by next. A timer still pending for an
// earlier time is kept: when it fires the loop settles and arms again for
// the deadline of then. A session timeout pushed forward by every
// heartbeat thus costs a timer once per session timeout, not one per
// request.
func (l *Loop) arm(next, now time.Time) {
	if l.timer != nil && !l.armedAt.After(next) && now.Before(l.armedAt) {
		return
	}
	l.disarm()
	l.timer = l.clock.AfterFunc(next.Sub(now), l.signalWake)
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
