package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"go.uber.org/atomic"
	"golang.org/x/term"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/sim"
	"github.com/coordsim/coordsim/sim/scenario"
)

// seedLine is one line of a sweep's JSON output.
type seedLine struct {
	Seed             uint64           `json:"seed"`
	Scenario         string           `json:"scenario"`
	Protocol         string           `json:"protocol"`
	Swarm            string           `json:"swarm,omitempty"`
	Events           int64            `json:"events"`
	TraceHash        string           `json:"trace_hash"`
	Cycles           int64            `json:"cycles"`
	DeletesOK        int64            `json:"deletes_ok"`
	DeletesFailed    int64            `json:"deletes_failed"`
	AcceptedDataLoss int64            `json:"accepted_data_loss"`
	LeakedRows       int64            `json:"leaked_rows"`
	Marks            map[string]int64 `json:"marks"`
	Violation        *sim.Violation   `json:"violation,omitempty"`
	Replay           string           `json:"replay"`
	RequiredMarks    []string         `json:"required_marks,omitempty"`
	Sinks            []sinkLoss       `json:"sinks,omitempty"`
}

// sinkLoss is one connector's record accounting in a sweep line: lost
// (an invariant-8 violation), archived without a dead-letter queue (at the
// delivery limit, or rejected: data loss by configuration) and
// dead-lettered.
type sinkLoss struct {
	Name         string `json:"name"`
	Lost         int64  `json:"lost"`
	LostAtLimit  int64  `json:"lost_at_limit"`
	LostRejected int64  `json:"lost_rejected"`
	DeadLettered int64  `json:"dead_lettered"`
}

func sinkLosses(r *sim.Result) []sinkLoss {
	var out []sinkLoss
	for _, c := range r.Connect {
		out = append(out, sinkLoss{Name: c.Name, Lost: c.Lost, LostAtLimit: c.LostAtLimit, LostRejected: c.LostRejected, DeadLettered: c.DeadLettered})
	}
	return out
}

func sweepCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("sweep", flag.ContinueOnError)
	fs.SetOutput(stderr)
	of := addOptionFlags(fs)
	seeds := fs.Int("seeds", 100, "number of seeds")
	start := fs.Uint64("start", 1, "first seed")
	parallel := fs.Int("parallel", runtime.GOMAXPROCS(0), "simulations run at once")
	swarm := fs.Bool("swarm", false, "draw each seed's knobs (sizes, retention, fault mix) from the seed (swarm testing)")
	shardSpec := fs.String("shard", "", "run only part i/n of the seeds (0 <= i < n), to spread a sweep over machines")
	merge := fs.Bool("merge", false, "read JSON lines from the files given as arguments (or stdin) and print the summary")
	require := fs.String("require-marks", "", "comma-separated marks every sweep must reach (added to the scenario's)")
	ignoreRequired := fs.Bool("ignore-required-marks", false, "do not require the scenario's own required marks (e.g. when overriding its protocol)")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return exitOK
		}
		return exitUsage
	}
	if *merge {
		return mergeCmd(fs.Args(), stdout, stderr, splitMarks(*require))
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "coordsim sweep: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	if *seeds < 1 || *seeds > 10_000_000 || *parallel < 1 || *parallel > 1024 {
		fmt.Fprintln(stderr, "coordsim sweep: --seeds must be in [1, 10000000] and --parallel in [1, 1024]")
		return exitUsage
	}
	part, parts, err := parseShard(*shardSpec)
	if err != nil {
		fmt.Fprintf(stderr, "coordsim sweep: %v\n", err)
		return exitUsage
	}
	base, err := of.resolve()
	if err != nil {
		fmt.Fprintf(stderr, "coordsim sweep: %v\n", err)
		return exitUsage
	}
	var todo []uint64
	for i := range *seeds {
		if i%parts == part {
			todo = append(todo, *start+uint64(i))
		}
	}
	required := splitMarks(*require)
	if !*ignoreRequired {
		required = append(slices.Clone(base.RequiredMarks), required...)
	}

	var bar *progressbar.ProgressBar
	if f, ok := stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		bar = progressbar.NewOptions(len(todo), progressbar.OptionSetWriter(stderr), progressbar.OptionSetDescription("sweep"),
			progressbar.OptionShowCount(), progressbar.OptionClearOnFinish())
	}
	results := make([]*seedLine, len(todo))
	violations := atomic.NewInt64(0)
	next := atomic.NewInt64(-1)
	var wg sync.WaitGroup
	var runErr error
	var errOnce sync.Once
	began := time.Now()
	for range min(*parallel, len(todo)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Inc())
				if i >= len(todo) {
					return
				}
				sc := *base
				sc.Options.Seed = todo[i]
				label := ""
				if *swarm {
					label = swarmKnobs(&sc.Options)
				}
				res, err := sim.Run(sc.Options, nil)
				if err != nil {
					errOnce.Do(func() { runErr = fmt.Errorf("seed %d: %w", todo[i], err) })
					return
				}
				if res.Violation != nil {
					violations.Inc()
				}
				extra := ""
				if label != "" {
					extra = " # swarm: " + label
				}
				if res.Violation != nil {
					extra = fmt.Sprintf(" --stop-at %d", res.Violation.Step) + extra
				}
				results[i] = &seedLine{Seed: todo[i], Scenario: sc.Name, Protocol: string(sc.Options.Protocol), Swarm: label,
					Events: res.Events, TraceHash: res.TraceHash, Cycles: res.Cycles, DeletesOK: res.DeletesOK,
					DeletesFailed: res.DeletesFailed, AcceptedDataLoss: res.AcceptedDataLoss, LeakedRows: res.LeakedRows,
					Marks: res.Marks, Violation: res.Violation, Replay: replayCommand(&sc, extra), RequiredMarks: required,
					Sinks: sinkLosses(res)}
				if bar != nil {
					_ = bar.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if runErr != nil {
		fmt.Fprintf(stderr, "coordsim sweep: %v\n", runErr)
		return exitUsage
	}
	enc := json.NewEncoder(stdout)
	for _, l := range results {
		if err := enc.Encode(l); err != nil {
			return exitUsage
		}
	}
	fmt.Fprintf(stderr, "sweep: %d seeds in %s with %d workers\n", len(results), time.Since(began).Round(time.Millisecond), *parallel)
	return summarize(results, required, stderr)
}

