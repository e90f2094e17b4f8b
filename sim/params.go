package sim

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/coordsim/coordsim/coordinator"
)

// ParamType is how a parameter's value is written: on the command line, in
// a scenario file and in a replay command.
type ParamType string

// Parameter types.
const (
	TypeInt      ParamType = "integer"
	TypeNumber   ParamType = "number"
	TypeProb     ParamType = "probability"
	TypeDuration ParamType = "duration"
	TypeBool     ParamType = "boolean"
	TypeEnum     ParamType = "enum"
)

// Param is one scalar option of Options, settable by name. Params is the
// single table from which the command-line flags, the scenario keys, the
// range checks of Validate, the swarm and the scenario schema's key tables
// all derive: adding an option is one entry here (plus its field). A fault
// kind's entries live in its own file and join the table through faultKinds
// (faults.go).
type Param struct {
	// Key is the scenario-file key: "duration", "workload.streams_apps",
	// "faults.plugin_transient".
	Key string
	// Flag is the command-line flag (without dashes): the key's last part
	// with '_' written '-'.
	Flag string
	Type ParamType
	// Min and Max bound the value (durations in nanoseconds); MinOpen
	// excludes Min. Whole, for durations, is the unit the value must be a
	// multiple of (0: any). Values lists an enum's values.
	Min, Max float64
	MinOpen  bool
	Whole    time.Duration
	Values   []string
	// Doc says what the option does (one sentence, no range: the range is
	// printed from Min and Max).
	Doc string
	// Swarm is how `sweep --swarm` draws the value; nil leaves it alone.
	Swarm *SwarmRule

	ptr func(*Options) any
}

// SwarmRule draws one parameter for a swarm seed.
type SwarmRule struct {
	// Doc describes the draw for the schema ("uniform in [1, 5]").
	Doc  string
	draw func(r *rand.Rand, heavy *Options, p *Param, o *Options)
}

const inf = math.MaxFloat64

func dur(d time.Duration) float64 { return float64(d) }

