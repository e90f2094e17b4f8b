package report

import (
	"fmt"
	"time"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/coordsim/coordsim/connect"
	"github.com/coordsim/coordsim/sim"
	"github.com/coordsim/coordsim/sim/connectsim"
)

// The Connect part of the report: a table of every connector's outcome and
// two plots of Series.Sinks, throughput and running tasks over virtual time.
// A run without a Connect workload has none of it, and its page is what it
// was before sinks existed.

// sinkMinutesMax is the longest span the sink plots label in minutes; longer
// ones are labelled in hours like the cluster plots.
const sinkMinutesMax = 3 * time.Hour

// sinkHeads are the columns of the sinks table after the connector's own.
// Soft hyphens (U+00AD) let the long ones break so that the table fits the
// page.
var sinkHeads = []string{
	"produced", "received", "unique", "dupli\u00adcates", "re\u00addeliv\u00adered", "archived", "dead-lettered",
	"lost", "un\u00addeliv\u00adered", "tasks started / failed / killed", "through\u00adput", "longest kill re\u00addelivery",
}

// metricHeads are the columns of the sink-task metrics table: Connect's
// sink-task-metrics names, and the share acknowledgements by type.
var metricHeads = []string{
	"sink-record-read total / rate", "sink-record-send total / rate", "put-batch time avg / max",
	"offset-commit completion / skip", "share acks accept / release / reject / renew",
}

// metricRows are the sink-task metrics table, one row per started
// connector.
func metricRows(conns []connectsim.SinkResult) []sinkRow {
	rows := make([]sinkRow, 0, len(conns))
	for _, c := range conns {
		if c.Refused != "" {
			continue
		}
		m := c.Metrics
		acks := cell{Value: "–", Class: "muted"}
		if c.Kind == connect.ShareSink.String() {
			acks = cell{Value: fmt.Sprintf("%s / %s / %s / %s", fmtInt(m.AcksAccept), fmtInt(m.AcksRelease), fmtInt(m.AcksReject), fmtInt(m.AcksRenew))}
		}
		rows = append(rows, sinkRow{Name: c.Name, Kind: c.Kind, Group: c.Group, Cells: []cell{
			{Value: fmtInt(m.RecordReadTotal), Sub: fmtFloat(m.RecordReadRate) + "/s"},
			{Value: fmtInt(m.RecordSendTotal), Sub: fmtFloat(m.RecordSendRate) + "/s"},
			{Value: fmt.Sprintf("%s ms", fmtFloat(m.PutBatchAvgTimeMs)), Sub: fmtInt(m.PutBatchMaxTimeMs) + " ms max"},
			{Value: fmtInt(m.OffsetCommitCompletionTotal), Sub: fmtInt(m.OffsetCommitSkipTotal) + " skipped"},
			acks,
		}})
	}
	return rows
}

// sinkRow is one connector in the sinks table. Refused connectors show
// their refusal instead of the cells.
type sinkRow struct {
	Name, Kind, Group string
	Refused           string
	Cells             []cell
}

// cell is one value of a table; Sub is a second, muted line under it.
type cell struct {
	Value, Sub, Class string
}

// hasSinks reports whether r ran a Connect workload.
func hasSinks(r *sim.Result) bool { return len(r.Connect) > 0 || len(r.Series.Sinks) > 0 }

// sinkRows are the sinks table, one row per connector in the workload's
// order.
func sinkRows(conns []connectsim.SinkResult) []sinkRow {
	rows := make([]sinkRow, 0, len(conns))
	for _, c := range conns {
		rw := sinkRow{Name: c.Name, Kind: c.Kind, Group: c.Group, Refused: c.Refused}
		if c.Refused != "" {
			rows = append(rows, rw)
			continue
		}
		num := func(n int64, class string) cell { return cell{Value: fmtInt(n), Class: class} }
		kill := cell{Value: "–", Class: "muted"}
		if c.KilledInFlight > 0 {
			kill = cell{Value: fmtVirtual(msDuration(c.MaxKillRedeliveryMs)),
				Sub: fmt.Sprintf("%s/%s redelivered", fmtInt(c.KilledRedelivered), fmtInt(c.KilledInFlight))}
		}
		tasks := cell{Value: fmt.Sprintf("%s / %s / %s", fmtInt(c.TasksStarted), fmtInt(c.TasksFailed), fmtInt(c.TasksKilled)),
			Class: warnIf(c.TasksFailed > 0)}
		if c.Kind == connect.ConsumerSink.String() && c.RebalancePauses > 0 {
			tasks.Sub = fmt.Sprintf("%s rebalance pauses, %s", fmtInt(c.RebalancePauses), fmtVirtual(msDuration(c.RebalancePausedMs)))
		}
		undelivered := num(c.Undelivered, warnIf(c.Undelivered > 0))
		if c.SkippedByReset > 0 {
			undelivered.Sub = fmtInt(c.SkippedByReset) + " skipped by offset reset"
		}
		rw.Cells = []cell{
			num(c.Produced, ""),
			num(c.Received, ""),
			num(c.Unique, ""),
			num(c.Duplicates, ""),
			num(c.Redeliveries, ""),
			num(c.Archived, ""),
			num(c.DeadLettered, ""),
			lostCell(c),
			undelivered,
			tasks,
			{Value: fmtFloat(c.ThroughputPerSec) + "/s"},
			kill,
		}
		rows = append(rows, rw)
	}
	return rows
}

