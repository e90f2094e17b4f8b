// Package cli is the coordsim command-line program as a library: every
// subcommand, with the topology stores it can test chosen by name. A store
// author gets the whole program for their own store from a four-line main:
//
//	func main() {
//		os.Exit(cli.Main(cli.WithStore("mine", mystore.Open)))
//	}
//
// and then runs `go run ./cmd/mysim run --store mine`, `sweep --store mine`,
// `replay ...`; every replay command it prints names the store and the
// program as invoked (`go run ./cmd/mysim` under go run). The
// subcommands:
//
//	coordsim run       [flags]   one simulation, with a summary (and optionally JSON, HTML, trace, metrics)
//	coordsim replay    [flags]   rerun a seed, stopping at a step, and print the state and trace there
//	coordsim sweep     [flags]   many seeds in parallel; one JSON line per seed and a summary
//	coordsim scenarios [-v]      list the built-in scenarios
//	coordsim invariants [-v]     list the invariants the simulator checks, with their mutants
//	coordsim serve     [flags]   serve Kafka's wire protocol on loopback for real clients
//	coordsim version             print the version
//
// Exit codes (documented in the README; scripts may rely on them):
//
//	0    clean: the run finished and every check it ran held
//	1    a violation: an invariant failed, a sweep missed a required mark,
//	     or a determinism check failed
//	2    bad usage or input: a flag, a value, a scenario, or options the
//	     store under test cannot honour (nothing ran)
//	3    I/O: an output file (trace, report, metrics, JSON, sweep results,
//	     an emitted scenario, a profile) could not be created or written;
//	     it wins over 1, since the files the user asked for are incomplete
//	130  interrupted (Ctrl-C); the output describes the partial run
//
// Printed replay and sweep commands name the program the way it was
// invoked: `go run ./cmd/coordsim` under go run, the binary otherwise
// (programName).
//
// It reads the wall clock and catches Ctrl-C only around simulations, for
// progress and interruption, through one seam (host) that tests replace;
// nothing it reads reaches a simulation. Virtual time is printed one way
// everywhere (sim.FormatVirtual); wall-clock figures say "wall".
package cli

import (
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"runtime/debug"
	"slices"

	"github.com/coordsim/coordsim/plugin"
	"github.com/coordsim/coordsim/sim"
)

// DefaultProgram is how printed replay commands invoke the program when
// Run is called as a library and WithProgram does not say otherwise; Main
// names the program as it was invoked instead (programName).
const DefaultProgram = "go run ./cmd/coordsim"

// StoreFactory opens a fresh topology store for one simulation; the
// simulation closes it.
type StoreFactory func() (plugin.Store, error)

// app is one configured program: its name in printed commands and its
// stores by name ("memstore" is the simulator's default store).
type app struct {
	prog   string
	stores map[string]StoreFactory
	host   host
	// checkOnly makes run, replay and sweep parse and validate their
	// arguments (flags, values, scenario) and stop there with exit 0,
	// writing and running nothing: the README test checks every example
	// command this way.
	checkOnly bool
	// baselineOptions, when set, changes the options of run's all-KIP-848
	// baseline alone: a test hook that plants a violation there (a mutant)
	// while the first run holds. Nil in the program.
	baselineOptions func(*sim.Options)
}

// Option configures the program.
type Option func(*app)

// WithStore makes the store factory selectable as --store name (replacing a
// store of that name). The factory is called once per simulation; a sweep
// calls it once more first, to check (and close) a store before any seed
// runs. A store that cannot support what a run asks (protocol v3 needs
// plugin.FencedStore; the row checks need plugin.Lister, or
// --allow-unchecked) is refused before the run (sim.CapabilityError).
func WithStore(name string, factory StoreFactory) Option {
	return func(a *app) { a.stores[name] = factory }
}

// WithProgram sets how printed replay commands invoke the program
// (default: as invoked under Main, DefaultProgram under Run).
func WithProgram(command string) Option { return func(a *app) { a.prog = command } }

func newApp(opts ...Option) *app {
	a := &app{prog: DefaultProgram, stores: map[string]StoreFactory{"memstore": nil, "bolt": newTempBoltStore}, host: osHost()}
	for _, o := range opts {
		o(a)
	}
	return a
}

// storeNames lists the selectable stores, sorted.
func (a *app) storeNames() []string {
	return slices.Sorted(maps.Keys(a.stores))
}

