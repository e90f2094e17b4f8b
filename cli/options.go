package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/coordsim/coordsim/plugin"
	"github.com/coordsim/coordsim/plugin/boltstore"
	"github.com/coordsim/coordsim/sim"
	"github.com/coordsim/coordsim/sim/invariants"
	"github.com/coordsim/coordsim/sim/scenario"
)

// optionFlags are the flags run, replay and sweep share: a scenario and
// overrides of its options. Only flags the user gives override the scenario.
// Besides a few compound flags (--faults, --groups, --swarm), every flag is
// a parameter of the sim.Params table.
type optionFlags struct {
	app      *app
	fs       *flag.FlagSet
	scenario string
	seed     uint64
	groups   int
	faults   string
	store    string
	swarm    bool
	emit     string
	// allowUnchecked runs a store without plugin.Lister, recording the
	// checks it skips, instead of refusing it (sim.Options.AllowUnchecked).
	allowUnchecked bool
	// skip are the --skip-invariant names, validated as given
	// (sim.Options.SkipInvariants).
	skip []string
	// params holds the table flags given, by flag name.
	params map[string]string
}

// newFlagSet is a subcommand's flag set with a usage text that names the
// command and says what it does. Errors go to stderr; the help that -h
// asks for goes to stdout (parseFlags), like any output asked for.
func newFlagSet(name, synopsis, what string, stdout, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		// A flag set has one output; the help borrows it.
		errOut := fs.Output()
		fs.SetOutput(stdout)
		defer fs.SetOutput(errOut)
		fmt.Fprintf(stdout, "usage: coordsim %s %s\n\n%s.\n\nflags (-flag or --flag):\n", name, synopsis, what)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args; ok is false when the command should exit with code
// (0 after -h, which prints the full help, to stdout). The flag package
// prints the usage on every parse error; a mistyped flag gets its one-line
// error and a pointer to -h instead of a page.
func parseFlags(fs *flag.FlagSet, args []string) (code int, ok bool) {
	full := fs.Usage
	fs.Usage = func() {}
	defer func() { fs.Usage = full }()
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			full()
			return exitOK, false
		}
		fmt.Fprintf(fs.Output(), "run 'coordsim %s -h' for the flags\n", fs.Name())
		return exitUsage, false
	}
	return 0, true
}

