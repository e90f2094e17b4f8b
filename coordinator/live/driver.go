package live

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/plugin"
)

// DefaultPluginCallTimeout bounds one topology-store call when
// Options.PluginCallTimeout is zero. Kafka sets no such bound (its plugin
// calls are futures); a live driver needs one so that a store that hangs
// fails the call as transient instead of holding a push for ever. Not a
// Kafka key.
const DefaultPluginCallTimeout = 30 * time.Second

// Limits (STYLE.md: a limit on everything).
const (
	// requestQueueMax bounds the requests waiting for the loop; Do blocks
	// (under its context) while the queue is full.
	requestQueueMax = 256
	// resultQueueMax bounds the plugin outcomes waiting for the loop; a plugin
	// goroutine blocks while the queue is full.
	resultQueueMax = 64
	// settleRoundsMax bounds the polls after one input. Each poll runs all
	// that is due at the clock's now, so more than one or two rounds means
	// the clock keeps moving under the loop; past the bound the loop yields
	// to other inputs and comes back.
	settleRoundsMax = 64
)

// Errors the driver returns besides the coordinator's own.
var (
	// ErrNotStarted is returned by calls made before Start.
	ErrNotStarted = errors.New("live: the driver is not started")
	// ErrStopped is returned by calls made after Stop, or after the loop
	// ended because Start's context did.
	ErrStopped = errors.New("live: the driver is stopped")
	// ErrAlreadyStarted is returned by a second Start.
	ErrAlreadyStarted = errors.New("live: the driver is already started")
)

// Options are everything New needs besides the coordinator configuration.
type Options struct {
	// BrokerID names the broker in logs and metrics.
	BrokerID int32
	// Clock is the source of time and timers; nil means clock.New(), the
	// wall clock. Tests pass a *clock.Mock.
	Clock clock.Clock
	// TopologyPlugin is the KIP-1331 topology-description store; nil disables
	// the feature. It must be safe for concurrent use (plugin.Store says so).
	TopologyPlugin plugin.Store
	// PluginCallTimeout bounds each topology-store call, measured on Clock;
	// zero means DefaultPluginCallTimeout. A call that has not returned by
	// then fails as transient and the store's own goroutine is abandoned.
	PluginCallTimeout time.Duration
	// Logger receives the driver's and the coordinator's logs; nil discards
	// them.
	Logger *slog.Logger
	// Partitions are the __consumer_offsets partitions to host; nil hosts
	// all of cfg.NumPartitions.
	Partitions []int32
	// Logs are the __consumer_offsets partition logs, shared by the drivers
	// of one cluster so that a partition can move between them (unload on
	// one loop, then load on another: never both at once, since a Log is
	// not safe for concurrent use); nil creates private ones.
	Logs *coordinator.Logs
}

// Driver runs one coordinator in real time on one goroutine, the loop.
// Its methods are safe for concurrent use; the coordinator is reached only
// through Do and the helpers built on it.
type Driver struct {
	c                 *coordinator.Coordinator
	clock             clock.Clock
	log               *slog.Logger
	pluginCallTimeout time.Duration
	partitions        []int32

	requests chan *request
	results  chan func()
	wake     chan struct{} // one slot: a pending wake-up is enough
	stop     chan struct{} // closed by Stop
	done     chan struct{} // closed when the loop has exited

	mu      sync.Mutex
	started bool
	stopped bool

	// pluginCtx is the parent of every plugin call's context; shutdown
	// cancels it so calls in flight return at once.
	pluginCtx     context.Context
	cancelPlugins context.CancelFunc
	// inflight counts plugin calls whose outcome the loop has not taken yet.
	inflight atomic.Int64

	// Owned by the loop.
	timer   *clock.Timer
	armedAt time.Time

	// onPoll, when set before Start, sees the event count of every Poll the
	// loop makes, on the loop (tests).
	onPoll func(events int)
}