// Main runs the program on the process's arguments and returns its exit
// code: os.Exit(cli.Main(...)).
func Main(opts ...Option) int {
	if os.Getenv("GOGC") == "" {
		// A simulation's live heap is small and it allocates fast: at the
		// default GOGC=100 the collector took 10–20 % of a run's CPU. 200
		// trades about 20 % more heap for most of that (BENCHMARKS.md).
		// The collector never changes what a simulation does.
		debug.SetGCPercent(defaultGCPercent)
	}
	invoked := WithProgram(programName(osInvocation()))
	return Run(os.Args[1:], os.Stdout, os.Stderr, append([]Option{invoked}, opts...)...)
}

// defaultGCPercent is the process's GOGC unless the environment sets one.
const defaultGCPercent = 200

// Run runs the program on args (without the program name).
func Run(args []string, stdout, stderr io.Writer, opts ...Option) int {
	return newApp(opts...).run(args, stdout, stderr)
}

const usage = `usage: coordsim <command> [flags]

commands:
  run        run one simulation and print a summary
  replay     rerun a seed, stop at a step, print the state and trace there
  sweep      run many seeds in parallel
  scenarios  list the built-in scenarios
  invariants list the invariants the simulator checks, with their mutants
  serve      serve Kafka's wire protocol on loopback for real clients
  diff       compare the shard with Kafka's own group coordinator (needs Java and Maven)
  version    print the version
  help       show this help

'coordsim help <command>' or 'coordsim <command> -h' shows a command's help.

exit codes: 0 clean, 1 violation, 2 usage, 3 I/O (an output file; for diff, an oracle
that cannot run), 130 interrupted
`

// Exit codes.
const (
	exitOK        = 0
	exitViolation = 1
	exitUsage     = 2
	exitIO        = 3
)

// run runs one command. What it prints on stdout is output the user asked
// for (a summary, JSON, sweep lines): a failed write there is an I/O
// failure too (`coordsim run --json > /dev/full` exits 3).
func (a *app) run(args []string, stdout, stderr io.Writer) int {
	out := &stickyWriter{w: stdout}
	code := a.command(args, out, stderr)
	if out.err != nil && (code == exitOK || code == exitViolation) {
		fmt.Fprintf(stderr, "coordsim: writing to stdout: %v\n", out.err)
		return exitIO
	}
	return code
}

// stickyWriter remembers its first write error.
type stickyWriter struct {
	w   io.Writer
	err error
}

func (s *stickyWriter) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.w.Write(p)
	s.err = err
	return n, err
}

func (a *app) command(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	switch args[0] {
	case "version", "--version":
		if len(args) > 1 {
			fmt.Fprintf(stderr, "coordsim version: unexpected argument %q\n", args[1])
			return exitUsage
		}
		return versionCmd(stdout)
	case "run":
		return a.runCmd(args[1:], stdout, stderr)
	case "replay":
		return a.replayCmd(args[1:], stdout, stderr)
	case "sweep":
		return a.sweepCmd(args[1:], stdout, stderr)
	case "scenarios":
		return a.scenariosCmd(args[1:], stdout, stderr)
	case "invariants":
		return a.invariantsCmd(args[1:], stdout, stderr)
	case "serve":
		return serveCmd(args[1:], stdout, stderr)
	case "diff":
		return a.diffCmd(args[1:], stdout, stderr)
	case "help", "-h", "--help":
		if len(args) > 1 && args[0] == "help" {
			return a.helpCmd(args[1:], stdout, stderr)
		}
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	fmt.Fprintf(stderr, "coordsim: unknown command %q\n%s", args[0], usage)
	return exitUsage
}

// parse parses flags; ok is false when the command should exit with code.
func parse(fs *flag.FlagSet, args []string) (code int, ok bool) {
	if code, ok := parseFlags(fs, args); !ok {
		return code, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "coordsim %s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		return exitUsage, false
	}
	return 0, true
}

// helpCmd is `coordsim help CMD`: the command's own help, on stdout.
func (a *app) helpCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) > 1 {
		fmt.Fprintf(stderr, "coordsim help: unexpected argument %q\n", args[1])
		return exitUsage
	}
	switch args[0] {
	case "run", "replay", "sweep", "scenarios", "invariants", "serve", "diff":
		return a.run([]string{args[0], "-h"}, stdout, stderr)
	case "version", "help":
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	fmt.Fprintf(stderr, "coordsim help: unknown command %q\n%s", args[0], usage)
	return exitUsage
}