// lostCell is the lost column: invariant-8 losses (any is a violation),
// with the archived records no dead-letter queue kept under them.
func lostCell(c connectsim.SinkResult) cell {
	l := cell{Value: fmtInt(c.Lost), Class: badIf(c.Lost > 0)}
	if n := c.LostAtLimit + c.LostRejected; n > 0 {
		l.Sub = fmtInt(n) + " archived without a DLQ"
		if l.Class == "" {
			l.Class = "warn"
		}
	}
	return l
}

func badIf(b bool) string {
	if b {
		return "bad"
	}
	return ""
}

// sinkSeries is one connector's samples, in time order.
type sinkSeries struct {
	name, kind string
	samples    []connectsim.SinkSample
}

// label is how the plots' legends name the connector.
func (s sinkSeries) label() string { return fmt.Sprintf("%s (%s)", s.name, s.kind) }

// splitSinks groups the samples by connector: the connectors of r.Connect
// first, in their order, then any other name in order of appearance.
// Refused connectors never ran a task: they are left out.
func splitSinks(r *sim.Result) []sinkSeries {
	var out []sinkSeries
	index := map[string]int{}
	refused := map[string]bool{}
	add := func(name, kind string) int {
		if i, ok := index[name]; ok {
			return i
		}
		index[name] = len(out)
		out = append(out, sinkSeries{name: name, kind: kind})
		return len(out) - 1
	}
	for _, c := range r.Connect {
		if c.Refused != "" {
			refused[c.Name] = true
			continue
		}
		add(c.Name, c.Kind)
	}
	for _, s := range r.Series.Sinks {
		if refused[s.Sink] {
			continue
		}
		i := add(s.Sink, s.Kind)
		out[i].samples = append(out[i].samples, s)
	}
	return out
}

// sinkSpanMs is how much of the samples the plots show: up to the first
// sample after the last one at which any connector ran a task or made
// progress, so that a drain's idle tail does not squeeze the run into the
// left of the plot. It also returns the last sample's time.
func sinkSpanMs(series []sinkSeries) (endMs, lastMs int64) {
	activeMs := int64(-1)
	for _, s := range series {
		for i, x := range s.samples {
			lastMs = max(lastMs, x.AtMs)
			moved := i > 0 && (x.Received != s.samples[i-1].Received || x.Unique != s.samples[i-1].Unique)
			if x.Tasks > 0 || moved {
				activeMs = max(activeMs, x.AtMs)
			}
		}
	}
	if activeMs < 0 {
		return lastMs, lastMs
	}
	endMs = lastMs
	for _, s := range series {
		for _, x := range s.samples {
			if x.AtMs > activeMs {
				endMs = min(endMs, x.AtMs)
			}
		}
	}
	return endMs, lastMs
}

// sinkStyles are the connectors' line styles: one colour each, and widths
// from wide (the first) to narrow (the last) so that connectors whose lines
// coincide (the same task schedule, the same rate) all stay visible.
func sinkStyles(n int) []draw.LineStyle {
	styles := make([]draw.LineStyle, n)
	step := 0.0
	if n > 1 && n <= len(palette) {
		step = min(1.5, 3/float64(n-1))
	}
	for i := range styles {
		w := 1.5 + step*float64(n-1-i)
		styles[i] = draw.LineStyle{Color: palette[i%len(palette)], Width: vg.Points(w), Dashes: dashes[(i/len(palette))%len(dashes)]}
	}
	return styles
}

