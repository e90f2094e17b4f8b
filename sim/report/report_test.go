package report

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"github.com/coordsim/coordsim/sim"
)

// fakeResult builds a plausible Result: hours of virtual time sampled every
// half hour, and one cleanup cycle per broker per hour. It draws nothing at
// random so that two calls give equal Results (maps filled in different
// orders).
func fakeResult(hours int, reverse bool) *sim.Result {
	r := &sim.Result{
		Seed: 42, Scenario: "default", Protocol: "v1",
		Events: 18_734_221, VirtualTime: time.Duration(hours) * time.Hour, WallTime: 11734 * time.Millisecond,
		TraceHash:     "9f3c1a77e2b04d15",
		GroupsCreated: map[string]int{"streams": 4000, "consumer": 5000},
		GroupsFinal:   map[string]int{"streams/EMPTY": 12, "consumer/STABLE": 480},
		Cycles:        int64(3 * hours), TicksDropped: 17, Eligible: 3890, DeletesOK: 3850, DeletesFailed: 40,
		OffsetCommits: 2_300_000, OffsetExpired: 81_000, ShardMoves: 23, AcceptedDataLoss: 2,
		Marks: map[string]int64{"tick_dropped_single_flight": 17, "clear_found_newer_epoch": 3, "share_redelivery_limit": 0},
	}
	keys := []string{"streams/EMPTY", "streams/STABLE", "consumer/EMPTY", "consumer/STABLE", "share/STABLE"}
	epochs := []string{"none", "uncertain", "stored"}
	if reverse {
		keys = []string{"share/STABLE", "consumer/STABLE", "consumer/EMPTY", "streams/STABLE", "streams/EMPTY"}
		epochs = []string{"stored", "uncertain", "none"}
	}
	for i := 0; i <= 2*hours; i++ {
		h := float64(i) / 2
		s := sim.Sample{AtMs: int64(h * 3_600_000), Groups: map[string]int{}, StoredEpochs: map[string]int{}}
		for _, k := range keys {
			s.Groups[k] = int(200+150*math.Sin(h/24*2*math.Pi+float64(len(k)))) + i%7
		}
		for _, k := range epochs {
			s.StoredEpochs[k] = (i*(len(k)+3))%50 + 10*len(k)
		}
		s.Offsets = 20_000 + 1500*i
		s.PluginRows = s.StoredEpochs["stored"] + i%5
		r.Series.Samples = append(r.Series.Samples, s)
	}
	for i := 0; i < hours; i++ {
		for b := range int32(3) {
			e := (i*7 + int(b)*3) % 20
			failed := 0
			if i%9 == 0 {
				failed = min(e, 2)
			}
			r.Series.Cycles = append(r.Series.Cycles, sim.CycleRecord{
				AtMs: int64(i)*3_600_000 + int64(b)*1_200_000, Broker: b,
				Eligible: e, DeletesOK: e - failed, DeletesFailed: failed})
		}
	}
	return r
}

func renderPage(t *testing.T, r *sim.Result) string {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, WriteHTML(&buf, r))
	return buf.String()
}

// contains and notContains check a page without printing all of it (the
// embedded font alone is half a megabyte) when they fail.
func contains(t *testing.T, page, want string, msgAndArgs ...any) {
	t.Helper()
	if !strings.Contains(page, want) {
		assert.Fail(t, fmt.Sprintf("page does not contain %q", want), msgAndArgs...)
	}
}

func notContains(t *testing.T, page, unwanted string, msgAndArgs ...any) {
	t.Helper()
	if i := strings.Index(page, unwanted); i >= 0 {
		lo, hi := max(0, i-120), min(len(page), i+len(unwanted)+120)
		assert.Fail(t, fmt.Sprintf("page contains %q: …%s…", unwanted, page[lo:hi]), msgAndArgs...)
	}
}

