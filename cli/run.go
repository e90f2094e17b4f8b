package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/coordsim/coordsim/connect"
	"github.com/coordsim/coordsim/metrics"
	"github.com/coordsim/coordsim/shard"
	"github.com/coordsim/coordsim/sim"
	"github.com/coordsim/coordsim/sim/connectsim"
	"github.com/coordsim/coordsim/sim/report"
	"github.com/coordsim/coordsim/sim/scenario"
)

func (a *app) runCmd(args []string, stdout, stderr io.Writer) (code int) {
	fs := newFlagSet("run", "[flags]", "run one simulation and print a summary", stdout, stderr)
	of := a.addOptionFlags(fs)
	asJSON := fs.Bool("json", false, "print the result as JSON instead of the summary")
	reportPath := fs.String("report", "", "write a self-contained HTML report to `file`")
	tracePath := fs.String("trace", "", "write every trace event to `file`, one line each")
	metricsPath := fs.String("metrics", "", "write the brokers' metrics in Prometheus text format to `file`")
	metricsEvery := fs.Duration("metrics-every", 0, "with --metrics, write a time series: every broker's metrics each `D` of virtual time (e.g. the check interval), then the end state")
	determinism := fs.Bool("check-determinism", false, "run twice and compare the trace hashes")
	compare := fs.Bool("compare-kip848", true, "with rolling_upgrade_groups, also run the same workload with every member on the consumer protocol from the start and compare duplicates and pause time (false: skip that second run)")
	profiles := addProfileFlags(fs)
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if *metricsEvery != 0 && (*metricsPath == "" || *metricsEvery < time.Second) {
		fmt.Fprintf(stderr, "coordsim run: --metrics-every %s: needs --metrics FILE and a duration of at least 1s\n", *metricsEvery)
		return exitUsage
	}
	base, sc, release, code, ok := a.startOne(of, "run", stderr)
	if !ok {
		return code
	}
	defer release()
	// Every output file is created before the simulation starts, so a bad
	// path fails at once rather than after minutes of simulation; every
	// write and close is checked after it (outFile).
	outs := map[string]*outFile{}
	for _, o := range []struct{ flag, path string }{{"trace", *tracePath}, {"report", *reportPath}, {"metrics", *metricsPath}} {
		if o.path == "" {
			continue
		}
		f, err := createOut("--"+o.flag, o.path)
		if err != nil {
			fmt.Fprintf(stderr, "coordsim run: %v\n", err)
			return exitIO
		}
		defer f.abandon()
		outs[o.flag] = f
	}
	prof, err := profiles.start()
	if err != nil {
		fmt.Fprintf(stderr, "coordsim run: %v\n", err)
		return exitIO
	}
	defer func() { code = prof.finish("coordsim run", stderr, code) }()
	if err := of.emitScenario(sc); err != nil {
		fmt.Fprintf(stderr, "coordsim run: --emit-scenario %s: %v\n", of.emit, err)
		return exitIO
	}
	ioFailed := false
	failIO := func(err error) {
		fmt.Fprintf(stderr, "coordsim run: %v\n", err)
		ioFailed = true
	}
	var trace io.Writer
	if f := outs["trace"]; f != nil {
		trace = f
	}
	stop, progress := a.interruptible(stderr)
	defer stop()
	opts := sc.Options
	opts.Progress = progress
	opts.MetricsEvery = *metricsEvery
	res, err := a.timedRun(opts, trace)
	// The progress line goes before anything else is printed.
	stop()
	switch {
	case errors.Is(err, sim.ErrTrace):
		failIO(fmt.Errorf("--trace %s: %w", *tracePath, err))
	case err != nil:
		fmt.Fprintf(stderr, "coordsim run: %v\n", err)
		return exitUsage
	}
	if f := outs["trace"]; f != nil {
		if err := f.close(); err != nil {
			failIO(err)
		}
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(stderr, "coordsim run: WARNING: %s\n", w)
	}
	res.Replay = of.replayCommand(base, sc, "")
	code = exitOK
	switch {
	case res.Interrupted:
		// The files, the JSON and the summary describe the partial run,
		// and so does every replay command they print: it stops there.
		res.Replay += fmt.Sprintf(" --stop-at %d", res.Events)
		code = exitInterrupted
	case !res.InvariantsHeld():
		code = exitViolation
	}
	if *determinism && !res.Interrupted {
		again, err := sim.Run(sc.Options, nil)
		if err != nil {
			fmt.Fprintf(stderr, "coordsim run: %v\n", err)
			return exitUsage
		}
		if again.TraceHash != res.TraceHash {
			fmt.Fprintf(stderr, "coordsim run: NOT DETERMINISTIC: trace hashes %s and %s differ\n", res.TraceHash, again.TraceHash)
			code = exitViolation
		} else {
			fmt.Fprintf(stderr, "determinism: two runs, trace hash %s both times\n", res.TraceHash)
		}
	}
	if *compare && sc.Options.Workload.RollingUpgradeGroups > 0 && !sc.Options.Workload.RollingUpgradeBaseline {
		v := a.compareKIP848(sc, res, stderr, func(s *scenario.Scenario) string { return of.replayCommand(base, s, "") })
		if v != nil && code == exitOK {
			code = exitViolation
		}
	}
	if f := outs["report"]; f != nil {
		if err := f.writeAndClose(func(w io.Writer) error { return report.WriteHTML(w, res) }); err != nil {
			failIO(err)
		}
	}
	if f := outs["metrics"]; f != nil {
		if err := f.writeAndClose(func(w io.Writer) error { return writeMetrics(w, res) }); err != nil {
			failIO(err)
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			failIO(fmt.Errorf("--json: %w", err))
		}
	} else {
		printSummary(stdout, sc, res)
	}
	if ioFailed && code != exitInterrupted {
		return exitIO
	}
	return code
}

