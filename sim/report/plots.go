package report

import (
	"bytes"
	"fmt"
	"html"
	"html/template"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/coordsim/coordsim/sim"
)

const (
	plotWidth  = 9 * vg.Inch
	plotHeight = 4 * vg.Inch
	// legendWidthMin is the width reserved on the right of every plot for
	// its legend, so that the data areas of all plots line up.
	legendWidthMin = 1.7 * vg.Inch
	legendGap      = 10 // points between the data area and the legend
	margin         = 6  // points around everything

	// maxLinePoints bounds the points of one line: longer series are
	// decimated to the minimum and maximum of each bucket, which keeps
	// spikes visible and the SVG small.
	maxLinePoints = 2000
	// maxCyclePoints bounds the cleanup cycles drawn one by one; beyond it
	// cycles are summed over time buckets, at most maxCycleBuckets of
	// them: two days of cycles every ten minutes on three brokers (864
	// points, most at 0) drawn one by one were an unreadable smear.
	maxCyclePoints  = 120
	maxCycleBuckets = 60
	// maxSeries bounds the lines of one plot (the legend must stay readable).
	maxSeries = 40

	msPerHour = float64(3_600_000)
)

// sansFont is the typeface of every plot text; the page embeds it once.
var sansFont = font.Font{Typeface: "Liberation", Variant: "Sans"}

// palette is Tableau 10: distinct, colour-blind tolerant, readable on white.
var palette = []color.RGBA{
	{0x4e, 0x79, 0xa7, 0xff}, // blue
	{0xf2, 0x8e, 0x2b, 0xff}, // orange
	{0xe1, 0x57, 0x59, 0xff}, // red
	{0x76, 0xb7, 0xb2, 0xff}, // teal
	{0x59, 0xa1, 0x4f, 0xff}, // green
	{0xed, 0xc9, 0x48, 0xff}, // yellow
	{0xb0, 0x7a, 0xa1, 0xff}, // purple
	{0xff, 0x9d, 0xa7, 0xff}, // pink
	{0x9c, 0x75, 0x5f, 0xff}, // brown
	{0xba, 0xb0, 0xac, 0xff}, // grey
}

// dashes cycle once the palette is used up.
var dashes = [][]vg.Length{
	nil,
	{vg.Points(6), vg.Points(3)},
	{vg.Points(2), vg.Points(2)},
	{vg.Points(8), vg.Points(3), vg.Points(2), vg.Points(3)},
}

// figure is one plot (or the note that replaces it) as the page shows it.
type figure struct {
	ID      string
	Title   string
	Caption string
	SVG     template.HTML
	Note    string
	// legendMin widens the legend column beyond legendWidthMin, so that
	// figures meant to be read together have data areas of one width.
	legendMin vg.Length
	// markers are moments drawn as vertical lines across the plot (the
	// violation, each accepted data loss), in the plot's x unit.
	markers []marker
}

// marker is a moment to mark on a time axis.
type marker struct {
	name  string
	atMs  int64
	color color.Color
}

// runMarkers are the moments every time plot of r marks.
func runMarkers(r *sim.Result) []marker {
	var ms []marker
	for _, l := range r.DataLoss {
		ms = append(ms, marker{name: "accepted data loss (v1)", atMs: l.AtMs, color: palette[1]})
	}
	if v := r.Violation; v != nil {
		ms = append(ms, marker{name: "violation: " + v.Invariant, atMs: v.AtMs, color: palette[2]})
	}
	return ms
}

// namedXYs is one line of a plot.
type namedXYs struct {
	name  string
	xys   plotter.XYs
	color color.Color // nil: from the palette by position
	// style, when set, is the whole line style (color is then ignored).
	style *draw.LineStyle
}

