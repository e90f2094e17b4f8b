package cli

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"go.uber.org/atomic"

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
	// Warnings are the seed's sim.Result.Warnings: what it checked less
	// of than asked (--allow-unchecked).
	Warnings []string `json:"warnings,omitempty"`
	// Skipped are the seed's sim.Result.Skipped: the violations of the
	// --skip-invariant invariants it went on past.
	Skipped []*sim.SkippedInvariant `json:"skipped,omitempty"`
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

func (a *app) sweepCmd(args []string, stdout, stderr io.Writer) (code int) {
	fs := newFlagSet("sweep", "[flags] | --merge [file...]", "run many seeds in parallel, one JSON line per seed", stdout, stderr)
	of := a.addOptionFlags(fs)
	seeds := fs.Int("seeds", 100, "number of seeds `N`")
	start := fs.Uint64("start", 1, "first `seed`")
	parallel := fs.Int("parallel", runtime.GOMAXPROCS(0), "simulations run at once (`P`)")
	shardSpec := fs.String("shard", "", "run only part `i/n` of the seeds (0 <= i < n), to spread a sweep over machines")
	merge := fs.Bool("merge", false, "read JSON lines from the files (or directories of .jsonl files) given as arguments, or stdin, and print the summary")
	resume := fs.String("resume", "", "append each seed's line to `file` as it finishes, skipping the seeds it already holds")
	require := fs.String("require-marks", "", "comma-separated `marks` every sweep must reach (added to the scenario's)")
	ignoreRequired := fs.Bool("ignore-required-marks", false, "do not require the scenario's own required marks (e.g. when overriding its protocol)")
	profiles := addProfileFlags(fs)
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if *merge && a.checkOnly {
		return exitOK
	}
	if *merge {
		return mergeCmd(fs.Args(), stdout, stderr, splitMarks(*require))
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "coordsim sweep: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	for _, c := range []struct {
		bad bool
		msg string
	}{
		{*seeds < 1 || *seeds > 10_000_000, fmt.Sprintf("--seeds %d: must be in [1, 10000000]", *seeds)},
		{*parallel < 1 || *parallel > 1024, fmt.Sprintf("--parallel %d: must be in [1, 1024]", *parallel)},
		{of.set("seed"), "--seed is not used by sweep: give the first seed with --start"},
		{of.emit != "", "--emit-scenario writes one run's options: use it with run or replay"},
	} {
		if c.bad {
			fmt.Fprintf(stderr, "coordsim sweep: %s\n", c.msg)
			return exitUsage
		}
	}
	part, parts, err := parseShard(*shardSpec)
	if err != nil {
		fmt.Fprintf(stderr, "coordsim sweep: %v\n", err)
		return exitUsage
	}
	base, first, ok := of.loadFor("sweep", stderr, func(*scenario.Scenario) uint64 { return *start })
	if !ok {
		return exitUsage
	}
	required := splitMarks(*require)
	if !*ignoreRequired {
		required = append(slices.Clone(base.RequiredMarks), required...)
	}
	if err := knownMarks(required); err != nil {
		fmt.Fprintf(stderr, "coordsim sweep: --require-marks: %v\n", err)
		return exitUsage
	}
	if a.checkOnly {
		return exitOK
	}
	// What the store cannot honour is refused once, before any seed runs
	// or the results file is touched.
	if err := of.preflightSweep(first); err != nil {
		fmt.Fprintf(stderr, "coordsim sweep: %v\n", err)
		return exitUsage
	}
	// The profiles cover every seed the sweep runs, in all its workers.
	prof, err := profiles.start()
	if err != nil {
		fmt.Fprintf(stderr, "coordsim sweep: %v\n", err)
		return exitIO
	}
	defer func() { code = prof.finish("coordsim sweep", stderr, code) }()

	// With --resume, the lines already there count and their seeds are skipped.
	out := stdout
	var results []*seedLine
	done := map[uint64]bool{}
	var resumeFile *os.File
	if *resume != "" {
		f, prior, err := openResume(*resume)
		if err != nil {
			fmt.Fprintf(stderr, "coordsim sweep: --resume %s: %v\n", *resume, err)
			return exitIO
		}
		defer f.Close()
		resumeFile = f
		out = f
		for _, l := range prior {
			done[l.Seed] = true
		}
		results = prior
	}
	var todo []uint64
	for i := range *seeds {
		if seed := *start + uint64(i); i%parts == part && !done[seed] {
			todo = append(todo, seed)
		}
	}
	if len(done) > 0 {
		fmt.Fprintf(stderr, "sweep: %d seeds already in %s, %d to run\n", len(done), *resume, len(todo))
	}

	var bar *progressbar.ProgressBar
	if a.host.isTerminal(stderr) {
		bar = progressbar.NewOptions(len(todo), progressbar.OptionSetWriter(stderr), progressbar.OptionSetDescription("sweep"),
			progressbar.OptionShowCount(), progressbar.OptionClearOnFinish())
	}
	// Workers run seeds and send their lines; this goroutine writes each
	// line as it arrives (one Write per line), so a killed sweep keeps
	// every line written, and Ctrl-C stops handing out seeds and prints the
	// summary of the seeds done.
	ctx, cancel := a.host.interrupts()
	defer cancel()
	lines := make(chan *seedLine)
	errs := make(chan error, 1)
	next := atomic.NewInt64(-1)
	var wg sync.WaitGroup
	began := a.host.now()
	for range min(*parallel, len(todo)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := int(next.Inc())
				if i >= len(todo) {
					return
				}
				l, err := runSeed(of, base, todo[i], required)
				if err != nil {
					select {
					case errs <- fmt.Errorf("seed %d: %w", todo[i], err):
					default:
					}
					return
				}
				select {
				case lines <- l:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() { wg.Wait(); close(lines) }()
	enc := json.NewEncoder(out)
	interrupted := false
loop:
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				break loop
			}
			if out == stdout {
				// Stdout and stderr often share a terminal: the line
				// starts where the bar was, and the bar is redrawn below.
				clearBar(bar)
			}
			if err := enc.Encode(l); err != nil {
				// The line is not kept: stop before more seeds run for nothing.
				cancel()
				clearBar(bar)
				fmt.Fprintf(stderr, "coordsim sweep: writing seed %d's line%s: %v\n", l.Seed, resumeName(*resume), err)
				return exitIO
			}
			results = append(results, l)
			if bar != nil {
				_ = bar.Add(1)
			}
		case err := <-errs:
			clearBar(bar)
			fmt.Fprintf(stderr, "coordsim sweep: %v\n", err)
			return exitUsage
		case <-ctx.Done():
			interrupted = true
			break loop
		}
	}
	// The progress bar goes before the summary is printed.
	clearBar(bar)
	select {
	case err := <-errs:
		fmt.Fprintf(stderr, "coordsim sweep: %v\n", err)
		return exitUsage
	default:
	}
	if resumeFile != nil {
		// Each line was one write; the close is what is left to check.
		if err := resumeFile.Close(); err != nil {
			fmt.Fprintf(stderr, "coordsim sweep: --resume %s: %v\n", *resume, err)
			return exitIO
		}
	}
	// Ctrl-C stops the workers, which then close lines: the loop may see
	// that close before the interrupt, so the interrupt is read here too.
	interrupted = interrupted || ctx.Err() != nil && len(results) < len(todo)+len(done)
	fmt.Fprintf(stderr, "sweep: %d seeds in %s of wall time with %d workers\n", len(results)-len(done), a.host.now().Sub(began).Round(time.Millisecond), max(1, min(*parallel, len(todo))))
	code = summarize(results, required, stderr)
	if interrupted {
		fmt.Fprintf(stderr, "INTERRUPTED: %d of %d seeds done; the summary covers those\n", len(results), len(todo)+len(done))
		if *resume != "" {
			fmt.Fprintf(stderr, "continue with the same command: --resume %s skips the seeds done\n", *resume)
		}
		return exitInterrupted
	}
	return code
}

