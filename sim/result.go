package sim

import (
	"time"

	"github.com/coordsim/coordsim/metrics"
	"github.com/coordsim/coordsim/sim/connectsim"
	"github.com/coordsim/coordsim/sim/consumption"
)

// Result is what one simulation produced. Everything in it is a function of
// the Options, except WallTime, which the caller fills in.
type Result struct {
	Seed     uint64 `json:"seed"`
	Scenario string `json:"scenario"`
	// Protocol is the cleanup protocol the run used: what Options asked,
	// since a store that cannot support it is refused (CapabilityError).
	Protocol string `json:"protocol"`
	// Checks lists every invariant and whether the run checked it; Warnings
	// say what the run did less of than its options asked, and why
	// (Options.AllowUnchecked). A run with warnings is not a clean run.
	Checks   []Check  `json:"checks"`
	Warnings []string `json:"warnings,omitempty"`
	// Skipped are the invariants Options.SkipInvariants named, each with
	// the violations the run went on past.
	Skipped []*SkippedInvariant `json:"skipped,omitempty"`

	Events      int64         `json:"events"`
	VirtualTime time.Duration `json:"virtual_time_ns"`
	WallTime    time.Duration `json:"wall_time_ns"`
	// TraceHash is an FNV-64a hash of the full trace: equal runs have equal hashes.
	TraceHash string `json:"trace_hash"`

	// GroupsCreated is the number of groups the workload created, by type.
	GroupsCreated map[string]int `json:"groups_created"`
	// GroupsFinal counts groups alive at the end by "type/STATE".
	GroupsFinal map[string]int `json:"groups_final"`

	Cycles        int64 `json:"cycles"`
	TicksDropped  int64 `json:"ticks_dropped"`
	Eligible      int64 `json:"eligible"`
	DeletesOK     int64 `json:"deletes_ok"`
	DeletesFailed int64 `json:"deletes_failed"`
	OffsetCommits int64 `json:"offset_commits"`
	OffsetExpired int64 `json:"offsets_expired"`
	ShardMoves    int64 `json:"shard_moves"`

	// AcceptedDataLoss counts occurrences of the v1 race (docs/kip1331.md §1.8):
	// a group whose metadata says its description is stored while the store
	// has no row. Under v2 any occurrence is a violation instead.
	AcceptedDataLoss int64 `json:"accepted_data_loss"`
	// DataLoss lists each accepted loss: when, which group, at which stored
	// epoch (the report marks them on its time axis).
	DataLoss []DataLossEvent `json:"data_loss,omitempty"`
	// LeakedRows counts rows left in the store for groups that no longer
	// exist at the end of the liveness phase (v1 only; a violation under v2).
	LeakedRows int64 `json:"leaked_rows"`

	// Produced counts records the Connect workload's producers wrote;
	// Connect is each connector's outcome (empty without a Connect workload).
	Produced int64                   `json:"produced,omitempty"`
	Connect  []connectsim.SinkResult `json:"connect,omitempty"`

	// Marks counts how often each rare branch was reached.
	Marks map[string]int64 `json:"marks"`
	// Violation is the first invariant that failed, or nil.
	Violation *Violation `json:"violation,omitempty"`
	// Stopped is set when the run stopped at Options.StopAt, or when
	// Options.Progress stopped it (Interrupted is then set too).
	Stopped     bool `json:"stopped,omitempty"`
	Interrupted bool `json:"interrupted,omitempty"`
	// Replay is the command that reproduces this run with every resolved
	// option; the caller that resolved the options fills it in (reports
	// print it).
	Replay string `json:"replay,omitempty"`
	// Consumption is what the rolling-upgrade applications' rebalances
	// cost their records: pauses and duplicates, with each roll's window
	// (nil without rolling-upgrade groups; sim/rolling_costs.go).
	// Consumption.Total() sums it; CompareKIP848 compares two runs.
	Consumption *consumption.Log `json:"-"`
	// KIP848 compares this run with its all-KIP-848 baseline, when the
	// caller ran one (CompareKIP848; `coordsim run --compare-kip848`).
	KIP848 *KIP848Comparison `json:"kip848_comparison,omitempty"`
	// Group is Options.InspectGroup's state where the run ended.
	Group *GroupDetail `json:"group_detail,omitempty"`

	Series Series `json:"-"`
	// Metrics are every broker's coordinator metrics at the end, each
	// series tagged with its broker.
	Metrics []metrics.Sample `json:"-"`
	// MetricsSeries are the samples of Options.MetricsEvery, in time order.
	MetricsSeries []MetricsSample `json:"-"`
}

// MetricsSample is every broker's metrics at one virtual instant.
type MetricsSample struct {
	AtMs    int64
	Samples []metrics.Sample
}

// DataLossEvent is one occurrence of the v1 race: the group's metadata says
// StoredEpoch is stored, the store has no row.
type DataLossEvent struct {
	AtMs        int64  `json:"at_ms"`
	Group       string `json:"group"`
	StoredEpoch int32  `json:"stored_epoch"`
}

// Violation describes a failed invariant.
type Violation struct {
	Invariant string `json:"invariant"`
	Step      int64  `json:"step"`
	AtMs      int64  `json:"at_ms"`
	Detail    string `json:"detail"`
	// Focus are the recent trace lines that concern the group or partition
	// the violation names (from the last 8192 events), oldest first; Trace
	// is the global window before the violation.
	Focus []string `json:"focus,omitempty"`
	Trace []string `json:"trace"`
}

// InvariantsHeld reports whether no invariant failed.
func (r *Result) InvariantsHeld() bool { return r.Violation == nil }

// ChecksOff returns the invariants the run did not check, as "name (why)".
func (r *Result) ChecksOff() []string {
	var out []string
	for _, c := range r.Checks {
		if !c.Ran {
			out = append(out, c.Name+" ("+c.Why+")")
		}
	}
	return out
}

// ChecksRan counts the invariants the run checked.
func (r *Result) ChecksRan() int {
	n := 0
	for _, c := range r.Checks {
		if c.Ran {
			n++
		}
	}
	return n
}