// buildFigures draws the five plots of the report, in page order.
func buildFigures(r *sim.Result) ([]figure, error) {
	s := r.Series
	xMax := xMaxHours(r)
	var figs []figure
	marks := runMarkers(r)

	// (1) Groups by type and state.
	f := figure{ID: "plot-groups", Title: "Groups by type and state",
		Caption: "Number of groups in each type/STATE at every sample (simple groups are Kafka's member-less classic groups).", markers: marks}
	groups := func(x sim.Sample) map[string]int { return x.Groups }
	if err := f.drawCounts(s.Samples, sampleKeys(s.Samples, groups), groups, func(k string) namedXYs { return namedXYs{name: groupLabel(k)} },
		"The samples hold no group counts.", xMax, "groups"); err != nil {
		return nil, err
	}
	figs = append(figs, f)

	// (2) Eligible groups and deletes per cleanup cycle: KIP-1331's plots
	// are left out of a run that has nothing to show in them (no plugin, no
	// streams groups).
	f, err := cycleFigure(s.Cycles, xMax, marks)
	if err != nil {
		return nil, err
	}
	if len(s.Cycles) > 0 {
		figs = append(figs, f)
	}

	// (3) Stored-epoch classes.
	f = figure{ID: "plot-epochs", Title: "Stored description epochs of streams groups",
		Caption: `Streams groups by stored topology-description epoch: "none" (-1, nothing stored or cleared), "uncertain" (-2), "stored" (≥ 0).`, markers: marks}
	if err := f.drawCounts(s.Samples, epochKeys(s.Samples), func(x sim.Sample) map[string]int { return x.StoredEpochs },
		func(k string) namedXYs { return namedXYs{name: k, color: epochColor(k)} },
		"The samples hold no stored-epoch counts (no streams groups).", xMax, "streams groups"); err != nil {
		return nil, err
	}
	if len(epochKeys(s.Samples)) > 0 {
		figs = append(figs, f)
	}

	// (4) Committed offsets and (5) plugin rows: one line each.
	for _, one := range []struct {
		id, title, caption, name, yLabel string
		clr                              color.Color
		value                            func(sim.Sample) int
	}{
		{"plot-offsets", "Committed offsets", "Committed offsets held by the coordinators, all groups.",
			"committed offsets", "offsets", palette[0], func(x sim.Sample) int { return x.Offsets }},
		{"plot-rows", "Plugin rows", "Rows in the topology store (the KIP-1331 plugin).",
			"rows in store", "rows", palette[6], func(x sim.Sample) int { return x.PluginRows }},
	} {
		f = figure{ID: one.id, Title: one.title, Caption: one.caption, markers: marks}
		if one.id == "plot-rows" && !slices.ContainsFunc(s.Samples, func(x sim.Sample) bool { return x.PluginRows > 0 }) && len(s.Cycles) == 0 {
			continue // no plugin: nothing to plot
		}
		if len(s.Samples) == 0 {
			f.Note = noSamples
		} else if err := f.draw([]namedXYs{{name: one.name, color: one.clr, xys: sampleXYs(s.Samples, one.value)}},
			nil, hoursAxis(xMax), one.yLabel); err != nil {
			return nil, err
		}
		figs = append(figs, f)
	}
	return figs, nil
}