// sinkFigures draws the throughput and task plots of a Connect run, or
// nothing when r ran none.
func sinkFigures(r *sim.Result) ([]figure, error) {
	if !hasSinks(r) {
		return nil, nil
	}
	thr := figure{ID: "plot-sinks", Title: "Sink throughput"}
	tasks := figure{ID: "plot-sink-tasks", Title: "Sink tasks",
		Caption: "Running tasks of each connector at every progress sample: scaling steps, failures and kills show as steps."}
	series := splitSinks(r)
	switch {
	case len(r.Series.Sinks) == 0:
		thr.Note = "No sink progress was sampled (Series.Sinks is empty)."
	case len(series) == 0:
		thr.Note = "Every connector was refused: no task ran."
	}
	if thr.Note != "" {
		tasks.Note = thr.Note
		return []figure{thr, tasks}, nil
	}
	endMs, lastMs := sinkSpanMs(series)
	x, unitMs := minutesAxis(float64(endMs)/60_000), float64(60_000)
	if msDuration(endMs) > sinkMinutesMax {
		x, unitMs = hoursAxis(float64(endMs)/msPerHour), msPerHour
	}
	if endMs <= 0 { // sampled at 0 only
		x.max = 1
	}
	tail := ""
	if endMs < lastMs {
		tail = fmt.Sprintf(" Every connector was idle from %s until sampling ended at %s; that tail is not drawn.",
			fmtVirtual(msDuration(endMs)), fmtVirtual(msDuration(lastMs)))
	}
	overlap := ""
	if len(series) > 1 {
		overlap = " Where lines coincide, the earlier connector's wider line shows around the later one's."
	}

	styles := sinkStyles(len(series))
	var rateLines, taskLines []namedXYs
	period := samplePeriodMs(series)
	// About a hundred windows over the plot, whole sampling periods each.
	windowMs := max(period, period*(endMs/100/max(period, 1)))
	for i, s := range series {
		if len(s.samples) == 0 {
			continue
		}
		unique, received, dups := sinkRates(s.samples, endMs, windowMs, unitMs)
		rateLines = append(rateLines, namedXYs{name: s.label(), xys: unique, style: &styles[i]})
		if dups {
			st := styles[i]
			st.Width = vg.Points(1)
			st.Dashes = dashes[1]
			rateLines = append(rateLines, namedXYs{name: s.label() + " incl. duplicates", xys: received, style: &st})
		}
		taskLines = append(taskLines, namedXYs{name: s.label(), xys: sinkTaskSteps(s.samples, endMs, unitMs), style: &styles[i]})
	}
	thr.Caption = "Records put per second by each connector: new distinct records"
	if windowMs > 0 {
		thr.Caption += fmt.Sprintf(" per %s window (progress is sampled every %s)", fmtVirtual(msDuration(windowMs)), fmtVirtual(msDuration(period)))
	}
	thr.Caption += ", drawn at the middle of the window. A dashed line counts every successful put, duplicates included, for a connector that received some." + overlap + tail
	tasks.Caption += overlap + tail
	// One legend width for both, so that their time axes line up.
	leg := newLegend()
	for _, l := range rateLines {
		thr.legendMin = max(thr.legendMin, legendEntryWidth(leg, l.name))
	}
	tasks.legendMin = thr.legendMin
	if err := thr.draw(rateLines, nil, x, "records/s"); err != nil {
		return nil, err
	}
	if err := tasks.draw(taskLines, nil, x, "running tasks"); err != nil {
		return nil, err
	}
	return []figure{thr, tasks}, nil
}

// sinkRates are a connector's rates of distinct and of all received records
// over consecutive windows of at least windowMs up to endMs, at the middle
// of each window, and whether it received any duplicates there. A window
// spans whole sampling intervals: tasks put records in batches, so rates
// over a single short interval jump with every batch.
func sinkRates(samples []connectsim.SinkSample, endMs, windowMs int64, unitMs float64) (unique, received plotter.XYs, dups bool) {
	for i, j := 0, 1; j < len(samples); j++ {
		a, b := samples[i], samples[j]
		if a.AtMs >= endMs {
			break
		}
		if b.AtMs-a.AtMs < windowMs && b.AtMs < endMs && j < len(samples)-1 {
			continue
		}
		i = j
		if b.AtMs <= a.AtMs {
			continue
		}
		dtS := float64(b.AtMs-a.AtMs) / 1000
		mid := (float64(a.AtMs) + float64(b.AtMs)) / 2 / unitMs
		du, dr := b.Unique-a.Unique, b.Received-a.Received
		unique = append(unique, plotter.XY{X: mid, Y: float64(du) / dtS})
		received = append(received, plotter.XY{X: mid, Y: float64(dr) / dtS})
		dups = dups || dr != du
	}
	return unique, received, dups
}

// samplePeriodMs is the progress samples' period: the first gap between two
// samples of one connector (0 with fewer than two).
func samplePeriodMs(series []sinkSeries) int64 {
	for _, s := range series {
		for i := 1; i < len(s.samples); i++ {
			if d := s.samples[i].AtMs - s.samples[i-1].AtMs; d > 0 {
				return d
			}
		}
	}
	return 0
}

// sinkTaskSteps is a connector's running task count as a step line: each
// count holds until the sample that saw it change.
func sinkTaskSteps(samples []connectsim.SinkSample, endMs int64, unitMs float64) plotter.XYs {
	var xys plotter.XYs
	for i, s := range samples {
		if s.AtMs > endMs {
			break
		}
		x := float64(s.AtMs) / unitMs
		if i > 0 && s.Tasks != samples[i-1].Tasks {
			xys = append(xys, plotter.XY{X: x, Y: float64(samples[i-1].Tasks)})
		}
		xys = append(xys, plotter.XY{X: x, Y: float64(s.Tasks)})
	}
	return xys
}