// timedRun runs a simulation and records its wall time; the wall clock is
// read here, outside the simulation, and never reaches it.
// A trace that failed to write comes with the result (sim.ErrTrace).
func (a *app) timedRun(o sim.Options, trace io.Writer) (*sim.Result, error) {
	began := a.host.now()
	res, err := sim.Run(o, trace)
	if res != nil {
		res.WallTime = a.host.now().Sub(began)
	}
	return res, err
}

// writeMetrics writes the brokers' metrics in Prometheus text format: with
// a time series, one block per sample, each headed by a comment with its
// virtual time, then the end state.
func writeMetrics(w io.Writer, res *sim.Result) error {
	for _, s := range res.MetricsSeries {
		if _, err := fmt.Fprintf(w, "# coordsim sample at virtual time %s\n", fmtVirtualMs(s.AtMs)); err != nil {
			return err
		}
		if err := metrics.WritePrometheus(w, s.Samples, "kafka_coordinator_"); err != nil {
			return err
		}
	}
	if len(res.MetricsSeries) > 0 {
		if _, err := fmt.Fprintf(w, "# coordsim end state at virtual time %s\n", fmtVirtual(res.VirtualTime)); err != nil {
			return err
		}
	}
	return metrics.WritePrometheus(w, res.Metrics, "kafka_coordinator_")
}