// cycleFigure plots each cleanup cycle's eligible groups and deletes, or their
// sums over time buckets when there are too many cycles to draw one by one.
func cycleFigure(cycles []sim.CycleRecord, xMax float64, marks []marker) (figure, error) {
	f := figure{ID: "plot-cycles", Title: "Cleanup cycles: eligible groups and deletes",
		Caption: "One point per cleanup cycle (all brokers): groups found eligible by the scan, deletes that succeeded and deletes that failed.", markers: marks}
	if len(cycles) == 0 {
		f.Note = "No cleanup cycle ran (Series.Cycles is empty)."
		return f, nil
	}
	var elig, ok, failed plotter.XYs
	yLabel := "groups per cycle"
	if len(cycles) <= maxCyclePoints {
		for _, c := range cycles {
			x := float64(c.AtMs) / msPerHour
			elig = append(elig, plotter.XY{X: x, Y: float64(c.Eligible)})
			ok = append(ok, plotter.XY{X: x, Y: float64(c.DeletesOK)})
			failed = append(failed, plotter.XY{X: x, Y: float64(c.DeletesFailed)})
		}
	} else {
		bucketMs := cycleBucketMs(cycles)
		type sums struct{ elig, ok, failed int }
		byBucket := map[int64]*sums{}
		var order []int64
		for _, c := range cycles {
			b := c.AtMs / bucketMs
			if byBucket[b] == nil {
				byBucket[b] = &sums{}
				order = append(order, b)
			}
			byBucket[b].elig += c.Eligible
			byBucket[b].ok += c.DeletesOK
			byBucket[b].failed += c.DeletesFailed
		}
		slices.Sort(order)
		for _, b := range order {
			x := (float64(b)*float64(bucketMs) + float64(bucketMs)/2) / msPerHour
			elig = append(elig, plotter.XY{X: x, Y: float64(byBucket[b].elig)})
			ok = append(ok, plotter.XY{X: x, Y: float64(byBucket[b].ok)})
			failed = append(failed, plotter.XY{X: x, Y: float64(byBucket[b].failed)})
		}
		span := fmtVirtual(msDuration(bucketMs))
		yLabel = "groups per " + span
		f.Caption = fmt.Sprintf("%s cleanup cycles are too many to draw one by one: each point sums the cycles (all brokers) of one %s bucket.",
			fmtInt(int64(len(cycles))), span)
	}
	// Most cycles delete every eligible group and fail none: a ring with a
	// dot in it. Failed deletes are drawn only where there are some, on top.
	var failedSome plotter.XYs
	for _, xy := range failed {
		if xy.Y > 0 {
			failedSome = append(failedSome, xy)
		}
	}
	f.Caption += " Failed deletes are marked only where a cycle (or bucket) had some."
	failedPoints := namedPoints{"deletes failed (> 0)", failedSome, draw.GlyphStyle{Color: palette[2], Radius: vg.Points(3.5), Shape: draw.CrossGlyph{}}}
	if len(cycles) > maxCyclePoints {
		// Sums per bucket read as two lines over time; the crosses stay.
		lines := []namedXYs{{name: "eligible", xys: elig, color: palette[0]}, {name: "deletes ok", xys: ok, color: palette[4]}}
		return f, f.draw(lines, []namedPoints{failedPoints}, hoursAxis(xMax), yLabel)
	}
	points := []namedPoints{
		{"eligible", elig, draw.GlyphStyle{Color: palette[0], Radius: vg.Points(3.5), Shape: draw.RingGlyph{}}},
		{"deletes ok", ok, draw.GlyphStyle{Color: palette[4], Radius: vg.Points(1.6), Shape: draw.CircleGlyph{}}},
		failedPoints,
	}
	return f, f.draw(nil, points, hoursAxis(xMax), yLabel)
}

// namedPoints is one scatter series of a plot.
type namedPoints struct {
	name  string
	xys   plotter.XYs
	glyph draw.GlyphStyle
}

// timeAxis is the x axis of a plot: virtual time from 0 to max, in a unit
// that the axis label names and its ticks count.
type timeAxis struct {
	max   float64
	label string
	ticks plot.Ticker
}

// msPerUnit is how many virtual milliseconds one unit of the axis is.
func (x timeAxis) msPerUnit() float64 {
	if x.label == minutesAxis(0).label {
		return 60_000
	}
	return msPerHour
}

// hoursAxis is the x axis of the cluster plots: virtual hours up to xMax.
func hoursAxis(xMax float64) timeAxis {
	return timeAxis{max: xMax, label: "virtual time (hours)", ticks: hourTicks{}}
}

// minutesAxis is virtual minutes up to xMax, for short spans.
func minutesAxis(xMax float64) timeAxis {
	return timeAxis{max: xMax, label: "virtual time (minutes)", ticks: minuteTicks{}}
}

// draw renders lines and points into f.SVG: x in virtual time from 0 to
// x.max, y (labelled yLabel) from 0, and a legend.
// noSamples is the note of a figure of samples when there are none.
const noSamples = "No samples were recorded (Series.Samples is empty)."

// drawCounts draws f with a line per key of keys, the count counts gives it
// in each sample, over virtual hours; line names and colours a key's line.
// Without samples, or without keys, f is left undrawn with a note saying
// which (noKeys for the latter).
func (f *figure) drawCounts(samples []sim.Sample, keys []string, counts func(sim.Sample) map[string]int, line func(key string) namedXYs, noKeys string, xMax float64, yLabel string) error {
	switch {
	case len(samples) == 0:
		f.Note = noSamples
	case len(keys) == 0:
		f.Note = noKeys
	default:
		lines := make([]namedXYs, 0, len(keys))
		for _, k := range keys {
			l := line(k)
			l.xys = sampleXYs(samples, func(x sim.Sample) int { return counts(x)[k] })
			lines = append(lines, l)
		}
		return f.draw(lines, nil, hoursAxis(xMax), yLabel)
	}
	return nil
}

