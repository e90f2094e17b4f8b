package faultstore_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/plugin"
	"github.com/coordsim/coordsim/plugin/faultstore"
	"github.com/coordsim/coordsim/plugin/memstore"
	"github.com/coordsim/coordsim/plugin/plugintest"
)

func newFS(t *testing.T, opts ...faultstore.Option) (*faultstore.Store, *memstore.Store) {
	t.Helper()
	inner := memstore.New()
	fs, err := faultstore.New(inner, opts...)
	require.NoError(t, err)
	return fs, inner
}

// TestConformance proves that with no faults the wrapper is transparent: it passes
// the conformance suite around a memstore, even with latency drawn.
func TestConformance(t *testing.T) {
	plugintest.Run(t, func() (plugin.Store, error) {
		return faultstore.New(memstore.New(), faultstore.WithSeed(7), faultstore.WithLatency(faultstore.AnyOp, faultstore.Uniform(time.Millisecond, time.Second)))
	})
}

// workload makes a fixed sequence of calls and returns the decisions, as the OnCall
// hook saw them.
func workload(t *testing.T, opts ...faultstore.Option) []faultstore.Decision {
	var got []faultstore.Decision
	opts = append(opts, faultstore.WithOnCall(func(d faultstore.Decision) { got = append(got, d) }))
	fs, _ := newFS(t, opts...)
	mixedCalls(fs)
	return got
}

// mixedCalls makes 300 calls: set, get and delete in turn over three groups.
func mixedCalls(fs plugin.Store) {
	ctx := context.Background()
	d := plugin.SampleTopology(1, 1)
	groups := []string{"a", "b", "c"}
	for i := range 300 {
		g := groups[i%len(groups)]
		switch i % 3 {
		case 0:
			_ = plugin.SafeSet(ctx, fs, g, int32(i), d)
		case 1:
			_, _ = plugin.SafeGet(ctx, fs, g, int32(i))
		default:
			_ = plugin.SafeDelete(ctx, fs, g)
		}
	}
}

func faultyOptions(seed uint64) []faultstore.Option {
	return []faultstore.Option{
		faultstore.WithSeed(seed),
		faultstore.WithRates(faultstore.AnyOp, faultstore.Rates{Transient: 0.2, Permanent: 0.05, AppliedTransient: 0.05, Panic: 0.02, Nonsense: 0.02, Invalid: 0.02}),
		faultstore.WithLatency(plugin.OpSet, faultstore.Exponential(10*time.Millisecond, time.Second)),
		faultstore.WithLatency(plugin.OpGet, faultstore.Uniform(time.Millisecond, 5*time.Millisecond)),
		faultstore.WithLatency(plugin.OpDelete, faultstore.Fixed(3*time.Millisecond)),
		faultstore.WithBurst(faultstore.Burst{Probability: 0.01, Length: 5, Fault: faultstore.FaultTransient}),
	}
}

// withoutErrs strips the error values, which are fresh pointers per run.
func withoutErrs(ds []faultstore.Decision) []faultstore.Decision {
	out := make([]faultstore.Decision, len(ds))
	for i, d := range ds {
		d.Err = nil
		out[i] = d
	}
	return out
}

// TestDeterminism proves that the same seed and the same calls give the same
// decisions, latencies and errors included, and that different seeds differ.
func TestDeterminism(t *testing.T) {
	for seed := range uint64(5) {
		a := workload(t, faultyOptions(seed)...)
		b := workload(t, faultyOptions(seed)...)
		require.Len(t, a, 300)
		assert.Equal(t, withoutErrs(a), withoutErrs(b), "seed %d", seed)
		for i := range a {
			if a[i].Err != nil {
				assert.Equal(t, a[i].Err.Error(), b[i].Err.Error())
			}
		}
		c := workload(t, faultyOptions(seed+100)...)
		assert.NotEqual(t, withoutErrs(a), withoutErrs(c), "seeds %d and %d", seed, seed+100)
	}
}