func (a *app) addOptionFlags(fs *flag.FlagSet) *optionFlags {
	o := &optionFlags{app: a, fs: fs, params: map[string]string{}}
	fs.StringVar(&o.scenario, "scenario", "default", "built-in scenario `name` or path to a YAML file (see `coordsim scenarios`)")
	fs.Uint64Var(&o.seed, "seed", 1, "random `seed`; the same seed and options give the same run")
	fs.IntVar(&o.groups, "groups", 0, "total groups created, scaling the scenario's mix (`N` >= 1; default: the scenario's)")
	fs.StringVar(&o.faults, "faults", "", "fault `preset` none|light|heavy, applied before single fault flags (default: the scenario's)")
	fs.StringVar(&o.store, "store", "memstore", "topology `store` under test: "+strings.Join(a.storeNames(), ", ")+" (bolt: the durable bbolt store, one file per run in a temporary directory)")
	fs.BoolVar(&o.swarm, "swarm", false, "draw the seed's own knobs (sizes, retention, protocol, fault mix) from the seed, before the other flags apply")
	fs.StringVar(&o.emit, "emit-scenario", "", "write the resolved options as a scenario `file` (replayable with --scenario file)")
	fs.BoolVar(&o.allowUnchecked, "allow-unchecked", false, "run a --store without plugin.Lister instead of refusing it: the checks that read the store's rows are skipped, and the summary, JSON and report say which")
	fs.Func("skip-invariant", "do not stop at violations of invariant `NAME` (repeatable; `coordsim invariants` lists them), for bisecting: the run still checks it, and the summary, JSON and report count its violations and say it was skipped", func(s string) error {
		for _, name := range strings.Split(s, ",") {
			if err := invariants.Validate([]string{name}); err != nil {
				return err
			}
			if !slices.Contains(o.skip, name) {
				o.skip = append(o.skip, name)
			}
		}
		return nil
	})
	placeholder := map[sim.ParamType]string{sim.TypeInt: "N", sim.TypeNumber: "X", sim.TypeProb: "P", sim.TypeDuration: "D"}
	for _, p := range sim.Params {
		p := p
		doc := strings.ReplaceAll(p.Doc, "`", "")
		value := func(s string) error {
			var scratch sim.Options
			if err := p.Set(&scratch, s); err != nil {
				return err
			}
			o.params[p.Flag] = s
			return nil
		}
		switch p.Type {
		case sim.TypeBool:
			fs.BoolFunc(p.Flag, fmt.Sprintf("%s (default: the scenario's)", doc), value)
		case sim.TypeEnum:
			fs.Func(p.Flag, fmt.Sprintf("%s (`%s`; default: the scenario's)", doc, strings.Join(p.Values, "|")), value)
		default:
			fs.Func(p.Flag, fmt.Sprintf("%s (`%s` %s; default: the scenario's)", doc, placeholder[p.Type], p.Range()), value)
		}
	}
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

// load reads the scenario and checks the compound flags; apply then
// resolves one seed's options.
func (o *optionFlags) load() (*scenario.Scenario, error) {
	if o.set("groups") && o.groups < 1 {
		return nil, fmt.Errorf("--groups %d: must be >= 1", o.groups)
	}
	if o.set("faults") {
		if _, err := sim.PresetFaults(sim.FaultPreset(o.faults)); err != nil {
			return nil, fmt.Errorf("--faults %s: %w", shellQuote(o.faults), err)
		}
	}
	if _, ok := o.app.stores[o.store]; !ok {
		return nil, fmt.Errorf("--store %q: one of %s", o.store, strings.Join(o.app.storeNames(), ", "))
	}
	return scenario.Resolve(o.scenario)
}

// apply returns a copy of sc with seed and the flags applied, in a fixed
// order: seed, swarm, fault preset, group total, then every table flag.
// The copy's options are validated; an error names the flag.
func (o *optionFlags) apply(sc *scenario.Scenario, seed uint64) (*scenario.Scenario, error) {
	out := *sc
	opts := &out.Options
	opts.Seed = seed
	if o.swarm {
		sim.Swarm(opts)
	}
	if o.set("faults") {
		opts.Faults, _ = sim.PresetFaults(sim.FaultPreset(o.faults))
	}
	if o.set("groups") {
		scaleGroups(&opts.Workload, o.groups)
	}
	for _, p := range sim.Params {
		if v, ok := o.params[p.Flag]; ok {
			if err := p.Set(opts, v); err != nil {
				return nil, fmt.Errorf("--%s: %w", p.Flag, err)
			}
		}
	}
	if f := o.app.stores[o.store]; f != nil {
		opts.Store = f
	}
	opts.AllowUnchecked = o.allowUnchecked
	opts.SkipInvariants = o.skip
	if err := opts.Validate(); err != nil {
		return nil, o.flagError(err)
	}
	return &out, nil
}

// loadFor is load then apply for the seed seed picks from the loaded
// scenario, each failure printed as command cmd's usage error: run, replay
// and sweep start alike, differing only in the seed (--seed or the
// scenario's for one run, --start for a sweep).
func (o *optionFlags) loadFor(cmd string, stderr io.Writer, seed func(base *scenario.Scenario) uint64) (base, sc *scenario.Scenario, ok bool) {
	base, err := o.load()
	if err == nil {
		sc, err = o.apply(base, seed(base))
	}
	if err != nil {
		fmt.Fprintf(stderr, "coordsim %s: %v\n", cmd, err)
		return nil, nil, false
	}
	return base, sc, true
}

// flagSeed is one run's seed: --seed when given, else base's own.
func (o *optionFlags) flagSeed(base *scenario.Scenario) uint64 {
	return o.seedOr(base.Options.Seed)
}

// startOne is run's and replay's last step before their simulation, once
// their own flags are checked: the scenario of the one run (loadFor, the
// seed flagSeed's), then nothing more when the command only checks its
// words (app.checkOnly: ok false, code exitOK), else preflight; a refusal
// of either is printed as cmd's usage error (code exitUsage). The caller
// defers release.
func (a *app) startOne(of *optionFlags, cmd string, stderr io.Writer) (base, sc *scenario.Scenario, release func(), code int, ok bool) {
	base, sc, ok = of.loadFor(cmd, stderr, of.flagSeed)
	if !ok {
		return nil, nil, nil, exitUsage, false
	}
	if a.checkOnly {
		return nil, nil, nil, exitOK, false
	}
	release, err := of.preflight(sc)
	if err != nil {
		release()
		fmt.Fprintf(stderr, "coordsim %s: %v\n", cmd, err)
		return nil, nil, nil, exitUsage, false
	}
	return base, sc, release, 0, true
}

// seedOr is --seed when given, else def.
func (o *optionFlags) seedOr(def uint64) uint64 {
	if o.set("seed") {
		return o.seed
	}
	return def
}

// flagError names, in a failed validation, the flags given among the keys
// involved ("--members-max: ..."); a failure of the scenario's own values
// keeps its keys.
func (o *optionFlags) flagError(err error) error {
	var oe *sim.OptionError
	if !errors.As(err, &oe) {
		return err
	}
	var flags []string
	for _, k := range oe.Keys {
		if p := sim.ParamByKey(k); p != nil {
			if v, given := o.params[p.Flag]; given {
				flags = append(flags, "--"+p.Flag+" "+shellQuote(v))
			}
		}
		if strings.HasPrefix(k, "workload.") && strings.HasSuffix(k, "_groups") || k == "workload.streams_apps" {
			if g := fmt.Sprintf("--groups %d", o.groups); o.set("groups") && !slices.Contains(flags, g) {
				flags = append(flags, g)
			}
		}
	}
	if len(flags) == 0 {
		return fmt.Errorf("scenario %s: %s", o.scenario, strings.TrimPrefix(err.Error(), "sim: "))
	}
	return fmt.Errorf("%s: %s", strings.Join(flags, ", "), oe.Why)
}

// emitScenario writes sc to the --emit-scenario file when one was given
// (os.WriteFile reports a failed write and a failed close alike).
func (o *optionFlags) emitScenario(sc *scenario.Scenario) error {
	if o.emit == "" {
		return nil
	}
	data, err := scenario.Marshal(sc)
	if err != nil {
		return err
	}
	return os.WriteFile(o.emit, data, 0o644)
}

// preflight refuses, before any file is written, options the store under
// test cannot honour (a *sim.CapabilityError names what is missing and what
// to do). The store it opens to check is the one the run then uses: sc's
// Store factory hands it out once, then opens new ones as before; release
// closes it if no run took it (a command that fails before its run).
func (o *optionFlags) preflight(sc *scenario.Scenario) (release func(), err error) {
	opts := &sc.Options
	if err := opts.Validate(); err != nil {
		return func() {}, o.flagError(err)
	}
	open := opts.Store
	if !opts.Plugin || open == nil {
		return func() {}, nil // memstore supports everything
	}
	store, err := open()
	if err != nil {
		return func() {}, fmt.Errorf("--store %s: opening it: %w", o.store, err)
	}
	if err := sim.CheckStore(*opts, store); err != nil {
		_ = store.Close()
		return func() {}, fmt.Errorf("--store %s: %w", o.store, err)
	}
	opts.Store = func() (plugin.Store, error) {
		if s := store; s != nil {
			store = nil
			return s, nil
		}
		return open()
	}
	release = func() {
		if store != nil {
			_ = store.Close()
			store = nil
		}
	}
	return release, nil
}

// preflightSweep is preflight for a sweep, whose seeds each open their own
// store: the store opened to check is closed again.
func (o *optionFlags) preflightSweep(sc *scenario.Scenario) error {
	if err := sim.Preflight(sc.Options); err != nil {
		return fmt.Errorf("--store %s: %w", o.store, err)
	}
	return nil
}

// scaleGroups sets the total group count, keeping the scenario's mix.
func scaleGroups(w *sim.Workload, total int) {
	counts := []*int{&w.StreamsApps, &w.ConsumerGroups, &w.ShareGroups, &w.RollingUpgradeGroups, &w.SimpleGroups}
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

// replayCommand is the exact command that reproduces a run of sc's
// resolved options: the scenario's source (a built-in's name or the file's
// path), the seed, and every parameter that differs from the scenario, then
// extra (e.g. " --stop-at N").
func (o *optionFlags) replayCommand(base, sc *scenario.Scenario, extra string) string {
	src := sc.Source
	if src == "" {
		src = sc.Name
	}
	args := append([]string{o.app.prog, "replay", "--scenario", shellQuote(src)}, boolFlagsJoined(sim.ReplayArgs(base.Options, sc.Options))...)
	if o.store != "memstore" {
		args = append(args, "--store", shellQuote(o.store))
	}
	if o.allowUnchecked {
		args = append(args, "--allow-unchecked")
	}
	for _, name := range o.skip {
		args = append(args, "--skip-invariant", name)
	}
	return strings.Join(args, " ") + extra
}

// boolFlagsJoined writes each boolean parameter of flag-value pairs as
// --flag=value: a boolean flag takes no separate argument, so
// "--plugin false" made the printed replay command fail with "unexpected
// argument".
func boolFlagsJoined(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		if p := sim.ParamByFlag(strings.TrimPrefix(args[i], "--")); p != nil && p.Type == sim.TypeBool && i+1 < len(args) {
			out = append(out, args[i]+"="+args[i+1])
			i++
			continue
		}
		out = append(out, args[i])
	}
	return out
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func total(w sim.Workload) int {
	return w.StreamsApps + w.ConsumerGroups + w.ShareGroups + w.RollingUpgradeGroups + w.SimpleGroups
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
