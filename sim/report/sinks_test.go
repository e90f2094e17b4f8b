package report

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot/plotter"

	"github.com/coordsim/coordsim/sim"
	"github.com/coordsim/coordsim/sim/connectsim"
)

// fakeSinkResult is a Connect run built by hand: a share sink that lost
// records and had a task killed, a consumer sink with duplicates and
// rebalance pauses, and a connector refused at start-up. Both running sinks
// scale 2 → 4 → 6 tasks at 10 and 20 minutes and put 100 records/s per
// task until 30 minutes; sampling goes on, idle, until 60 minutes.
func fakeSinkResult() *sim.Result {
	r := fakeResult(2, false)
	r.Scenario = "connect-scale"
	r.Produced = 720_000
	r.Connect = []connectsim.SinkResult{
		{Name: "s3", Kind: "share", Group: "connect-s3", TasksStarted: 7, TasksKilled: 1,
			Produced: 720_000, Deliveries: 720_040, Redeliveries: 40, Received: 719_997, Unique: 719_997,
			Lost: 3, KilledInFlight: 40, KilledRedelivered: 40, MaxKillRedeliveryMs: 31_200, ThroughputPerSec: 399.6},
		{Name: "jdbc", Kind: "consumer", Group: "connect-jdbc", TasksStarted: 6, TasksFailed: 1,
			Produced: 720_000, Received: 725_050, Unique: 720_000, Duplicates: 5_050,
			RebalancePauses: 7, RebalancePausedMs: 21_000, ThroughputPerSec: 400},
		{Name: "dup", Kind: "share", Group: "connect-orders",
			Refused: "group connect-orders exists as a <consumer> group: INCONSISTENT_GROUP_PROTOCOL"},
	}
	var received, unique [2]int64
	for m := int64(0); m <= 60; m++ {
		tasks := 0
		switch {
		case m > 30:
		case m >= 20:
			tasks = 6
		case m >= 10:
			tasks = 4
		default:
			tasks = 2
		}
		// The refused connector is sampled too, idle.
		r.Series.Sinks = append(r.Series.Sinks, connectsim.SinkSample{AtMs: m * 60_000, Sink: "dup", Kind: "share"})
		for i, name := range []string{"s3", "jdbc"} {
			kind := []string{"share", "consumer"}[i]
			r.Series.Sinks = append(r.Series.Sinks, connectsim.SinkSample{AtMs: m * 60_000, Sink: name, Kind: kind,
				Tasks: tasks, Received: received[i], Unique: unique[i]})
			unique[i] += int64(tasks) * 100 * 60
			received[i] += int64(tasks) * 100 * 60
			if i == 1 && m == 10 { // a rebalance: 5,050 records put twice
				received[i] += 5_050
			}
		}
	}
	return r
}

// TestWriteHTMLSinks proves a Connect run gets its table and its two plots:
// every connector's counts, lost records marked bad, the refused connector
// with its reason, and legends that name each connector and its kind.
func TestWriteHTMLSinks(t *testing.T) {
	page := renderPage(t, fakeSinkResult())

	assert.Equal(t, 7, strings.Count(page, "<svg"), "five cluster plots and two sink plots")
	for i, s := range svgRe.FindAllString(page, -1) {
		assert.NoError(t, wellFormed(s), "svg %d", i)
	}
	contains(t, page, `<h2 id="sinks">Sinks</h2>`)
	contains(t, page, `<figure id="plot-sinks">`)
	contains(t, page, `<figure id="plot-sink-tasks">`)
	thr := page[strings.Index(page, `<figure id="plot-sinks">`):strings.Index(page, `<figure id="plot-sink-tasks">`)]
	for _, name := range []string{"s3 (share)", "jdbc (consumer)", "jdbc (consumer) incl. duplicates"} {
		contains(t, thr, ">"+name+"</text>", "throughput legend entry %q", name)
	}
	notContains(t, thr, "s3 (share) incl. duplicates", "no duplicates line for a sink without duplicates")
	contains(t, thr, ">records/s</text>")
	contains(t, thr, ">virtual time (minutes)</text>", "a 30-minute run is labelled in minutes")
	contains(t, thr, "per 1m0s window (progress is sampled every 1m0s)")
	contains(t, thr, "Every connector was idle from 32m0s until sampling ended at 1h0m0s; that tail is not drawn.")
	notContains(t, thr, ">dup (share)</text>", "a refused connector ran no task: not plotted")
	tasks := page[strings.Index(page, `<figure id="plot-sink-tasks">`):]
	contains(t, tasks, ">running tasks</text>")
	contains(t, tasks, ">jdbc (consumer)</text>")

	// The table.
	contains(t, page, `<td class="name"><b>s3</b> (share)<br><span class="muted">connect-s3</span></td>`)
	contains(t, page, `<td class="num">725,050</td><td class="num">720,000</td><td class="num">5,050</td>`, "received, unique, duplicates")
	contains(t, page, `<td class="num bad">3</td>`, "lost > 0 is bad")
	assert.Equal(t, 1, strings.Count(page, `<td class="num bad">`), "only the sink that lost records")
	contains(t, page, `<td class="num">31.2s<br><span class="muted">40/40 redelivered</span></td>`)
	contains(t, page, `<td class="num warn">6 / 1 / 0<br><span class="muted">7 rebalance pauses, 21s</span></td>`)
	contains(t, page, `<td class="num">400/s</td>`)
	contains(t, page, `<td class="bad" colspan="12">REFUSED: group connect-orders exists as a &lt;consumer&gt; group: INCONSISTENT_GROUP_PROTOCOL</td>`)
	contains(t, page, `<td>Records produced (Connect)</td><td class="num">720,000</td>`)
	contains(t, page, "table.sinks td.bad{")

	sameBytes(t, page, renderPage(t, fakeSinkResult()), "the same Result gives the same page")
}