// TestScriptsDoNotShiftTheStream proves that scripting a failure changes that call
// only: every other call gets the same fault and latency as without the script.
func TestScriptsDoNotShiftTheStream(t *testing.T) {
	plain := workload(t, faultyOptions(3)...)

	var got []faultstore.Decision
	opts := append(faultyOptions(3), faultstore.WithOnCall(func(d faultstore.Decision) { got = append(got, d) }))
	fs, _ := newFS(t, opts...)
	require.NoError(t, fs.FailCall(10, faultstore.FaultPermanent))
	mixedCalls(fs)
	require.Len(t, got, 300)
	assert.Equal(t, faultstore.FaultPermanent, got[9].Fault)
	assert.Equal(t, faultstore.CauseCallScript, got[9].Cause)
	for i := range got {
		assert.Equal(t, plain[i].Latency, got[i].Latency, "call %d", i+1)
		if i != 9 {
			assert.Equal(t, plain[i].Fault, got[i].Fault, "call %d", i+1)
		}
	}
}

// TestRates proves that the drawn faults follow the configured rates.
func TestRates(t *testing.T) {
	fs, _ := newFS(t, faultstore.WithSeed(1), faultstore.WithRates(plugin.OpGet, faultstore.Rates{Transient: 0.3, Permanent: 0.1}))
	const n = 20000
	for range n {
		fs.Decide(plugin.OpGet, "g")
		fs.Decide(plugin.OpSet, "g")
	}
	c := fs.Counts()
	assert.EqualValues(t, n, c.Get.Calls)
	assert.InDelta(t, 0.3*n, float64(c.Get.Transient), 0.02*n)
	assert.InDelta(t, 0.1*n, float64(c.Get.Permanent), 0.02*n)
	assert.EqualValues(t, n, c.Set.Passed, "rates of one op do not leak into another")
}

// TestFailGroup proves that a group script fails exactly the next calls of that
// group and operation, in order, and nothing else.
func TestFailGroup(t *testing.T) {
	ctx := context.Background()
	fs, inner := newFS(t)
	d := plugin.SampleTopology(1, 1)
	require.NoError(t, fs.FailGroup("g", plugin.OpSet, faultstore.FaultTransient, 2))
	require.NoError(t, fs.FailGroup("g", faultstore.AnyOp, faultstore.FaultPermanent, 1))

	err := plugin.SafeSet(ctx, fs, "other", 1, d)
	require.NoError(t, err, "another group is not affected")
	_, err = plugin.SafeGet(ctx, fs, "g", 1)
	assert.Equal(t, plugin.ClassPermanent, plugin.Classify(err), "the AnyOp script takes the get")
	for range 2 {
		err = plugin.SafeSet(ctx, fs, "g", 1, d)
		assert.Equal(t, plugin.ClassTransient, plugin.Classify(err))
		var ie *faultstore.InjectedError
		require.ErrorAs(t, err, &ie)
		assert.Equal(t, faultstore.CauseGroupScript, ie.Cause)
		assert.Equal(t, "g", ie.GroupID)
	}
	assert.Equal(t, []memstore.Entry{{GroupID: "other", TopologyEpoch: 1}}, inner.List(), "failed sets did not reach the store")
	require.NoError(t, plugin.SafeSet(ctx, fs, "g", 1, d), "the scripts are used up")

	assert.Error(t, fs.FailGroup("g", plugin.OpClose, faultstore.FaultPanic, 1))
	assert.Error(t, fs.FailGroup("g", plugin.OpSet, faultstore.FaultPanic, 0))
}

