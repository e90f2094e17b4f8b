package report

import (
	"math"

	"gonum.org/v1/plot"
)

// hourTicks marks virtual time in round hours: every 1, 2, 3, 6 or 12 hours,
// or whole days, whichever gives at most ten labels.
type hourTicks struct{}

// Ticks implements plot.Ticker.
func (hourTicks) Ticks(lo, hi float64) []plot.Tick { return roundTicks(lo, hi, hourTable) }

// minuteTicks marks virtual time in round minutes (every 1, 2, 5, 10, 15,
// 20, 30 or 60 minutes...), at most ten labels; the sink plots of short
// runs use it.
type minuteTicks struct{}

// Ticks implements plot.Ticker.
func (minuteTicks) Ticks(lo, hi float64) []plot.Tick { return roundTicks(lo, hi, minuteTable) }

const (
	hourTable = iota
	minuteTable
)

// tickStep is one label spacing and the number of minor intervals between
// two labels.
type tickStep struct {
	size  float64
	minor int
}

// tickSteps are each table's spacings and its overflow unit.
var tickSteps = [...]struct {
	steps    []tickStep
	overflow float64
}{
	hourTable:   {steps: []tickStep{{1, 4}, {2, 2}, {3, 3}, {6, 6}, {12, 4}, {24, 4}, {48, 2}, {72, 3}, {168, 7}, {336, 2}, {720, 5}}, overflow: 720},  // 30 days
	minuteTable: {steps: []tickStep{{1, 4}, {2, 2}, {5, 5}, {10, 2}, {15, 3}, {20, 2}, {30, 3}, {60, 4}, {120, 4}, {180, 3}, {360, 6}}, overflow: 720}, // 12 hours
}

// roundTicks labels [lo, hi] at the first spacing of a table that gives at
// most ten labels; beyond the table, at whole multiples of its overflow.
func roundTicks(lo, hi float64, tableIndex int) []plot.Tick {
	const maxLabels = 10
	if !(hi > lo) {
		return nil
	}
	if hi-lo < 2 {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	table := tickSteps[tableIndex]
	step, minor := 0.0, 1
	for _, s := range table.steps {
		step, minor = s.size, s.minor
		if (hi-lo)/s.size <= maxLabels {
			break
		}
	}
	if (hi-lo)/step > maxLabels { // beyond the table
		step = table.overflow * math.Ceil((hi-lo)/table.overflow/maxLabels)
		minor = 1
	}
	return stepTicks(lo, hi, step, minor)
}

// stepTicks labels every multiple of step in [lo, hi] and marks minor-1
// unlabelled ticks between two labels.
func stepTicks(lo, hi, step float64, minor int) []plot.Tick {
	var ticks []plot.Tick
	first := math.Ceil(lo/step) * step
	for v := first; v <= hi+step*1e-9; v += step {
		ticks = append(ticks, plot.Tick{Value: v, Label: fmtFloatTick(v)})
	}
	minorStep := step / float64(minor)
	for v := math.Ceil(lo/minorStep) * minorStep; v <= hi+minorStep*1e-9; v += minorStep {
		if r := math.Mod(v, step); r > minorStep*1e-6 && step-r > minorStep*1e-6 {
			ticks = append(ticks, plot.Tick{Value: v})
		}
	}
	return ticks
}

// countTicks labels counts as integers with thousands separators, about
// six labels on round steps (1, 2, 2.5 or 5 times a power of ten, never a
// fraction of a group).
type countTicks struct{}

// Ticks implements plot.Ticker.
func (countTicks) Ticks(lo, hi float64) []plot.Tick {
	const wantLabels = 6
	if !(hi > lo) {
		return nil
	}
	raw := (hi - lo) / wantLabels
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * mag
	for _, m := range []float64{1, 2, 2.5, 5} {
		if m*mag >= raw && (m != 2.5 || mag >= 10) {
			step = m * mag
			break
		}
	}
	step = math.Max(step, 1)
	var ticks []plot.Tick
	for v := math.Ceil(lo/step) * step; v <= hi+step*1e-9; v += step {
		ticks = append(ticks, plot.Tick{Value: v, Label: fmtFloatTick(v)})
	}
	return ticks
}

// fmtFloatTick labels a tick: integers with separators, others as is.
func fmtFloatTick(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return fmtInt(int64(v))
	}
	return fmtFloat(v)
}
