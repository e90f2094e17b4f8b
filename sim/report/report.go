package report

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"io"
	"maps"
	"slices"
	"strings"

	"golang.org/x/image/font/sfnt"
	"gonum.org/v1/plot/font"

	"github.com/coordsim/coordsim/sim"
)

// WriteHTML writes the report of r to w as one self-contained HTML page.
// It reads r and never changes it; the same Result always gives the same
// bytes.
func WriteHTML(w io.Writer, r *sim.Result) error {
	if r == nil {
		return errors.New("report: nil Result")
	}
	figs, err := buildFigures(r)
	if err != nil {
		return err
	}
	sinkFigs, err := sinkFigures(r)
	if err != nil {
		return err
	}
	// The font is half a megabyte: embed it only when a plot uses it.
	var fontCSS template.CSS
	if slices.ContainsFunc(slices.Concat(figs, sinkFigs), func(f figure) bool { return f.SVG != "" }) {
		if fontCSS, err = fontFaceCSS(); err != nil {
			return err
		}
	}
	tmpl, err := template.New("report").Parse(pageTemplate)
	if err != nil {
		return fmt.Errorf("report: parse template: %w", err)
	}
	pg := newPage(r, figs, fontCSS)
	if hasSinks(r) {
		pg.Sinks = &sinks{Heads: sinkHeads, Rows: sinkRows(r.Connect), Figures: sinkFigs, MetricHeads: metricHeads, MetricRows: metricRows(r.Connect)}
	}
	// Render to memory first so that a failure leaves w untouched.
	var buf bytes.Buffer
	if err := tmpl.Execute(&buf, pg); err != nil {
		return fmt.Errorf("report: execute template: %w", err)
	}
	if _, err := buf.WriteTo(w); err != nil {
		return fmt.Errorf("report: write: %w", err)
	}
	return nil
}

// page is what the template shows.
type page struct {
	Title     string
	Scenario  string
	Seed      uint64
	Protocol  string
	TraceHash string
	Replay    string
	Stopped   bool
	// StoppedBy says what stopped the run early: "--stop-at" or "Ctrl-C".
	StoppedBy string

	// Checks says how many invariants ran and names those that did not;
	// Warnings are what the run did less of than asked (sim.Result).
	Checks    string
	ChecksOff []row
	// CheckRows is every invariant and whether it ran, for the tables.
	CheckRows []row
	Warnings  []string

	Summary   []row
	Violation *violation

	GroupsCreated []row
	GroupsFinal   []row
	// DataLoss lists each accepted v1 loss: group, time, stored epoch.
	DataLoss  []row
	Marks     []row
	MarksZero int

	Figures []figure
	FontCSS template.CSS

	// Sinks is the Connect section, nil for a run without a Connect workload.
	Sinks *sinks
	// KIP848 compares a rolling upgrade with its all-KIP-848 baseline, nil
	// when the run was not compared.
	KIP848 *kip848
}

// sinks is the Connect section: the connectors' table and their plots.
type sinks struct {
	Heads   []string
	Rows    []sinkRow
	Figures []figure
	// MetricHeads and MetricRows are Connect's sink-task metrics.
	MetricHeads []string
	MetricRows  []sinkRow
}

// row is one line of a two-column table; Class styles it ("bad", "warn",
// "good", "zero").
type row struct {
	Name, Value, Class string
}

// violation is sim.Violation as the page shows it.
type violation struct {
	Invariant string
	Step      string
	At        string
	Detail    string
	Replay    string
	Trace     string
	TraceLen  int
}