// sameBytes checks a == b and, if not, shows where they start to differ.
func sameBytes(t *testing.T, a, b string, msgAndArgs ...any) {
	t.Helper()
	if a == b {
		return
	}
	i := 0
	for i < min(len(a), len(b)) && a[i] == b[i] {
		i++
	}
	lo := max(0, i-80)
	assert.Fail(t, fmt.Sprintf("pages differ at byte %d (lengths %d, %d):\n%q\n%q",
		i, len(a), len(b), a[lo:min(len(a), i+80)], b[lo:min(len(b), i+80)]), msgAndArgs...)
}

var svgRe = regexp.MustCompile(`(?s)<svg\b.*?</svg>`)

// TestWriteHTMLStructure proves the page is self-contained: one inline,
// well-formed SVG per plot, nothing that would be fetched, the replay
// command and the tables present, the zero marks highlighted.
func TestWriteHTMLStructure(t *testing.T) {
	page := renderPage(t, fakeResult(168, false))

	assert.True(t, strings.HasPrefix(page, "<!DOCTYPE html>\n"))
	assert.True(t, strings.HasSuffix(page, "</html>\n"))
	contains(t, page, "<title>coordsim report: default, seed 42, protocol v1</title>")
	contains(t, page, "go run ./cmd/coordsim replay --seed 42 --scenario default")

	// One <svg per plot, each well-formed XML, each made by gonum/plot.
	assert.Equal(t, 5, strings.Count(page, "<svg"))
	svgs := svgRe.FindAllString(page, -1)
	require.Len(t, svgs, 5)
	for i, s := range svgs {
		assert.NoError(t, wellFormed(s), "svg %d", i)
		contains(t, s, "font-family:Liberation Sans", "svg %d is vgsvg output", i)
		notContains(t, s, "<?xml", "svg %d", i)
	}
	for _, id := range []string{"plot-groups", "plot-cycles", "plot-epochs", "plot-offsets", "plot-rows"} {
		contains(t, page, `<figure id="`+id+`">`)
	}
	// Legends name every series.
	for _, name := range []string{"streams/EMPTY", "consumer/STABLE", "share/STABLE", "uncertain", "deletes ok", "committed offsets", "rows in store"} {
		contains(t, page, ">"+name+"</text>", "legend entry %q", name)
	}
	contains(t, page, ">virtual time (hours)</text>")

	// Nothing is fetched when the page is viewed.
	for _, u := range regexp.MustCompile(`https?://[^"'\s)<>]*`).FindAllString(page, -1) {
		assert.Equal(t, "http://www.w3.org/2000/svg", u, "only the SVG namespace may name a URL")
	}
	for _, bad := range []string{"<script", "<link", "<img", "<iframe", "@import", " src=", "xlink:href"} {
		notContains(t, page, bad)
	}
	for _, u := range regexp.MustCompile(`url\(([^)]{0,20})`).FindAllStringSubmatch(page, -1) {
		assert.True(t, strings.HasPrefix(u[1], "data:"), "url(%s…) must be a data: URL", u[1])
	}

	// Summary, invariants and marks.
	contains(t, page, "<td>Events</td><td class=\"num\">18,734,221</td>")
	contains(t, page, "<td>Virtual time</td><td class=\"num\">168h0m0s</td>")
	contains(t, page, "All invariants held.")
	notContains(t, page, `id="violation"`)
	contains(t, page, `<tr class="zero"><td><code>share_redelivery_limit</code></td><td class="num">0 (never reached)</td></tr>`)
	contains(t, page, `<tr><td><code>tick_dropped_single_flight</code></td><td class="num">17</td></tr>`)
}

