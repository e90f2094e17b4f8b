package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// assertVirtual checks that s is virtual time written the one way
// (sim.FormatVirtual): a Go duration that formats back to itself.
func assertVirtual(t *testing.T, s, where string) {
	t.Helper()
	d, err := time.ParseDuration(s)
	if assert.NoError(t, err, "%s: %q is not a duration", where, s) {
		assert.Equal(t, fmtVirtual(d), s, "%s: virtual time written another way", where)
	}
}

// TestVirtualTimePrintedOneWay proves every place that prints virtual time
// (run's summary, replay, the trace, the --metrics samples and the HTML
// report) writes it the same way, so the end of a run reads the same in
// all of them, and that wall-clock figures are labelled as such.
func TestVirtualTimePrintedOneWay(t *testing.T) {
	dir := t.TempDir()
	report, metrics, trace := filepath.Join(dir, "r.html"), filepath.Join(dir, "m.prom"), filepath.Join(dir, "t.txt")
	code, out, errs := runCLI(append([]string{"run", "--report", report, "--metrics", metrics, "--metrics-every", "10m", "--trace", trace}, small...)...)
	require.Equal(t, exitOK, code, errs)
	end := regexp.MustCompile(`(?m)^  virtual time    (\S+)$`).FindStringSubmatch(out)
	require.NotNil(t, end, out)
	assertVirtual(t, end[1], "run summary")
	assert.Regexp(t, `(?m)^  wall time       \S+$`, out)
	assert.Regexp(t, `(?m)^  events/s        \d+ \(wall\)$`, out)

	_, rep, _ := runCLI(append([]string{"replay", "--window", "1"}, small...)...)
	assert.Contains(t, rep, ", virtual time "+end[1]+", ", "replay prints the run's end the same way")

	m, err := os.ReadFile(metrics)
	require.NoError(t, err)
	assert.Contains(t, string(m), "# coordsim end state at virtual time "+end[1]+"\n")
	samples := regexp.MustCompile(`# coordsim sample at virtual time (\S+)\n`).FindAllStringSubmatch(string(m), -1)
	require.NotEmpty(t, samples)
	for _, s := range samples {
		assertVirtual(t, s[1], "metrics sample")
	}

	page, err := os.ReadFile(report)
	require.NoError(t, err)
	assert.Contains(t, string(page), `<td>Virtual time</td><td class="num">`+end[1]+`</td>`)
	assert.NotRegexp(t, `\d+d \d+h|\d ms = |\(\d+\.\d+ h\)`, string(page), "no second style of virtual time in the report")
	assert.NotContains(t, string(page), "wall", "the report holds no wall-clock figure")

	tr, err := os.ReadFile(trace)
	require.NoError(t, err)
	stamps := regexp.MustCompile(`(?m)^step=\d+ t=(\S+) `).FindAllStringSubmatch(string(tr), -1)
	require.NotEmpty(t, stamps)
	for _, s := range []int{0, len(stamps) / 2, len(stamps) - 1} {
		assertVirtual(t, stamps[s][1], "trace")
	}
}
