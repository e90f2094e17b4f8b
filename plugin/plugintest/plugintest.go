// Package plugintest is the conformance suite for topology stores, in the spirit of
// testing/fstest: one call runs every check of the plugin.Store contract against a
// store and returns an error naming each check that failed.
//
// Run it from a test of your own store:
//
//	func TestConformance(t *testing.T) {
//		plugintest.Run(t, func() (plugin.Store, error) { return mystore.New(), nil })
//	}
//
// or, outside of a test, err := plugintest.TestStore(newStore). newStore must return
// a new, empty store on each call. A durable store adds WithReopen to check that data
// survives Close and a reopen.
//
// The checks: roundtrip, idempotent-set, new-epoch-replaces, epoch-scoped-get,
// unknown-group, delete-across-epochs, delete-nothing-stored, delete-then-get,
// groups-isolated, copies, large-description, unicode-group-ids, concurrent, closed,
// cancelled-context, and reopen (with WithReopen). A store that is a
// plugin.FencedStore also gets fenced-stale-delete, fenced-stale-set,
// fenced-token-survives-delete, fenced-equal-accepted, fenced-groups-isolated,
// fenced-bad-token and (with WithReopen) fenced-reopen. Run the suite with -race: the concurrent check is
// only as good as the race detector behind it.
//
// # What it must never do
//
// It never panics because a store did (a panic fails the check it happened in), never
// leaves a store it created open, and never depends on timing: the concurrent check
// verifies properties that hold in every interleaving.
package plugintest

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"testing"

	"github.com/coordsim/coordsim/plugin"
)

// Option configures the suite.
type Option func(*config)

type config struct {
	reopen       func() (plugin.Store, error)
	history      bool
	goroutines   int
	opsPerWorker int
}

// WithReopen adds the reopen check for durable stores. reopen must open the data of
// the store that newStore returned last, after that store was closed.
func WithReopen(reopen func() (plugin.Store, error)) Option {
	return func(c *config) { c.reopen = reopen }
}

// AllowEpochHistory relaxes new-epoch-replaces for stores that keep the descriptions
// of older epochs: after a set at epoch 2, a get at epoch 1 may return the epoch-1
// description (never the epoch-2 one). Every other check still holds; in particular
// a delete must remove every epoch.
func AllowEpochHistory() Option {
	return func(c *config) { c.history = true }
}

// WithConcurrency sets how many goroutines the concurrent check runs and how many
// operations each makes (16 and 200 by default). Both are clamped to [1, 1024] and
// [1, 100000].
func WithConcurrency(goroutines, opsPerGoroutine int) Option {
	return func(c *config) {
		c.goroutines = min(max(goroutines, 1), 1024)
		c.opsPerWorker = min(max(opsPerGoroutine, 1), 100_000)
	}
}

// check is one contract check against a fresh store.
type check struct {
	name   string
	reopen bool // runs only with WithReopen
	fenced bool // runs only on a plugin.FencedStore (plugin.AsFenced)
	run    func(e *env) error
}

// checks returns the suite in the order it runs.
func checks() []check {
	return []check{
		{name: "roundtrip", run: checkRoundtrip},
		{name: "idempotent-set", run: checkIdempotentSet},
		{name: "new-epoch-replaces", run: checkNewEpochReplaces},
		{name: "epoch-scoped-get", run: checkEpochScopedGet},
		{name: "unknown-group", run: checkUnknownGroup},
		{name: "delete-across-epochs", run: checkDeleteAcrossEpochs},
		{name: "delete-nothing-stored", run: checkDeleteNothingStored},
		{name: "delete-then-get", run: checkDeleteThenGet},
		{name: "groups-isolated", run: checkGroupsIsolated},
		{name: "copies", run: checkCopies},
		{name: "large-description", run: checkLargeDescription},
		{name: "unicode-group-ids", run: checkUnicodeGroupIDs},
		{name: "concurrent", run: checkConcurrent},
		{name: "closed", run: checkClosed},
		{name: "cancelled-context", run: checkCancelledContext},
		{name: "fenced-stale-delete", fenced: true, run: checkFencedStaleDelete},
		{name: "fenced-stale-set", fenced: true, run: checkFencedStaleSet},
		{name: "fenced-token-survives-delete", fenced: true, run: checkFencedTokenSurvivesDelete},
		{name: "fenced-equal-accepted", fenced: true, run: checkFencedEqualAccepted},
		{name: "fenced-groups-isolated", fenced: true, run: checkFencedGroupsIsolated},
		{name: "fenced-bad-token", fenced: true, run: checkFencedBadToken},
		{name: "fenced-reopen", reopen: true, fenced: true, run: checkFencedReopen},
		{name: "reopen", reopen: true, run: checkReopen},
	}
}

