package metrics

import (
	"io"
	"slices"
	"strconv"
	"strings"
)

// PrometheusContentType is the content type of WritePrometheus output (text
// exposition format 0.0.4).
const PrometheusContentType = "text/plain; version=0.0.4; charset=utf-8"

// WritePrometheus writes samples in the Prometheus text exposition format.
// A family is prefix + the snake-cased metric name ('-' becomes '_'; the group is
// dropped); a counter's family ends in "_total" (a trailing "_count" is replaced,
// "_total" kept, otherwise "_total" appended), rates and gauges keep their name
// and are typed gauge. Families are sorted by name, each with a # HELP (the
// description, or the Kafka name when there is none; familyHelp when the
// series of one family have different descriptions) and a # TYPE line; series
// are sorted by their labels (the snake-cased tags, values escaped). The output
// depends only on the set of samples, not their order.
//
// An invalid prefix or sample, two samples on one series, or one family with two
// kinds is an *Error (ErrExposition or ErrInvalidName) and nothing is written.
// An error from w is returned as is.
func WritePrometheus(w io.Writer, samples []Sample, prefix string) error {
	if err := checkPrefix(prefix); err != nil {
		return err
	}
	type series struct {
		labels string
		sample Sample
	}
	type family struct {
		kind   Kind
		series []series
	}
	families := make(map[string]*family)
	names := make([]string, 0)
	for _, s := range samples {
		n, err := s.Name.normalize()
		if err != nil {
			return err
		}
		if !s.Kind.valid() {
			return newError(ErrInvalidKind, n.String(), "kind "+strconv.Itoa(int(s.Kind)))
		}
		fam := prefix + promName(n.Name, s.Kind)
		labels, err := promLabels(n)
		if err != nil {
			return err
		}
		f, ok := families[fam]
		if !ok {
			f = &family{kind: s.Kind}
			families[fam] = f
			names = append(names, fam)
		}
		if f.kind != s.Kind {
			return newError(ErrExposition, fam, "family has both "+f.kind.String()+" and "+s.Kind.String()+" samples ("+n.String()+")")
		}
		s.Name = n
		f.series = append(f.series, series{labels: labels, sample: s})
	}
	slices.Sort(names)

	var b strings.Builder
	for _, fam := range names {
		f := families[fam]
		slices.SortFunc(f.series, func(a, b series) int { return strings.Compare(a.labels, b.labels) })
		for i := 1; i < len(f.series); i++ {
			if f.series[i].labels == f.series[i-1].labels {
				return newError(ErrExposition, fam+f.series[i].labels,
					"two samples on one series ("+f.series[i-1].sample.Name.String()+" and "+f.series[i].sample.Name.String()+")")
			}
		}
		names := make([]MetricName, len(f.series))
		for i, s := range f.series {
			names[i] = s.sample.Name
		}
		help := familyHelp(names)
		if help == "" {
			first := f.series[0].sample.Name
			help = "Kafka metric " + first.Group + ":" + first.Name
		}
		b.WriteString("# HELP ")
		b.WriteString(fam)
		b.WriteByte(' ')
		_, _ = helpEscaper.WriteString(&b, help)
		b.WriteString("\n# TYPE ")
		b.WriteString(fam)
		b.WriteByte(' ')
		b.WriteString(f.kind.String())
		b.WriteByte('\n')
		for _, s := range f.series {
			b.WriteString(fam)
			b.WriteString(s.labels)
			b.WriteByte(' ')
			b.WriteString(formatValue(s.sample.Value))
			b.WriteByte('\n')
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteText writes samples one per line as "<group>:<name>{tags} <kind> <value>",
// in the order given (Snapshot's order), for tests and goldens. Values use the
// shortest representation that reads back exactly.
func WriteText(w io.Writer, samples []Sample) error {
	var b strings.Builder
	for _, s := range samples {
		b.WriteString(s.Name.String())
		b.WriteByte(' ')
		b.WriteString(s.Kind.String())
		b.WriteByte(' ')
		b.WriteString(formatValue(s.Value))
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// promName snake-cases a metric name and gives counters their "_total".
func promName(name string, kind Kind) string {
	n := strings.ReplaceAll(name, "-", "_")
	if kind != KindCounter {
		return n
	}
	if base, ok := strings.CutSuffix(n, "_count"); ok {
		return base + "_total"
	}
	if strings.HasSuffix(n, "_total") {
		return n
	}
	return n + "_total"
}

// promLabels renders the tags of n as Prometheus labels sorted by the
// snake-cased key; two keys that snake-case alike are an error.
func promLabels(n MetricName) (string, error) {
	if len(n.Tags) == 0 {
		return "", nil
	}
	tags := make(Tags, len(n.Tags))
	for i, t := range n.Tags {
		tags[i] = Tag{Key: strings.ReplaceAll(t.Key, "-", "_"), Value: t.Value}
	}
	slices.SortFunc(tags, func(a, b Tag) int { return strings.Compare(a.Key, b.Key) })
	for i := 1; i < len(tags); i++ {
		if tags[i].Key == tags[i-1].Key {
			return "", newError(ErrExposition, n.String(), "tags snake-case to the same label "+tags[i].Key)
		}
	}
	return tags.String(), nil
}

// checkPrefix accepts "" or a Prometheus metric name: [a-zA-Z_:][a-zA-Z0-9_:]*.
func checkPrefix(p string) error {
	for i := 0; i < len(p); i++ {
		c := p[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == ':' || (i > 0 && c >= '0' && c <= '9')
		if !ok {
			return newError(ErrExposition, "prefix "+strconv.Quote(p), "not a Prometheus metric name prefix")
		}
	}
	return nil
}

// helpEscaper is Prometheus' HELP escaping: backslash and newline.
var helpEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`)

// formatValue prints a float as Prometheus and Go read it back exactly: the
// shortest 'g' form, "NaN", "+Inf" or "-Inf".
func formatValue(v float64) string {
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// familyHelp is one family's HELP text, true for every series in it. Kafka
// gives each tagged metric its own description ("The number of classic groups
// in completing rebalance state." for state=CompletingRebalance, "... in
// stable state." for state=Stable): when those differ, the HELP gives each
// one with the value of the tag that tells them apart ("By state:
// CompletingRebalance: The number of ... Stable: The number of ..."), rather
// than one series' description for all. names are in series order.
func familyHelp(names []MetricName) string {
	var distinct []string
	for _, n := range names {
		if n.Description != "" && !slices.Contains(distinct, n.Description) {
			distinct = append(distinct, n.Description)
		}
	}
	if len(distinct) <= 1 {
		if len(distinct) == 1 {
			return distinct[0]
		}
		return ""
	}
	// The tag that tells the descriptions apart: one every series has, whose
	// value determines the description.
	for _, key := range tagKeys(names) {
		byValue := map[string]string{}
		var values []string
		ok := true
		for _, n := range names {
			v, has := n.Tags.Get(key)
			if !has {
				ok = false
				break
			}
			if d, seen := byValue[v]; seen {
				ok = ok && d == n.Description
				continue
			}
			byValue[v] = n.Description
			values = append(values, v)
		}
		if !ok || len(values) < 2 {
			continue
		}
		slices.Sort(values)
		var b strings.Builder
		b.WriteString("By " + key + ":")
		for _, v := range values {
			b.WriteString(" " + v + ": " + byValue[v])
		}
		return b.String()
	}
	return strings.Join(distinct, " / ")
}

// tagKeys lists the tag keys of names, sorted, each once.
func tagKeys(names []MetricName) []string {
	var keys []string
	for _, n := range names {
		for _, t := range n.Tags {
			if !slices.Contains(keys, t.Key) {
				keys = append(keys, t.Key)
			}
		}
	}
	slices.Sort(keys)
	return keys
}