// wellFormed reports whether s parses as XML from start to end.
func wellFormed(s string) error {
	d := xml.NewDecoder(strings.NewReader(s))
	for {
		_, err := d.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// TestWriteHTMLViolation proves a violation is shown with its invariant,
// step, detail, trace and the replay command that stops at the step, and
// that its text is escaped.
func TestWriteHTMLViolation(t *testing.T) {
	r := fakeResult(24, false)
	r.Violation = &sim.Violation{
		Invariant: "no-tombstone-with-stored-epoch",
		Step:      1234567,
		AtMs:      97_200_123,
		Detail:    `group app-17 tombstoned with epoch 3 <script>alert(1)</script>`,
		Trace:     []string{"step=1234566 heartbeat app-17", "step=1234567 tombstone app-17 <blink>"},
	}
	page := renderPage(t, r)

	contains(t, page, "Invariant violated: no-tombstone-with-stored-epoch at step 1,234,567.")
	contains(t, page, "VIOLATED: no-tombstone-with-stored-epoch at step 1,234,567")
	contains(t, page, `<h2 id="violation">`)
	contains(t, page, "<tr><td>Virtual time</td><td class=\"num\">27h0m0.123s</td></tr>")
	contains(t, page, "go run ./cmd/coordsim replay --seed 42 --scenario default --stop-at 1234567")
	contains(t, page, "Trace: the last 2 events")
	contains(t, page, "step=1234566 heartbeat app-17\nstep=1234567 tombstone app-17 &lt;blink&gt;")
	contains(t, page, "&lt;script&gt;alert(1)&lt;/script&gt;")
	notContains(t, page, "<script")
	notContains(t, page, "All invariants held.")
}

// TestWriteHTMLEscapes proves that names coming from the Result (scenario,
// marks, group keys) are escaped in the page and in the plots.
func TestWriteHTMLEscapes(t *testing.T) {
	r := fakeResult(4, false)
	r.Scenario = `evil <i>"name"</i> & 'co'`
	r.Marks["<blink>mark</blink>"] = 1
	r.GroupsFinal["<u>type</u>/EMPTY"] = 1
	for i := range r.Series.Samples {
		r.Series.Samples[i].Groups["<em>x</em>/STABLE"] = 1
	}
	page := renderPage(t, r)

	for _, raw := range []string{"<i>", "<blink>", "<u>", "<em>"} {
		notContains(t, page, raw)
	}
	contains(t, page, "&lt;em&gt;x&lt;/em&gt;/STABLE</text>", "legend text escaped by vgsvg")
	contains(t, page, "&lt;blink&gt;mark&lt;/blink&gt;")
	// The replay command quotes the scenario for the shell, then for HTML.
	contains(t, page, "--scenario &#39;evil &lt;i&gt;&#34;name&#34;&lt;/i&gt; &amp; &#39;\\&#39;&#39;co&#39;\\&#39;&#39;&#39;")
	for i, s := range svgRe.FindAllString(page, -1) {
		assert.NoError(t, wellFormed(s), "svg %d", i)
	}
}

// TestWriteHTMLDeterministic proves that equal Results give byte-identical
// pages: gonum/plot's SVG embeds no time or randomness, and maps are walked
// in sorted order whatever order they were filled in.
func TestWriteHTMLDeterministic(t *testing.T) {
	first := renderPage(t, fakeResult(72, false))
	for i := range 4 {
		sameBytes(t, first, renderPage(t, fakeResult(72, i%2 == 1)), "render %d", i)
	}
	v := fakeResult(72, false)
	v.Violation = &sim.Violation{Invariant: "x", Step: 9, Trace: []string{"a", "b"}}
	sameBytes(t, renderPage(t, v), renderPage(t, v), "with a violation")
}

// TestWriteHTMLEmptySeries proves that missing series give notes instead of
// plots, that KIP-1331 plots with nothing to show are left out, and that
// degenerate series (one sample, empty maps) still render.
func TestWriteHTMLEmptySeries(t *testing.T) {
	t.Run("no samples and no cycles", func(t *testing.T) {
		page := renderPage(t, &sim.Result{Seed: 1, Scenario: "empty"})
		assert.Equal(t, 0, strings.Count(page, "<svg"))
		assert.Equal(t, 2, strings.Count(page, "No samples were recorded (Series.Samples is empty)."), "groups and offsets; the KIP-1331 plots are left out")
		assert.NotContains(t, page, "plot-cycles", "no cycle ran: no cycle plot")
		contains(t, page, "No coverage marks were recorded.")
		assert.NotContains(t, page, "Wall time", "wall-clock figures stay out of the report")
		contains(t, page, "go run ./cmd/coordsim replay --seed 1 --scenario empty")
	})
	t.Run("samples with empty maps", func(t *testing.T) {
		r := &sim.Result{Seed: 2, VirtualTime: time.Hour}
		r.Series.Samples = []sim.Sample{{AtMs: 0, Offsets: 3}, {AtMs: 1_800_000, Offsets: 5, PluginRows: 1}}
		page := renderPage(t, r)
		assert.Equal(t, 2, strings.Count(page, "<svg"), "offsets and plugin rows only")
		contains(t, page, "The samples hold no group counts.")
		assert.NotContains(t, page, "plot-epochs", "no streams groups: no stored-epoch plot")
		contains(t, page, "go run ./cmd/coordsim replay --seed 2</code>", "no --scenario when unnamed")
	})
	t.Run("one sample and one cycle at time zero", func(t *testing.T) {
		r := &sim.Result{Seed: 3}
		r.Series.Samples = []sim.Sample{{Groups: map[string]int{"streams/EMPTY": 1}, StoredEpochs: map[string]int{"none": 1}}}
		r.Series.Cycles = []sim.CycleRecord{{Eligible: 1, DeletesOK: 1}}
		page := renderPage(t, r)
		assert.Equal(t, 5, strings.Count(page, "<svg"))
		for i, s := range svgRe.FindAllString(page, -1) {
			assert.NoError(t, wellFormed(s), "svg %d", i)
		}
	})
}

// TestWriteHTMLLargeSeries proves that long runs stay bounded: cycles beyond
// maxCyclePoints are summed over buckets and long lines are decimated, so
// the page does not grow with the run.
func TestWriteHTMLLargeSeries(t *testing.T) {
	r := &sim.Result{Seed: 4, VirtualTime: 7 * 24 * time.Hour}
	for i := range 7 * 24 * 60 { // a sample and a cycle every virtual minute
		r.Series.Samples = append(r.Series.Samples, sim.Sample{AtMs: int64(i) * 60_000,
			Groups: map[string]int{"streams/EMPTY": i % 100}, Offsets: i, PluginRows: i % 10})
		r.Series.Cycles = append(r.Series.Cycles, sim.CycleRecord{AtMs: int64(i) * 60_000, Eligible: i % 5, DeletesOK: i % 5})
	}
	page := renderPage(t, r)
	contains(t, page, "10,080 cleanup cycles are too many to draw one by one: each point sums the cycles (all brokers) of one 6h0m0s bucket.")
	contains(t, page, ">groups per 6h0m0s</text>")
	assert.Less(t, len(page), 2_500_000, "page size is bounded")
}

// TestDenseCyclesAreBinned proves the default scenario's cleanup cycles
// (three brokers, one cycle every ten minutes for two days: 864, most of
// them finding nothing) are summed per hour and drawn as lines rather than
// as 864 overlapping glyphs (issue 26: the plot was overplotted).
func TestDenseCyclesAreBinned(t *testing.T) {
	r := &sim.Result{Seed: 1, VirtualTime: 48 * time.Hour}
	for i := range 48 * 6 {
		for b := range int32(3) {
			r.Series.Cycles = append(r.Series.Cycles, sim.CycleRecord{AtMs: int64(i)*600_000 + int64(b)*1000, Broker: b, Eligible: i % 3, DeletesOK: i % 3})
		}
	}
	page := renderPage(t, r)
	contains(t, page, "864 cleanup cycles are too many to draw one by one: each point sums the cycles (all brokers) of one 1h0m0s bucket.")
	cycles := page[strings.Index(page, `<figure id="plot-cycles">`):]
	cycles = cycles[:strings.Index(cycles, "</figure>")]
	assert.Less(t, strings.Count(cycles, "<path"), 200, "no glyph per cycle (drawn one by one: about 1 800 paths)")
}

// TestDecimate proves that decimation keeps each bucket's extremes in order,
// so a one-sample spike survives.
func TestDecimate(t *testing.T) {
	var xys plotter.XYs
	for i := range 10_000 {
		xys = append(xys, plotter.XY{X: float64(i), Y: 1})
	}
	xys[4321].Y = 1000
	xys[7777].Y = -5
	out := decimate(xys, 100)
	require.LessOrEqual(t, len(out), 100)
	assert.Contains(t, out, plotter.XY{X: 4321, Y: 1000})
	assert.Contains(t, out, plotter.XY{X: 7777, Y: -5})
	for i := 1; i < len(out); i++ {
		assert.Less(t, out[i-1].X, out[i].X, "order kept")
	}
	assert.Equal(t, xys[:50], decimate(xys[:50], 100), "short series unchanged")
}

// TestFormatting pins the number, duration and command formats the page uses.
func TestFormatting(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{fmtInt(0), "0"},
		{fmtInt(999), "999"},
		{fmtInt(1000), "1,000"},
		{fmtInt(-1234567), "-1,234,567"},
		{fmtFloat(1596576.4), "1,596,576"},
		{fmtFloat(0.25), "0.25"},
		{fmtFloat(math.Inf(1)), "n/a"},
		{fmtVirtual(0), "0s"},
		{fmtVirtual(1500 * time.Millisecond), "1.5s"},
		{fmtVirtual(90 * time.Minute), "1h30m0s"},
		{fmtVirtual(7 * 24 * time.Hour), "168h0m0s"},
		{shellQuote("default"), "default"},
		{shellQuote("two words"), "'two words'"},
		{shellQuote("it's"), `'it'\''s'`},
		{shellQuote(""), "''"},
		{replayCommand(&sim.Result{Seed: 7}, 0), "go run ./cmd/coordsim replay --seed 7"},
		{replayCommand(&sim.Result{Seed: 7, Scenario: "heavy-v2"}, 99), "go run ./cmd/coordsim replay --seed 7 --scenario heavy-v2 --stop-at 99"},
		{replayCommand(&sim.Result{Seed: 7, Replay: "coordsim replay --scenario x.yaml --seed 7 --brokers 2"}, 99), "coordsim replay --scenario x.yaml --seed 7 --brokers 2 --stop-at 99"},
	} {
		assert.Equal(t, tc.want, tc.got)
	}
}

// TestTicks proves the x axis is labelled in round hours (whole days for a
// week) and the y axis never in fractions of a group.
func TestTicks(t *testing.T) {
	labels := func(ts []plot.Tick) []string {
		var out []string
		for _, tk := range ts {
			if tk.Label != "" {
				out = append(out, tk.Label)
			}
		}
		return out
	}
	assert.Equal(t, []string{"0", "24", "48", "72", "96", "120", "144", "168"}, labels(hourTicks{}.Ticks(0, 168)))
	assert.Equal(t, []string{"0", "1", "2", "3"}, labels(hourTicks{}.Ticks(0, 3)))
	assert.Equal(t, []string{"0", "1", "2", "3"}, labels(countTicks{}.Ticks(0, 3.15)))
	assert.Equal(t, []string{"0", "200", "400", "600", "800"}, labels(countTicks{}.Ticks(0, 870)))
	assert.Equal(t, []string{"0", "50,000", "100,000", "150,000", "200,000", "250,000"}, labels(countTicks{}.Ticks(0, 280_000)))
	assert.Empty(t, countTicks{}.Ticks(1, 1))
}

// TestWriteHTMLErrors proves that a nil Result and a failing writer are
// reported.
func TestWriteHTMLErrors(t *testing.T) {
	assert.Error(t, WriteHTML(io.Discard, nil))
	err := WriteHTML(failWriter{}, fakeResult(2, false))
	assert.ErrorIs(t, err, errWrite)
}

var errWrite = fmt.Errorf("disk full")

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errWrite }