// Checks returns the names of the checks, in the order the suite runs them. The
// reopen checks run only with WithReopen, the fenced-* checks only against a store
// that is a plugin.FencedStore (see plugin.AsFenced).
func Checks() []string {
	cs := checks()
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.name
	}
	return names
}

func newConfig(opts []Option) *config {
	c := &config{goroutines: 16, opsPerWorker: 200}
	for _, o := range opts {
		o(c)
	}
	return c
}

// TestStore runs every check against stores made by newStore and returns nil if the
// store conforms, or an error joining one error per failed check, each prefixed with
// the check's name. Each check gets its own store from newStore and closes it.
func TestStore(newStore func() (plugin.Store, error), opts ...Option) error {
	cfg := newConfig(opts)
	var errs []error
	for _, c := range checks() {
		if c.reopen && cfg.reopen == nil {
			continue
		}
		if err := runCheck(c, newStore, cfg); err != nil {
			if errors.Is(err, errNotFenced) {
				continue
			}
			errs = append(errs, fmt.Errorf("%s: %w", c.name, err))
		}
	}
	return errors.Join(errs...)
}

// Run runs each check of TestStore as a subtest of t, named after the check, so that
// one check can be selected with -run.
func Run(t *testing.T, newStore func() (plugin.Store, error), opts ...Option) {
	t.Helper()
	cfg := newConfig(opts)
	for _, c := range checks() {
		if c.reopen && cfg.reopen == nil {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			if err := runCheck(c, newStore, cfg); errors.Is(err, errNotFenced) {
				t.Skip("the store is not a plugin.FencedStore")
			} else if err != nil {
				t.Error(err)
			}
		})
	}
}

// errNotFenced skips a fenced-* check on a store that is not fenced.
var errNotFenced = errors.New("not a plugin.FencedStore")

// env is what a check works with.
type env struct {
	ctx    context.Context
	cfg    *config
	s      plugin.Store
	closed bool // the check closed s itself
}

// runCheck gives c a fresh store, turns a panic into an error and closes the store.
func runCheck(c check, newStore func() (plugin.Store, error), cfg *config) (err error) {
	if newStore == nil {
		return errors.New("newStore is nil")
	}
	s, err := newStore()
	if err != nil {
		return fmt.Errorf("new store: %w", err)
	}
	if s == nil {
		return errors.New("new store: newStore returned a nil store")
	}
	e := &env{ctx: context.Background(), cfg: cfg, s: s}
	if _, ok := plugin.AsFenced(s); c.fenced && !ok {
		_ = closeStore(s)
		return errNotFenced
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
		}
		if !e.closed {
			if cerr := closeStore(e.s); cerr != nil {
				err = errors.Join(err, fmt.Errorf("close: %w", cerr))
			}
		}
	}()
	return c.run(e)
}

// closeStore closes s, turning a panic into an error.
func closeStore(s plugin.Store) (err error) {
	defer func() {
		if p := recover(); p != nil {
			//lint:ignore ST1005 the message starts with the method that panicked, Close, as Go spells it
			err = fmt.Errorf("Close panicked: %v", p)
		}
	}()
	return s.Close()
}
