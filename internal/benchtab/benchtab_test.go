package benchtab

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestParseGroupsRunsByCommitLabel proves interleaved runs are grouped by
// their "commit:" line, the -GOMAXPROCS suffix is dropped, and a
// benchmark's log line is not taken for a result.
func TestParseGroupsRunsByCommitLabel(t *testing.T) {
	r := parseFile(t, "testdata/interleaved.txt")
	assert.Equal(t, []string{"aaaaaaa", "bbbbbbb"}, r.Labels)
	assert.Equal(t, []string{"BenchmarkSimulation"}, r.Names)
	assert.Equal(t, []string{"ns/op", "events/s", "allocs/event", "ns/event", "B/op", "allocs/op"}, r.Units["BenchmarkSimulation"])
	assert.Equal(t, []float64{100000, 101000, 99000}, r.Values[Key{"aaaaaaa", "BenchmarkSimulation", "events/s"}])
	assert.Equal(t, []float64{9, 9, 9}, r.Values[Key{"bbbbbbb", "BenchmarkSimulation", "allocs/event"}])
}

// TestSummarizeMedianAndSpread proves the median (middle pair's mean for
// an even count) and the spread as the largest distance from it in percent.
func TestSummarizeMedianAndSpread(t *testing.T) {
	assert.Equal(t, Summary{Median: 100, SpreadPct: 10, N: 3}, Summarize([]float64{110, 100, 95}))
	s := Summarize([]float64{10, 20, 14, 16})
	assert.Equal(t, 15.0, s.Median)
	assert.InDelta(t, 100.0/3, s.SpreadPct, 1e-9)
	assert.Equal(t, Summary{}, Summarize(nil))
}

// TestMannWhitneyPMatchesTheExactDistribution checks the p-values against
// values computed by hand: two fully separated samples of 6 give
// 2/C(12,6) = 2/924, of 3 give 2/C(6,3) = 0.1 (why benchstat wants more
// than 3 runs), identical samples give 1, and tied values use the normal
// approximation, which still separates 6 against 6 but never reports less
// than the exact test's smallest p (0.1 for 3 against 3).
func TestMannWhitneyPMatchesTheExactDistribution(t *testing.T) {
	a := []float64{1, 2, 3, 4, 5, 6}
	b := []float64{7, 8, 9, 10, 11, 12}
	assert.InDelta(t, 2.0/924, MannWhitneyP(a, b), 1e-12)
	assert.InDelta(t, 2.0/924, MannWhitneyP(b, a), 1e-12)
	assert.InDelta(t, 0.1, MannWhitneyP([]float64{1, 2, 3}, []float64{4, 5, 6}), 1e-12)
	assert.InDelta(t, 1, MannWhitneyP([]float64{1, 3, 5}, []float64{2, 4, 6}), 0.5, "interleaved samples are not different")
	assert.Equal(t, 1.0, MannWhitneyP([]float64{5, 5, 5}, []float64{5, 5, 5}))
	assert.Less(t, MannWhitneyP([]float64{1, 1, 2, 2, 3, 3}, []float64{7, 7, 8, 8, 9, 9}), 0.01)
	assert.InDelta(t, 0.1, MannWhitneyP([]float64{11, 11, 11}, []float64{9, 9, 9}), 1e-12)
}

// TestTableShowsChangeOnlyWhenSignificant proves the rendered table has a
// column per label and, with two labels, the change of the medians, "~"
// where p > 0.05: three runs a side can never reach p <= 0.05. Rows follow
// the order of the units asked for, skipping those the benchmark lacks.
func TestTableShowsChangeOnlyWhenSignificant(t *testing.T) {
	r := parseFile(t, "testdata/interleaved.txt")
	got, err := r.Table(regexp.MustCompile("^BenchmarkSimulation$"), []string{"events/s", "missing", "allocs/event"})
	require.NoError(t, err)
	assert.Equal(t, `| benchmark | unit | aaaaaaa | bbbbbbb | change | p |
|---|---|---:|---:|---:|---:|
| Simulation | events/s | 100 000 ± 1% (n=3) | 120 000 ± 1% (n=3) | ~ | 0.100 |
| Simulation | allocs/event | 11.00 ± 0% (n=3) | 9.00 ± 0% (n=3) | ~ | 0.100 |
`, got)
	_, err = r.Table(regexp.MustCompile("^BenchmarkNone$"), nil)
	assert.Error(t, err, "a region that matches nothing is an error, not an empty table")
}

// TestUpdateReplacesOnlyGeneratedRegions proves Update rewrites the lines
// between a region's comments, keeps everything else byte for byte, and
// refuses a region left open or a stray close.
func TestUpdateReplacesOnlyGeneratedRegions(t *testing.T) {
	doc := "# Title\n\nprose\n<!-- benchtab file=x.txt match=^BenchmarkA$ units=ns/op -->\nold table\n<!-- /benchtab -->\nafter\n"
	var got Region
	out, err := Update(doc, func(r Region) (string, error) {
		got = r
		return "| new |\n", nil
	})
	require.NoError(t, err)
	assert.Equal(t, "# Title\n\nprose\n<!-- benchtab file=x.txt match=^BenchmarkA$ units=ns/op -->\n| new |\n<!-- /benchtab -->\nafter\n", out)
	assert.Equal(t, "x.txt", got.File)
	assert.Equal(t, []string{"ns/op"}, got.Units)
	assert.True(t, got.Match.MatchString("BenchmarkA"))

	render := func(Region) (string, error) { return "", nil }
	_, err = Update("<!-- benchtab file=x.txt -->\nold\n", render)
	assert.ErrorContains(t, err, "never closed")
	_, err = Update("<!-- /benchtab -->\n", render)
	assert.ErrorContains(t, err, "no region open")
	_, err = Update("<!-- benchtab match=x -->\n<!-- /benchtab -->\n", render)
	assert.ErrorContains(t, err, "no file=")
	_, err = Update("<!-- benchtab file=x.txt colour=red -->\n<!-- /benchtab -->\n", render)
	assert.ErrorContains(t, err, "unknown parameter")
}

func parseFile(t *testing.T, path string) *Results {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	r, err := Parse(f)
	require.NoError(t, err)
	return r
}

// TestFormatValueGroupsThousands proves figures print as BENCHMARKS.md
// writes them.
func TestFormatValueGroupsThousands(t *testing.T) {
	for in, want := range map[float64]string{4096: "4 096", 2.654: "2.65", 25.7: "25.70", 130234: "130 234", 999: "999", -1234567: "-1 234 567"} {
		assert.Equal(t, want, formatValue(in), "%v", in)
	}
	assert.False(t, strings.Contains(formatValue(1e6), "e"))
}