func (f *figure) draw(lines []namedXYs, points []namedPoints, x timeAxis, yLabel string) error {
	if len(lines) > maxSeries {
		f.Caption += fmt.Sprintf(" Only the first %d of %d series are drawn.", maxSeries, len(lines))
		lines = lines[:maxSeries]
	}
	p := plot.New()
	styleAxes(p)
	p.X.Label.Text = x.label
	p.Y.Label.Text = yLabel
	p.X.Tick.Marker = x.ticks
	p.Y.Tick.Marker = countTicks{}
	grid := plotter.NewGrid()
	grid.Vertical.Color = color.Gray{Y: 0xdd}
	grid.Horizontal.Color = color.Gray{Y: 0xdd}
	grid.Vertical.Width = vg.Points(0.5)
	grid.Horizontal.Width = vg.Points(0.5)
	p.Add(grid)

	var entries []legendEntry

	yMax := 0.0
	for i, l := range lines {
		xys := decimate(l.xys, maxLinePoints)
		line, err := plotter.NewLine(xys)
		if err != nil {
			return fmt.Errorf("report: line %q: %w", l.name, err)
		}
		clr := l.color
		if clr == nil {
			clr = palette[i%len(palette)]
		}
		line.LineStyle = draw.LineStyle{Color: clr, Width: vg.Points(1.5), Dashes: dashes[(i/len(palette))%len(dashes)]}
		if l.style != nil {
			line.LineStyle = *l.style
			clr = l.style.Color
		}
		p.Add(line)
		thumbs := []plot.Thumbnailer{line}
		if len(xys) < 2 { // a single point draws no line: mark it
			sc, err := plotter.NewScatter(xys)
			if err != nil {
				return fmt.Errorf("report: line %q: %w", l.name, err)
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: clr, Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}
			p.Add(sc)
		}
		entries = append(entries, legendEntry{l.name, thumbs})
		for _, xy := range xys {
			yMax = math.Max(yMax, xy.Y)
		}
	}
	for _, ps := range points {
		sc, err := plotter.NewScatter(ps.xys)
		if err != nil {
			return fmt.Errorf("report: points %q: %w", ps.name, err)
		}
		sc.GlyphStyle = ps.glyph
		p.Add(sc)
		entries = append(entries, legendEntry{ps.name, []plot.Thumbnailer{sc}})
		for _, xy := range ps.xys {
			yMax = math.Max(yMax, xy.Y)
		}
	}
	// Counts start at zero; time starts at zero and ends with the run, so
	// that all plots share one x range.
	p.X.Min, p.X.Max = 0, x.max
	p.Y.Min, p.Y.Max = 0, math.Max(yMax*1.05, 1)
	// Marked moments: one vertical line each, one legend entry per name.
	named := map[string]bool{}
	for _, m := range f.markers {
		at := float64(m.atMs) / x.msPerUnit()
		line, err := plotter.NewLine(plotter.XYs{{X: at, Y: 0}, {X: at, Y: p.Y.Max}})
		if err != nil {
			return fmt.Errorf("report: marker %q: %w", m.name, err)
		}
		line.LineStyle = draw.LineStyle{Color: m.color, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(3), vg.Points(2)}}
		p.Add(line)
		if !named[m.name] {
			named[m.name] = true
			entries = append(entries, legendEntry{m.name, []plot.Thumbnailer{line}})
		}
	}

	svg, err := render(p, entries, f.Title, f.legendMin)
	if err != nil {
		return err
	}
	f.SVG = svg
	return nil
}

// styleAxes sets every text of p in the embedded sans font.
func styleAxes(p *plot.Plot) {
	p.Title.TextStyle.Font = font.From(sansFont, 12)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(sansFont, 11)
		a.Tick.Label.Font = font.From(sansFont, 10)
		a.Tick.Length = vg.Points(5)
		a.Padding = vg.Points(2)
	}
	p.Y.Label.Padding = vg.Points(4)
}