// TestWriteHTMLWithoutSinks proves a run without a Connect workload gets
// none of the Connect section: no table, no plot, no style, no summary row.
func TestWriteHTMLWithoutSinks(t *testing.T) {
	page := renderPage(t, fakeResult(24, false))
	for _, s := range []string{`id="sinks"`, "plot-sinks", "plot-sink-tasks", "table.sinks", "Records produced", "records/s"} {
		notContains(t, page, s)
	}
	assert.Equal(t, 5, strings.Count(page, "<svg"))
}

// TestWriteHTMLSinksWithoutSamples proves connectors without progress
// samples (a run stopped at once) give notes instead of plots, and a run
// of refused connectors only still renders.
func TestWriteHTMLSinksWithoutSamples(t *testing.T) {
	r := &sim.Result{Seed: 5, Connect: []connectsim.SinkResult{{Name: "x", Kind: "share", Group: "g", Refused: "no"}}}
	page := renderPage(t, r)
	assert.Equal(t, 0, strings.Count(page, "<svg"))
	assert.Equal(t, 2, strings.Count(page, "No sink progress was sampled (Series.Sinks is empty)."))
	contains(t, page, "REFUSED: no")

	r.Series.Sinks = []connectsim.SinkSample{{Sink: "x", Kind: "share"}, {AtMs: 1000, Sink: "x", Kind: "share"}}
	page = renderPage(t, r)
	assert.Equal(t, 0, strings.Count(page, "<svg"))
	assert.Equal(t, 2, strings.Count(page, "Every connector was refused: no task ran."))

	r.Connect = append(r.Connect, connectsim.SinkResult{Name: "y", Kind: "consumer", Group: "h"})
	r.Series.Sinks = []connectsim.SinkSample{{Sink: "x", Kind: "share"}, {Sink: "y", Kind: "consumer", Tasks: 1}}
	page = renderPage(t, r)
	assert.Equal(t, 2, strings.Count(page, "<svg"), "one sample at time zero still draws")
}

// TestSinkPlotsInHours proves sink plots longer than sinkMinutesMax are
// labelled in hours, like the cluster plots.
func TestSinkPlotsInHours(t *testing.T) {
	r := &sim.Result{Seed: 6, Connect: []connectsim.SinkResult{{Name: "x", Kind: "consumer", Group: "g"}}}
	for h := int64(0); h <= 8; h++ {
		r.Series.Sinks = append(r.Series.Sinks, connectsim.SinkSample{AtMs: h * 3_600_000, Sink: "x", Kind: "consumer", Tasks: 1, Received: h * 1000, Unique: h * 1000})
	}
	figs, err := sinkFigures(r)
	require.NoError(t, err)
	require.Len(t, figs, 2)
	for _, f := range figs {
		assert.Contains(t, string(f.SVG), ">virtual time (hours)</text>", f.ID)
		assert.NotContains(t, f.Caption, "tail is not drawn", "tasks ran until the last sample")
	}
}

// TestSinkRates proves the throughput is the counts' difference over whole
// windows of at least the requested length, and that duplicates are
// detected only where Received and Unique grew apart.
func TestSinkRates(t *testing.T) {
	var samples []connectsim.SinkSample
	for s := int64(0); s <= 10; s++ { // every 10 s: 100 records/s, 50 duplicates between 40 and 50 s
		dup := int64(0)
		if s >= 5 {
			dup = 500
		}
		samples = append(samples, connectsim.SinkSample{AtMs: s * 10_000, Unique: s * 1000, Received: s*1000 + dup})
	}
	unique, received, dups := sinkRates(samples, 100_000, 20_000, 1000)
	assert.True(t, dups)
	assert.Equal(t, plotter.XYs{{X: 10, Y: 100}, {X: 30, Y: 100}, {X: 50, Y: 100}, {X: 70, Y: 100}, {X: 90, Y: 100}}, unique)
	assert.Equal(t, plotter.XYs{{X: 10, Y: 100}, {X: 30, Y: 100}, {X: 50, Y: 125}, {X: 70, Y: 100}, {X: 90, Y: 100}}, received)

	unique, _, dups = sinkRates(samples[:5], 30_000, 10_000, 1000)
	assert.False(t, dups)
	assert.Equal(t, plotter.XYs{{X: 5, Y: 100}, {X: 15, Y: 100}, {X: 25, Y: 100}}, unique, "stops at endMs")
}