// TestFailCalls proves that a scripted window fails exactly those call indices, and
// that a call already decided cannot be scripted.
func TestFailCalls(t *testing.T) {
	fs, _ := newFS(t)
	require.NoError(t, fs.FailCalls(3, 3, faultstore.FaultTransient))
	var faults []faultstore.Fault
	for range 7 {
		faults = append(faults, fs.Decide(plugin.OpDelete, "g").Fault)
	}
	n, tr := faultstore.FaultNone, faultstore.FaultTransient
	assert.Equal(t, []faultstore.Fault{n, n, tr, tr, tr, n, n}, faults)
	assert.EqualValues(t, 7, fs.Calls())
	assert.Error(t, fs.FailCall(7, faultstore.FaultPermanent), "call 7 is decided")
	assert.NoError(t, fs.FailCall(8, faultstore.FaultPermanent))
	assert.Equal(t, faultstore.FaultPermanent, fs.Decide(plugin.OpGet, "g").Fault)
}

// TestScriptedNoneProtectsACall proves that scripting FaultNone shields a call from
// the random rates.
func TestScriptedNoneProtectsACall(t *testing.T) {
	fs, _ := newFS(t, faultstore.WithRates(faultstore.AnyOp, faultstore.Rates{Transient: 1}))
	require.NoError(t, fs.FailCall(2, faultstore.FaultNone))
	assert.Equal(t, faultstore.FaultTransient, fs.Decide(plugin.OpSet, "g").Fault)
	d := fs.Decide(plugin.OpSet, "g")
	assert.Equal(t, faultstore.FaultNone, d.Fault)
	assert.Equal(t, faultstore.CauseNone, d.Cause)
}

// TestBurst proves that a burst fails Length consecutive calls of any operation.
func TestBurst(t *testing.T) {
	fs, _ := newFS(t, faultstore.WithSeed(2), faultstore.WithBurst(faultstore.Burst{Probability: 0.02, Length: 6, Fault: faultstore.FaultPermanent}))
	ops := []plugin.Op{plugin.OpSet, plugin.OpGet, plugin.OpDelete}
	var runs []int
	run := 0
	for i := range 5000 {
		d := fs.Decide(ops[i%3], "g")
		if d.Cause == faultstore.CauseBurst {
			assert.Equal(t, faultstore.FaultPermanent, d.Fault)
			run++
			continue
		}
		if run > 0 {
			runs = append(runs, run)
			run = 0
		}
	}
	require.NotEmpty(t, runs)
	for _, r := range runs {
		assert.Zero(t, r%6, "bursts come in whole lengths (back to back ones merge): %v", runs)
	}
}

