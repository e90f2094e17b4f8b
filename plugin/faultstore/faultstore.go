// Package faultstore wraps any plugin.Store with injected faults: seeded random
// transient and permanent errors, latency drawn from a distribution, bursts of
// failing calls, failures scripted per group or per call index, and panics and
// nonsense answers on demand to exercise the safe-call layer. It is the topology
// store the simulator runs against, and it counts every call by operation and
// outcome.
//
// # Determinism
//
// Each call is decided by [Store.Decide], which numbers it (1, 2, ...) and draws
// exactly three values from the Store's source, whatever the outcome: the fault roll,
// the burst roll and the latency. So the same seed and the same sequence of calls give
// the same decisions, and a scripted failure does not shift the random stream of the
// calls after it. The source is the *rand.Rand given with WithRand (the simulator
// passes its own, so that every random choice comes from one generator in a fixed
// order) or a PCG seeded by WithSeed (0 by default).
//
// # Latency and virtual time
//
// A drawn latency is only reported, in the Decision given to the OnCall hook and
// returned by Decide. The Store sleeps only through a Sleep hook, which a live test
// may set. The simulator instead calls Decide, schedules the call at now+Latency on
// its virtual clock, and then performs it through Decided(d), which applies exactly
// that decision.
//
// # What it must never do
//
// It never reads a clock, never sleeps on its own, never draws from the global
// random source, and never starts a goroutine.
package faultstore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coordsim/coordsim/plugin"
)

// Fault is what the Store does to one call.
type Fault uint8

// The faults.
const (
	// FaultNone forwards the call to the inner store.
	FaultNone Fault = iota
	// FaultTransient fails the call with a transient error; the inner store is not
	// called.
	FaultTransient
	// FaultPermanent fails the call with a permanent error; the inner store is not
	// called.
	FaultPermanent
	// FaultAppliedTransient forwards the call, then fails it with a transient error,
	// as a store does whose reply is lost after the write went through.
	FaultAppliedTransient
	// FaultPanic panics inside the call with an *InjectedPanic.
	FaultPanic
	// FaultNonsense answers nonsense: GetTopology returns a description and an error
	// at once; SetTopology and DeleteTopology return a nil *InjectedError as a non-nil
	// error.
	FaultNonsense
	// FaultInvalid makes GetTopology return a description that fails Validate; for
	// SetTopology and DeleteTopology it is FaultNonsense.
	FaultInvalid

	numFaults
)

// String returns the fault's name, e.g. "applied-transient".
func (f Fault) String() string {
	switch f {
	case FaultNone:
		return "none"
	case FaultTransient:
		return "transient"
	case FaultPermanent:
		return "permanent"
	case FaultAppliedTransient:
		return "applied-transient"
	case FaultPanic:
		return "panic"
	case FaultNonsense:
		return "nonsense"
	case FaultInvalid:
		return "invalid"
	default:
		return fmt.Sprintf("Fault(%d)", uint8(f))
	}
}

// Cause says why a Decision has its fault.
type Cause uint8

// The causes, in the order they take precedence.
const (
	CauseNone        Cause = iota // no fault
	CauseCallScript               // FailCall or FailCalls named this call
	CauseGroupScript              // FailGroup named this group and operation
	CauseBurst                    // a burst is in progress
	CauseRate                     // the fault roll fell under a rate
)

// String returns the cause's name, e.g. "group-script".
func (c Cause) String() string {
	switch c {
	case CauseNone:
		return "none"
	case CauseCallScript:
		return "call-script"
	case CauseGroupScript:
		return "group-script"
	case CauseBurst:
		return "burst"
	case CauseRate:
		return "rate"
	default:
		return fmt.Sprintf("Cause(%d)", uint8(c))
	}
}

// AnyOp, where an operation is expected, means every data operation (set, get and
// delete).
const AnyOp plugin.Op = 0

// Limits on scripts, so that a runaway script cannot grow memory without bound.
const (
	MaxScripted    = 1 << 16 // pending scripted call indices, and pending group scripts
	MaxBurstLength = 1 << 16 // calls in one burst
)

// Rates are the probabilities that one call gets each fault from the fault roll. Each
// is in [0, 1] and together they are at most 1; the rest of the time the call is
// forwarded.
type Rates struct {
	Transient        float64
	Permanent        float64
	AppliedTransient float64
	Panic            float64
	Nonsense         float64
	Invalid          float64
}

