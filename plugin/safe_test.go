package plugin_test

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/plugin"
)

// stubStore is a Store whose methods the test chooses.
type stubStore struct {
	set   func(ctx context.Context) error
	get   func(ctx context.Context) (*plugin.TopologyDescription, error)
	del   func(ctx context.Context) error
	close func() error
	calls int
}

func (s *stubStore) SetTopology(ctx context.Context, _ string, _ int32, _ *plugin.TopologyDescription) error {
	s.calls++
	return s.set(ctx)
}

func (s *stubStore) GetTopology(ctx context.Context, _ string, _ int32) (*plugin.TopologyDescription, error) {
	s.calls++
	return s.get(ctx)
}

func (s *stubStore) DeleteTopology(ctx context.Context, _ string) error {
	s.calls++
	return s.del(ctx)
}

func (s *stubStore) Close() error { return s.close() }

// failing returns a stub whose every method returns err (Get with description d).
func failing(d *plugin.TopologyDescription, err error) *stubStore {
	return &stubStore{
		set:   func(context.Context) error { return err },
		get:   func(context.Context) (*plugin.TopologyDescription, error) { return d, err },
		del:   func(context.Context) error { return err },
		close: func() error { return err },
	}
}

func panicking(v any) *stubStore {
	return &stubStore{
		set:   func(context.Context) error { panic(v) },
		get:   func(context.Context) (*plugin.TopologyDescription, error) { panic(v) },
		del:   func(context.Context) error { panic(v) },
		close: func() error { panic(v) },
	}
}

// safeCalls runs each Safe data call against s and returns the three errors.
func safeCalls(ctx context.Context, s plugin.Store) map[plugin.Op]error {
	_, getErr := plugin.SafeGet(ctx, s, "g", 1)
	return map[plugin.Op]error{
		plugin.OpSet:    plugin.SafeSet(ctx, s, "g", 1, plugin.SampleTopology(1, 1)),
		plugin.OpGet:    getErr,
		plugin.OpDelete: plugin.SafeDelete(ctx, s, "g"),
	}
}

// TestSafePanicIsPermanent proves that a panic inside any store method, inline or on
// the deadline goroutine, comes back as a permanent *PanicError with Kafka's fixed
// message and the panic value, instead of crashing the caller.
func TestSafePanicIsPermanent(t *testing.T) {
	withDeadline, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	for name, ctx := range map[string]context.Context{"inline": context.Background(), "deadline": withDeadline} {
		t.Run(name, func(t *testing.T) {
			for op, err := range safeCalls(ctx, panicking("boom")) {
				var pe *plugin.PanicError
				require.ErrorAs(t, err, &pe, "%s", op)
				assert.Equal(t, "boom", pe.Value)
				assert.Equal(t, op, pe.Op)
				assert.NotEmpty(t, pe.Stack)
				assert.Equal(t, plugin.FailedMessage, err.Error())
				assert.Equal(t, plugin.ClassPermanent, plugin.Classify(err))
			}
		})
	}
	err := plugin.SafeClose(panicking(errors.New("close boom")))
	var pe *plugin.PanicError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, plugin.OpClose, pe.Op)

	// panic(nil) is a panic too (a *runtime.PanicNilError since Go 1.21).
	err = plugin.SafeDelete(context.Background(), panicking(nil), "g")
	assert.Equal(t, plugin.ClassPermanent, plugin.Classify(err))
}

// TestSafeNilStore proves that a missing store is an ErrNoStore, and that a typed nil
// store whose methods dereference it is a recovered panic, not a crash.
func TestSafeNilStore(t *testing.T) {
	ctx := context.Background()
	for op, err := range safeCalls(ctx, nil) {
		assert.ErrorIs(t, err, plugin.ErrNoStore, "%s", op)
		assert.Equal(t, plugin.ClassPermanent, plugin.Classify(err))
	}
	assert.NoError(t, plugin.SafeClose(nil))

	var typedNil *stubStore
	for op, err := range safeCalls(ctx, typedNil) {
		var pe *plugin.PanicError
		assert.ErrorAs(t, err, &pe, "%s", op)
	}
}

// brokenError is an error value that crashes whoever formats it.
type brokenError struct{}

func (brokenError) Error() string { panic("Error() panics") }

// TestSafeNonsenseIsPermanent proves that answers no correct store gives (a
// description with an error, an invalid description, a nil pointer as an error, an
// error that panics when printed) become permanent *NonsenseErrors.
func TestSafeNonsenseIsPermanent(t *testing.T) {
	ctx := context.Background()
	valid := plugin.SampleTopology(1, 1)
	invalid := plugin.SampleTopology(1, 1)
	invalid.Subtopologies[0].Nodes[0].Name = ""
	var nilPtr *myError

	tests := []struct {
		name       string
		store      *stubStore
		ops        []plugin.Op
		wantReason string
	}{
		{"description and error", failing(valid, errors.New("oops")), []plugin.Op{plugin.OpGet}, "both a description and an error"},
		{"invalid description", failing(invalid, nil), []plugin.Op{plugin.OpGet}, "invalid description"},
		{"nil pointer error", failing(nil, nilPtr), []plugin.Op{plugin.OpSet, plugin.OpGet, plugin.OpDelete}, "nil *plugin_test.myError"},
		{"panicking error", failing(nil, brokenError{}), []plugin.Op{plugin.OpSet, plugin.OpGet, plugin.OpDelete}, "methods panic"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := safeCalls(ctx, tt.store)
			for _, op := range tt.ops {
				err := errs[op]
				var ne *plugin.NonsenseError
				require.ErrorAs(t, err, &ne, "%s", op)
				assert.Equal(t, op, ne.Op)
				assert.Contains(t, ne.Reason, tt.wantReason)
				assert.Equal(t, plugin.FailedMessage, err.Error())
				assert.Equal(t, plugin.ClassPermanent, plugin.Classify(err))
			}
		})
	}
	_, err := plugin.SafeGet(ctx, failing(invalid, nil), "g", 1)
	assert.ErrorIs(t, err, plugin.ErrInvalidDescription, "the validation failure is kept")
}

