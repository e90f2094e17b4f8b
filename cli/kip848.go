package cli

import (
	"fmt"
	"io"

	"github.com/coordsim/coordsim/sim"
	"github.com/coordsim/coordsim/sim/consumption"
	"github.com/coordsim/coordsim/sim/scenario"
)

// compareKIP848 runs res's all-KIP-848 baseline (sim.KIP848Baseline: the
// same options, every rolling-upgrade application on the consumer
// protocol from the start, never rolled) and sets res.KIP848. A run that
// stopped early (a violation, --stop-at, Ctrl-C) is not compared: its
// figures cover less than the baseline's would. The baseline runs apart
// from the first: the first's trace, hash and files are its own. Ctrl-C
// stops the baseline too, and the run is then printed uncompared. replay
// gives the command that reruns a scenario's options: the baseline's is in
// the comparison, so it can be rerun, traced and reported on its own.
//
// It returns the baseline's violation, with the command that replays it,
// or nil: a violation in the baseline is one in what the command ran, and
// run exits 1 for it as for its own (README's exit codes), after printing
// the first run and the comparison, which name it. Without a comparison
// to hold it (the two runs could not be compared) res.KIP848 still names
// both runs, so the JSON carries the violation either way.
func (a *app) compareKIP848(sc *scenario.Scenario, res *sim.Result, stderr io.Writer, replay func(*scenario.Scenario) string) *sim.ComparedViolation {
	if res.Stopped || res.Violation != nil || res.Consumption == nil {
		fmt.Fprintf(stderr, "coordsim run: no KIP-848 comparison: the run stopped early\n")
		return nil
	}
	bsc := *sc
	bsc.Options = sim.KIP848Baseline(sc.Options)
	stop, progress := a.interruptible(stderr)
	o := bsc.Options
	if a.baselineOptions != nil {
		a.baselineOptions(&o)
	}
	o.Progress = progress
	base, err := sim.Run(o, nil)
	stop()
	if err != nil {
		fmt.Fprintf(stderr, "coordsim run: the all-KIP-848 run: %v\n", err)
		return nil
	}
	if base.Interrupted {
		fmt.Fprintf(stderr, "coordsim run: no KIP-848 comparison: the all-KIP-848 run was interrupted at step %d\n", base.Events)
		return nil
	}
	cmp, err := sim.CompareKIP848(res, base)
	if err != nil {
		fmt.Fprintf(stderr, "coordsim run: the KIP-848 comparison: %v\n", err)
		if base.Violation == nil {
			return nil
		}
		// No figures to set side by side, but the runs and the violation.
		cmp = &sim.KIP848Comparison{Rolling: sim.ComparedOf(res, sim.RollingRunName), Baseline: sim.ComparedOf(base, sim.BaselineRunName)}
	}
	cmp.Rolling.Replay, cmp.Baseline.Replay = res.Replay, replay(&bsc)
	res.KIP848 = cmp
	v := cmp.Baseline.Violated
	if v == nil {
		return nil
	}
	v.Replay = fmt.Sprintf("%s --stop-at %d", cmp.Baseline.Replay, v.Step)
	fmt.Fprintf(stderr, "coordsim run: the all-KIP-848 run VIOLATED %s at step %d (t=%s): %s; its figures stop there; exit %d; replay: %s\n",
		v.Invariant, v.Step, fmtVirtualMs(v.AtMs), v.Detail, exitViolation, v.Replay)
	return v
}

// printKIP848 prints a comparison side by side: each scope's duplicates
// and pause time in the rolling-upgrade run and in the all-KIP-848 run,
// and their ratio.
func printKIP848(w io.Writer, c *sim.KIP848Comparison) {
	fmt.Fprintf(w, "  KIP-848 comparison  the same seed, faults and applications, run twice:\n")
	for _, r := range []struct {
		name string
		run  sim.ComparedRun
	}{{sim.RollingRunName, c.Rolling}, {sim.BaselineRunName, c.Baseline}} {
		line := fmt.Sprintf("    %-16s %s; %d rolls, trace hash %s", r.name, r.run.What, r.run.Rolls, r.run.TraceHash)
		if r.run.Violation != "" {
			line += ", VIOLATED " + r.run.Violation + " (its figures stop there)"
		}
		fmt.Fprintln(w, line)
		if r.name == sim.BaselineRunName && r.run.Replay != "" {
			fmt.Fprintf(w, "    %-16s rerun it alone: %s\n", "", r.run.Replay)
		}
		if v := r.run.Violated; v != nil && v.Replay != "" {
			fmt.Fprintf(w, "    %-16s its violation (t=%s): %s\n", "", fmtVirtualMs(v.AtMs), v.Detail)
			fmt.Fprintf(w, "    %-16s replay it: %s\n", "", v.Replay)
		}
	}
	if len(c.Scopes) == 0 {
		fmt.Fprintf(w, "    (the two runs could not be compared: see stderr)\n")
		return
	}
	fmt.Fprintf(w, "    %-30s %-26s %-26s %s\n", "", sim.RollingRunName, sim.BaselineRunName, "ratio")
	for _, s := range c.Scopes {
		fmt.Fprintf(w, "    %s\n", scopeTitle(s))
		fmt.Fprintf(w, "      %-28s %-26s %-26s %s\n", "records consumed twice",
			fmt.Sprintf("%d", s.Rolling.Duplicates), fmt.Sprintf("%d", s.Baseline.Duplicates), fmtRatio(s.DuplicatesRatio, s.Rolling.Duplicates))
		fmt.Fprintf(w, "      %-28s %-26s %-26s %s\n", "partition pause (longest)",
			fmtPause(s.Rolling), fmtPause(s.Baseline), fmtRatio(s.PauseRatio, s.Rolling.PauseMs))
	}
	fmt.Fprintf(w, "    (records at %d/s per partition; pause: partition-time with no member consuming)\n", c.RecordsPerSecond)
}

func scopeTitle(s consumption.Scope) string {
	switch s.Name {
	case consumption.ScopeWhole:
		return fmt.Sprintf("%s (%d applications, %s of life)", s.Name, s.Windows, fmtVirtualMs(s.WindowMs))
	default:
		return fmt.Sprintf("during the %s (%d windows, %s; a window runs from a roll's first restart to a minute after its last)", s.Name, s.Windows, fmtVirtualMs(s.WindowMs))
	}
}

func fmtPause(c consumption.Cost) string {
	return fmt.Sprintf("%s (%s)", fmtVirtualMs(c.PauseMs), fmtVirtualMs(c.LongestPauseMs))
}

// fmtRatio is rolling over baseline; "-" when both are 0, "n/a" when only
// the baseline is.
func fmtRatio(r *float64, rolling int64) string {
	switch {
	case r != nil:
		return fmt.Sprintf("%.2fx", *r)
	case rolling == 0:
		return "-"
	default:
		return "n/a (none in the baseline)"
	}
}