type rate struct {
	p     float64
	fault Fault
}

// list returns the rates in the fixed order the fault roll is compared with them.
func (r Rates) list() [6]rate {
	return [6]rate{
		{r.Transient, FaultTransient},
		{r.Permanent, FaultPermanent},
		{r.AppliedTransient, FaultAppliedTransient},
		{r.Panic, FaultPanic},
		{r.Nonsense, FaultNonsense},
		{r.Invalid, FaultInvalid},
	}
}

// Burst configures random bursts: a call with no burst in progress starts one with
// the given Probability, and that call and the next Length-1 calls all get Fault,
// whatever their operation.
type Burst struct {
	Probability float64
	Length      int
	Fault       Fault
}

// Decision is what the Store does to one call.
type Decision struct {
	Call    int64         // 1 for the Store's first call, 2 for the next, ...
	Op      plugin.Op     // the operation decided
	GroupID string        // the group of the call
	Latency time.Duration // drawn latency; the caller decides what to do with it
	Fault   Fault         // what happens to the call
	Cause   Cause         // why
	// Err is the error the call returns for FaultTransient, FaultPermanent and
	// FaultAppliedTransient, and the error half of a nonsense GetTopology answer.
	Err error
}

// InjectedError is the error of an injected failure. Its class (transient or
// permanent) is attached with plugin.Transient or plugin.Permanent.
type InjectedError struct {
	Call    int64
	Op      plugin.Op
	GroupID string
	Fault   Fault
	Cause   Cause
}

// Error describes the injected failure: fault, operation, group, call and cause.
func (e *InjectedError) Error() string {
	return fmt.Sprintf("faultstore: injected %s failure of %s for group %q (call %d, %s)", e.Fault, e.Op, e.GroupID, e.Call, e.Cause)
}

// InjectedPanic is the value the Store panics with for FaultPanic.
type InjectedPanic struct {
	Decision Decision
}

// Error describes the injected panic, so that a recovered value prints usefully.
func (p *InjectedPanic) Error() string {
	return fmt.Sprintf("faultstore: injected panic in %s for group %q (call %d, %s)", p.Decision.Op, p.Decision.GroupID, p.Decision.Call, p.Decision.Cause)
}

// OpCounts counts the calls of one operation. Calls and the fault counts are updated
// when a call is decided; Forwarded and InnerErrors when it runs.
type OpCounts struct {
	Calls            int64 // decided calls
	Passed           int64 // decided FaultNone
	Transient        int64
	Permanent        int64
	AppliedTransient int64
	Panics           int64
	Nonsense         int64
	Invalid          int64
	Forwarded        int64 // calls that reached the inner store
	InnerErrors      int64 // forwarded calls the inner store failed
}

func (c *OpCounts) add(f Fault) {
	c.Calls++
	switch f {
	case FaultNone:
		c.Passed++
	case FaultTransient:
		c.Transient++
	case FaultPermanent:
		c.Permanent++
	case FaultAppliedTransient:
		c.AppliedTransient++
	case FaultPanic:
		c.Panics++
	case FaultNonsense:
		c.Nonsense++
	case FaultInvalid:
		c.Invalid++
	}
}

// Counts are the counters of a Store, per operation.
type Counts struct {
	Set, Get, Delete OpCounts
}

// Op returns the counters of op (zero for any other op).
func (c Counts) Op(op plugin.Op) OpCounts {
	switch op {
	case plugin.OpSet:
		return c.Set
	case plugin.OpGet:
		return c.Get
	case plugin.OpDelete:
		return c.Delete
	default:
		return OpCounts{}
	}
}

func (c *Counts) op(op plugin.Op) *OpCounts {
	switch op {
	case plugin.OpSet:
		return &c.Set
	case plugin.OpGet:
		return &c.Get
	default:
		return &c.Delete
	}
}

// Option configures a Store. New checks the resulting configuration.
type Option func(*Store)

// WithSeed makes the Store draw from a PCG seeded with seed (the default is seed 0).
func WithSeed(seed uint64) Option {
	return func(s *Store) { s.rng = rand.New(rand.NewPCG(seed, 0x6661756c74)) } // "fault"
}

