package sim

import (
	"errors"
	"fmt"

	"github.com/coordsim/coordsim/sim/consumption"
)

// KIP848Comparison sets a rolling-upgrade run beside its all-KIP-848
// baseline: the same options and seed, every rolling-upgrade application
// on the consumer protocol from its first member and never rolled
// (Workload.RollingUpgradeBaseline). Both runs draw the same groups, births,
// lifetimes, members and fault rates; past the first roll their random
// streams part, as the two protocols send different requests. Each scope
// measures both runs in the rolling run's windows (consumption.Compare).
type KIP848Comparison struct {
	// RecordsPerSecond is each partition's production rate in the model.
	RecordsPerSecond int                 `json:"records_per_second"`
	Rolling          ComparedRun         `json:"rolling_upgrade_run"`
	Baseline         ComparedRun         `json:"all_kip848_run"`
	Scopes           []consumption.Scope `json:"scopes"`
}

// ComparedRun is one side of a KIP848Comparison.
type ComparedRun struct {
	// What says which run this is.
	What      string `json:"what"`
	TraceHash string `json:"trace_hash"`
	Events    int64  `json:"events"`
	// Rolls counts the rolls the run finished (marks rolling-upgraded and
	// rolling-downgraded): none in the baseline.
	Rolls int64 `json:"rolls"`
	// Violation names the invariant that stopped the run, when one did:
	// its figures then stop there.
	Violation string `json:"violation,omitempty"`
	// Violated is that violation in full, nil when the run held every
	// invariant. A violation in either run is a violation of the command
	// that ran them: `coordsim run` exits 1 for the baseline's too.
	Violated *ComparedViolation `json:"violated,omitempty"`
	// Replay is the command that reruns this run alone (the caller, which
	// resolved the options, fills it in).
	Replay string `json:"replay,omitempty"`
}

// ComparedViolation is the invariant that stopped one run of a comparison.
type ComparedViolation struct {
	Invariant string `json:"invariant"`
	Step      int64  `json:"step"`
	AtMs      int64  `json:"at_ms"`
	Detail    string `json:"detail"`
	// Replay reruns the run and stops at the violation: the run's Replay
	// with --stop-at Step (the caller fills it in).
	Replay string `json:"replay,omitempty"`
}

// The two runs, as summaries and reports name them.
const (
	RollingRunName  = "rolling upgrade"
	BaselineRunName = "all KIP-848"
)

// KIP848Baseline returns the options of o's all-KIP-848 baseline.
func KIP848Baseline(o Options) Options {
	o.Workload.RollingUpgradeBaseline = true
	o.StopAt = 0
	return o
}

// CompareKIP848 compares a rolling-upgrade run with its baseline (a run of
// KIP848Baseline of its options).
func CompareKIP848(rolling, baseline *Result) (*KIP848Comparison, error) {
	if rolling.Consumption == nil || baseline.Consumption == nil {
		return nil, errors.New("sim: no rolling-upgrade applications to compare")
	}
	scopes, err := consumption.Compare(rolling.Consumption, baseline.Consumption)
	if err != nil {
		return nil, err
	}
	return &KIP848Comparison{
		RecordsPerSecond: consumption.RecordsPerSecond,
		Rolling:          ComparedOf(rolling, RollingRunName),
		Baseline:         ComparedOf(baseline, BaselineRunName),
		Scopes:           scopes,
	}, nil
}

// runWhat describes each run of a comparison by its name.
var runWhat = map[string]string{
	RollingRunName:  "classic clients rolled onto the consumer protocol and back, one instance at a time",
	BaselineRunName: "the same applications on the consumer protocol from the start, never rolled",
}

// ComparedOf is r as the side of a comparison named name (RollingRunName
// or BaselineRunName), without its replay commands.
func ComparedOf(r *Result, name string) ComparedRun {
	c := ComparedRun{What: runWhat[name], TraceHash: r.TraceHash, Events: r.Events, Rolls: r.Marks["rolling-upgraded"] + r.Marks["rolling-downgraded"]}
	if v := r.Violation; v != nil {
		c.Violation = fmt.Sprintf("%s at step %d", v.Invariant, v.Step)
		c.Violated = &ComparedViolation{Invariant: v.Invariant, Step: v.Step, AtMs: v.AtMs, Detail: v.Detail}
	}
	return c
}
