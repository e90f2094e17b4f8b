package sim

import (
	"errors"
	"fmt"
	"strings"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/plugin"
)

// A run is never silently weaker than its options ask (issue 26): what the
// store under test cannot support is either refused before the run, with a
// *CapabilityError, or, where Options.AllowUnchecked permits it, run with a
// warning in Result.Warnings and the checks that did not run marked in
// Result.Checks.

// CapabilityError refuses options the store under test cannot honour: it
// lacks an optional interface that what was asked needs. Nothing ran.
type CapabilityError struct {
	// Store is the store's Go type.
	Store string
	// Missing is the interface the store does not implement.
	Missing string
	// Needs says what was asked that needs it.
	Needs string
	// Fix says what to do instead.
	Fix string
}

func (e *CapabilityError) Error() string {
	return fmt.Sprintf("the topology store %s does not implement %s, which %s: %s", e.Store, e.Missing, e.Needs, e.Fix)
}

// ErrTrace wraps a failure to write the trace: Run then returns its result
// (the simulation itself completed) with an error that errors.Is ErrTrace.
var ErrTrace = errors.New("sim: writing the trace")

// Check is one invariant of docs/invariants.md and whether this run checked
// it: Ran is false, with Why, when the run's options or store left it out;
// a check that ran only in part keeps Ran true and says which part was left
// out in Why.
type Check struct {
	Name string `json:"name"`
	Ran  bool   `json:"ran"`
	Why  string `json:"why,omitempty"`
}

// listerChecks are the invariants that compare the store's rows with the
// coordinators' metadata: they need plugin.Lister.
var listerChecks = []string{InvNoDataLossV2, InvV1LeaksExplained}

// storeCapabilities decides what a run with store can check: an error for
// what it must refuse, else the checks it leaves out (by name, with why)
// and the warnings to record.
func storeCapabilities(o Options, store plugin.Store) (off map[string]string, warnings []string, err error) {
	off = map[string]string{}
	typ := fmt.Sprintf("%T", store)
	if o.Protocol == coordinator.CleanupV3 {
		if _, ok := plugin.AsFenced(store); !ok {
			return nil, nil, &CapabilityError{Store: typ, Missing: "plugin.FencedStore", Needs: "cleanup protocol v3 fences its calls with",
				Fix: "implement SetTopologyFenced and DeleteTopologyFenced (docs/kip1331-v3.md), or ask for protocol v2 (--protocol v2), which has the move race v3 closes"}
		}
	}
	if _, ok := store.(plugin.Lister); !ok {
		why := "the store does not implement plugin.Lister"
		if !o.AllowUnchecked {
			return nil, nil, &CapabilityError{Store: typ, Missing: "plugin.Lister", Needs: "the checks " + strings.Join(listerChecks, ", ") + " and the store-rows half of " + InvLiveness + " read the store's rows with",
				Fix: "implement List() []plugin.Entry, or allow the run to skip those checks (--allow-unchecked, Options.AllowUnchecked)"}
		}
		for _, c := range listerChecks {
			off[c] = why
		}
		warnings = append(warnings, fmt.Sprintf("the topology store %s does not implement plugin.Lister: %s did not run and %s did not check the store's rows (allowed by --allow-unchecked)",
			typ, strings.Join(listerChecks, " and "), InvLiveness))
	}
	return off, warnings, nil
}

// refuseWeaker applies storeCapabilities to the run's store, closing it
// when the run is refused.
func (w *world) refuseWeaker() (map[string]string, error) {
	off, warnings, err := storeCapabilities(w.opts, w.store)
	if err != nil {
		_ = w.store.Close()
		return nil, err
	}
	w.res.Warnings = append(w.res.Warnings, warnings...)
	if w.opts.V2KnownHoles && !w.opts.v2HolesExcused() {
		w.res.Warnings = append(w.res.Warnings, fmt.Sprintf("v2_known_holes (--v2-known-holes) applies only to protocol v2; this run uses %s, so it changes nothing", w.opts.Protocol))
	}
	return off, nil
}