// WithRand makes the Store draw from r, typically the simulator's generator. The
// Store draws under its own mutex; r must not be used concurrently elsewhere.
func WithRand(r *rand.Rand) Option {
	return func(s *Store) {
		s.rng = r
		s.nilRand = r == nil
	}
}

// WithRates sets the fault rates of op (AnyOp: of every operation).
func WithRates(op plugin.Op, r Rates) Option {
	return func(s *Store) { s.forOps(op, func(i int) { s.rates[i] = r }) }
}

// WithLatency sets the latency distribution of op (AnyOp: of every operation).
func WithLatency(op plugin.Op, l Latency) Option {
	return func(s *Store) { s.forOps(op, func(i int) { s.latency[i] = l }) }
}

// WithBurst enables random bursts of failing calls.
func WithBurst(b Burst) Option { return func(s *Store) { s.burst = b } }

// WithSleep makes every call sleep for its drawn latency through sleep before it
// runs. If sleep returns an error (its context ended), the call fails with that error,
// classified transient, without running.
func WithSleep(sleep func(ctx context.Context, d time.Duration) error) Option {
	return func(s *Store) { s.sleep = sleep }
}

// WithOnCall registers a hook called with each call's Decision when the call runs,
// before any sleep. It runs on the caller's goroutine, outside the Store's lock.
func WithOnCall(hook func(Decision)) Option { return func(s *Store) { s.onCall = hook } }

// Store is a fault-injecting plugin.Store around an inner one. It is safe for
// concurrent use; decisions are then made in the order the calls take the Store's
// lock.
type Store struct {
	inner   plugin.Store
	sleep   func(context.Context, time.Duration) error
	onCall  func(Decision)
	burst   Burst
	rates   [4]Rates   // indexed by plugin.Op
	latency [4]Latency // indexed by plugin.Op
	nilRand bool
	badOp   plugin.Op // an invalid op given to an option, reported by New

	mu         sync.Mutex
	rng        *rand.Rand
	calls      int64
	burstLeft  int
	callScript map[int64]Fault
	groups     map[string][]groupScript // looked up by group id, never iterated
	groupCount int                      // total group scripts pending
	counts     Counts
}

type groupScript struct {
	op    plugin.Op
	fault Fault
	left  int
}

var (
	_ plugin.FencedStore    = (*Store)(nil)
	_ plugin.FencingSupport = (*Store)(nil)
)

func (s *Store) forOps(op plugin.Op, f func(i int)) {
	switch op {
	case AnyOp:
		f(int(plugin.OpSet))
		f(int(plugin.OpGet))
		f(int(plugin.OpDelete))
	case plugin.OpSet, plugin.OpGet, plugin.OpDelete:
		f(int(op))
	default:
		s.badOp = op
	}
}

// New wraps inner. With no options it forwards every call unchanged (all rates 0,
// latency 0) and still counts them.
func New(inner plugin.Store, opts ...Option) (*Store, error) {
	if inner == nil {
		return nil, errors.New("faultstore: nil inner store")
	}
	s := &Store{inner: inner, callScript: make(map[int64]Fault), groups: make(map[string][]groupScript)}
	WithSeed(0)(s)
	for _, o := range opts {
		o(s)
	}
	if err := s.validate(); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Store) validate() error {
	if s.nilRand {
		return errors.New("faultstore: WithRand(nil)")
	}
	if s.badOp != AnyOp {
		return fmt.Errorf("faultstore: option for %s, which has no faults", s.badOp)
	}
	for _, op := range []plugin.Op{plugin.OpSet, plugin.OpGet, plugin.OpDelete} {
		sum := 0.0
		for _, r := range s.rates[op].list() {
			if !(r.p >= 0 && r.p <= 1) { // also rejects NaN
				return fmt.Errorf("faultstore: %s %s rate %v outside [0, 1]", op, r.fault, r.p)
			}
			sum += r.p
		}
		if sum > 1+1e-9 {
			return fmt.Errorf("faultstore: %s rates add up to %v > 1", op, sum)
		}
		if err := s.latency[op].validate(); err != nil {
			return fmt.Errorf("%s: %w", op, err)
		}
	}
	if b := s.burst; b.Probability != 0 || b.Length != 0 {
		switch {
		case !(b.Probability >= 0 && b.Probability <= 1):
			return fmt.Errorf("faultstore: burst probability %v outside [0, 1]", b.Probability)
		case b.Length < 1 || b.Length > MaxBurstLength:
			return fmt.Errorf("faultstore: burst length %d outside [1, %d]", b.Length, MaxBurstLength)
		case b.Fault == FaultNone || b.Fault >= numFaults:
			return fmt.Errorf("faultstore: burst fault %v is not a fault", b.Fault)
		}
	}
	return nil
}