// Params is the table. Order matters twice: the swarm draws in this order,
// and the schema lists keys in it. Each entry is built by the constructor
// of its type (intParam, numParam, probParam, durParam, ...), which sets
// the type's usual bounds; the modifiers after it (openMin, upTo, whole,
// swarm) say where an entry departs from them. The fault keys come last,
// kind by kind in faultKinds' order.
var Params = withFlags(append([]*Param{
	durParam("duration", time.Minute, "virtual time of the workload phase; a liveness phase follows",
		func(o *Options) any { return &o.Duration }).upTo(366 * 24 * time.Hour),
	intParam("brokers", 1, 64, "number of brokers",
		func(o *Options) any { return &o.Brokers }).swarm(uniformInt(1, 5)),
	intParam("partitions", 1, 1000, "`__consumer_offsets` partitions, spread round-robin",
		func(o *Options) any { return &o.Partitions }).swarm(uniformInt(1, 50)),
	durParam("retention", time.Minute, "`offsets.retention.minutes`",
		func(o *Options) any { return &o.Retention }).whole(time.Minute).swarm(uniformDur(5*time.Minute, 60*time.Minute, time.Minute)),
	durParam("check_interval", time.Second, "`offsets.retention.check.interval.ms`, also the KIP-1331 cycle's interval",
		func(o *Options) any { return &o.CheckInterval }).swarm(uniformDur(30*time.Second, 10*time.Minute, time.Second)),
	enumParam("protocol", coordinator.CleanupProtocolNames(), coordinator.CleanupProtocolUsage,
		func(o *Options) any { return &o.Protocol }).swarm(&SwarmRule{Doc: "v1 one seed in four, v2 (with `v2_known_holes`) one in four, else unchanged",
		draw: func(r *rand.Rand, _ *Options, _ *Param, o *Options) {
			// One draw for both, so the v1 seeds stay the seeds they were.
			switch r.IntN(4) {
			case 0:
				o.Protocol = coordinator.CleanupV1
			case 1:
				o.Protocol, o.V2KnownHoles = coordinator.CleanupV2, true
			}
		}}),
	boolParam("v2_known_holes", "under v2, excuse a lost or leaked row only when an observed event of its group ties it to a hole Kafka's merged v2 keeps (holes 2-4 of docs/kip1331-v3.md)",
		func(o *Options) any { return &o.V2KnownHoles }),
	boolParam("plugin", "configure a topology store (wrapped in faultstore)", func(o *Options) any { return &o.Plugin }),
	intParam("replay_check_every", 0, math.MaxInt32, "run the replay-equality invariant every N events; 0: only at the end",
		func(o *Options) any { return &o.ReplayCheckEvery }),

	groupsParam("workload.streams_apps", "Kafka Streams applications (streams groups) created over the run",
		func(o *Options) any { return &o.Workload.StreamsApps }),
	groupsParam("workload.consumer_groups", "KIP-848 consumer groups", func(o *Options) any { return &o.Workload.ConsumerGroups }),
	groupsParam("workload.share_groups", "share groups", func(o *Options) any { return &o.Workload.ShareGroups }),
	groupsParam("workload.simple_groups", "groups that only commit offsets; at most 2 000 000 groups in all",
		func(o *Options) any { return &o.Workload.SimpleGroups }),
	groupsParam("workload.rolling_upgrade_groups", "consumer applications whose classic clients restart one at a time onto the consumer protocol and back (an online upgrade and downgrade)",
		func(o *Options) any { return &o.Workload.RollingUpgradeGroups }),
	boolParam("workload.rolling_upgrade_baseline", "start the rolling-upgrade applications on the consumer protocol and never roll them: the all-KIP-848 run `coordsim run` compares a rolling upgrade with (docs/rolling-upgrade.md)",
		func(o *Options) any { return &o.Workload.RollingUpgradeBaseline }),
	intParam("workload.members_min", 1, 100, "fewest members of a streams, consumer or share group",
		func(o *Options) any { return &o.Workload.MembersMin }),
	intParam("workload.members_max", 1, 100, "most members, at least `members_min`", func(o *Options) any { return &o.Workload.MembersMax }),
	durParam("workload.lifetime_min", 0, "shortest time a group has members", func(o *Options) any { return &o.Workload.LifetimeMin }).openMin(),
	durParam("workload.lifetime_max", 0, "longest, at least `lifetime_min`", func(o *Options) any { return &o.Workload.LifetimeMax }).openMin(),
	numParam("workload.arrival_window", 0, 1, "fraction of `duration` over which groups are born",
		func(o *Options) any { return &o.Workload.ArrivalWindow }).openMin(),
	durParam("workload.commit_interval", time.Second, "how often an active member commits offsets",
		func(o *Options) any { return &o.Workload.CommitInterval }),
	probParam("workload.topology_upgrade_prob", "a streams app upgrades its topology epoch once during its life; above 0 the coordinators allow topology updates, which Kafka does not yet",
		func(o *Options) any { return &o.Workload.TopologyUpgradeProb }),
	probParam("workload.standby_prob", "share of streams apps whose group config sets `streams.num.standby.replicas` to 1 or 2 (chosen from the seed)",
		func(o *Options) any { return &o.Workload.StandbyProb }),
	intParam("workload.racks", 0, 26, "racks the data replicas and the clients live on (`broker.rack`, `client.rack`); 0 leaves racks out",
		func(o *Options) any { return &o.Workload.Racks }),
	probParam("workload.range_prob", "share of consumer groups whose members name the `range` server assignor, which matches partitions to members by rack (chosen from the seed)",
		func(o *Options) any { return &o.Workload.RangeProb }),
	durParam("workload.admin_interval", 0, "how often the admin deletes a dead group or describes a streams group; 0 disables it",
		func(o *Options) any { return &o.Workload.AdminInterval }),
}, faultParams()...))