// TestReportMarksLossesAndViolationAndNamesSimpleGroups proves the report
// lists each accepted v1 loss with its group and time and marks it (and the
// violation) on the time axis, names classic groups "simple" as the summary
// does, and differs in no byte when only the wall time differs.
func TestReportMarksLossesAndViolationAndNamesSimpleGroups(t *testing.T) {
	r := fakeResult(12, false)
	r.DataLoss = []sim.DataLossEvent{{AtMs: 3_600_000, Group: "streams-000042", StoredEpoch: 3}}
	r.Violation = &sim.Violation{Invariant: "6-liveness", Step: 9, AtMs: 7_200_000, Trace: []string{"a"}}
	r.GroupsFinal = map[string]int{"classic/EMPTY": 2}
	page := renderPage(t, r)
	contains(t, page, "Accepted plugin-side data loss (protocol v1)")
	contains(t, page, "<code>streams-000042</code>")
	contains(t, page, "accepted data loss (v1)", "the legend names the marker")
	contains(t, page, "violation: 6-liveness")
	contains(t, page, "<td>simple/EMPTY</td>")
	assert.NotContains(t, page, "<td>classic/EMPTY</td>")
	other := *r
	other.WallTime = r.WallTime + 17*time.Second
	sameBytes(t, page, renderPage(t, &other), "the wall time does not reach the file")
}