// checks lists every invariant and whether this run checks it, in
// sim.Invariants' order.
func (w *world) checks(off map[string]string) []Check {
	out := make([]Check, 0, len(Invariants))
	for _, name := range Invariants {
		c := Check{Name: name, Ran: true}
		switch {
		case w.skipped[name] != nil:
			c.Ran, c.Why = false, "skipped (--skip-invariant): its violations are counted in skipped, not stopped at"
		case off[name] != "":
			c.Ran, c.Why = false, off[name]
		case !w.opts.Plugin && (name == InvNoTombstoneWhileStored || name == InvNoDataLossV2 || name == InvV1LeaksExplained):
			c.Ran, c.Why = false, "no topology store (plugin off)"
		case w.opts.Connect == nil && (name == InvSharePartitions || name == InvShareInFlightCapped || name == InvDLQConservation):
			c.Ran, c.Why = false, "no Connect workload"
		case name == InvV1LeaksExplained && w.opts.Protocol != coordinator.CleanupV1:
			c.Ran, c.Why = false, "v1 only: under "+string(w.opts.Protocol)+" any leaked row is a 6-liveness violation"
		case name == InvLiveness && w.opts.Plugin && w.lister == nil:
			c.Why = "groups only: the store's rows were not listed (no plugin.Lister)"
		}
		out = append(out, c)
	}
	return out
}

// Preflight checks, without running anything, that opts can run as asked:
// they validate, and the store they name (opened and closed again) supports
// what they ask of it (CheckStore). A refusal is an *OptionError or a
// *CapabilityError, the same Run would return; callers that write files
// call it first, so a refused run leaves nothing behind.
func Preflight(opts Options) error {
	if err := opts.Validate(); err != nil {
		return err
	}
	if !opts.Plugin || opts.Store == nil {
		return nil // memstore supports everything
	}
	store, err := opts.Store()
	if err != nil {
		return fmt.Errorf("sim: building the topology store: %w", err)
	}
	capErr := CheckStore(opts, store)
	if err := store.Close(); err != nil && capErr == nil {
		return fmt.Errorf("sim: closing the topology store: %w", err)
	}
	return capErr
}

// CheckStore reports, as a *CapabilityError, whether Run would refuse
// store under opts; nil means it would run it (with Result.Warnings for
// what AllowUnchecked let it skip). It neither uses nor closes the store,
// so a caller can check a store and then hand the same one to Run.
func CheckStore(opts Options, store plugin.Store) error {
	_, _, err := storeCapabilities(opts, store)
	return err
}

// SkippedInvariant is an invariant Options.SkipInvariants named: the run
// kept checking it but did not stop at its violations, which it counts.
type SkippedInvariant struct {
	Invariant string `json:"invariant"`
	// Violations counts the times the check failed; First is the first
	// failure (without a trace: the run went on past it).
	Violations int64      `json:"violations"`
	First      *Violation `json:"first,omitempty"`
}

// skipInvariants sets up Options.SkipInvariants: a skipped invariant is
// never silent, its name is in Result.Warnings and its count in
// Result.Skipped.
func (w *world) skipInvariants() {
	if len(w.opts.SkipInvariants) == 0 {
		return
	}
	w.skipped = map[string]*SkippedInvariant{}
	var names []string
	for _, name := range w.opts.SkipInvariants {
		if w.skipped[name] != nil {
			continue
		}
		sk := &SkippedInvariant{Invariant: name}
		w.skipped[name] = sk
		w.res.Skipped = append(w.res.Skipped, sk)
		names = append(names, name)
	}
	w.res.Warnings = append(w.res.Warnings, fmt.Sprintf("skipped by --skip-invariant (Options.SkipInvariants): %s; their violations were counted, not stopped at",
		strings.Join(names, ", ")))
}