// runSeed runs one seed of a sweep and returns its line.
func runSeed(of *optionFlags, base *scenario.Scenario, seed uint64, required []string) (*seedLine, error) {
	sc, err := of.apply(base, seed)
	if err != nil {
		return nil, err
	}
	res, err := sim.Run(sc.Options, nil)
	if err != nil {
		return nil, err
	}
	extra, swarm := "", ""
	if of.swarm {
		swarm = swarmLabel(&sc.Options)
	}
	if res.Violation != nil {
		extra = fmt.Sprintf(" --stop-at %d", res.Violation.Step)
	}
	return &seedLine{Seed: seed, Scenario: sc.Name, Protocol: string(sc.Options.Protocol), Swarm: swarm,
		Events: res.Events, TraceHash: res.TraceHash, Cycles: res.Cycles, DeletesOK: res.DeletesOK,
		DeletesFailed: res.DeletesFailed, AcceptedDataLoss: res.AcceptedDataLoss, LeakedRows: res.LeakedRows,
		Marks: res.Marks, Violation: res.Violation, Replay: of.replayCommand(base, sc, extra), RequiredMarks: required,
		Sinks: sinkLosses(res), Warnings: res.Warnings, Skipped: res.Skipped}, nil
}

// clearBar erases the progress bar, if any, so the summary starts on a
// clean line.
func clearBar(bar *progressbar.ProgressBar) {
	if bar != nil {
		_ = bar.Clear()
	}
}

