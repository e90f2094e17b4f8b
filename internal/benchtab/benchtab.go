package benchtab

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Results are benchmark runs grouped by commit label, in the order the
// labels and benchmarks first appear.
type Results struct {
	// Labels are the commit labels in order of appearance ("" for runs
	// before any commit line).
	Labels []string
	// Names are the benchmarks in order of appearance, without the
	// -GOMAXPROCS suffix.
	Names []string
	// Values holds each run's value by label, benchmark and unit.
	Values map[Key][]float64
	// Units are each benchmark's units in the order its lines print them.
	Units map[string][]string
}

// Key names one series of values.
type Key struct{ Label, Name, Unit string }

var procsSuffix = regexp.MustCompile(`-\d+$`)

// Parse reads go test -bench output. Lines that are not results or a
// "commit:" configuration line are skipped, as benchstat skips them.
func Parse(r io.Reader) (*Results, error) {
	res := &Results{Values: map[Key][]float64{}, Units: map[string][]string{}}
	label := ""
	seenLabel := map[string]bool{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if v, ok := strings.CutPrefix(text, "commit:"); ok {
			label = strings.TrimSpace(v)
			continue
		}
		f := strings.Fields(text)
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") || len(f)%2 != 0 {
			continue
		}
		if _, err := strconv.ParseInt(f[1], 10, 64); err != nil {
			continue // a benchmark's log line, not a result
		}
		name := procsSuffix.ReplaceAllString(f[0], "")
		if !seenLabel[label] {
			seenLabel[label] = true
			res.Labels = append(res.Labels, label)
		}
		if _, ok := res.Units[name]; !ok {
			res.Names = append(res.Names, name)
			res.Units[name] = nil
		}
		for i := 2; i < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return nil, fmt.Errorf("line %d: value %q of %s: %w", line, f[i], f[i+1], err)
			}
			unit := f[i+1]
			if !slices.Contains(res.Units[name], unit) {
				res.Units[name] = append(res.Units[name], unit)
			}
			k := Key{label, name, unit}
			res.Values[k] = append(res.Values[k], v)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return res, nil
}

// Summary is one series' median, spread and run count.
type Summary struct {
	Median, SpreadPct float64
	N                 int
}

// Summarize returns the median of vs and the largest distance of a value
// from it in percent of it.
func Summarize(vs []float64) Summary {
	if len(vs) == 0 {
		return Summary{}
	}
	s := slices.Sorted(slices.Values(vs))
	n := len(s)
	med := s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	spread := 0.0
	if med != 0 {
		spread = math.Max(med-s[0], s[n-1]-med) / math.Abs(med) * 100
	}
	return Summary{Median: med, SpreadPct: spread, N: n}
}

// MannWhitneyP is the two-sided p-value of the Mann-Whitney U test of a
// against b: exact from the distribution of U when no two values tie, else
// the normal approximation with the tie correction, never below the
// smallest p the exact test can give for the sample sizes.
func MannWhitneyP(a, b []float64) float64 {
	n1, n2 := len(a), len(b)
	if n1 == 0 || n2 == 0 {
		return 1
	}
	type obs struct {
		v     float64
		fromA bool
	}
	all := make([]obs, 0, n1+n2)
	for _, v := range a {
		all = append(all, obs{v, true})
	}
	for _, v := range b {
		all = append(all, obs{v, false})
	}
	slices.SortFunc(all, func(x, y obs) int {
		return cmp.Compare(x.v, y.v)
	})
	// Midranks; ties is the sum of t^3-t over tied groups.
	rankSumA, ties := 0.0, 0.0
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].v == all[i].v {
			j++
		}
		rank := float64(i+j+1) / 2 // ranks i+1..j
		for k := i; k < j; k++ {
			if all[k].fromA {
				rankSumA += rank
			}
		}
		if t := float64(j - i); t > 1 {
			ties += t*t*t - t
		}
		i = j
	}
	u := rankSumA - float64(n1*(n1+1))/2
	if ties == 0 {
		return exactP(u, n1, n2)
	}
	n := float64(n1 + n2)
	mean := float64(n1*n2) / 2
	sd := math.Sqrt(float64(n1*n2) / 12 * ((n + 1) - ties/(n*(n-1))))
	if sd == 0 {
		return 1
	}
	z := (math.Abs(u-mean) - 0.5) / sd
	// The approximation is poor for small samples: never report less than
	// the smallest p any ordering of n1 and n2 values can reach.
	return math.Min(1, math.Max(math.Erfc(math.Max(z, 0)/math.Sqrt2), 2/binomial(n1+n2, n1)))
}

// binomial is n choose k.
func binomial(n, k int) float64 {
	c := 1.0
	for i := 1; i <= k; i++ {
		c = c * float64(n-k+i) / float64(i)
	}
	return c
}