// render draws p with its legend and returns the SVG ready to inline in
// HTML. The legend sits in a column on the right when it fits there; a
// longer one goes under the plot in as many columns as the width allows,
// and the figure grows taller instead of the data area narrower.
func render(p *plot.Plot, entries []legendEntry, label string, legendMin vg.Length) (template.HTML, error) {
	leg := newLegend()
	rowHeight := leg.TextStyle.Rectangle("Xg").Size().Y + leg.Padding
	entryWidth := vg.Length(0)
	for _, e := range entries {
		entryWidth = max(entryWidth, legendEntryWidth(leg, e.name))
	}
	inner := func(l vg.Length) vg.Length { return l - 2*margin }
	perColumn := max(1, int(inner(plotHeight)/rowHeight))

	if len(entries) <= perColumn {
		canvas := vgsvg.New(plotWidth, plotHeight)
		dc := draw.Crop(draw.New(canvas), margin, -margin, margin, -margin)
		legendWidth := max(entryWidth, legendWidthMin, legendMin)
		p.Draw(draw.Crop(dc, 0, -(legendWidth + legendGap), 0, 0))
		if len(entries) > 0 {
			col := legendColumn(entries)
			col.Draw(draw.Crop(dc, dc.Size().X-legendWidth, 0, 0, 0))
		}
		return writeSVG(canvas, plotWidth, plotHeight, label)
	}

	columns := max(1, int((inner(plotWidth)+legendGap)/(entryWidth+legendGap)))
	rows := (len(entries) + columns - 1) / columns
	legendHeight := vg.Length(rows) * rowHeight
	height := plotHeight + legendHeight + legendGap
	canvas := vgsvg.New(plotWidth, height)
	dc := draw.Crop(draw.New(canvas), margin, -margin, margin, -margin)
	p.Draw(draw.Crop(dc, 0, 0, legendHeight+legendGap, 0))
	lc := draw.Crop(dc, 0, 0, 0, -(dc.Size().Y - legendHeight))
	for c := 0; c*rows < len(entries); c++ {
		col := legendColumn(entries[c*rows : min((c+1)*rows, len(entries))])
		col.Draw(draw.Crop(lc, vg.Length(c)*(entryWidth+legendGap), 0, 0, 0))
	}
	return writeSVG(canvas, plotWidth, height, label)
}

// writeSVG finishes the canvas and turns it into an inline SVG element.
func writeSVG(canvas *vgsvg.Canvas, w, h vg.Length, label string) (template.HTML, error) {
	var buf bytes.Buffer
	if _, err := canvas.WriteTo(&buf); err != nil {
		return "", fmt.Errorf("report: write svg: %w", err)
	}
	return inlineSVG(buf.Bytes(), w, h, label)
}

// legendEntry is one row of a legend. plot.Legend keeps its entries
// unexported, so draw collects them here and render lays them out.
type legendEntry struct {
	name   string
	thumbs []plot.Thumbnailer
}

// newLegend returns an empty legend in the report's style: entries from the
// top left, thumbnail then text.
func newLegend() plot.Legend {
	leg := plot.NewLegend()
	leg.TextStyle.Font = font.From(sansFont, 10)
	leg.Top, leg.Left = true, true
	leg.ThumbnailWidth = vg.Points(24)
	leg.Padding = vg.Points(3)
	return leg
}

// legendEntryWidth is the width of one legend entry: thumbnail and text.
func legendEntryWidth(leg plot.Legend, name string) vg.Length {
	return leg.ThumbnailWidth + leg.TextStyle.Rectangle(" "+name).Size().X
}

// legendColumn is a legend of the given entries, top to bottom.
func legendColumn(entries []legendEntry) plot.Legend {
	leg := newLegend()
	for _, e := range entries {
		leg.Add(e.name, e.thumbs...)
	}
	return leg
}

// inlineSVG turns a standalone SVG document from vgsvg into an element that
// can sit in HTML: it drops the XML declaration and generator comment, and
// replaces the root tag by one that scales with the page (viewBox only, the
// width set by CSS).
func inlineSVG(doc []byte, w, h vg.Length, label string) (template.HTML, error) {
	start := bytes.Index(doc, []byte("<svg"))
	if start < 0 {
		return "", fmt.Errorf("report: vgsvg output has no <svg> element")
	}
	end := bytes.IndexByte(doc[start:], '>')
	if end < 0 {
		return "", fmt.Errorf("report: vgsvg output has an unterminated <svg> tag")
	}
	body := doc[start+end+1:]
	var b strings.Builder
	b.WriteString(`<svg class="plot" viewBox="0 0 `)
	b.WriteString(strconv.FormatFloat(w.Points(), 'g', 5, 64))
	b.WriteByte(' ')
	b.WriteString(strconv.FormatFloat(h.Points(), 'g', 5, 64))
	b.WriteString(`" xmlns="http://www.w3.org/2000/svg"`)
	if bytes.Contains(body, []byte("xlink:")) {
		b.WriteString(` xmlns:xlink="http://www.w3.org/1999/xlink"`)
	}
	b.WriteString(` role="img" aria-label="`)
	b.WriteString(html.EscapeString(label))
	b.WriteString(`">`)
	b.Write(body)
	// vgsvg's output escapes its text with html.EscapeString; every string
	// it draws (series names, labels) passed through it.
	return template.HTML(b.String()), nil
}

