package live

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/internal/loop"
	"github.com/coordsim/coordsim/plugin"
)

// DefaultPluginCallTimeout bounds one topology-store call when
// Options.PluginCallTimeout is zero. Kafka sets no such bound (its plugin
// calls are futures); a live driver needs one so that a store that hangs
// fails the call as transient instead of holding a push for ever. Not a
// Kafka key.
const DefaultPluginCallTimeout = 30 * time.Second

// Errors the driver returns besides the coordinator's own: the loop's
// (internal/loop), under the names callers know.
var (
	// ErrNotStarted is returned by calls made before Start.
	ErrNotStarted = loop.ErrNotStarted
	// ErrStopped is returned by calls made after Stop, or after the loop
	// ended because Start's context did.
	ErrStopped = loop.ErrStopped
	// ErrAlreadyStarted is returned by a second Start.
	ErrAlreadyStarted = loop.ErrAlreadyStarted
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

// Driver runs one coordinator in real time on one goroutine, the loop
// (internal/loop, shared with the transaction coordinator's driver).
// Its methods are safe for concurrent use; the coordinator is reached only
// through Do and the helpers built on it.
type Driver struct {
	c                 *coordinator.Coordinator
	clock             clock.Clock
	log               *slog.Logger
	pluginCallTimeout time.Duration
	partitions        []int32
	loop              *loop.Loop

	// pluginCtx is the parent of every plugin call's context; shutdown
	// cancels it so calls in flight return at once.
	pluginCtx     context.Context
	cancelPlugins context.CancelFunc

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
		pluginCtx: pluginCtx, cancelPlugins: cancelPlugins,
	}
	d.loop = loop.New(core{d}, clk, d.log)
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
	return d.loop.Start(ctx, d.startup, d.shutdown)
}

// Stop shuts the coordinator down on the loop and waits for the loop to
// exit. Pending writes fail with NOT_COORDINATOR; plugin calls in flight
// have their context cancelled and their outcomes are delivered to the shut
// down coordinator, so their futures complete too. A store that ignores its
// context is abandoned on its own goroutine and its answer dropped. Stop is
// idempotent; every later call on the driver returns ErrStopped. It must not
// be called from a function running on the loop.
func (d *Driver) Stop() { d.loop.Stop() }

// Done is closed when the loop has exited, after Stop or the end of Start's
// context. It is never closed if Start was not called.
func (d *Driver) Done() <-chan struct{} { return d.loop.Done() }

// Do runs fn on the loop, after a Poll, and returns once it has run. It is
// the only way to touch the coordinator from outside. fn must not block and
// must not call the Driver; futures it creates complete on the loop, so
// register OnDone inside fn and wait outside (see the typed helpers).
//
// Do returns nil if and only if fn ran. If ctx ends first, fn will never
// run and Do returns ctx.Err(); if the driver stops first, ErrStopped.
func (d *Driver) Do(ctx context.Context, fn func(c *coordinator.Coordinator)) error {
	return d.loop.Do(ctx, func() { fn(d.c) })
}

// Execute implements coordinator.PluginExecutor: it runs call on a new
// goroutine with a context bounded by the plugin call timeout (on the
// driver's clock) and posts the delivery of its outcome to the loop, so
// deliver always runs on the loop. If the loop has exited, the outcome is
// dropped. The coordinator calls it; there is no reason to call it yourself.
func (d *Driver) Execute(_ plugin.Op, _ string, call func(context.Context) coordinator.PluginResult, deliver func(coordinator.PluginResult)) {
	ctx, cancel := d.clock.WithTimeout(d.pluginCtx, d.pluginCallTimeout)
	d.loop.Go(func() func() {
		defer cancel() // stops the timeout's timer: a Mock keeps few timers
		r := call(ctx)
		return func() { deliver(r) }
	})
}

var _ coordinator.PluginExecutor = (*Driver)(nil)

func (d *Driver) startup() error {
	if err := d.c.Startup(); err != nil {
		return fmt.Errorf("live: starting the coordinator: %w", err)
	}
	for _, p := range d.partitions {
		if err := d.c.LoadShard(p); err != nil {
			return fmt.Errorf("live: loading partition %d: %w", p, err)
		}
	}
	d.log.Info("coordinator loop started", "partitions", len(d.partitions))
	return nil
}

// shutdown runs on the loop as it exits; the loop then delivers the plugin
// outcomes still in flight, so the futures waiting on them complete (with
// an error: the coordinator is shut down). Requests still queued never run:
// their callers see the loop done and return ErrStopped.
func (d *Driver) shutdown() {
	d.log.Info("shutting the coordinator down")
	// Cancel the plugin calls in flight before the coordinator closes the
	// store, so a store sees its callers give up before Close. plugin.Safe*
	// returns at once when its context ends, so the drain is short.
	d.cancelPlugins()
	d.c.Shutdown()
}

// core is the loop's view of the coordinator.
type core struct{ d *Driver }

func (c core) Poll() int {
	n := c.d.c.Poll()
	if c.d.onPoll != nil {
		c.d.onPoll(n)
	}
	return n
}

func (c core) NextDeadline() (time.Time, bool) { return c.d.c.NextDeadline() }
