package consumption

import "fmt"

// Cost is what one run's rebalances cost its records in one scope.
type Cost struct {
	// Duplicates are records consumed twice (at RecordsPerSecond).
	Duplicates int64 `json:"duplicates"`
	// PauseMs is partition-time with no member consuming: the sum over
	// partitions of how long each had none.
	PauseMs int64 `json:"pause_ms"`
	// LongestPauseMs is the longest single pause of one partition.
	LongestPauseMs int64 `json:"longest_pause_ms"`
}

// Scope is one row of the comparison: both runs' costs in the same time
// windows of the same groups, and their ratios (rolling over baseline;
// absent when the baseline's cost is 0).
type Scope struct {
	// Name is "upgrade rolls", "downgrade rolls" or "whole run".
	Name string `json:"name"`
	// Windows counts the rolls in the scope and WindowMs their summed
	// length (for the whole run: the groups and their summed lives).
	Windows         int      `json:"windows"`
	WindowMs        int64    `json:"window_ms"`
	Rolling         Cost     `json:"rolling_upgrade"`
	Baseline        Cost     `json:"all_kip848"`
	DuplicatesRatio *float64 `json:"duplicates_ratio,omitempty"`
	PauseRatio      *float64 `json:"pause_ratio,omitempty"`
}

// Scope names.
const (
	ScopeUpgrade   = "upgrade rolls"
	ScopeDowngrade = "downgrade rolls"
	ScopeWhole     = "whole run"
)

// Compare measures both logs in the rolling run's windows: each roll of a
// group in the rolling log is a window for that group in both, so the
// baseline's row says what the same minutes cost the same application
// when it never left the consumer protocol. The whole-run row counts
// every group's life. The logs must hold the same groups in the same
// order (the same seed and workload).
func Compare(rolling, baseline *Log) ([]Scope, error) {
	if len(rolling.Groups) != len(baseline.Groups) {
		return nil, fmt.Errorf("consumption: %d groups against %d", len(rolling.Groups), len(baseline.Groups))
	}
	for i := range rolling.Groups {
		if a, b := rolling.Groups[i].ID, baseline.Groups[i].ID; a != b {
			return nil, fmt.Errorf("consumption: group %d is %q in one run and %q in the other", i, a, b)
		}
	}
	var out []Scope
	for _, kind := range []struct{ kind, name string }{{Upgrade, ScopeUpgrade}, {Downgrade, ScopeDowngrade}} {
		windows := make([][]Window, len(rolling.Groups))
		s := Scope{Name: kind.name}
		for g, gr := range rolling.Groups {
			for _, w := range gr.Windows {
				if w.Kind == kind.kind {
					windows[g] = append(windows[g], w)
					s.Windows++
					s.WindowMs += w.ToMs - w.FromMs
				}
			}
		}
		s.Rolling, s.Baseline = rolling.cost(windows), baseline.cost(windows)
		out = append(out, s.withRatios())
	}
	whole := Scope{Name: ScopeWhole, Windows: len(rolling.Groups), Rolling: rolling.cost(nil), Baseline: baseline.cost(nil)}
	for _, g := range rolling.Groups {
		whole.WindowMs += g.EndMs - g.BornMs
	}
	return append(out, whole.withRatios()), nil
}

func (s Scope) withRatios() Scope {
	ratio := func(a, b int64) *float64 {
		if b == 0 {
			return nil
		}
		r := float64(a) / float64(b)
		return &r
	}
	s.DuplicatesRatio = ratio(s.Rolling.Duplicates, s.Baseline.Duplicates)
	s.PauseRatio = ratio(s.Rolling.PauseMs, s.Baseline.PauseMs)
	return s
}

// Total is the log's cost over every group's whole life.
func (l *Log) Total() Cost { return l.cost(nil) }

// cost sums the log's pieces that fall in windows (per group); nil
// windows count everything.
func (l *Log) cost(windows [][]Window) Cost {
	var c Cost
	// clip is the part of [from, to) inside group g's windows.
	clip := func(g int, from, to int64) (in, longest int64) {
		if windows == nil {
			return to - from, to - from
		}
		for _, w := range windows[g] {
			if d := min(to, w.ToMs) - max(from, w.FromMs); d > 0 {
				in += d
				longest = max(longest, d)
			}
		}
		return in, longest
	}
	for _, p := range l.Pauses {
		in, longest := clip(p.Group, p.FromMs, p.ToMs)
		c.PauseMs += in
		c.LongestPauseMs = max(c.LongestPauseMs, longest)
	}
	var dupMs int64
	for _, r := range l.Rereads {
		if in, _ := clip(r.Group, r.AtMs, r.AtMs+1); in > 0 {
			dupMs += r.Ms
		}
	}
	for _, o := range l.Overlaps {
		in, _ := clip(o.Group, o.FromMs, o.ToMs)
		dupMs += in * int64(o.Extra)
	}
	c.Duplicates = dupMs * RecordsPerSecond / 1000
	return c
}