func newPage(r *sim.Result, figs []figure, fontCSS template.CSS) page {
	scenario := r.Scenario
	if scenario == "" {
		scenario = "(unnamed)"
	}
	protocol := r.Protocol
	if protocol == "" {
		protocol = "(unknown)"
	}
	pg := page{
		Title:     fmt.Sprintf("coordsim report: %s, seed %d, protocol %s", scenario, r.Seed, protocol),
		Scenario:  scenario,
		Seed:      r.Seed,
		Protocol:  protocol,
		TraceHash: r.TraceHash,
		Replay:    replayCommand(r, 0),
		Stopped:   r.Stopped,
		StoppedBy: stoppedBy(r),
		Figures:   figs,
		FontCSS:   fontCSS,
		KIP848:    kip848Section(r.KIP848),
	}
	pg.Summary = summaryRows(r)
	pg.Warnings = slices.Clone(r.Warnings)
	for _, sk := range r.Skipped {
		line := fmt.Sprintf("skipped %s: no violation", sk.Invariant)
		if sk.First != nil {
			line = fmt.Sprintf("skipped %s: %d violations went unstopped, the first at step %d: %s", sk.Invariant, sk.Violations, sk.First.Step, sk.First.Detail)
		}
		pg.Warnings = append(pg.Warnings, line)
	}
	if len(r.Checks) > 0 {
		pg.Checks = fmt.Sprintf("%d of %d invariants checked", r.ChecksRan(), len(r.Checks))
		for _, c := range r.Checks {
			rw := row{Name: c.Name, Value: "yes"}
			if c.Why != "" {
				rw.Value = "yes, " + c.Why
			}
			if !c.Ran {
				pg.ChecksOff = append(pg.ChecksOff, row{Name: c.Name, Value: c.Why, Class: "zero"})
				rw = row{Name: c.Name, Value: "no: " + c.Why, Class: "warn"}
			}
			pg.CheckRows = append(pg.CheckRows, rw)
		}
	}
	if v := r.Violation; v != nil {
		pg.Violation = &violation{
			Invariant: v.Invariant,
			Step:      fmtInt(v.Step),
			At:        fmtAtMs(v.AtMs),
			Detail:    v.Detail,
			Replay:    replayCommand(r, v.Step),
			Trace:     strings.Join(v.Trace, "\n"),
			TraceLen:  len(v.Trace),
		}
	}
	pg.GroupsCreated = countRows(r.GroupsCreated)
	pg.GroupsFinal = countRows(r.GroupsFinal)
	for i := range pg.GroupsFinal {
		pg.GroupsFinal[i].Name = groupLabel(pg.GroupsFinal[i].Name)
	}
	for _, l := range r.DataLoss {
		pg.DataLoss = append(pg.DataLoss, row{Name: l.Group, Value: fmt.Sprintf("%s (stored epoch %d)", fmtAtMs(l.AtMs), l.StoredEpoch), Class: "warn"})
	}
	for _, k := range slices.Sorted(maps.Keys(r.Marks)) {
		n := r.Marks[k]
		rw := row{Name: k, Value: fmtInt(n)}
		if n == 0 {
			rw.Class = "zero"
			rw.Value = "0 (never reached)"
			pg.MarksZero++
		}
		pg.Marks = append(pg.Marks, rw)
	}
	return pg
}

// summaryRows are the summary table, in the order of the CLI's summary.
func summaryRows(r *sim.Result) []row {
	// Wall-clock figures (wall time, speed) stay in the CLI's summary: the
	// report holds only what the run determines, so the same run gives the
	// same file.
	rows := []row{
		{Name: "Events", Value: fmtInt(r.Events)},
		{Name: "Virtual time", Value: fmtVirtual(r.VirtualTime)},
		{Name: "Cleanup cycles", Value: fmtInt(r.Cycles)},
		{Name: "Eligible groups (all cycles)", Value: fmtInt(r.Eligible)},
		{Name: "Deletes ok / failed", Value: fmtInt(r.DeletesOK) + " / " + fmtInt(r.DeletesFailed)},
		{Name: "Dropped ticks (cycle in flight)", Value: fmtInt(r.TicksDropped)},
		{Name: "Offset commits", Value: fmtInt(r.OffsetCommits)},
		{Name: "Offsets expired", Value: fmtInt(r.OffsetExpired)},
		{Name: "Shard moves", Value: fmtInt(r.ShardMoves)},
		{Name: "Accepted plugin-side data loss (v1 race)", Value: fmtInt(r.AcceptedDataLoss), Class: warnIf(r.AcceptedDataLoss > 0)},
		{Name: "Leaked rows", Value: fmtInt(r.LeakedRows), Class: warnIf(r.LeakedRows > 0)},
	}
	if r.DeletesFailed > 0 {
		rows[4].Class = "warn"
	}
	inv := row{Name: "Invariants", Value: "held", Class: "good"}
	if v := r.Violation; v != nil {
		inv = row{Name: "Invariants", Value: fmt.Sprintf("VIOLATED: %s at step %s", v.Invariant, fmtInt(v.Step)), Class: "bad"}
	}
	rows = append(rows, inv)
	if r.Stopped {
		rows = append(rows, row{Name: "Stopped", Value: "yes: the run stopped at " + stoppedBy(r) + ", the figures cover a partial run", Class: "warn"})
	}
	if len(r.Connect) > 0 {
		rows = append(rows, row{Name: "Records produced (Connect)", Value: fmtInt(r.Produced)})
	}
	if r.TraceHash != "" {
		rows = append(rows, row{Name: "Trace hash (FNV-64a)", Value: r.TraceHash})
	}
	return rows
}