// New builds a driver and its coordinator. Nothing runs until Start.
func New(cfg coordinator.Config, opts Options) (*Driver, error) {
	clk := opts.Clock
	if clk == nil {
		clk = clock.New()
	}
	timeout := opts.PluginCallTimeout
	switch {
	case timeout == 0:
		timeout = DefaultPluginCallTimeout
	case timeout < 0:
		return nil, fmt.Errorf("live: negative plugin call timeout %v", timeout)
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("live: %w", err)
	}
	partitions, err := hostedPartitions(opts.Partitions, cfg.NumPartitions)
	if err != nil {
		return nil, err
	}
	pluginCtx, cancelPlugins := context.WithCancel(context.Background())
	d := &Driver{
		clock: clk, log: logger.With("component", "live", "broker", opts.BrokerID),
		pluginCallTimeout: timeout, partitions: partitions,
		requests:  make(chan *request, requestQueueMax),
		results:   make(chan func(), resultQueueMax),
		wake:      make(chan struct{}, 1),
		stop:      make(chan struct{}),
		done:      make(chan struct{}),
		pluginCtx: pluginCtx, cancelPlugins: cancelPlugins,
	}
	d.c, err = coordinator.New(cfg, coordinator.Options{
		BrokerID: opts.BrokerID, Clock: clk, Logger: logger, Logs: opts.Logs,
		TopologyPlugin: opts.TopologyPlugin, PluginExecutor: d,
	})
	if err != nil {
		cancelPlugins()
		return nil, fmt.Errorf("live: %w", err)
	}
	return d, nil
}

// hostedPartitions checks the requested partitions and returns them sorted;
// nil means all.
func hostedPartitions(ps []int32, n int32) ([]int32, error) {
	if ps == nil {
		all := make([]int32, n)
		for p := range n {
			all[p] = p
		}
		return all, nil
	}
	out := slices.Sorted(slices.Values(ps))
	for i, p := range out {
		if p < 0 || p >= n {
			return nil, fmt.Errorf("live: partition %d is out of range [0, %d)", p, n)
		}
		if i > 0 && out[i-1] == p {
			return nil, fmt.Errorf("live: partition %d is listed twice", p)
		}
	}
	return out, nil
}

// Start starts the coordinator on the loop (Startup, then LoadShard for each
// hosted partition) and returns once that is done, with its error. The loop
// then runs until Stop or until ctx ends, which both shut the coordinator
// down; Done is closed when it has exited.
func (d *Driver) Start(ctx context.Context) error {
	d.mu.Lock()
	switch {
	case d.stopped:
		d.mu.Unlock()
		return ErrStopped
	case d.started:
		d.mu.Unlock()
		return ErrAlreadyStarted
	}
	d.started = true
	d.mu.Unlock()
	startErr := make(chan error, 1)
	go d.loop(ctx, startErr)
	return <-startErr
}

// Stop shuts the coordinator down on the loop and waits for the loop to
// exit. Pending writes fail with NOT_COORDINATOR; plugin calls in flight
// have their context cancelled and their outcomes are delivered to the shut
// down coordinator, so their futures complete too. A store that ignores its
// context is abandoned on its own goroutine and its answer dropped. Stop is
// idempotent; every later call on the driver returns ErrStopped. It must not
// be called from a function running on the loop.
func (d *Driver) Stop() {
	d.mu.Lock()
	if !d.stopped {
		d.stopped = true
		close(d.stop)
	}
	started := d.started
	d.mu.Unlock()
	if started {
		<-d.done
	}
}

// Done is closed when the loop has exited, after Stop or the end of Start's
// context. It is never closed if Start was not called.
func (d *Driver) Done() <-chan struct{} { return d.done }

// usable reports why a call cannot be made now, if it cannot.
func (d *Driver) usable() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case d.stopped:
		return ErrStopped
	case !d.started:
		return ErrNotStarted
	}
	select {
	case <-d.done:
		return ErrStopped
	default:
		return nil
	}
}

// Request states: the loop and an abandoning caller race for a pending
// request with compare-and-swap, so a request either runs or is abandoned,
// never both.
const (
	requestPending int32 = iota
	requestRunning
	requestAbandoned
)

type request struct {
	fn    func(*coordinator.Coordinator)
	state atomic.Int32
	ran   chan struct{} // closed after fn returned
}