// TestInjectedPanicAndNonsense proves that the panic and nonsense faults reach the
// safe-call layer as the failures it must catch.
func TestInjectedPanicAndNonsense(t *testing.T) {
	ctx := context.Background()
	d := plugin.SampleTopology(1, 1)
	tests := []struct {
		fault faultstore.Fault
		check func(t *testing.T, op plugin.Op, err error)
	}{
		{faultstore.FaultPanic, func(t *testing.T, op plugin.Op, err error) {
			var pe *plugin.PanicError
			require.ErrorAs(t, err, &pe, "%s", op)
			var ip *faultstore.InjectedPanic
			require.ErrorAs(t, pe.Value.(error), &ip)
			assert.Equal(t, op, ip.Decision.Op)
		}},
		{faultstore.FaultNonsense, func(t *testing.T, op plugin.Op, err error) {
			var ne *plugin.NonsenseError
			require.ErrorAs(t, err, &ne, "%s", op)
		}},
		{faultstore.FaultInvalid, func(t *testing.T, op plugin.Op, err error) {
			var ne *plugin.NonsenseError
			require.ErrorAs(t, err, &ne, "%s", op)
			if op == plugin.OpGet {
				assert.ErrorIs(t, err, plugin.ErrInvalidDescription)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.fault.String(), func(t *testing.T) {
			fs, _ := newFS(t)
			require.NoError(t, fs.FailGroup("g", faultstore.AnyOp, tt.fault, 3))
			tt.check(t, plugin.OpSet, plugin.SafeSet(ctx, fs, "g", 1, d))
			_, err := plugin.SafeGet(ctx, fs, "g", 1)
			tt.check(t, plugin.OpGet, err)
			tt.check(t, plugin.OpDelete, plugin.SafeDelete(ctx, fs, "g"))
			for _, err := range []error{plugin.SafeSet(ctx, fs, "g", 1, d), plugin.SafeDelete(ctx, fs, "g")} {
				assert.NoError(t, err, "the script is used up")
			}
		})
	}
}

// TestAppliedTransient proves that an applied-transient fault changes the inner store
// but reports a transient failure, the ambiguous outcome of a lost reply.
func TestAppliedTransient(t *testing.T) {
	ctx := context.Background()
	fs, inner := newFS(t)
	require.NoError(t, fs.FailGroup("g", faultstore.AnyOp, faultstore.FaultAppliedTransient, 2))
	err := plugin.SafeSet(ctx, fs, "g", 1, plugin.SampleTopology(1, 1))
	assert.Equal(t, plugin.ClassTransient, plugin.Classify(err))
	assert.Equal(t, 1, inner.Len(), "the set went through")
	err = plugin.SafeDelete(ctx, fs, "g")
	assert.Equal(t, plugin.ClassTransient, plugin.Classify(err))
	assert.Zero(t, inner.Len(), "the delete went through")
	c := fs.Counts()
	assert.EqualValues(t, 1, c.Set.AppliedTransient)
	assert.EqualValues(t, 1, c.Set.Forwarded)
	assert.EqualValues(t, 1, c.Delete.AppliedTransient)
}

// TestCounts proves that calls are counted per operation and outcome, and inner
// errors separately from injected ones.
func TestCounts(t *testing.T) {
	ctx := context.Background()
	fs, _ := newFS(t)
	d := plugin.SampleTopology(1, 1)
	require.NoError(t, fs.FailCall(2, faultstore.FaultTransient))
	require.NoError(t, fs.FailCall(3, faultstore.FaultPanic))
	_ = fs.SetTopology(ctx, "g", 1, d)     // 1: passed
	_ = fs.SetTopology(ctx, "g", 2, d)     // 2: transient
	_ = plugin.SafeSet(ctx, fs, "g", 3, d) // 3: panic
	_, _ = fs.GetTopology(ctx, "g", 1)     // 4: passed
	_ = fs.DeleteTopology(ctx, "g")        // 5: passed
	_ = fs.SetTopology(ctx, "g", 1, nil)   // 6: passed, the inner store refuses nil
	assert.Equal(t, faultstore.OpCounts{Calls: 4, Passed: 2, Transient: 1, Panics: 1, Forwarded: 2, InnerErrors: 1}, fs.Counts().Set)
	assert.Equal(t, faultstore.OpCounts{Calls: 1, Passed: 1, Forwarded: 1}, fs.Counts().Op(plugin.OpGet))
	assert.Equal(t, faultstore.OpCounts{Calls: 1, Passed: 1, Forwarded: 1}, fs.Counts().Op(plugin.OpDelete))
}

// TestLatency proves each distribution's bounds and that the latency is reported,
// not slept, unless a Sleep hook is given.
func TestLatency(t *testing.T) {
	assert.Equal(t, 5*time.Millisecond, faultstore.Fixed(5*time.Millisecond).Draw(0.7))
	u := faultstore.Uniform(time.Millisecond, 3*time.Millisecond)
	assert.Equal(t, time.Millisecond, u.Draw(0))
	assert.Equal(t, 2*time.Millisecond, u.Draw(0.5))
	assert.LessOrEqual(t, u.Draw(1), 3*time.Millisecond)
	e := faultstore.Exponential(10*time.Millisecond, 50*time.Millisecond)
	assert.Equal(t, time.Duration(0), e.Draw(0))
	assert.Equal(t, 50*time.Millisecond, e.Draw(0.999999))
	assert.InDelta(t, float64(10*time.Millisecond)*math.Ln2, float64(e.Draw(0.5)), 1)
	assert.Equal(t, "uniform[1ms,3ms]", u.String())

	fs, _ := newFS(t, faultstore.WithSeed(4), faultstore.WithLatency(faultstore.AnyOp, e))
	var sum time.Duration
	const n = 5000
	for range n {
		d := fs.Decide(plugin.OpGet, "g").Latency
		require.LessOrEqual(t, d, 50*time.Millisecond)
		sum += d
	}
	assert.InDelta(t, float64(10*time.Millisecond), float64(sum/n), float64(time.Millisecond), "the cap trims the mean a little")
}

// TestSleepHook proves that the hook is given the drawn latency, and that a failing
// sleep fails the call transiently without reaching the inner store.
func TestSleepHook(t *testing.T) {
	ctx := context.Background()
	var slept []time.Duration
	stop := errors.New("context ended")
	fail := false
	fs, inner := newFS(t,
		faultstore.WithLatency(plugin.OpSet, faultstore.Fixed(7*time.Millisecond)),
		faultstore.WithSleep(func(_ context.Context, d time.Duration) error {
			slept = append(slept, d)
			if fail {
				return stop
			}
			return nil
		}))
	d := plugin.SampleTopology(1, 1)
	require.NoError(t, fs.SetTopology(ctx, "g", 1, d))
	fail = true
	err := fs.SetTopology(ctx, "h", 1, d)
	assert.ErrorIs(t, err, stop)
	assert.Equal(t, plugin.ClassTransient, plugin.Classify(err))
	assert.Equal(t, []time.Duration{7 * time.Millisecond, 7 * time.Millisecond}, slept)
	assert.Equal(t, 1, inner.Len())
}

// TestDecided proves the simulator's path: decide now, perform later through
// Decided, with exactly that outcome, once, and only for the decided call.
func TestDecided(t *testing.T) {
	ctx := context.Background()
	fs, inner := newFS(t, faultstore.WithSeed(9), faultstore.WithLatency(faultstore.AnyOp, faultstore.Uniform(time.Millisecond, time.Second)))
	require.NoError(t, fs.FailCall(2, faultstore.FaultPermanent))
	d1 := fs.Decide(plugin.OpSet, "g")
	d2 := fs.Decide(plugin.OpDelete, "g")
	assert.Positive(t, d1.Latency)

	v := fs.Decided(d1)
	require.NoError(t, plugin.SafeSet(ctx, v, "g", 1, plugin.SampleTopology(1, 1)))
	assert.Equal(t, 1, inner.Len())
	assert.Equal(t, plugin.ClassPermanent, plugin.Classify(plugin.SafeSet(ctx, v, "g", 1, plugin.SampleTopology(1, 1))), "a decision is used once")

	err := plugin.SafeDelete(ctx, fs.Decided(d2), "g")
	assert.Equal(t, plugin.ClassPermanent, plugin.Classify(err))
	var ie *faultstore.InjectedError
	require.ErrorAs(t, err, &ie)
	assert.EqualValues(t, 2, ie.Call)
	assert.Equal(t, 1, inner.Len(), "the failed delete did nothing")

	err = plugin.SafeDelete(ctx, fs.Decided(d1), "g")
	assert.ErrorContains(t, err, "used for deleteTopology")
	err = plugin.SafeSet(ctx, fs.Decided(d1), "other", 1, plugin.SampleTopology(1, 1))
	assert.ErrorContains(t, err, `for group "other"`)
	assert.NoError(t, fs.Decided(d1).Close())
	assert.EqualValues(t, 2, fs.Calls(), "views make no new decisions")
	assert.Panics(t, func() { fs.Decide(plugin.OpClose, "g") })
}

// TestWithRand proves that a shared generator is used, three draws per call, so the
// simulator can interleave its own draws in a known order.
func TestWithRand(t *testing.T) {
	shared := rand.New(rand.NewPCG(1, 2))
	ref := rand.New(rand.NewPCG(1, 2))
	fs, _ := newFS(t, faultstore.WithRand(shared))
	for range 10 {
		fs.Decide(plugin.OpGet, "g")
	}
	for range 30 {
		ref.Float64()
	}
	assert.Equal(t, ref.Uint64(), shared.Uint64())
}

// TestNewRejectsBadOptions proves that a configuration that cannot be meant is
// refused up front.
func TestNewRejectsBadOptions(t *testing.T) {
	inner := memstore.New()
	bad := map[string][]faultstore.Option{
		"rate above 1":         {faultstore.WithRates(plugin.OpSet, faultstore.Rates{Transient: 1.5})},
		"negative rate":        {faultstore.WithRates(plugin.OpSet, faultstore.Rates{Permanent: -0.1})},
		"NaN rate":             {faultstore.WithRates(plugin.OpSet, faultstore.Rates{Panic: math.NaN()})},
		"rates add above 1":    {faultstore.WithRates(plugin.OpGet, faultstore.Rates{Transient: 0.6, Permanent: 0.6})},
		"close op":             {faultstore.WithRates(plugin.OpClose, faultstore.Rates{})},
		"negative latency":     {faultstore.WithLatency(plugin.OpGet, faultstore.Fixed(-1))},
		"inverted uniform":     {faultstore.WithLatency(plugin.OpGet, faultstore.Uniform(2, 1))},
		"zero mean":            {faultstore.WithLatency(plugin.OpGet, faultstore.Exponential(0, 1))},
		"burst without length": {faultstore.WithBurst(faultstore.Burst{Probability: 0.1, Fault: faultstore.FaultTransient})},
		"burst of no fault":    {faultstore.WithBurst(faultstore.Burst{Probability: 0.1, Length: 2})},
		"nil rand":             {faultstore.WithRand(nil)},
	}
	for name, opts := range bad {
		_, err := faultstore.New(inner, opts...)
		assert.Error(t, err, name)
	}
	_, err := faultstore.New(nil)
	assert.Error(t, err)
}

// plainStore hides memstore's fenced methods: a store written for Kafka's SPI.
type plainStore struct{ plugin.Store }

// TestFencingForwardedOnlyToFencedStores proves the Store forwards fenced calls
// with their token (faults included) when the inner store is fenced, and
// reports that it cannot fence otherwise, so plugin.AsFenced does not mistake
// the wrapper for a fenced store and a fenced call reaches nothing.
func TestFencingForwardedOnlyToFencedStores(t *testing.T) {
	ctx := context.Background()
	d := plugin.SampleTopology(1, 1)

	fs, err := faultstore.New(memstore.New())
	require.NoError(t, err)
	f, ok := plugin.AsFenced(fs)
	require.True(t, ok)
	require.NoError(t, f.SetTopologyFenced(ctx, "g", 1, d, 5))
	require.ErrorIs(t, f.DeleteTopologyFenced(ctx, "g", 4), plugin.ErrFenced)
	require.NoError(t, fs.FailGroup("g", plugin.OpDelete, faultstore.FaultAppliedTransient, 1))
	err = f.DeleteTopologyFenced(ctx, "g", 5)
	require.Equal(t, plugin.ClassTransient, plugin.Classify(err), "the injected fault hides the applied delete")
	got, err := fs.GetTopology(ctx, "g", 1)
	require.NoError(t, err)
	assert.Nil(t, got, "the applied-transient fenced delete took effect")

	plain, err := faultstore.New(plainStore{memstore.New()})
	require.NoError(t, err)
	assert.False(t, plain.SupportsFencing())
	_, ok = plugin.AsFenced(plain)
	assert.False(t, ok)
	calls := plain.Calls()
	require.ErrorIs(t, plain.SetTopologyFenced(ctx, "g", 1, d, 1), plugin.ErrPermanent)
	assert.Equal(t, calls, plain.Calls(), "a fenced call to an unfenced store is not decided")
}