// printSummary prints a run's summary, ending with its replay command
// (r.Replay, which stops at the failing step when there is one; an
// interrupted run's r.Replay already stops where it stopped).
func printSummary(w io.Writer, sc *scenario.Scenario, r *sim.Result) {
	o := sc.Options
	store := "no topology store"
	if o.Plugin {
		store = "a topology store"
	}
	fmt.Fprintf(w, "coordsim run: scenario %s, seed %d, protocol %s, %d brokers, %d partitions, %s\n",
		sc.Name, o.Seed, r.Protocol, o.Brokers, o.Partitions, store)
	printChecks(w, r)
	wall := max(r.WallTime, time.Microsecond)
	fmt.Fprintf(w, "  events          %d\n", r.Events)
	fmt.Fprintf(w, "  virtual time    %s\n", fmtVirtual(r.VirtualTime))
	fmt.Fprintf(w, "  wall time       %s\n", r.WallTime.Round(time.Millisecond))
	fmt.Fprintf(w, "  virtual/wall    %.0fx\n", float64(r.VirtualTime)/float64(wall))
	fmt.Fprintf(w, "  events/s        %.0f (wall)\n", float64(r.Events)/wall.Seconds())
	fmt.Fprintf(w, "  groups created  %s\n", joinCounts(r.GroupsCreated))
	fmt.Fprintf(w, "  groups at end   %s\n", joinCounts(r.GroupsFinal))
	fmt.Fprintf(w, "  offset commits  %d, expired %d\n", r.OffsetCommits, r.OffsetExpired)
	fmt.Fprintf(w, "  cleanup cycles  %d (dropped ticks %d), eligible %d, deletes ok %d / failed %d\n",
		r.Cycles, r.TicksDropped, r.Eligible, r.DeletesOK, r.DeletesFailed)
	fmt.Fprintf(w, "  shard moves     %d\n", r.ShardMoves)
	for _, c := range r.Connect {
		fmt.Fprintf(w, "  %s\n", sinkLine(c))
	}
	if o.Protocol.AcceptsDataLossRace() {
		fmt.Fprintf(w, "  accepted plugin-side data loss (v1 race)  %d, leaked rows %d\n", r.AcceptedDataLoss, r.LeakedRows)
	}
	fmt.Fprintf(w, "  marks reached   %s\n", joinCounts64(r.Marks))
	if r.KIP848 != nil {
		printKIP848(w, r.KIP848)
	}
	fmt.Fprintf(w, "  trace hash      %s\n", r.TraceHash)
	if r.InvariantsHeld() {
		fmt.Fprintf(w, "  invariants      held (the %d checks that ran)\n", r.ChecksRan())
		if c := r.KIP848; c != nil && c.Baseline.Violated != nil {
			fmt.Fprintf(w, "  baseline        VIOLATED: the %s run broke %s at step %d (see the comparison above): exit %d\n",
				sim.BaselineRunName, c.Baseline.Violated.Invariant, c.Baseline.Violated.Step, exitViolation)
		}
	} else {
		v := r.Violation
		fmt.Fprintf(w, "  invariants      VIOLATED: %s at step %d (t=%s)\n    %s\n", v.Invariant, v.Step, fmtVirtualMs(v.AtMs), v.Detail)
		if len(v.Focus) > 0 {
			fmt.Fprintf(w, "  its last %d trace events (the group or partition it names):\n", len(v.Focus))
			for _, l := range v.Focus {
				fmt.Fprintf(w, "    %s\n", l)
			}
		}
		fmt.Fprintf(w, "  last %d trace events:\n", len(v.Trace))
		for _, l := range v.Trace {
			fmt.Fprintf(w, "    %s\n", l)
		}
		fmt.Fprintf(w, "replay: %s\n", r.Replay+fmt.Sprintf(" --stop-at %d", v.Step))
		return
	}
	if r.Interrupted {
		fmt.Fprintf(w, "  INTERRUPTED at step %d (t=%s): the counts above are partial\n", r.Events, fmtVirtual(r.VirtualTime))
	}
	fmt.Fprintf(w, "replay: %s\n", r.Replay)
}