// TestSinkSpan proves the plots stop at the first sample after the last
// activity, and keep every sample when the sinks never stopped or never ran.
func TestSinkSpan(t *testing.T) {
	series := splitSinks(fakeSinkResult())
	require.Equal(t, 2, len(series), "the refused connector is left out")
	assert.Equal(t, []string{"s3", "jdbc"}, []string{series[0].name, series[1].name}, "the workload's order")
	end, last := sinkSpanMs(series)
	assert.Equal(t, int64(32*60_000), end, "the first sample after the last progress (between 30 and 31 minutes)")
	assert.Equal(t, int64(60*60_000), last)

	idle := []sinkSeries{{name: "x", samples: []connectsim.SinkSample{{AtMs: 0}, {AtMs: 1000}}}}
	end, last = sinkSpanMs(idle)
	assert.Equal(t, int64(1000), end)
	assert.Equal(t, int64(1000), last)
}

// TestMinuteTicks proves short sink plots are labelled in round minutes.
func TestMinuteTicks(t *testing.T) {
	var got []string
	for _, tk := range (minuteTicks{}).Ticks(0, 48) {
		if tk.Label != "" {
			got = append(got, tk.Label)
		}
	}
	assert.Equal(t, []string{"0", "5", "10", "15", "20", "25", "30", "35", "40", "45"}, got)
	got = got[:0]
	for _, tk := range (minuteTicks{}).Ticks(0, 180) {
		if tk.Label != "" {
			got = append(got, tk.Label)
		}
	}
	assert.Equal(t, []string{"0", "20", "40", "60", "80", "100", "120", "140", "160", "180"}, got)
	assert.Empty(t, minuteTicks{}.Ticks(3, 3))
}

// TestSinkNamesEscaped proves connector names and refusals from the Result
// are escaped in the table and in the plots' legends.
func TestSinkNamesEscaped(t *testing.T) {
	r := fakeSinkResult()
	r.Connect[0].Name = "<b>evil</b>"
	for i := range r.Series.Sinks {
		if r.Series.Sinks[i].Sink == "s3" {
			r.Series.Sinks[i].Sink = "<b>evil</b>"
		}
	}
	page := renderPage(t, r)
	notContains(t, page, "<b>evil")
	contains(t, page, "&lt;b&gt;evil&lt;/b&gt; (share)</text>")
	contains(t, page, `<td class="name"><b>&lt;b&gt;evil&lt;/b&gt;</b> (share)`)
	for i, s := range svgRe.FindAllString(page, -1) {
		assert.NoError(t, wellFormed(s), "svg %d", i)
	}
}

// TestWriteHTMLSinkTaskMetrics proves the report shows Connect's sink-task
// metrics per started connector (rates, put time, commits) and a share
// sink's acknowledgements by type, and the lost-at-limit class under the
// lost column.
func TestWriteHTMLSinkTaskMetrics(t *testing.T) {
	r := fakeSinkResult()
	r.Connect[0].LostAtLimit = 710
	r.Connect[0].Metrics = connectsim.SinkTaskMetrics{RecordReadTotal: 720_040, RecordReadRate: 400.5, RecordSendTotal: 719_997,
		PutBatchAvgTimeMs: 12.5, PutBatchMaxTimeMs: 480, OffsetCommitCompletionTotal: 1_234, OffsetCommitSkipTotal: 7,
		AcksAccept: 719_997, AcksRelease: 43, AcksReject: 2, AcksRenew: 9}
	var b strings.Builder
	require.NoError(t, WriteHTML(&b, r))
	html := b.String()
	assert.Contains(t, html, "Sink task metrics")
	assert.Contains(t, html, fmtInt(720_040))
	assert.Contains(t, html, "480 ms max")
	assert.Contains(t, html, fmtInt(719_997)+" / 43 / 2 / 9", "share acknowledgements by type")
	assert.Contains(t, html, "710 archived without a DLQ")
	assert.Equal(t, 2, strings.Count(html, `<td class="name"><b>s3</b>`), "the sinks table and the metrics table")
	assert.NotContains(t, html, `<td class="name"><b>dup</b> (share)</td>`, "a refused connector has no metrics row")
}