// Do runs fn on the loop, after a Poll, and returns once it has run. It is
// the only way to touch the coordinator from outside. fn must not block and
// must not call the Driver; futures it creates complete on the loop, so
// register OnDone inside fn and wait outside (see the typed helpers).
//
// Do returns nil if and only if fn ran. If ctx ends first, fn will never
// run and Do returns ctx.Err(); if the driver stops first, ErrStopped.
func (d *Driver) Do(ctx context.Context, fn func(c *coordinator.Coordinator)) error {
	if err := d.usable(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	r := &request{fn: fn, ran: make(chan struct{})}
	select {
	case d.requests <- r:
	case <-d.done:
		return ErrStopped
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-r.ran:
		return nil
	case <-d.done:
		// The loop closes ran before done, so a request that ran is seen here.
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
		// fn is running on the loop and does not block: report that it ran.
		<-r.ran
		return nil
	}
}

// Execute implements coordinator.PluginExecutor: it runs call on a new
// goroutine with a context bounded by the plugin call timeout (on the
// driver's clock) and posts the delivery of its outcome to the loop, so
// deliver always runs on the loop. If the loop has exited, the outcome is
// dropped. The coordinator calls it; there is no reason to call it yourself.
func (d *Driver) Execute(_ plugin.Op, _ string, call func(context.Context) coordinator.PluginResult, deliver func(coordinator.PluginResult)) {
	d.inflight.Add(1)
	ctx, cancel := d.clock.WithTimeout(d.pluginCtx, d.pluginCallTimeout)
	go func() {
		defer cancel() // stops the timeout's timer: a Mock keeps few timers
		r := call(ctx)
		select {
		case d.results <- func() { deliver(r) }:
		case <-d.done:
			d.inflight.Add(-1)
		}
	}()
}

var _ coordinator.PluginExecutor = (*Driver)(nil)

// loop is the driver's goroutine, the only one that touches the coordinator.
func (d *Driver) loop(ctx context.Context, startErr chan<- error) {
	defer close(d.done)
	if err := d.startup(); err != nil {
		d.shutdown()
		startErr <- err
		return
	}
	startErr <- nil
	d.log.Info("coordinator loop started", "partitions", len(d.partitions))
	for {
		d.settle()
		select {
		case <-ctx.Done():
			d.log.Info("context ended; shutting the coordinator down", "cause", context.Cause(ctx))
			d.shutdown()
			return
		case <-d.stop:
			d.log.Info("stopping; shutting the coordinator down")
			d.shutdown()
			return
		case r := <-d.requests:
			if r.state.CompareAndSwap(requestPending, requestRunning) {
				d.poll()
				r.fn(d.c)
				close(r.ran)
			}
		case deliver := <-d.results:
			d.inflight.Add(-1)
			d.poll()
			deliver()
		case <-d.wake:
			// settle polls whatever the timer woke us for.
		}
	}
}

func (d *Driver) startup() error {
	if err := d.c.Startup(); err != nil {
		return fmt.Errorf("live: starting the coordinator: %w", err)
	}
	for _, p := range d.partitions {
		if err := d.c.LoadShard(p); err != nil {
			return fmt.Errorf("live: loading partition %d: %w", p, err)
		}
	}
	return nil
}

// shutdown runs on the loop as it exits.
func (d *Driver) shutdown() {
	d.disarm()
	// Cancel the plugin calls in flight before the coordinator closes the
	// store, so a store sees its callers give up before Close. plugin.Safe*
	// returns at once when its context ends, so the drain below is short.
	d.cancelPlugins()
	d.c.Shutdown()
	// Deliver the outcomes so the futures waiting on them complete (with an
	// error: the coordinator is shut down).
	for d.inflight.Load() > 0 {
		deliver := <-d.results
		d.inflight.Add(-1)
		deliver()
	}
	// Requests still queued never run: their callers see done and return
	// ErrStopped.
}

func (d *Driver) poll() {
	n := d.c.Poll()
	if d.onPoll != nil {
		d.onPoll(n)
	}
}

// settle polls until nothing is due at the clock's now, then arms the timer
// for the next deadline. A timer is never armed for a time already reached:
// a Mock would not fire it until its clock moves again.
func (d *Driver) settle() {
	for range settleRoundsMax {
		next, ok := d.c.NextDeadline()
		if !ok {
			d.disarm()
			return
		}
		if wait := d.clock.Until(next); wait > 0 {
			d.arm(next, wait)
			return
		}
		d.poll()
	}
	d.log.Warn("work still due after bounded polls; yielding to other inputs", "rounds", settleRoundsMax)
	d.signalWake()
}

// arm makes the timer wake the loop at next. The callback only signals a
// channel: it runs on a goroutine of its own (always, with a Mock) and must
// never touch the coordinator.
func (d *Driver) arm(next time.Time, wait time.Duration) {
	if d.timer != nil && d.armedAt.Equal(next) {
		return
	}
	d.disarm()
	d.timer = d.clock.AfterFunc(wait, d.signalWake)
	d.armedAt = next
}

// disarm stops the timer. A callback already under way only sends a
// spurious wake-up, which settle absorbs.
func (d *Driver) disarm() {
	if d.timer != nil {
		d.timer.Stop()
		d.timer = nil
	}
}

func (d *Driver) signalWake() {
	select {
	case d.wake <- struct{}{}:
	default: // a wake-up is already pending
	}
}
