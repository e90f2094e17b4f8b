package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/plugin"
	"github.com/coordsim/coordsim/plugin/boltstore"
	"github.com/coordsim/coordsim/sim"
	"github.com/coordsim/coordsim/sim/scenario"
)

// optionFlags are the flags run, replay and sweep share: a scenario and
// overrides of its options. Only flags the user gives override the scenario.
type optionFlags struct {
	fs         *flag.FlagSet
	scenario   string
	seed       uint64
	duration   time.Duration
	brokers    int
	partitions int
	groups     int
	faults     string
	protocol   string
	plugin     bool
	replayEach int
	store      string
}

func addOptionFlags(fs *flag.FlagSet) *optionFlags {
	o := &optionFlags{fs: fs}
	fs.StringVar(&o.scenario, "scenario", "default", "built-in scenario name or path to a YAML file (see `coordsim scenarios`)")
	fs.Uint64Var(&o.seed, "seed", 1, "random seed; the same seed and options give the same run")
	fs.DurationVar(&o.duration, "duration", 0, "virtual time of the workload phase (default: the scenario's)")
	fs.IntVar(&o.brokers, "brokers", 0, "number of brokers (default: the scenario's)")
	fs.IntVar(&o.partitions, "partitions", 0, "__consumer_offsets partitions (default: the scenario's)")
	fs.IntVar(&o.groups, "groups", 0, "total groups created, scaling the scenario's mix (default: the scenario's)")
	fs.StringVar(&o.faults, "faults", "", "fault preset none|light|heavy (default: the scenario's)")
	fs.StringVar(&o.protocol, "protocol", "", "KIP-1331 cleanup protocol v1|v2|v3 (default: the scenario's)")
	fs.BoolVar(&o.plugin, "plugin", true, "configure a topology-description plugin (default: the scenario's)")
	fs.IntVar(&o.replayEach, "replay-check-every", 0, "check replay equality every N events (default: the scenario's; 0 = at the end)")
	fs.StringVar(&o.store, "store", "memstore", "topology store under test: memstore, or bolt (the durable bbolt store, one file per run in a temporary directory)")
	return o
}

func (o *optionFlags) set(name string) bool {
	found := false
	o.fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			found = true
		}
	})
	return found
}

// resolve loads the scenario and applies the flags the user gave.
func (o *optionFlags) resolve() (*scenario.Scenario, error) {
	sc, err := scenario.Resolve(o.scenario)
	if err != nil {
		return nil, err
	}
	opts := &sc.Options
	if o.set("seed") {
		opts.Seed = o.seed
	}
	if o.set("duration") {
		opts.Duration = o.duration
	}
	if o.set("brokers") {
		opts.Brokers = o.brokers
	}
	if o.set("partitions") {
		opts.Partitions = int32(o.partitions)
	}
	if o.set("groups") {
		scaleGroups(&opts.Workload, o.groups)
	}
	if o.set("faults") {
		f, err := sim.PresetFaults(sim.FaultPreset(o.faults))
		if err != nil {
			return nil, err
		}
		opts.Faults = f
	}
	if o.set("protocol") {
		opts.Protocol = coordinator.CleanupProtocol(o.protocol)
	}
	if o.set("plugin") {
		opts.Plugin = o.plugin
	}
	if o.set("replay-check-every") {
		opts.ReplayCheckEvery = o.replayEach
	}
	switch o.store {
	case "memstore":
	case "bolt":
		opts.Store = newTempBoltStore
	default:
		return nil, fmt.Errorf("--store %q: memstore or bolt", o.store)
	}
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	return sc, nil
}

// scaleGroups sets the total group count, keeping the scenario's mix.
func scaleGroups(w *sim.Workload, total int) {
	counts := []*int{&w.StreamsApps, &w.ConsumerGroups, &w.ShareGroups, &w.SimpleGroups}
	sum := 0
	for _, c := range counts {
		sum += *c
	}
	if total <= 0 || sum == 0 {
		for _, c := range counts {
			*c = 0
		}
		if total > 0 {
			w.SimpleGroups = total
		}
		return
	}
	assigned := 0
	for i, c := range counts {
		if i == len(counts)-1 {
			*c = total - assigned
			break
		}
		*c = int(int64(*c) * int64(total) / int64(sum))
		assigned += *c
	}
}

// replayCommand is the exact command that reproduces a run.
func replayCommand(sc *scenario.Scenario, extra string) string {
	cmd := fmt.Sprintf("go run ./cmd/coordsim replay --scenario %s --seed %d", sc.Name, sc.Options.Seed)
	d := sim.DefaultOptions()
	if b, ok := scenarioBase(sc.Name); ok {
		d = b
	}
	o := sc.Options
	if o.Duration != d.Duration {
		cmd += " --duration " + o.Duration.String()
	}
	if o.Brokers != d.Brokers {
		cmd += fmt.Sprintf(" --brokers %d", o.Brokers)
	}
	if o.Partitions != d.Partitions {
		cmd += fmt.Sprintf(" --partitions %d", o.Partitions)
	}
	if o.Protocol != d.Protocol {
		cmd += " --protocol " + string(o.Protocol)
	}
	if o.Plugin != d.Plugin {
		cmd += fmt.Sprintf(" --plugin=%v", o.Plugin)
	}
	if total(o.Workload) != total(d.Workload) {
		cmd += fmt.Sprintf(" --groups %d", total(o.Workload))
	}
	if o.Faults != d.Faults {
		for _, p := range []sim.FaultPreset{sim.FaultsNone, sim.FaultsLight, sim.FaultsHeavy} {
			if f, _ := sim.PresetFaults(p); f == o.Faults {
				cmd += " --faults " + string(p)
			}
		}
	}
	return cmd + extra
}

func scenarioBase(name string) (sim.Options, bool) {
	sc, err := scenario.Resolve(name)
	if err != nil {
		return sim.Options{}, false
	}
	return sc.Options, true
}

func total(w sim.Workload) int {
	return w.StreamsApps + w.ConsumerGroups + w.ShareGroups + w.SimpleGroups
}

// tempBoltStore is a boltstore in its own temporary directory, removed when
// the simulation closes the store.
type tempBoltStore struct {
	*boltstore.Store
	dir string
}

func newTempBoltStore() (plugin.Store, error) {
	dir, err := os.MkdirTemp("", "coordsim-bolt-")
	if err != nil {
		return nil, err
	}
	s, err := boltstore.Open(filepath.Join(dir, "topology.db"), boltstore.WithNoSync())
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return &tempBoltStore{Store: s, dir: dir}, nil
}

func (t *tempBoltStore) Close() error {
	err := t.Store.Close()
	if rmErr := os.RemoveAll(t.dir); err == nil {
		err = rmErr
	}
	return err
}