// exactP is P(|U - mean| >= |u - mean|) under the null hypothesis, from the
// count of the orderings of n1 and n2 values giving each U.
func exactP(u float64, n1, n2 int) float64 {
	maxU := n1 * n2
	// counts[i][j][k]: orderings of i and j values with U = k, built
	// row by row: f(i, j, k) = f(i-1, j, k-j) + f(i, j-1, k).
	prev := make([][]float64, n2+1)
	for j := range prev {
		prev[j] = make([]float64, maxU+1)
		prev[j][0] = 1 // i = 0: one ordering, U = 0
	}
	for i := 1; i <= n1; i++ {
		cur := make([][]float64, n2+1)
		for j := range cur {
			cur[j] = make([]float64, maxU+1)
			for k := 0; k <= maxU; k++ {
				if k-j >= 0 {
					cur[j][k] += prev[j][k-j]
				}
				if j > 0 {
					cur[j][k] += cur[j-1][k]
				}
			}
		}
		prev = cur
	}
	dist := prev[n2]
	total, tail := 0.0, 0.0
	mean := float64(maxU) / 2
	d := math.Abs(u - mean)
	for k, c := range dist {
		total += c
		if math.Abs(float64(k)-mean) >= d-1e-9 {
			tail += c
		}
	}
	return tail / total
}

// Table renders the benchmarks matching match in the given units (all of a
// benchmark's units when units is empty) as a Markdown table: one column
// per label, then, with exactly two labels, the change and its p-value.
// Rows follow units' order, else the order the benchmark printed them.
func (r *Results) Table(match *regexp.Regexp, units []string) (string, error) {
	var b strings.Builder
	two := len(r.Labels) == 2
	b.WriteString("| benchmark | unit |")
	for _, l := range r.Labels {
		fmt.Fprintf(&b, " %s |", labelName(l))
	}
	if two {
		b.WriteString(" change | p |")
	}
	b.WriteString("\n|---|---|")
	for range r.Labels {
		b.WriteString("---:|")
	}
	if two {
		b.WriteString("---:|---:|")
	}
	b.WriteString("\n")
	rows := 0
	for _, name := range r.Names {
		if !match.MatchString(name) {
			continue
		}
		shown := r.Units[name]
		if len(units) > 0 {
			shown = nil
			for _, u := range units { // in the order the region asks for
				if slices.Contains(r.Units[name], u) {
					shown = append(shown, u)
				}
			}
		}
		for _, unit := range shown {
			fmt.Fprintf(&b, "| %s | %s |", strings.TrimPrefix(name, "Benchmark"), unit)
			for _, l := range r.Labels {
				s := Summarize(r.Values[Key{l, name, unit}])
				if s.N == 0 {
					b.WriteString(" – |")
					continue
				}
				fmt.Fprintf(&b, " %s ± %.0f%% (n=%d) |", formatValue(s.Median), s.SpreadPct, s.N)
			}
			if two {
				before, after := r.Values[Key{r.Labels[0], name, unit}], r.Values[Key{r.Labels[1], name, unit}]
				b.WriteString(change(before, after))
			}
			b.WriteString("\n")
			rows++
		}
	}
	if rows == 0 {
		return "", fmt.Errorf("no result matches %s in units %v", match, units)
	}
	return b.String(), nil
}

func labelName(l string) string {
	if l == "" {
		return "value"
	}
	return l
}

// change is the change and p-value cells of two series, "~" for the change
// when p > 0.05 as benchstat prints it.
func change(before, after []float64) string {
	if len(before) == 0 || len(after) == 0 {
		return " – | – |"
	}
	p := MannWhitneyP(before, after)
	mb, ma := Summarize(before).Median, Summarize(after).Median
	if p > 0.05 || mb == 0 {
		return fmt.Sprintf(" ~ | %.3f |", p)
	}
	return fmt.Sprintf(" %+.1f%% | %.3f |", (ma-mb)/math.Abs(mb)*100, p)
}

// formatValue prints a value as BENCHMARKS.md writes figures: whole
// numbers from 1 000 on, no decimals from 100, two below (allocs/event
// moves in the second), and thousands grouped with spaces (4 096, 11.12).
func formatValue(v float64) string {
	av := math.Abs(v)
	var s string
	switch {
	case av >= 1000:
		s = strconv.FormatFloat(math.Round(v), 'f', -1, 64)
	case av >= 100:
		s = strconv.FormatFloat(v, 'f', 0, 64)
	default:
		s = strconv.FormatFloat(v, 'f', 2, 64)
	}
	intPart, frac, _ := strings.Cut(s, ".")
	neg := strings.HasPrefix(intPart, "-")
	intPart = strings.TrimPrefix(intPart, "-")
	var g []string
	for len(intPart) > 3 {
		g = append([]string{intPart[len(intPart)-3:]}, g...)
		intPart = intPart[:len(intPart)-3]
	}
	g = append([]string{intPart}, g...)
	out := strings.Join(g, " ")
	if neg {
		out = "-" + out
	}
	if frac != "" {
		out += "." + frac
	}
	return out
}