// resumeName names the results file in a message, when there is one.
func resumeName(path string) string {
	if path == "" {
		return " to stdout"
	}
	return " to " + path
}

// openResume reads the lines a previous sweep wrote to path (creating the
// file when missing, never its directory: a mistyped directory fails here,
// before any seed runs) and returns the file open for appending. A partial
// last line, left by a sweep killed mid-write, is cut off.
func openResume(path string) (*os.File, []*seedLine, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, nil, err
	}
	// A device reads forever (/dev/zero, /dev/full) and cannot be cut
	// back to its last whole line: only a regular file is resumable.
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = fmt.Errorf("not a regular file (%s)", st.Mode().Type())
		}
		return nil, nil, err
	}
	data, err := io.ReadAll(f)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	keep := len(data)
	if i := bytes.LastIndexByte(data, '\n'); i+1 < len(data) {
		keep = i + 1
	}
	var prior []*seedLine
	seen := map[uint64]bool{}
	for n, raw := range bytes.Split(data[:keep], []byte("\n")) {
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		l, err := decodeLine(raw)
		if err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("%s:%d: %v", path, n+1, err)
		}
		if !seen[l.Seed] {
			seen[l.Seed] = true
			prior = append(prior, l)
		}
	}
	if err := f.Truncate(int64(keep)); err != nil {
		f.Close()
		return nil, nil, err
	}
	if _, err := f.Seek(int64(keep), io.SeekStart); err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, prior, nil
}

// decodeLine reads one sweep line and refuses lines that are not one: a
// line must be one JSON object naming its seed, scenario, trace hash and
// replay command. Anything after the object is refused: two lines run
// together (a file cut short, then appended to) would otherwise count as
// the first alone, dropping the second seed and any violation it holds.
func decodeLine(raw []byte) (*seedLine, error) {
	var l seedLine
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return nil, err
	}
	if rest := bytes.TrimSpace(raw[dec.InputOffset():]); len(rest) > 0 {
		return nil, fmt.Errorf("not a sweep line (%d bytes follow its JSON object: two lines run together?)", len(rest))
	}
	if l.Scenario == "" || l.TraceHash == "" || l.Replay == "" || l.Events == 0 {
		return nil, fmt.Errorf("not a sweep line (it lacks the scenario, events, trace hash or replay command)")
	}
	return &l, nil
}