// TestPageOrderSummaryPlotsTables proves the reading order issue 26 asks
// for: the header with its warnings and checks, a table of contents that
// links every section and plot, then the summary, the plots, and the
// tables (groups, checks, coverage marks) last.
func TestPageOrderSummaryPlotsTables(t *testing.T) {
	r := fakeResult(48, false)
	r.Checks = []sim.Check{{Name: "1-a", Ran: true}, {Name: "8-b", Why: "no Connect workload"}}
	r.Warnings = []string{"the topology store x does not implement plugin.Lister"}
	page := renderPage(t, r)
	at := func(s string) int {
		t.Helper()
		i := strings.Index(page, s)
		require.GreaterOrEqual(t, i, 0, "page has %q", s)
		return i
	}
	order := []string{"1 of 2 invariants checked; not checked: <code>8-b</code>", "WARNING: the topology store x",
		`<nav class="toc"`, `<h2 id="summary">`, `<h2 id="plots">`, `<figure id="plot-groups">`, `<h2 id="tables">`,
		`<h3 id="checks">`, `<h3 id="marks">`}
	for i := 1; i < len(order); i++ {
		assert.Less(t, at(order[i-1]), at(order[i]), "%q before %q", order[i-1], order[i])
	}
	toc := page[at(`<nav class="toc"`):at("</nav>")]
	for _, id := range []string{"summary", "plots", "plot-groups", "plot-cycles", "tables", "checks", "marks"} {
		assert.Contains(t, toc, `href="#`+id+`"`)
		at(`id="` + id + `"`)
	}
}

// TestSkippedInvariantsShowInTheHeader proves a run with --skip-invariant
// says so in the report's header, with the violations it went past: a
// report is never silently weaker than its run.
func TestSkippedInvariantsShowInTheHeader(t *testing.T) {
	r := fakeResult(48, false)
	r.Skipped = []*sim.SkippedInvariant{
		{Invariant: "9-one-owner", Violations: 3, First: &sim.Violation{Invariant: "9-one-owner", Step: 1234, Detail: "m1 took t-0, which m0 still holds"}},
		{Invariant: "16-routing"},
	}
	page := renderPage(t, r)
	assert.Contains(t, page, "WARNING: skipped 9-one-owner: 3 violations went unstopped, the first at step 1234: m1 took t-0, which m0 still holds")
	assert.Contains(t, page, "WARNING: skipped 16-routing: no violation")
}