// summarize prints a sweep's totals and decides its exit code: any
// violation, or a required mark no seed reached, fails it.
func summarize(lines []*seedLine, required []string, w io.Writer) int {
	marks := map[string]int64{}
	var events, loss, leaked, violations int64
	var sinkLost, atLimit, rejected, dead int64
	for _, l := range lines {
		events += l.Events
		loss += l.AcceptedDataLoss
		leaked += l.LeakedRows
		for k, v := range l.Marks {
			marks[k] += v
		}
		for _, sl := range l.Sinks {
			sinkLost, atLimit, rejected, dead = sinkLost+sl.Lost, atLimit+sl.LostAtLimit, rejected+sl.LostRejected, dead+sl.DeadLettered
		}
		if l.Violation != nil {
			violations++
			fmt.Fprintf(w, "VIOLATION seed %d: %s: %s\n  replay: %s\n", l.Seed, l.Violation.Invariant, l.Violation.Detail, l.Replay)
		}
	}
	fmt.Fprintf(w, "sweep summary: %d seeds, %d events, %d violations, accepted plugin-side data loss %d, leaked rows %d\n",
		len(lines), events, violations, loss, leaked)
	if sinkLost+atLimit+rejected+dead > 0 {
		fmt.Fprintf(w, "sink records: lost %d, archived without a DLQ %d (at the delivery limit %d, rejected %d), dead-lettered %d\n",
			sinkLost, atLimit+rejected, atLimit, rejected, dead)
	}
	fmt.Fprintf(w, "marks reached: %s\n", joinCounts64(marks))
	code := exitOK
	if violations > 0 {
		code = exitViolation
	}
	for _, m := range dedup(required) {
		if marks[m] == 0 {
			fmt.Fprintf(w, "REQUIRED MARK NEVER REACHED: %s\n", m)
			code = exitViolation
		}
	}
	return code
}