// --- entry builders -----------------------------------------------------------

// field points a parameter at its field of Options.
type field = func(*Options) any

// intParam is an integer in [lo, hi].
func intParam(key string, lo, hi float64, doc string, ptr field) *Param {
	return &Param{Key: key, Type: TypeInt, Min: lo, Max: hi, Doc: doc, ptr: ptr}
}

// groupsParam is a count of groups of one type, in [0, maxGroups].
func groupsParam(key, doc string, ptr field) *Param { return intParam(key, 0, maxGroups, doc, ptr) }

// numParam is a real number in [lo, hi].
func numParam(key string, lo, hi float64, doc string, ptr field) *Param {
	return &Param{Key: key, Type: TypeNumber, Min: lo, Max: hi, Doc: doc, ptr: ptr}
}

// rateParam is a mean rate per hour, in [0, 3600] (at most one a second).
func rateParam(key, doc string, ptr field) *Param { return numParam(key, 0, 3600, doc, ptr) }

// probParam is a probability, in [0, 1].
func probParam(key, doc string, ptr field) *Param {
	return &Param{Key: key, Type: TypeProb, Min: 0, Max: 1, Doc: doc, ptr: ptr}
}

// durParam is a duration of at least lo, unbounded above (see upTo).
func durParam(key string, lo time.Duration, doc string, ptr field) *Param {
	return &Param{Key: key, Type: TypeDuration, Min: dur(lo), Max: inf, Doc: doc, ptr: ptr}
}

// boolParam is true or false.
func boolParam(key, doc string, ptr field) *Param {
	return &Param{Key: key, Type: TypeBool, Doc: doc, ptr: ptr}
}

// enumParam is one of values.
func enumParam(key string, values []string, doc string, ptr field) *Param {
	return &Param{Key: key, Type: TypeEnum, Values: values, Doc: doc, ptr: ptr}
}

// openMin excludes the lower bound.
func (p *Param) openMin() *Param { p.MinOpen = true; return p }

// upTo bounds a duration above.
func (p *Param) upTo(d time.Duration) *Param { p.Max = dur(d); return p }

// whole requires a duration to be a multiple of unit.
func (p *Param) whole(unit time.Duration) *Param { p.Whole = unit; return p }

// swarm sets how `sweep --swarm` draws the value.
func (p *Param) swarm(r *SwarmRule) *Param { p.Swarm = r; return p }

// maxGroups bounds the groups of one run.
const maxGroups = 2_000_000

// withFlags fills in each entry's flag from its key.
func withFlags(ps []*Param) []*Param {
	for _, p := range ps {
		if p.Flag == "" {
			_, name := p.Section()
			p.Flag = strings.ReplaceAll(name, "_", "-")
		}
	}
	return ps
}

// Section splits the key into its scenario-file section ("" at the top
// level, "workload", "faults") and the key's name within it.
func (p *Param) Section() (section, name string) {
	if i := strings.LastIndexByte(p.Key, '.'); i >= 0 {
		return p.Key[:i], p.Key[i+1:]
	}
	return "", p.Key
}

// ParamByKey returns the table entry with that scenario key, or nil.
func ParamByKey(key string) *Param {
	for _, p := range Params {
		if p.Key == key {
			return p
		}
	}
	return nil
}

// ParamByFlag returns the table entry with that flag, or nil.
func ParamByFlag(flag string) *Param {
	for _, p := range Params {
		if p.Flag == flag {
			return p
		}
	}
	return nil
}

