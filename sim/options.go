package sim

import (
	"time"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/internal/mutant"
	"github.com/coordsim/coordsim/plugin"
	"github.com/coordsim/coordsim/sim/connectsim"
	"github.com/coordsim/coordsim/sim/invariants"
)

// Options is everything that determines a simulation. The same Options
// (including Seed) give a byte-identical trace.
type Options struct {
	// Seed is the only source of randomness.
	Seed uint64
	// Scenario names the scenario the options came from (for reports).
	Scenario string
	// Duration is the virtual time of the workload phase; a liveness phase
	// follows (see Liveness).
	Duration time.Duration
	// Brokers is the number of brokers (default 3); Partitions the number of
	// __consumer_offsets partitions (default 50), spread round-robin.
	Brokers    int
	Partitions int32

	// Retention is offsets.retention.minutes as a duration (whole minutes);
	// CheckInterval is offsets.retention.check.interval.ms (also the
	// KIP-1331 cycle's interval).
	Retention     time.Duration
	CheckInterval time.Duration
	// Protocol is the KIP-1331 cleanup protocol (v1, v2 or v3, the default).
	Protocol coordinator.CleanupProtocol
	// V2KnownHoles excuses, under protocol v2, a lost or leaked row that an
	// observed event of its group ties to one of the holes Kafka's merged v2
	// keeps (holes 2-4 of docs/kip1331-v3.md); any other loss or leak is
	// still a violation. The swarm sets it when it draws v2, so a swarm can
	// run v2 and still catch a v2 bug; the v2-move-race scenario leaves it
	// off, because finding hole 2 is its job.
	V2KnownHoles bool `json:",omitempty"`
	// Plugin configures a topology store, wrapped in faultstore.
	Plugin bool
	// Store builds the topology store when Plugin is set; nil uses
	// memstore. Any plugin.Store works, including a user's, if it supports
	// what the options ask: protocol v3 needs plugin.FencedStore, and the
	// checks that compare the store's rows with the coordinators' metadata
	// need plugin.Lister. Run refuses a store that lacks either with a
	// *CapabilityError (see Preflight), unless AllowUnchecked lets the run
	// go on without the Lister checks. The simulation closes the store.
	Store func() (plugin.Store, error) `json:"-"`
	// AllowUnchecked runs a store without plugin.Lister instead of refusing
	// it; the checks it skips are marked in Result.Checks and named in
	// Result.Warnings. Default false: such a store is refused.
	AllowUnchecked bool `json:",omitempty"`
	// SkipInvariants names invariants (sim/invariants, `coordsim
	// invariants`) whose violations do not stop the run, for bisecting:
	// each is still checked, marked not run in Result.Checks, named in
	// Result.Warnings, and its violations are counted in Result.Skipped.
	// Validate refuses a name not in the registry.
	SkipInvariants []string `json:",omitempty"`

	Workload Workload
	Faults   Faults
	// Connect adds producers and Kafka Connect sink connectors (consumer- and
	// share-group sinks, KIP-1302) over a simulated share-partition broker
	// layer; nil runs none.
	Connect *connectsim.Workload `json:",omitempty"`

	// ReplayCheckEvery runs the replay-equality invariant every N events
	// (0: only at the end). It costs O(state) each time.
	ReplayCheckEvery int
	// MaxEvents bounds the run (0: default 50 M).
	MaxEvents int
	// StopAt stops the run after this step (0: run to the end); replay uses it.
	StopAt int64
	// TraceTail is how many trace events a violation prints (0, as in
	// DefaultOptions: 50).
	TraceTail int
	// Progress, if set, is called every few thousand events with the step
	// and the virtual time reached; returning false stops the run there
	// (Result.Interrupted). It is for a caller's progress display and
	// Ctrl-C: it must not feed anything back into the simulation.
	Progress func(step int64, virtual time.Duration) bool `json:"-"`
	// MetricsEvery, if set, samples every broker's metrics each time
	// virtual time passes a multiple of it (Result.MetricsSeries). The
	// samples only read the coordinators: the trace is the same with or
	// without them.
	MetricsEvery time.Duration `json:"-"`
	// InspectGroup, if set, fills Result.Group with that group's state
	// where the run ended (replay --group).
	InspectGroup string `json:"-"`

	// Mutants are deliberate coordinator bugs for the simulator's own tests.
	Mutants mutant.Set
}