func mergeCmd(files []string, stdout, stderr io.Writer, extra []string) int {
	var readers []io.Reader
	if len(files) == 0 {
		readers = append(readers, os.Stdin)
	}
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintf(stderr, "coordsim sweep --merge: %v\n", err)
			return exitUsage
		}
		defer f.Close()
		readers = append(readers, f)
	}
	var lines []*seedLine
	required := extra
	for _, r := range readers {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for n := 1; sc.Scan(); n++ {
			if strings.TrimSpace(sc.Text()) == "" {
				continue
			}
			var l seedLine
			if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
				fmt.Fprintf(stderr, "coordsim sweep --merge: line %d: %v\n", n, err)
				return exitUsage
			}
			required = append(required, l.RequiredMarks...)
			lines = append(lines, &l)
		}
		if err := sc.Err(); err != nil {
			fmt.Fprintf(stderr, "coordsim sweep --merge: %v\n", err)
			return exitUsage
		}
	}
	slices.SortFunc(lines, func(a, b *seedLine) int {
		switch {
		case a.Seed < b.Seed:
			return -1
		case a.Seed > b.Seed:
			return 1
		}
		return 0
	})
	return summarize(lines, required, stdout)
}

func parseShard(spec string) (int, int, error) {
	if spec == "" {
		return 0, 1, nil
	}
	a, b, ok := strings.Cut(spec, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, fmt.Errorf("--shard %q: want i/n with 0 <= i < n", spec)
	}
	return i, n, nil
}

func splitMarks(s string) []string {
	var out []string
	for _, m := range strings.Split(s, ",") {
		if m = strings.TrimSpace(m); m != "" {
			out = append(out, m)
		}
	}
	return out
}

func dedup(xs []string) []string {
	out := slices.Clone(xs)
	slices.Sort(out)
	return slices.Compact(out)
}

// swarmKnobs draws a seed's own knobs (swarm testing): sizes, retention,
// intervals and the fault mix, from a generator seeded by the seed alone,
// so the same seed always gets the same knobs. It returns a label.
func swarmKnobs(o *sim.Options) string {
	rng := rand.New(rand.NewPCG(o.Seed, 0x5a4a))
	o.Brokers = 1 + rng.IntN(5)
	o.Partitions = int32(1 + rng.IntN(50))
	o.Retention = time.Duration(5+rng.IntN(56)) * time.Minute
	o.CheckInterval = time.Duration(30+rng.IntN(570)) * time.Second
	if rng.IntN(4) == 0 {
		o.Protocol = coordinator.CleanupV1
	}
	heavy, _ := sim.PresetFaults(sim.FaultsHeavy)
	scale := func(p float64) float64 { return p * rng.Float64() }
	f := &o.Faults
	f.PluginTransient, f.PluginPermanent, f.PluginAppliedTransient = scale(heavy.PluginTransient), scale(heavy.PluginPermanent), scale(heavy.PluginAppliedTransient)
	f.PluginLatencyMin, f.PluginLatencyMax = 0, time.Duration(rng.Int64N(int64(3*time.Minute)))
	f.ShardMovesPerHour, f.MoveDuringCycleProb = scale(heavy.ShardMovesPerHour), scale(heavy.MoveDuringCycleProb)
	f.AppendFailureProb, f.CommitDelayMax = scale(heavy.AppendFailureProb), time.Duration(rng.Int64N(int64(time.Second)))
	f.MemberCrashProb, f.LostHeartbeatProb = scale(heavy.MemberCrashProb), scale(heavy.LostHeartbeatProb)
	return fmt.Sprintf("brokers=%d partitions=%d retention=%s check=%s protocol=%s", o.Brokers, o.Partitions, o.Retention, o.CheckInterval, o.Protocol)
}

func scenariosCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("scenarios", flag.ContinueOnError)
	fs.SetOutput(stderr)
	verbose := fs.Bool("v", false, "also print each scenario's main options")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	for _, sc := range scenario.Builtins() {
		o := sc.Options
		fmt.Fprintf(stdout, "%-10s %s\n", sc.Name, sc.Description)
		if *verbose {
			fmt.Fprintf(stdout, "           duration=%s brokers=%d partitions=%d retention=%s check=%s protocol=%s plugin=%v groups=%d\n",
				o.Duration, o.Brokers, o.Partitions, o.Retention, o.CheckInterval, o.Protocol, o.Plugin, total(o.Workload))
		}
	}
	fmt.Fprintln(stdout, "\nRun one with: go run ./cmd/coordsim run --scenario NAME (or a path to your own YAML file; schema: sim/scenario/SCHEMA.md)")
	return exitOK
}
