package report

import (
	"fmt"

	"github.com/coordsim/coordsim/sim"
	"github.com/coordsim/coordsim/sim/consumption"
)

// kip848 is the section comparing a rolling-upgrade run with its
// all-KIP-848 baseline (sim.KIP848Comparison): which run is which, then
// one table row per scope and measure, the two runs side by side.
type kip848 struct {
	RollingName, BaselineName string
	Runs                      []row // name: the run; value: what it is, its rolls and hash
	Rows                      []kip848Row
	RecordsPerSecond          int
}

// kip848Row is one measure of one scope in both runs.
type kip848Row struct {
	Scope, Measure    string
	Rolling, Baseline string
	Ratio, Class      string
	First             bool // the scope's first row (it carries the scope's name)
	ScopeRows         int
}

func kip848Section(c *sim.KIP848Comparison) *kip848 {
	if c == nil {
		return nil
	}
	k := &kip848{RollingName: sim.RollingRunName, BaselineName: sim.BaselineRunName, RecordsPerSecond: c.RecordsPerSecond}
	for _, r := range []struct {
		name string
		run  sim.ComparedRun
	}{{sim.RollingRunName, c.Rolling}, {sim.BaselineRunName, c.Baseline}} {
		v := fmt.Sprintf("%s; %s rolls; %s events; trace hash %s", r.run.What, fmtInt(r.run.Rolls), fmtInt(r.run.Events), r.run.TraceHash)
		rw := row{Name: r.name, Value: v}
		if r.run.Violation != "" {
			rw.Value += "; VIOLATED " + r.run.Violation + ": its figures stop there"
			rw.Class = "bad"
		}
		k.Runs = append(k.Runs, rw)
	}
	for _, s := range c.Scopes {
		scope := fmt.Sprintf("%s: %s windows, %s", s.Name, fmtInt(int64(s.Windows)), fmtVirtual(msDuration(s.WindowMs)))
		if s.Name == consumption.ScopeWhole {
			scope = fmt.Sprintf("%s: %s applications, %s of life", s.Name, fmtInt(int64(s.Windows)), fmtVirtual(msDuration(s.WindowMs)))
		}
		k.Rows = append(k.Rows,
			kip848Row{Scope: scope, First: true, ScopeRows: 2, Measure: "records consumed twice",
				Rolling: fmtInt(s.Rolling.Duplicates), Baseline: fmtInt(s.Baseline.Duplicates), Ratio: ratio(s.DuplicatesRatio, s.Rolling.Duplicates)},
			kip848Row{Measure: "partition pause (longest)",
				Rolling: pause(s.Rolling), Baseline: pause(s.Baseline), Ratio: ratio(s.PauseRatio, s.Rolling.PauseMs)})
	}
	return k
}

func pause(c consumption.Cost) string {
	return fmt.Sprintf("%s (%s)", fmtVirtual(msDuration(c.PauseMs)), fmtVirtual(msDuration(c.LongestPauseMs)))
}

// ratio is rolling over baseline: "-" when both are 0, "n/a" when only the
// baseline is.
func ratio(r *float64, rolling int64) string {
	switch {
	case r != nil:
		return fmt.Sprintf("%.2f×", *r)
	case rolling == 0:
		return "-"
	default:
		return "n/a (none in the baseline)"
	}
}