// Get formats the parameter's value in o so that Set reads it back exactly.
func (p *Param) Get(o *Options) string {
	switch v := p.ptr(o).(type) {
	case *int:
		return strconv.Itoa(*v)
	case *int32:
		return strconv.FormatInt(int64(*v), 10)
	case *float64:
		return strconv.FormatFloat(*v, 'g', -1, 64)
	case *time.Duration:
		return v.String()
	case *bool:
		return strconv.FormatBool(*v)
	case *coordinator.CleanupProtocol:
		return string(*v)
	}
	panic("sim: param " + p.Key + " has an unsupported field type")
}

// value is the parameter's value as a number (durations in nanoseconds).
func (p *Param) value(o *Options) float64 {
	switch v := p.ptr(o).(type) {
	case *int:
		return float64(*v)
	case *int32:
		return float64(*v)
	case *float64:
		return *v
	case *time.Duration:
		return float64(*v)
	}
	return 0
}

// ErrParamSyntax is wrapped by Set when the text is not a value of the
// parameter's type.
var ErrParamSyntax = errors.New("bad value")

// Set parses s and stores it in o. It checks the syntax (and an enum's
// values), not the range: Validate does that, naming the key.
func (p *Param) Set(o *Options, s string) error {
	bad := func(want string) error { return fmt.Errorf("%w %q: want %s", ErrParamSyntax, s, want) }
	switch v := p.ptr(o).(type) {
	case *int:
		n, err := strconv.ParseInt(s, 10, 32)
		if err != nil {
			return bad("an integer")
		}
		*v = int(n)
	case *int32:
		n, err := strconv.ParseInt(s, 10, 32)
		if err != nil {
			return bad("an integer")
		}
		*v = int32(n)
	case *float64:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return bad("a finite number")
		}
		*v = f
	case *time.Duration:
		d, err := time.ParseDuration(s)
		if err != nil {
			return bad("a duration such as 90s, 10m, 48h")
		}
		*v = d
	case *bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return bad("true or false")
		}
		*v = b
	case *coordinator.CleanupProtocol:
		for _, ok := range p.Values {
			if s == ok {
				*v = coordinator.CleanupProtocol(s)
				return nil
			}
		}
		return bad(strings.Join(p.Values, " or "))
	default:
		panic("sim: param " + p.Key + " has an unsupported field type")
	}
	return nil
}