// printChecks prints which invariants the run checked and every warning:
// what it did less of than asked. A reader tells a clean run from a run
// that checked less here.
func printChecks(w io.Writer, r *sim.Result) {
	if len(r.Checks) > 0 {
		line := fmt.Sprintf("%d of %d ran", r.ChecksRan(), len(r.Checks))
		if off := r.ChecksOff(); len(off) > 0 {
			line += "; not run: " + strings.Join(off, ", ")
		}
		fmt.Fprintf(w, "  checks          %s\n", line)
	}
	for _, warn := range r.Warnings {
		fmt.Fprintf(w, "  WARNING         %s\n", warn)
	}
	for _, sk := range r.Skipped {
		line := fmt.Sprintf("%s: no violation", sk.Invariant)
		if sk.First != nil {
			line = fmt.Sprintf("%s: %d violations went unstopped, the first at step %d (t=%s): %s",
				sk.Invariant, sk.Violations, sk.First.Step, fmtVirtual(time.Duration(sk.First.AtMs)*time.Millisecond), sk.First.Detail)
		}
		fmt.Fprintf(w, "  skipped         %s\n", line)
	}
}

// sinkLine is one connector's outcome on one line: what it received against
// what was produced, what went wrong with records, its tasks and throughput;
// the kill redelivery and rebalance pauses when they happened.
func sinkLine(c connectsim.SinkResult) string {
	head := fmt.Sprintf("sink %s (%s, group %s)", c.Name, c.Kind, c.Group)
	if c.Refused != "" {
		return head + "  REFUSED: " + c.Refused
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s  produced %d, received %d (unique %d, duplicates %d), redelivered %d, archived %d, dead-lettered %d, lost %d",
		head, c.Produced, c.Received, c.Unique, c.Duplicates, c.Redeliveries, c.Archived, c.DeadLettered, c.Lost)
	if c.LostAtLimit+c.LostRejected > 0 {
		fmt.Fprintf(&b, ", archived without a DLQ %d (at the delivery limit %d, rejected %d)", c.LostAtLimit+c.LostRejected, c.LostAtLimit, c.LostRejected)
	}
	if c.Undelivered > 0 {
		fmt.Fprintf(&b, ", undelivered %d", c.Undelivered)
	}
	if c.SkippedByReset > 0 {
		fmt.Fprintf(&b, ", skipped by offset reset %d", c.SkippedByReset)
	}
	fmt.Fprintf(&b, ", tasks started %d failed %d killed %d, throughput %.0f records/s", c.TasksStarted, c.TasksFailed, c.TasksKilled, c.ThroughputPerSec)
	if c.KilledInFlight > 0 {
		fmt.Fprintf(&b, ", killed in flight %d, redelivered %d, longest wait %s",
			c.KilledInFlight, c.KilledRedelivered, fmtVirtualMs(c.MaxKillRedeliveryMs))
	}
	if c.Kind == connect.ConsumerSink.String() {
		fmt.Fprintf(&b, ", rebalance pauses %d (%s paused)", c.RebalancePauses, fmtVirtualMs(c.RebalancePausedMs))
	}
	return b.String()
}

// joinCounts renders "type/STATE" counts in Kafka's type and state order,
// Kafka's member-less classic groups named "simple" as everywhere else in
// the summary and the report.
func joinCounts(m map[string]int) string {
	named := make(map[string]int, len(m))
	for k, v := range m {
		if rest, ok := strings.CutPrefix(k, shard.Classic.String()+"/"); ok {
			k = "simple/" + rest
		}
		named[k] += v
	}
	return join(named, func(a, b string) int { return strings.Compare(typeOrder(a), typeOrder(b)) })
}

// joinCounts64 renders counts by name.
func joinCounts64(m map[string]int64) string { return join(m, strings.Compare) }

func join[V int | int64](m map[string]V, cmp func(a, b string) int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, cmp)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%d", k, m[k])
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, " ")
}

// typeOrder sorts "type/STATE" keys by type, then state, in Kafka's order.
func typeOrder(k string) string {
	typ, state, _ := strings.Cut(k, "/")
	ti, si := 9, 9
	for i, t := range shard.GroupTypes {
		if t.String() == typ {
			ti = i
		}
	}
	for i, s := range shard.GroupStates {
		if s.String() == state {
			si = i
		}
	}
	return fmt.Sprintf("%d%d%s", ti, si, k)
}
