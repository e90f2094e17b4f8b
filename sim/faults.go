package sim

import (
	"fmt"
	"time"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/plugin"
	"github.com/coordsim/coordsim/plugin/faultstore"
	"github.com/coordsim/coordsim/sim/connectsim"
)

// Faults holds every fault kind's knobs; a zero probability or rate turns
// a kind off. Each group of fields belongs to one fault kind, whose file
// (named in the group's comment) says what the fields mean and where the
// kind acts.
type Faults struct {
	// plugin errors (fault_plugin_errors.go): probabilities per call.
	PluginTransient        float64
	PluginPermanent        float64
	PluginAppliedTransient float64 // the call takes effect but reports a transient error
	// plugin latency (fault_plugin_latency.go): each call's virtual
	// latency, drawn from [PluginLatencyMin, PluginLatencyMax], or with
	// PluginLatencyTailProb from the long tail up to PluginLatencyTailMax.
	PluginLatencyMin      time.Duration
	PluginLatencyMax      time.Duration
	PluginLatencyTailProb float64
	PluginLatencyTailMax  time.Duration
	// plugin bursts (fault_plugin_burst.go): PluginBurstProb starts a
	// burst of PluginBurstLength failing calls.
	PluginBurstProb   float64
	PluginBurstLength int
	// shard moves (fault_shard_moves.go, fault_move_during_cycle.go,
	// fault_load_delay.go).
	ShardMovesPerHour   float64
	MoveDuringCycleProb float64
	LoadDelay           time.Duration
	// log faults (fault_append_failure.go, fault_commit_delay.go).
	AppendFailureProb float64
	CommitDelayMax    time.Duration
	// client faults (fault_member_crash.go, fault_lost_heartbeat.go).
	MemberCrashProb   float64
	LostHeartbeatProb float64
	// the KIP-1331 v2 move race (fault_delete_past_move.go).
	DeletePastMoveProb    float64
	DeletePastMoveLatency time.Duration
	// plugin calls held past a leader bounce (fault_call_past_reload.go).
	CallPastReloadProb    float64
	CallPastReloadLatency time.Duration

	// Share faults, used only with a Connect workload, which runs them
	// (fault_share_*.go, fault_task_kills.go; connectsim.Faults).
	ShareLeaderMovesPerHour float64
	SharePersistFailProb    float64
	ShareDLQFailProb        float64
	TaskKillsPerHour        float64
}

// faultKind is one kind of fault: the seam through which a fault enters
// the simulator. A kind is a row of faultKinds and a file of its own
// (fault_*.go) that holds everything else about it: its scenario keys (its
// rows of Params, with their bounds, docs and swarm draws), its values in
// the light and heavy presets, the rules that tie its keys together, and
// the hooks through which it acts. The world calls every kind's hook at
// each hook point, in table order, and only before the faults heal; a
// kind leaves the hooks it does not need nil. A new kind at an existing
// hook point touches nothing else; a new hook point is a field here and
// one call in the world.
//
// Table order is part of the contract: Params lists the kinds' keys in it
// (the swarm draws and the schema follow that order), and the hooks draw
// from the run's random stream in it, so reordering rows changes traces.
type faultKind struct {
	// name names the kind in docs and errors ("lost-heartbeat").
	name string
	// params are the kind's scenario keys, in order.
	params []*Param
	// light and heavy set the kind's fields in those presets; nil leaves
	// them zero (off).
	light, heavy func(*Faults)
	// rules are the checks that tie the kind's keys together (after each
	// key's own range check).
	rules func(Faults) []optionRule

	// Set-up hooks, run once while the world is built.
	//
	// store adds options to the faultstore wrapping the topology store
	// (only with a plugin); configure sets coordinator configuration;
	// connect hands the Connect simulator the faults it runs itself.
	store     func(Faults) []faultstore.Option
	configure func(Faults, *coordinator.Config)
	connect   func(Faults, *connectsim.Faults)
	// movesShards reports whether the kind moves shards between brokers
	// on its own schedule (some workload rules stay off under v2 then).
	movesShards func(Faults) bool

	// Run hooks, called only before the faults heal.
	//
	// start schedules the kind's own events until endMs (when the
	// workload starts).
	start func(w *world, endMs int64)
	// pluginCall returns the virtual latency of broker b's plugin call,
	// given the latency the kinds before it chose (0 for the first).
	pluginCall func(w *world, b int, op plugin.Op, groupID string, lat time.Duration) time.Duration
	// beforeAppend may fail an append to partition p's log.
	beforeAppend func(w *world, p int32) error
	// commitDelay adds to how long an append waits to commit.
	commitDelay func(w *world) time.Duration
	// cycleStarted runs when broker b starts a cleanup cycle.
	cycleStarted func(w *world, b int)
	// loseHeartbeat reports whether a member's heartbeat (or the
	// revocation callback that goes with it) is lost.
	loseHeartbeat func(w *world) bool
	// crashMember reports whether a member crashes at a commit.
	crashMember func(w *world) bool
}

// optionRule is one check of Options.Validate: when bad, the options are
// refused with an *OptionError naming keys.
type optionRule struct {
	bad  bool
	keys []string
	why  string
}

// faultKinds is the fault model, one row per kind, in the order of the
// keys in Params and of the draws at each hook point.
var faultKinds = []faultKind{
	faultPluginErrors(),
	faultPluginLatency(),
	faultPluginBurst(),
	faultShardMoves(),
	faultMoveDuringCycle(),
	faultLoadDelay(),
	faultAppendFailure(),
	faultCommitDelay(),
	faultMemberCrash(),
	faultLostHeartbeat(),
	faultDeletePastMove(),
	faultShareLeaderMoves(),
	faultSharePersistFail(),
	faultShareDLQFail(),
	faultTaskKills(),
	faultCallPastReload(),
}