// Range describes the accepted values for messages and the schema.
func (p *Param) Range() string {
	f := func(x float64) string {
		if p.Type == TypeDuration {
			return fmtDur(time.Duration(x))
		}
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	switch {
	case p.Type == TypeEnum:
		return strings.Join(p.Values, " or ")
	case p.Type == TypeBool:
		return "true or false"
	}
	lo := "["
	if p.MinOpen {
		lo = "("
	}
	s := ""
	switch {
	case p.Max == inf && p.MinOpen:
		s = "> " + f(p.Min)
	case p.Max == inf:
		s = "at least " + f(p.Min)
	default:
		s = fmt.Sprintf("in %s%s, %s]", lo, f(p.Min), f(p.Max))
	}
	if p.Whole > 0 {
		s += ", a whole number of " + map[time.Duration]string{time.Minute: "minutes", time.Second: "seconds"}[p.Whole]
	}
	return s
}

// fmtDur prints a duration the short way people write it (1m, 366d → 8784h).
func fmtDur(d time.Duration) string {
	s := d.String()
	for _, cut := range []string{"m0s", "h0m"} {
		if strings.HasSuffix(s, cut) {
			s = strings.TrimSuffix(s, cut[1:])
		}
	}
	return s
}

// check reports whether the value in o is in range.
func (p *Param) check(o *Options) error {
	switch p.Type {
	case TypeEnum:
		got := p.Get(o)
		for _, ok := range p.Values {
			if got == ok {
				return nil
			}
		}
		return &OptionError{Keys: []string{p.Key}, Why: "must be " + p.Range()}
	case TypeBool:
		return nil
	}
	v := p.value(o)
	bad := v < p.Min || v > p.Max || (p.MinOpen && v == p.Min)
	if !bad && p.Whole > 0 && int64(v)%int64(p.Whole) != 0 {
		bad = true
	}
	if bad {
		return &OptionError{Keys: []string{p.Key}, Why: "must be " + p.Range()}
	}
	return nil
}

// OptionError is a failed check of Validate. Keys are the scenario keys
// involved (the first names the error); Why says what is wrong.
type OptionError struct {
	Keys []string
	Why  string
}

func (e *OptionError) Error() string {
	return fmt.Sprintf("sim: invalid %s: %s", strings.Join(e.Keys, ", "), e.Why)
}

// --- swarm ------------------------------------------------------------------

func uniformInt(lo, hi int) *SwarmRule {
	return &SwarmRule{Doc: fmt.Sprintf("uniform in [%d, %d]", lo, hi), draw: func(r *rand.Rand, _ *Options, p *Param, o *Options) {
		_ = p.Set(o, strconv.Itoa(lo+r.IntN(hi-lo+1)))
	}}
}

func uniformDur(lo, hi, unit time.Duration) *SwarmRule {
	return &SwarmRule{Doc: fmt.Sprintf("uniform in [%s, %s]", fmtDur(lo), fmtDur(hi)), draw: func(r *rand.Rand, _ *Options, p *Param, o *Options) {
		n := int64((hi - lo) / unit)
		d := lo
		if n > 0 {
			d += time.Duration(r.Int64N(n+1)) * unit
		}
		_ = p.Set(o, d.String())
	}}
}

func scaleHeavy() *SwarmRule {
	return &SwarmRule{Doc: "the heavy preset's value × uniform [0, 1)", draw: func(r *rand.Rand, heavy *Options, p *Param, o *Options) {
		_ = p.Set(o, strconv.FormatFloat(p.value(heavy)*r.Float64(), 'g', -1, 64))
	}}
}

// Swarm draws a seed's own knobs (swarm testing): every parameter with a
// SwarmRule, in table order, from a generator seeded by o.Seed alone, so the
// same seed always gets the same knobs. Everything it sets is an ordinary
// parameter, so the replay command of the result names each knob as a flag.
func Swarm(o *Options) {
	r := rand.New(rand.NewPCG(o.Seed, 0x5a4a))
	heavy := Options{}
	heavy.Faults, _ = PresetFaults(FaultsHeavy)
	for _, p := range Params {
		if p.Swarm != nil {
			p.Swarm.draw(r, &heavy, p, o)
		}
	}
}

// --- replay -----------------------------------------------------------------

// ReplayArgs returns the flags that turn base (the scenario's options) into
// o: the seed, the fault preset closest to o's faults when it is closer than
// base's, and every parameter that still differs, in table order. Applying them to
// base gives back o's parameters exactly (Get and Set round-trip).
func ReplayArgs(base, o Options) []string {
	args := []string{"--seed", strconv.FormatUint(o.Seed, 10)}
	// The fault preset closest to o's faults, when it is closer than
	// base's, shortens the command; the differing fault flags follow.
	faultDiffs := func(f Faults) int {
		a, b := o, o
		b.Faults = f
		n := 0
		for _, p := range Params {
			if strings.HasPrefix(p.Key, "faults.") && p.Get(&a) != p.Get(&b) {
				n++
			}
		}
		return n
	}
	best, bestDiffs := FaultPreset(""), faultDiffs(base.Faults)
	for _, name := range []FaultPreset{FaultsNone, FaultsLight, FaultsHeavy} {
		if f, _ := PresetFaults(name); faultDiffs(f) < bestDiffs {
			best, bestDiffs = name, faultDiffs(f)
		}
	}
	if best != "" {
		args = append(args, "--faults", string(best))
		base.Faults, _ = PresetFaults(best)
	}
	for _, p := range Params {
		if v := p.Get(&o); v != p.Get(&base) {
			args = append(args, "--"+p.Flag, v)
		}
	}
	return args
}