// knownMarks refuses mark names the simulator never records.
func knownMarks(marks []string) error {
	for _, m := range marks {
		if !sim.KnownMark(m) {
			return fmt.Errorf("unknown mark %q (known: %s)", m, strings.Join(sim.MarkNames(), ", "))
		}
	}
	return nil
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
	printSweepWarnings(w, lines)
	printSweepSkipped(w, lines)
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
	// A directory stands for the .jsonl files in it (a shared results
	// volume, one file per shard).
	var expanded []string
	for _, name := range files {
		if st, err := os.Stat(name); err == nil && st.IsDir() {
			matches, _ := filepath.Glob(filepath.Join(name, "*.jsonl"))
			slices.Sort(matches)
			expanded = append(expanded, matches...)
			continue
		}
		expanded = append(expanded, name)
	}
	files = expanded
	var readers []io.Reader
	names := files
	if len(files) == 0 {
		readers = append(readers, os.Stdin)
		names = []string{"stdin"}
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
	seen := map[uint64]string{}
	for ri, r := range readers {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for n := 1; sc.Scan(); n++ {
			if strings.TrimSpace(sc.Text()) == "" {
				continue
			}
			l, err := decodeLine(sc.Bytes())
			if err != nil {
				fmt.Fprintf(stderr, "coordsim sweep --merge: %s:%d: %v\n", names[ri], n, err)
				return exitUsage
			}
			if first, dup := seen[l.Seed]; dup {
				fmt.Fprintf(stderr, "coordsim sweep --merge: %s:%d: seed %d given twice (first in %s)\n", names[ri], n, l.Seed, first)
				return exitUsage
			}
			seen[l.Seed] = fmt.Sprintf("%s:%d", names[ri], n)
			required = append(required, l.RequiredMarks...)
			lines = append(lines, l)
		}
		if err := sc.Err(); err != nil {
			fmt.Fprintf(stderr, "coordsim sweep --merge: %v\n", err)
			return exitUsage
		}
	}
	if len(lines) == 0 {
		fmt.Fprintln(stderr, "coordsim sweep --merge: no sweep lines in the input")
		return exitUsage
	}
	if err := knownMarks(required); err != nil {
		fmt.Fprintf(stderr, "coordsim sweep --merge: %v\n", err)
		return exitUsage
	}
	slices.SortFunc(lines, func(a, b *seedLine) int {
		return cmp.Compare(a.Seed, b.Seed)
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

// swarmLabel summarises a swarm seed's main knobs for its sweep line; the
// line's replay command carries every knob.
func swarmLabel(o *sim.Options) string {
	return fmt.Sprintf("brokers=%d partitions=%d retention=%s check=%s protocol=%s", o.Brokers, o.Partitions, o.Retention, o.CheckInterval, o.Protocol)
}

func (a *app) scenariosCmd(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("scenarios", "[-v]", "list the built-in scenarios", stdout, stderr)
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
	fmt.Fprintf(stdout, "\nRun one with: %s run --scenario NAME (or a path to your own YAML file; schema: sim/scenario/SCHEMA.md)\n", a.prog)
	return exitOK
}

// printSweepSkipped prints, per --skip-invariant invariant, how many seeds
// violated it and the first of them: what a bisect needs to know.
func printSweepSkipped(w io.Writer, lines []*seedLine) {
	type tally struct {
		seeds int
		first *seedLine
	}
	count := map[string]*tally{}
	var order []string
	for _, l := range lines {
		for _, sk := range l.Skipped {
			t := count[sk.Invariant]
			if t == nil {
				t = &tally{}
				count[sk.Invariant] = t
				order = append(order, sk.Invariant)
			}
			if sk.Violations > 0 {
				if t.seeds++; t.first == nil || l.Seed < t.first.Seed {
					t.first = l
				}
			}
		}
	}
	for _, name := range order {
		t := count[name]
		line := fmt.Sprintf("skipped %s: violated in %d of %d seeds", name, t.seeds, len(lines))
		if t.first != nil {
			line += fmt.Sprintf(", the first seed %d", t.first.Seed)
		}
		fmt.Fprintln(w, line)
	}
}

// printSweepWarnings prints each distinct warning of the seeds once, with
// how many seeds it concerns, in the order first seen.
func printSweepWarnings(w io.Writer, lines []*seedLine) {
	count := map[string]int{}
	var order []string
	for _, l := range lines {
		for _, warn := range l.Warnings {
			if count[warn] == 0 {
				order = append(order, warn)
			}
			count[warn]++
		}
	}
	for _, warn := range order {
		fmt.Fprintf(w, "WARNING (%d of %d seeds): %s\n", count[warn], len(lines), warn)
	}
}