// stoppedBy says what stopped a run early.
func stoppedBy(r *sim.Result) string {
	if r.Interrupted {
		return "Ctrl-C"
	}
	return "--stop-at"
}

func warnIf(b bool) string {
	if b {
		return "warn"
	}
	return ""
}

// countRows lists a map of counts as rows sorted by key.
func countRows(m map[string]int) []row {
	rows := make([]row, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		rows = append(rows, row{Name: k, Value: fmtInt(int64(m[k]))})
	}
	return rows
}

// fontFaceCSS embeds the font of the plots' text once for the whole page,
// under the family name vgsvg writes in the SVG, so that the browser lays
// the labels out with the metrics gonum/plot measured them with.
func fontFaceCSS() (template.CSS, error) {
	face := font.DefaultCache.Lookup(sansFont, 10)
	if face.Face == nil {
		return "", errors.New("report: gonum/plot has no Liberation Sans font")
	}
	var sbuf sfnt.Buffer
	family, err := face.Face.Name(&sbuf, sfnt.NameIDFamily)
	if err != nil {
		return "", fmt.Errorf("report: font family name: %w", err)
	}
	if strings.ContainsAny(family, `"\<>;{}`) {
		return "", fmt.Errorf("report: unexpected font family name %q", family)
	}
	var raw bytes.Buffer
	if _, err := face.Face.WriteSourceTo(&sbuf, &raw); err != nil {
		return "", fmt.Errorf("report: read font: %w", err)
	}
	css := fmt.Sprintf(`@font-face{font-family:"%s";font-style:normal;font-weight:normal;src:url(data:font/ttf;base64,%s) format("truetype");}`,
		family, base64.StdEncoding.EncodeToString(raw.Bytes()))
	return template.CSS(css), nil
}