// xMaxHours is the right end of every plot's x axis: the run's virtual time,
// or the last sample or cycle if later.
func xMaxHours(r *sim.Result) float64 {
	endMs := r.VirtualTime.Milliseconds()
	if n := len(r.Series.Samples); n > 0 {
		endMs = max(endMs, r.Series.Samples[n-1].AtMs)
	}
	if n := len(r.Series.Cycles); n > 0 {
		endMs = max(endMs, r.Series.Cycles[n-1].AtMs)
	}
	if endMs <= 0 {
		return 1
	}
	return float64(endMs) / msPerHour
}

// sampleKeys returns the keys present in any sample's map, sorted.
func sampleKeys(samples []sim.Sample, m func(sim.Sample) map[string]int) []string {
	seen := map[string]bool{}
	var keys []string
	for _, s := range samples {
		for k := range m(s) {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	slices.Sort(keys)
	return keys
}

// epochOrder is the order of the stored-epoch classes in the plot.
var epochOrder = []string{"stored", "uncertain", "none"}

// epochKeys returns the stored-epoch classes present, known ones first.
func epochKeys(samples []sim.Sample) []string {
	keys := sampleKeys(samples, func(x sim.Sample) map[string]int { return x.StoredEpochs })
	var out []string
	for _, k := range epochOrder {
		if slices.Contains(keys, k) {
			out = append(out, k)
		}
	}
	for _, k := range keys {
		if !slices.Contains(epochOrder, k) {
			out = append(out, k)
		}
	}
	return out
}

// epochColor gives each known class a fixed colour: stored blue, uncertain
// orange, none green.
func epochColor(class string) color.Color {
	switch class {
	case "stored":
		return palette[0]
	case "uncertain":
		return palette[1]
	case "none":
		return palette[4]
	}
	return nil
}

// sampleXYs maps samples to (hours, value).
func sampleXYs(samples []sim.Sample, value func(sim.Sample) int) plotter.XYs {
	xys := make(plotter.XYs, len(samples))
	for i, s := range samples {
		xys[i] = plotter.XY{X: float64(s.AtMs) / msPerHour, Y: float64(value(s))}
	}
	return xys
}

// decimate keeps at most about limit points of xys: the minimum and maximum of
// each of limit/2 consecutive buckets, in their original order.
func decimate(xys plotter.XYs, limit int) plotter.XYs {
	if len(xys) <= limit || limit < 4 {
		return xys
	}
	buckets := limit / 2
	size := (len(xys) + buckets - 1) / buckets
	out := make(plotter.XYs, 0, 2*buckets)
	for start := 0; start < len(xys); start += size {
		end := min(start+size, len(xys))
		lo, hi := start, start
		for i := start + 1; i < end; i++ {
			if xys[i].Y < xys[lo].Y {
				lo = i
			}
			if xys[i].Y > xys[hi].Y {
				hi = i
			}
		}
		first, second := min(lo, hi), max(lo, hi)
		out = append(out, xys[first])
		if second != first {
			out = append(out, xys[second])
		}
	}
	return out
}

// cycleBucketMs picks a round bucket width so that at most maxCycleBuckets
// buckets cover the cycles.
func cycleBucketMs(cycles []sim.CycleRecord) int64 {
	span := cycles[len(cycles)-1].AtMs - cycles[0].AtMs
	const minute = 60_000
	for _, w := range []int64{minute, 5 * minute, 10 * minute, 15 * minute, 30 * minute,
		60 * minute, 120 * minute, 360 * minute, 720 * minute, 1440 * minute} {
		if span/w <= maxCycleBuckets {
			return w
		}
	}
	return max(1440*minute, span/maxCycleBuckets+1)
}

// groupLabel names a "type/STATE" key as the run summary does: Kafka's
// classic groups that coordsim models are simple (member-less) groups.
func groupLabel(k string) string {
	if rest, ok := strings.CutPrefix(k, "classic"); ok {
		return "simple" + rest
	}
	return k
}