// FailCall makes call number n (as numbered by Decide) get fault f, overriding
// everything else. n must be a call not yet decided.
func (s *Store) FailCall(n int64, f Fault) error { return s.FailCalls(n, 1, f) }

// FailCalls makes count consecutive calls, from number first on, get fault f: a
// scripted burst.
func (s *Store) FailCalls(first int64, count int, f Fault) error {
	if f >= numFaults {
		return fmt.Errorf("faultstore: %v is not a fault", f)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case first <= s.calls:
		return fmt.Errorf("faultstore: call %d is already decided (calls so far: %d)", first, s.calls)
	case count < 1 || len(s.callScript)+count > MaxScripted:
		return fmt.Errorf("faultstore: cannot script %d calls (%d pending, limit %d)", count, len(s.callScript), MaxScripted)
	}
	for i := range int64(count) {
		s.callScript[first+i] = f
	}
	return nil
}

// FailGroup makes the next times calls of op (AnyOp: of any operation) for groupID
// get fault f. Scripts for one group are used in the order they were added.
func (s *Store) FailGroup(groupID string, op plugin.Op, f Fault, times int) error {
	switch op {
	case AnyOp, plugin.OpSet, plugin.OpGet, plugin.OpDelete:
	default:
		return fmt.Errorf("faultstore: %s has no faults", op)
	}
	if f >= numFaults {
		return fmt.Errorf("faultstore: %v is not a fault", f)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if times < 1 || s.groupCount >= MaxScripted {
		return fmt.Errorf("faultstore: cannot script %d failures of group %q (%d scripts pending, limit %d)", times, groupID, s.groupCount, MaxScripted)
	}
	s.groups[groupID] = append(s.groups[groupID], groupScript{op: op, fault: f, left: times})
	s.groupCount++
	return nil
}

// Decide numbers the next call, for op on groupID, and decides what happens to it.
// The Store's own methods call it; the simulator calls it directly and performs the
// call later through Decided. It panics if op is not set, get or delete: that is a
// bug in the caller, not a fault to inject.
func (s *Store) Decide(op plugin.Op, groupID string) Decision {
	switch op {
	case plugin.OpSet, plugin.OpGet, plugin.OpDelete:
	default:
		panic(fmt.Sprintf("faultstore: Decide(%s): not a data operation", op))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	d := Decision{Call: s.calls, Op: op, GroupID: groupID}
	// Always three draws, in this order, so that the stream stays aligned.
	uFault, uBurst, uLatency := s.rng.Float64(), s.rng.Float64(), s.rng.Float64()
	d.Latency = s.latency[op].Draw(uLatency)

	if f, ok := s.callScript[d.Call]; ok {
		delete(s.callScript, d.Call)
		d.Fault, d.Cause = f, CauseCallScript
	} else if f, ok := s.takeGroupScript(op, groupID); ok {
		d.Fault, d.Cause = f, CauseGroupScript
	} else if s.burstLeft > 0 {
		s.burstLeft--
		d.Fault, d.Cause = s.burst.Fault, CauseBurst
	} else if s.burst.Length > 0 && uBurst < s.burst.Probability {
		s.burstLeft = s.burst.Length - 1
		d.Fault, d.Cause = s.burst.Fault, CauseBurst
	} else {
		acc := 0.0
		for _, r := range s.rates[op].list() {
			acc += r.p
			if uFault < acc {
				d.Fault, d.Cause = r.fault, CauseRate
				break
			}
		}
	}
	if d.Fault == FaultNone {
		d.Cause = CauseNone // a script may say "no fault" to protect a call
	}

	injected := &InjectedError{Call: d.Call, Op: op, GroupID: groupID, Fault: d.Fault, Cause: d.Cause}
	switch d.Fault {
	case FaultTransient, FaultAppliedTransient:
		d.Err = plugin.Transient(injected)
	case FaultPermanent:
		d.Err = plugin.Permanent(injected)
	case FaultNonsense:
		if op == plugin.OpGet {
			d.Err = plugin.Transient(injected)
		}
	}
	s.counts.op(op).add(d.Fault)
	return d
}

func (s *Store) takeGroupScript(op plugin.Op, groupID string) (Fault, bool) {
	scripts := s.groups[groupID]
	for i := range scripts {
		if scripts[i].op != AnyOp && scripts[i].op != op {
			continue
		}
		f := scripts[i].fault
		if scripts[i].left--; scripts[i].left == 0 {
			scripts = append(scripts[:i], scripts[i+1:]...)
			s.groupCount--
			if len(scripts) == 0 {
				delete(s.groups, groupID)
			} else {
				s.groups[groupID] = scripts
			}
		}
		return f, true
	}
	return FaultNone, false
}

// Calls returns the number of calls decided so far; the next call is Calls()+1.
func (s *Store) Calls() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

// Counts returns a snapshot of the counters.
func (s *Store) Counts() Counts {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts
}

// Inner returns the wrapped store.
func (s *Store) Inner() plugin.Store { return s.inner }

// SetTopology decides the call and runs it.
func (s *Store) SetTopology(ctx context.Context, groupID string, topologyEpoch int32, d *plugin.TopologyDescription) error {
	return s.write(ctx, s.Decide(plugin.OpSet, groupID), func() error { return s.inner.SetTopology(ctx, groupID, topologyEpoch, d) })
}

// SupportsFencing reports whether the inner store is a plugin.FencedStore
// (plugin.FencingSupport): the Store has the fenced methods whatever it wraps, and
// forwards them with their token only when the inner store enforces tokens.
func (s *Store) SupportsFencing() bool {
	_, ok := plugin.AsFenced(s.inner)
	return ok
}

// errNotFenced is the answer of a fenced call when the inner store has no fenced
// methods; the call is not decided and reaches nothing.
var errNotFenced = plugin.Permanent(errors.New("faultstore: the inner store is not a plugin.FencedStore"))

// SetTopologyFenced decides the call and runs it as the inner store's
// SetTopologyFenced, with the same faults as SetTopology; an applied-transient
// fault applies the fenced call, whose outcome (a refusal included) is then hidden
// behind the injected error.
func (s *Store) SetTopologyFenced(ctx context.Context, groupID string, topologyEpoch int32, d *plugin.TopologyDescription, token int32) error {
	inner, ok := plugin.AsFenced(s.inner)
	if !ok {
		return errNotFenced
	}
	return s.write(ctx, s.Decide(plugin.OpSet, groupID), func() error { return inner.SetTopologyFenced(ctx, groupID, topologyEpoch, d, token) })
}

// DeleteTopologyFenced decides the call and runs it as the inner store's
// DeleteTopologyFenced, with the same faults as DeleteTopology.
func (s *Store) DeleteTopologyFenced(ctx context.Context, groupID string, token int32) error {
	inner, ok := plugin.AsFenced(s.inner)
	if !ok {
		return errNotFenced
	}
	return s.write(ctx, s.Decide(plugin.OpDelete, groupID), func() error { return inner.DeleteTopologyFenced(ctx, groupID, token) })
}

// GetTopology decides the call and runs it.
func (s *Store) GetTopology(ctx context.Context, groupID string, topologyEpoch int32) (*plugin.TopologyDescription, error) {
	return s.get(ctx, s.Decide(plugin.OpGet, groupID), groupID, topologyEpoch)
}

// DeleteTopology decides the call and runs it.
func (s *Store) DeleteTopology(ctx context.Context, groupID string) error {
	return s.write(ctx, s.Decide(plugin.OpDelete, groupID), func() error { return s.inner.DeleteTopology(ctx, groupID) })
}

// Close closes the inner store. Close is never faulted: shutdown is not what the
// fault model is about.
func (s *Store) Close() error { return s.inner.Close() }

// before runs the hook and the sleep of a call.
func (s *Store) before(ctx context.Context, d Decision) error {
	if s.onCall != nil {
		s.onCall(d)
	}
	if s.sleep != nil {
		if err := s.sleep(ctx, d.Latency); err != nil {
			return plugin.Transient(fmt.Errorf("faultstore: %s for group %q (call %d) interrupted: %w", d.Op, d.GroupID, d.Call, err))
		}
	}
	return nil
}

// forwarded counts a call that reached the inner store.
func (s *Store) forwarded(op plugin.Op, err error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.counts.op(op)
	c.Forwarded++
	if err != nil {
		c.InnerErrors++
	}
	return err
}

// nilError is the nonsense answer of SetTopology and DeleteTopology: a nil pointer in
// a non-nil error interface.
func nilError() error {
	var e *InjectedError
	return e
}

// write runs a decided set or delete (plain or fenced: inner makes the
// call); the two answer each fault alike.
func (s *Store) write(ctx context.Context, d Decision, inner func() error) error {
	if err := s.before(ctx, d); err != nil {
		return err
	}
	switch d.Fault {
	case FaultNone:
		return s.forwarded(d.Op, inner())
	case FaultAppliedTransient:
		_ = s.forwarded(d.Op, inner())
		return d.Err
	case FaultPanic:
		panic(&InjectedPanic{Decision: d})
	case FaultNonsense, FaultInvalid:
		return nilError()
	default:
		return d.Err
	}
}

func (s *Store) get(ctx context.Context, d Decision, groupID string, topologyEpoch int32) (*plugin.TopologyDescription, error) {
	if err := s.before(ctx, d); err != nil {
		return nil, err
	}
	switch d.Fault {
	case FaultNone:
		got, err := s.inner.GetTopology(ctx, groupID, topologyEpoch)
		return got, s.forwarded(d.Op, err)
	case FaultAppliedTransient:
		_, err := s.inner.GetTopology(ctx, groupID, topologyEpoch)
		_ = s.forwarded(d.Op, err)
		return nil, d.Err
	case FaultPanic:
		panic(&InjectedPanic{Decision: d})
	case FaultNonsense:
		return plugin.SampleTopology(uint64(d.Call), 1), d.Err
	case FaultInvalid:
		// Valid but for a node without a name: nonsense only Validate notices.
		bad := plugin.SampleTopology(uint64(d.Call), 1)
		bad.Subtopologies[0].Nodes[0].Name = ""
		return bad, nil
	default:
		return nil, d.Err
	}
}

// Decided returns a one-shot view of the Store that performs exactly one call, the
// one d was decided for, with d's outcome instead of a new decision. The simulator
// uses it to run at virtual time now+d.Latency a call it decided earlier:
//
//	d := fs.Decide(plugin.OpDelete, groupID)
//	// ... later, at now+d.Latency:
//	err := plugin.SafeDelete(ctx, fs.Decided(d), groupID)
//
// A call with another operation or group than d's, or a second call, fails with a
// permanent error and does nothing. Close on the view does nothing; close the Store.
// The view is unfenced: it has only the plain Store methods.
func (s *Store) Decided(d Decision) plugin.Store { return &decided{s: s, d: d} }

type decided struct {
	s    *Store
	d    Decision
	used atomic.Bool
}

func (v *decided) claim(op plugin.Op, groupID string) error {
	if op != v.d.Op || groupID != v.d.GroupID {
		return plugin.Permanent(fmt.Errorf("faultstore: decision of call %d (%s for group %q) used for %s for group %q",
			v.d.Call, v.d.Op, v.d.GroupID, op, groupID))
	}
	if v.used.Swap(true) {
		return plugin.Permanent(fmt.Errorf("faultstore: decision of call %d used twice", v.d.Call))
	}
	return nil
}

func (v *decided) SetTopology(ctx context.Context, groupID string, topologyEpoch int32, d *plugin.TopologyDescription) error {
	if err := v.claim(plugin.OpSet, groupID); err != nil {
		return err
	}
	return v.s.write(ctx, v.d, func() error { return v.s.inner.SetTopology(ctx, groupID, topologyEpoch, d) })
}

func (v *decided) GetTopology(ctx context.Context, groupID string, topologyEpoch int32) (*plugin.TopologyDescription, error) {
	if err := v.claim(plugin.OpGet, groupID); err != nil {
		return nil, err
	}
	return v.s.get(ctx, v.d, groupID, topologyEpoch)
}

func (v *decided) DeleteTopology(ctx context.Context, groupID string) error {
	if err := v.claim(plugin.OpDelete, groupID); err != nil {
		return err
	}
	return v.s.write(ctx, v.d, func() error { return v.s.inner.DeleteTopology(ctx, groupID) })
}

func (v *decided) Close() error { return nil }