// pageTemplate is the whole page; styles are inline, nothing is fetched.
const pageTemplate = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
{{.FontCSS}}
body{margin:0;background:#f6f7f9;color:#1d232b;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Liberation Sans",Arial,sans-serif}
main{max-width:1000px;margin:0 auto;padding:24px 28px 48px}
h1{font-size:26px;margin:0 0 4px}
h2{font-size:19px;margin:32px 0 10px;padding-bottom:4px;border-bottom:1px solid #d5d9df}
h3{font-size:16px;margin:18px 0 8px}
.meta{color:#4a5563;margin:0 0 12px}
.meta b{color:#1d232b}
pre,code{font:13px/1.4 ui-monospace,"SFMono-Regular",Menlo,Consolas,"Liberation Mono",monospace}
pre{background:#fff;border:1px solid #d5d9df;border-radius:6px;padding:10px 12px;overflow-x:auto;margin:6px 0}
pre.cmd{background:#1d232b;color:#e8edf2;border-color:#1d232b}
table{border-collapse:collapse;background:#fff;border:1px solid #d5d9df;margin:6px 0}
th,td{text-align:left;padding:5px 12px;border-bottom:1px solid #e6e9ee;vertical-align:top}
th{background:#eef1f5;font-weight:600}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
table.summary{max-width:100%}
table.summary td:first-child{color:#4a5563;white-space:nowrap}
table.summary tr.bad td.num{text-align:left;white-space:normal}
tr.good td.num,tr.good td:last-child{color:#1e7a34;font-weight:600}
tr.bad td{background:#fde8e8;color:#9b1c1c;font-weight:600}
tr.warn td{background:#fff6dd}
tr.zero td{background:#fde8e8;color:#9b1c1c}
.tables{display:flex;flex-wrap:wrap;gap:24px;align-items:flex-start}
.banner{border-radius:6px;padding:10px 14px;margin:14px 0;font-weight:600}
.banner.bad{background:#fde8e8;border:1px solid #f3b4b4;color:#9b1c1c}
.banner.good{background:#e5f5e9;border:1px solid #a9dcb5;color:#1e7a34}
.banner.warn{background:#fff6dd;border:1px solid #f0d890;color:#7a5a00}
figure{margin:8px 0 24px;background:#fff;border:1px solid #d5d9df;border-radius:6px;padding:10px}
figcaption{color:#4a5563;font-size:14px;margin:0 4px 6px}
svg.plot{display:block;width:100%;height:auto}
.note{color:#4a5563;font-style:italic;padding:18px 8px;text-align:center;background:#fafbfc;border:1px dashed #c8ced6;border-radius:4px}
.muted{color:#6b7683}
nav.toc{background:#fff;border:1px solid #d5d9df;border-radius:6px;padding:8px 16px;margin:14px 0;font-size:14px}
nav.toc ol{margin:4px 0;padding-left:22px}
nav.toc ol ol{padding-left:0;font-size:13px}
nav.toc ol ol li{display:inline;margin-right:16px}
{{if .Sinks}}.wide{overflow-x:auto}
table.sinks{font-size:13px}
table.sinks th,table.sinks td{padding:4px 6px}
table.sinks th{vertical-align:bottom;hyphens:manual}
table.sinks td.name{white-space:nowrap}
table.sinks td .muted{font-size:12px;white-space:normal}
table.sinks td.bad{background:#fde8e8;color:#9b1c1c;font-weight:600}
table.sinks td.warn{background:#fff6dd}
{{end}}</style>
</head>
<body>
<main>
<h1>coordsim report: {{.Scenario}}</h1>
<p class="meta">scenario <b>{{.Scenario}}</b> · seed <b>{{.Seed}}</b> · protocol <b>{{.Protocol}}</b>{{if .TraceHash}} · trace hash <code>{{.TraceHash}}</code>{{end}}</p>
{{if .Checks}}<p class="meta">{{.Checks}}{{if .ChecksOff}}; not checked: {{range $i, $c := .ChecksOff}}{{if $i}}, {{end}}<code>{{$c.Name}}</code> ({{$c.Value}}){{end}}{{end}}.</p>
{{end}}{{range .Warnings}}<div class="banner warn">WARNING: {{.}}</div>
{{end}}{{if .Violation}}<div class="banner bad">Invariant violated: {{.Violation.Invariant}} at step {{.Violation.Step}}. <a href="#violation">Details and trace below.</a></div>
{{else if .Checks}}<div class="banner good">Every invariant checked held.</div>
{{else}}<div class="banner good">All invariants held.</div>
{{end}}{{if .Stopped}}<div class="banner warn">The run stopped early ({{.StoppedBy}}): the figures cover a partial run.</div>
{{end}}<p class="meta">Replay this run:</p>
<pre class="cmd"><code>{{.Replay}}</code></pre>
<nav class="toc" aria-label="Contents"><b>Contents</b>
<ol>
<li><a href="#summary">Summary</a></li>
{{if .KIP848}}<li><a href="#kip848">Rolling upgrade against all KIP-848</a></li>
{{end}}{{if .Violation}}<li><a href="#violation">Invariant violation</a></li>
{{end}}<li><a href="#plots">Over virtual time</a><ol>
{{range .Figures}}<li><a href="#{{.ID}}">{{.Title}}</a></li>
{{end}}</ol></li>
{{if .Sinks}}<li><a href="#sinks">Sinks</a></li>
{{end}}{{if .DataLoss}}<li><a href="#data-loss">Accepted plugin-side data loss</a></li>
{{end}}<li><a href="#tables">Tables</a><ol>
<li><a href="#groups">Groups created and alive</a></li>
{{if .CheckRows}}<li><a href="#checks">Invariants checked</a></li>
{{end}}<li><a href="#marks">Coverage marks</a></li>
</ol></li>
</ol>
</nav>

<h2 id="summary">Summary</h2>
<table class="summary">
<tbody>
{{range .Summary}}<tr{{if .Class}} class="{{.Class}}"{{end}}><td>{{.Name}}</td><td class="num">{{.Value}}</td></tr>
{{end}}</tbody>
</table>
{{with .KIP848}}
<h2 id="kip848">Rolling upgrade against all KIP-848</h2>
<p class="meta">The same seed, faults and applications, run twice. Each scope measures both runs in the rolling run's windows (a window runs from a roll's first restart to a minute after its last), group by group; the whole run counts every application's life. Records are produced at {{.RecordsPerSecond}}/s per partition; a pause is partition-time with no member consuming.</p>
<table class="summary"><tbody>
{{range .Runs}}<tr{{if .Class}} class="{{.Class}}"{{end}}><td>{{.Name}}</td><td>{{.Value}}</td></tr>
{{end}}</tbody></table>
<table><thead><tr><th>scope</th><th>measure</th><th>{{.RollingName}}</th><th>{{.BaselineName}}</th><th>ratio</th></tr></thead><tbody>
{{range .Rows}}<tr>{{if .First}}<td rowspan="{{.ScopeRows}}">{{.Scope}}</td>{{end}}<td>{{.Measure}}</td><td class="num">{{.Rolling}}</td><td class="num">{{.Baseline}}</td><td class="num">{{.Ratio}}</td></tr>
{{end}}</tbody></table>
{{end}}{{with .Violation}}
<h2 id="violation">Invariant violation</h2>
<table class="summary"><tbody>
<tr class="bad"><td>Invariant</td><td>{{.Invariant}}</td></tr>
<tr><td>Step</td><td class="num">{{.Step}}</td></tr>
<tr><td>Virtual time</td><td class="num">{{.At}}</td></tr>
<tr><td>Detail</td><td>{{.Detail}}</td></tr>
</tbody></table>
<p class="meta">The plots mark its moment with a dashed line.</p>
<p class="meta">Stop the replay right after the failing step:</p>
<pre class="cmd"><code>{{.Replay}}</code></pre>
<h3>Trace: the last {{.TraceLen}} events</h3>
{{if .Trace}}<pre class="trace">{{.Trace}}</pre>{{else}}<p class="muted">No trace recorded.</p>{{end}}
{{end}}
<h2 id="plots">Over virtual time</h2>
{{range .Figures}}<figure id="{{.ID}}">
<h3>{{.Title}}</h3>
<figcaption>{{.Caption}}</figcaption>
{{if .Note}}<p class="note">{{.Note}}</p>{{else}}{{.SVG}}{{end}}
</figure>
{{end}}{{with .Sinks}}
<h2 id="sinks">Sinks</h2>
<p class="meta">Each Kafka Connect sink connector (its group id under its name) and its outcome: records produced to its topics, put by its tasks (all puts, distinct records, the difference), delivered again, archived by the broker, dead-lettered, lost (any is a violation for a share sink) and left unprocessed at the end.</p>
{{if .Rows}}<div class="wide"><table class="sinks"><thead><tr><th>connector</th>{{range .Heads}}<th>{{.}}</th>{{end}}</tr></thead><tbody>
{{range .Rows}}<tr><td class="name"><b>{{.Name}}</b> ({{.Kind}})<br><span class="muted">{{.Group}}</span></td>{{if .Refused}}<td class="bad" colspan="{{len $.Sinks.Heads}}">REFUSED: {{.Refused}}</td>{{else}}{{range .Cells}}<td class="num{{if .Class}} {{.Class}}{{end}}">{{.Value}}{{if .Sub}}<br><span class="muted">{{.Sub}}</span>{{end}}</td>{{end}}{{end}}</tr>
{{end}}</tbody></table></div>{{else}}<p class="muted">No connector result recorded.</p>{{end}}
{{range .Figures}}<figure id="{{.ID}}">
<h3>{{.Title}}</h3>
<figcaption>{{.Caption}}</figcaption>
{{if .Note}}<p class="note">{{.Note}}</p>{{else}}{{.SVG}}{{end}}
</figure>
{{end}}{{if .MetricRows}}<h3 id="sink-task-metrics">Sink task metrics</h3>
<p class="meta">Connect's sink-task metrics per connector over all its tasks (rates averaged over the connector's run, drain included), and for share sinks the acknowledgements the broker applied, by type.</p>
<div class="wide"><table class="sinks"><thead><tr><th>connector</th>{{range .MetricHeads}}<th>{{.}}</th>{{end}}</tr></thead><tbody>
{{range .MetricRows}}<tr><td class="name"><b>{{.Name}}</b> ({{.Kind}})</td>{{range .Cells}}<td class="num{{if .Class}} {{.Class}}{{end}}">{{.Value}}{{if .Sub}}<br><span class="muted">{{.Sub}}</span>{{end}}</td>{{end}}</tr>
{{end}}</tbody></table></div>{{end}}
{{end}}{{if .DataLoss}}
<h2 id="data-loss">Accepted plugin-side data loss (protocol v1)</h2>
<p class="meta">Each group whose metadata claimed a stored description the store no longer had (the race v2 closes), when it was found; the plots mark each moment.</p>
<table><thead><tr><th>group</th><th>virtual time</th></tr></thead><tbody>
{{range .DataLoss}}<tr class="{{.Class}}"><td><code>{{.Name}}</code></td><td class="num">{{.Value}}</td></tr>
{{end}}</tbody></table>
{{end}}
<h2 id="tables">Tables</h2>
<div class="tables" id="groups">
<div>
<h3>Groups created, by type</h3>
{{if .GroupsCreated}}<table><thead><tr><th>type</th><th>groups</th></tr></thead><tbody>
{{range .GroupsCreated}}<tr><td>{{.Name}}</td><td class="num">{{.Value}}</td></tr>
{{end}}</tbody></table>{{else}}<p class="muted">None recorded.</p>{{end}}
</div>
<div>
<h3>Groups alive at the end, by type/state</h3>
{{if .GroupsFinal}}<table><thead><tr><th>type/STATE</th><th>groups</th></tr></thead><tbody>
{{range .GroupsFinal}}<tr><td>{{.Name}}</td><td class="num">{{.Value}}</td></tr>
{{end}}</tbody></table>{{else}}<p class="muted">None recorded.</p>{{end}}
</div>
{{if .CheckRows}}<div>
<h3 id="checks">Invariants checked</h3>
<table><thead><tr><th>invariant (docs/invariants.md)</th><th>checked</th></tr></thead><tbody>
{{range .CheckRows}}<tr{{if .Class}} class="{{.Class}}"{{end}}><td><code>{{.Name}}</code></td><td>{{.Value}}</td></tr>
{{end}}</tbody></table>
</div>{{end}}
</div>
<h3 id="marks">Coverage marks</h3>
{{if .Marks}}<p class="meta">How often each rare branch was reached.{{if .MarksZero}} <b>{{.MarksZero}}</b> listed branch(es) never reached are highlighted.{{end}}</p>
<table><thead><tr><th>branch</th><th>count</th></tr></thead><tbody>
{{range .Marks}}<tr{{if .Class}} class="{{.Class}}"{{end}}><td><code>{{.Name}}</code></td><td class="num">{{.Value}}</td></tr>
{{end}}</tbody></table>{{else}}<p class="note">No coverage marks were recorded.</p>{{end}}

<p class="muted">Generated by coordsim from the simulation's result alone: the same run gives the same file.</p>
</main>
</body>
</html>
`