// TestSafeClassifiesStoreErrors proves that the store's own errors pass through with
// their class made explicit: unclassified becomes transient, permanent stays
// permanent, and errors.Is still finds the store's error.
func TestSafeClassifiesStoreErrors(t *testing.T) {
	ctx := context.Background()
	base := errors.New("backend down")
	for op, err := range safeCalls(ctx, failing(nil, base)) {
		assert.ErrorIs(t, err, base, "%s", op)
		assert.ErrorIs(t, err, plugin.ErrTransient, "%s", op)
		assert.Equal(t, plugin.ClassTransient, plugin.Classify(err))
	}
	for op, err := range safeCalls(ctx, failing(nil, plugin.Permanent(base))) {
		assert.ErrorIs(t, err, plugin.ErrPermanent, "%s", op)
		assert.Equal(t, plugin.ClassPermanent, plugin.Classify(err))
	}
	for op, err := range safeCalls(ctx, failing(nil, nil)) {
		assert.NoError(t, err, "%s: (nil, nil) is a normal answer", op)
	}
}

// TestSafeChecksArguments proves that bad arguments fail permanently before the
// store is called.
func TestSafeChecksArguments(t *testing.T) {
	ctx := context.Background()
	s := failing(nil, nil)
	errs := []error{
		plugin.SafeSet(ctx, s, "", 1, plugin.SampleTopology(1, 1)),
		plugin.SafeSet(ctx, s, "g", -1, plugin.SampleTopology(1, 1)),
		plugin.SafeSet(ctx, s, "g", 1, nil),
		plugin.SafeSet(ctx, s, "g", 1, &plugin.TopologyDescription{}),
		plugin.SafeDelete(ctx, s, ""),
	}
	_, err := plugin.SafeGet(ctx, s, "g", -2)
	errs = append(errs, err)
	for i, err := range errs {
		assert.Equal(t, plugin.ClassPermanent, plugin.Classify(err), "case %d: %v", i, err)
	}
	assert.Zero(t, s.calls)
}

// manualDeadline is a context with a deadline that passes when the test says so, so
// the deadline path is tested without waiting on a clock.
type manualDeadline struct {
	context.Context
	done chan struct{}
	once sync.Once
}

func newManualDeadline() *manualDeadline {
	return &manualDeadline{Context: context.Background(), done: make(chan struct{})}
}

func (c *manualDeadline) Deadline() (time.Time, bool) { return time.Unix(0, 0), true }
func (c *manualDeadline) Done() <-chan struct{}       { return c.done }
func (c *manualDeadline) expire()                     { c.once.Do(func() { close(c.done) }) }
func (c *manualDeadline) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

// TestSafeDeadline proves that a store that has not returned by the context's
// deadline yields a transient error wrapping context.DeadlineExceeded, and that the
// store's late answer is dropped without blocking anyone.
func TestSafeDeadline(t *testing.T) {
	ctx := newManualDeadline()
	started, release, finished := make(chan struct{}), make(chan struct{}), make(chan struct{})
	s := &stubStore{get: func(context.Context) (*plugin.TopologyDescription, error) {
		close(started)
		<-release
		defer close(finished)
		return plugin.SampleTopology(1, 1), nil
	}}
	go func() {
		<-started
		ctx.expire()
	}()
	got, err := plugin.SafeGet(ctx, s, "g", 1)
	assert.Nil(t, got)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Equal(t, plugin.ClassTransient, plugin.Classify(err))
	close(release)
	<-finished // the abandoned call ran to its end: its goroutine did not block
}

// TestSafeDeadlineMet proves that with a deadline that does not pass, the answer of
// the store (run on a goroutine) is returned as is.
func TestSafeDeadlineMet(t *testing.T) {
	ctx := newManualDeadline()
	want := plugin.SampleTopology(2, 2)
	got, err := plugin.SafeGet(ctx, failing(want, nil), "g", 1)
	require.NoError(t, err)
	assert.Same(t, want, got)
}

// TestSafeEndedContext proves that a call whose context has already ended is not
// made, and fails transiently.
func TestSafeEndedContext(t *testing.T) {
	s := failing(nil, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for op, err := range safeCalls(ctx, s) {
		assert.ErrorIs(t, err, context.Canceled, "%s", op)
		assert.Equal(t, plugin.ClassTransient, plugin.Classify(err))
	}
	ctx2 := newManualDeadline()
	ctx2.expire()
	assert.ErrorIs(t, plugin.SafeDelete(ctx2, s, "g"), context.DeadlineExceeded)
	assert.Zero(t, s.calls)
}

// TestSafeInlineWithoutDeadline proves that without a deadline the store runs on the
// caller's goroutine (no goroutine is started), which the simulator's determinism
// relies on.
func TestSafeInlineWithoutDeadline(t *testing.T) {
	before := runtime.NumGoroutine()
	var during int
	s := &stubStore{del: func(context.Context) error {
		during = runtime.NumGoroutine()
		return nil
	}}
	require.NoError(t, plugin.SafeDelete(context.Background(), s, "g"))
	assert.Equal(t, before, during)
	ctx, cancel := context.WithCancel(context.Background()) // cancellable, but no deadline
	defer cancel()
	require.NoError(t, plugin.SafeDelete(ctx, s, "g"))
	assert.Equal(t, before, during)
}