// Workload describes the groups and clients.
type Workload struct {
	// Groups created over the workload phase, by type.
	StreamsApps    int
	ConsumerGroups int
	ShareGroups    int
	SimpleGroups   int
	// RollingUpgradeGroups are consumer applications that start on the
	// classic protocol and roll onto the consumer protocol and back
	// (sim/rolling_upgrade.go).
	RollingUpgradeGroups int
	// RollingUpgradeBaseline starts the rolling-upgrade applications on
	// the consumer protocol and never rolls them: the all-KIP-848 run a
	// rolling upgrade is compared with (KIP848Baseline, CompareKIP848,
	// `coordsim run --compare-kip848`).
	RollingUpgradeBaseline bool
	// MembersMin/MembersMax bound the members per streams, consumer or share group.
	MembersMin int
	MembersMax int
	// LifetimeMin/LifetimeMax bound how long a group has members.
	LifetimeMin time.Duration
	LifetimeMax time.Duration
	// ArrivalWindow is the fraction (0,1] of Duration over which groups are born.
	ArrivalWindow float64
	// CommitInterval is how often an active member commits offsets.
	CommitInterval time.Duration
	// TopologyUpgradeProb is the chance a streams app upgrades its topology
	// epoch once during its life.
	TopologyUpgradeProb float64
	// StandbyProb is the share of streams apps whose group config sets
	// streams.num.standby.replicas (1 or 2) before they start; which apps,
	// and how many replicas, follows from the seed (sim/streams_standby.go).
	StandbyProb float64
	// Racks is the number of racks the data replicas and the clients live
	// on; 0 leaves racks out of the run (sim/racks.go).
	Racks int
	// RangeProb is the share of consumer groups whose members name the
	// range server assignor, which matches partitions to members by rack.
	RangeProb float64
	// AdminInterval is how often the admin acts (DeleteGroups of a random
	// dead group, describe of a random streams group); 0 disables it.
	AdminInterval time.Duration
	// Topics is the topic metadata image (name → partitions); nil picks a default.
	Topics map[string]int32
}

// DefaultOptions is the default scenario: three brokers, 50 partitions, a
// plugin (memstore), protocol v3, light faults, two virtual days with a one-hour
// retention so groups are born, idle, expire and are cleaned many times.
func DefaultOptions() Options {
	f, _ := PresetFaults(FaultsLight)
	return Options{
		Seed: 1, Scenario: "default", Duration: 48 * time.Hour,
		Brokers: 3, Partitions: 50,
		Retention: time.Hour, CheckInterval: 10 * time.Minute,
		Protocol: coordinator.CleanupV3, Plugin: true,
		Workload: Workload{
			StreamsApps: 300, ConsumerGroups: 300, ShareGroups: 60, SimpleGroups: 600,
			MembersMin: 1, MembersMax: 3, LifetimeMin: 30 * time.Minute, LifetimeMax: 6 * time.Hour,
			ArrivalWindow: 0.8, CommitInterval: 30 * time.Second, TopologyUpgradeProb: 0.2,
			StandbyProb: 0.5, Racks: 3, RangeProb: 0.5, AdminInterval: 10 * time.Minute,
		},
		Faults:           f,
		ReplayCheckEvery: 0,
	}
}

// Validate checks the options. A failure is an *OptionError naming the
// scenario keys involved: first every parameter's range (the Params table),
// then the rules that tie parameters together.
func (o Options) Validate() error {
	for _, p := range Params {
		if err := p.check(&o); err != nil {
			return err
		}
	}
	w, f := o.Workload, o.Faults
	checks := []optionRule{
		{w.StreamsApps+w.ConsumerGroups+w.ShareGroups+w.SimpleGroups+w.RollingUpgradeGroups > maxGroups,
			[]string{"workload.streams_apps", "workload.consumer_groups", "workload.share_groups", "workload.simple_groups"}, "at most 2 000 000 groups in total"},
		{w.MembersMax < w.MembersMin, []string{"workload.members_min", "workload.members_max"}, "need members_min <= members_max"},
		{w.LifetimeMax < w.LifetimeMin, []string{"workload.lifetime_min", "workload.lifetime_max"}, "need lifetime_min <= lifetime_max"},
	}
	checks = append(checks, faultRules(f)...)
	checks = append(checks, []optionRule{
		{o.MaxEvents < 0 || o.StopAt < 0 || o.TraceTail < 0, []string{"limits"}, "MaxEvents, StopAt and TraceTail must be >= 0"},
		{o.MetricsEvery != 0 && o.MetricsEvery < time.Second, []string{"metrics-every"}, "must be 0 (off) or at least 1s"},
	}...)
	for _, c := range checks {
		if c.bad {
			return &OptionError{Keys: c.keys, Why: c.why}
		}
	}
	if err := invariants.Validate(o.SkipInvariants); err != nil {
		return &OptionError{Keys: []string{"skip-invariant"}, Why: err.Error()}
	}
	if o.Connect != nil {
		if err := o.Connect.Validate(o.Duration); err != nil {
			return err
		}
	}
	return nil
}