// faultParams is every kind's keys, in table order.
func faultParams() []*Param {
	var ps []*Param
	for _, k := range faultKinds {
		ps = append(ps, k.params...)
	}
	return ps
}

// FaultPreset names a fault level.
type FaultPreset string

// Fault presets.
const (
	FaultsNone  FaultPreset = "none"
	FaultsLight FaultPreset = "light"
	FaultsHeavy FaultPreset = "heavy"
)

// PresetFaults returns a preset's faults: every kind's values at that level.
func PresetFaults(p FaultPreset) (Faults, error) {
	var f Faults
	switch p {
	case FaultsNone, "":
		return f, nil
	case FaultsLight, FaultsHeavy:
	default:
		return f, fmt.Errorf("unknown fault preset %q (none, light, heavy)", p)
	}
	for _, k := range faultKinds {
		set := k.light
		if p == FaultsHeavy {
			set = k.heavy
		}
		if set != nil {
			set(&f)
		}
	}
	return f, nil
}

// faultRules is every kind's rules over f, in table order.
func faultRules(f Faults) []optionRule {
	var rs []optionRule
	for _, k := range faultKinds {
		if k.rules != nil {
			rs = append(rs, k.rules(f)...)
		}
	}
	return rs
}

// faultStoreOptions is every kind's options for the faultstore.
func faultStoreOptions(f Faults) []faultstore.Option {
	var opts []faultstore.Option
	for _, k := range faultKinds {
		if k.store != nil {
			opts = append(opts, k.store(f)...)
		}
	}
	return opts
}

// configure applies every kind's coordinator configuration.
func (f Faults) configure(cfg *coordinator.Config) {
	for _, k := range faultKinds {
		if k.configure != nil {
			k.configure(f, cfg)
		}
	}
}

// connect is the Connect simulator's share of the fault model.
func (f Faults) connect() connectsim.Faults {
	var c connectsim.Faults
	for _, k := range faultKinds {
		if k.connect != nil {
			k.connect(f, &c)
		}
	}
	return c
}

// movesShards reports whether any kind moves shards on its own schedule.
func (f Faults) movesShards() bool {
	for _, k := range faultKinds {
		if k.movesShards != nil && k.movesShards(f) {
			return true
		}
	}
	return false
}

// startFaults schedules every kind's own events until endMs.
func (w *world) startFaults(endMs int64) {
	for _, k := range faultKinds {
		if k.start != nil {
			k.start(w, endMs)
		}
	}
}

// pluginLatency is the virtual latency of broker b's plugin call.
func (w *world) pluginLatency(b int, op plugin.Op, groupID string) time.Duration {
	var lat time.Duration
	if w.healed {
		return lat
	}
	for _, k := range faultKinds {
		if k.pluginCall != nil {
			lat = k.pluginCall(w, b, op, groupID, lat)
		}
	}
	return lat
}

// appendFault is the error an append to partition p fails with, nil for none.
func (w *world) appendFault(p int32) error {
	if w.healed {
		return nil
	}
	for _, k := range faultKinds {
		if k.beforeAppend != nil {
			if err := k.beforeAppend(w, p); err != nil {
				return err
			}
		}
	}
	return nil
}

// commitDelay is how long an append waits to commit.
func (w *world) commitDelay() time.Duration {
	var d time.Duration
	if w.healed {
		return d
	}
	for _, k := range faultKinds {
		if k.commitDelay != nil {
			d += k.commitDelay(w)
		}
	}
	return d
}

// cycleStartedFaults runs every kind's reaction to broker b starting a
// cleanup cycle.
func (w *world) cycleStartedFaults(b int) {
	if w.healed {
		return
	}
	for _, k := range faultKinds {
		if k.cycleStarted != nil {
			k.cycleStarted(w, b)
		}
	}
}

// heartbeatLost reports whether a member's heartbeat is lost.
func (w *world) heartbeatLost() bool {
	return w.anyFault(func(k *faultKind) func(*world) bool { return k.loseHeartbeat })
}

// memberCrashes reports whether a member crashes at this commit.
func (w *world) memberCrashes() bool {
	return w.anyFault(func(k *faultKind) func(*world) bool { return k.crashMember })
}

// anyFault asks, in table order and before the faults heal, every kind
// with the hook that hook picks, until one says yes.
func (w *world) anyFault(hook func(*faultKind) func(*world) bool) bool {
	if w.healed {
		return false
	}
	for i := range faultKinds {
		if h := hook(&faultKinds[i]); h != nil && h(w) {
			return true
		}
	}
	return false
}

// scaledKnob is the faultKind of a fault that one probability or rate
// drives (its param, made by newParam, whose field knob points at): the
// light and heavy presets set it, and a swarm run draws it up to the heavy
// value (scaleHeavy). The caller adds the hooks that act on it.
func scaledKnob(name string, newParam func(key, doc string, ptr field) *Param, key, doc string, knob func(f *Faults) *float64, light, heavy float64) faultKind {
	return faultKind{
		name:   name,
		params: []*Param{newParam(key, doc, func(o *Options) any { return knob(&o.Faults) }).swarm(scaleHeavy())},
		light:  func(f *Faults) { *knob(f) = light },
		heavy:  func(f *Faults) { *knob(f) = heavy },
	}
}
