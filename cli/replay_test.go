package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/plugin"
	"github.com/coordsim/coordsim/plugin/memstore"
)

// shellWords splits a printed command the way a POSIX shell would for the
// quoting shellQuote produces (plain words and single quotes).
func shellWords(t *testing.T, cmd string) []string {
	t.Helper()
	var words []string
	var cur strings.Builder
	inWord, quoted := false, false
	for _, r := range cmd {
		switch {
		case quoted && r == '\'':
			quoted = false
		case quoted:
			cur.WriteRune(r)
		case r == '\'':
			quoted, inWord = true, true
		case r == '\\':
			// shellQuote writes '\'' for a quote: the backslash escapes it.
		case r == ' ':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	require.False(t, quoted, "unbalanced quotes in %q", cmd)
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

var hashRE = regexp.MustCompile(`trace hash\s+([0-9a-f]+)`)

// replayHash runs a printed replay command and returns the trace hash it
// prints.
func replayHash(t *testing.T, cmd string) string {
	t.Helper()
	return replayHashWith(t, newApp(), cmd, exitOK)
}

// replayHashWith runs a printed replay command with a configured program,
// requires its exit code and returns the trace hash it prints.
func replayHashWith(t *testing.T, a *app, cmd string, wantCode int) string {
	t.Helper()
	rest, ok := strings.CutPrefix(cmd, a.prog+" ")
	require.True(t, ok, "a replay command starts with %q: %q", a.prog, cmd)
	args := shellWords(t, rest)
	require.Equal(t, "replay", args[0], cmd)
	var out, errb bytes.Buffer
	code := a.run(args, &out, &errb)
	require.Equal(t, wantCode, code, "%s\n%s%s", cmd, out.String(), errb.String())
	m := hashRE.FindStringSubmatch(out.String())
	require.NotNil(t, m, out.String())
	return m[1]
}

// TestEveryPrintedReplayReproducesItsRun proves the simulator's central
// promise for every place that prints a replay command: run's summary (a
// built-in with overrides, and a YAML file by its path), a sweep line, a
// swarm sweep line, the HTML report, a scenario written by --emit-scenario
// and the summary of a run stopped by Ctrl-C all rerun to the same trace
// hash. TestEveryPrintedViolationReplayReproducesItsRun covers the lines
// printed for a violation, TestCtrlCOnTheBuiltBinary a real Ctrl-C.
func TestEveryPrintedReplayReproducesItsRun(t *testing.T) {
	dir := t.TempDir()
	overrides := []string{"--scenario", "ci", "--duration", "40m", "--brokers", "2", "--groups", "60",
		"--faults", "heavy", "--plugin-transient", "0.3", "--check-interval", "3m", "--lost-heartbeat-prob", "0.125"}

	// run: the summary's replay line, the report's, and --emit-scenario.
	reportPath, emitted := filepath.Join(dir, "r.html"), filepath.Join(dir, "emitted scenario.yaml")
	code, out, errs := runCLI(append([]string{"run", "--report", reportPath, "--emit-scenario", emitted}, overrides...)...)
	require.Equal(t, exitOK, code, errs)
	hash := hashRE.FindStringSubmatch(out)[1]
	line := regexp.MustCompile(`(?m)^replay: (.*)$`).FindStringSubmatch(out)[1]
	for _, want := range []string{"--brokers 2", "--plugin-transient 0.3", "--lost-heartbeat-prob 0.125", "--check-interval 3m0s", "--faults heavy"} {
		assert.Contains(t, line, want, "the replay line names every override")
	}
	assert.Equal(t, hash, replayHash(t, line), "run's replay line")

	page, err := os.ReadFile(reportPath)
	require.NoError(t, err)
	m := regexp.MustCompile(`<pre class="cmd"><code>([^<]*)</code></pre>`).FindSubmatch(page)
	require.NotNil(t, m)
	assert.Equal(t, hash, replayHash(t, html.UnescapeString(string(m[1]))), "the report's replay command")

	code, out, errs = runCLI("run", "--scenario", emitted)
	require.Equal(t, exitOK, code, errs)
	assert.Equal(t, hash, hashRE.FindStringSubmatch(out)[1], "the emitted scenario file")
	fileLine := regexp.MustCompile(`(?m)^replay: (.*)$`).FindStringSubmatch(out)[1]
	assert.Contains(t, fileLine, "--scenario '"+emitted+"'", "a file's replay line names its path")
	assert.Equal(t, hash, replayHash(t, fileLine), "a YAML file's replay line")

	// Ctrl-C: the partial run's replay line, and its report's, stop where
	// it stopped (longer and larger than the others, to reach the first
	// progress poll).
	partial := filepath.Join(dir, "partial.html")
	code, out, errs = runWith(&fakeHost{interruptAt: 1}, append(append([]string{"run", "--report", partial}, overrides...), "--duration", "2h", "--groups", "120")...)
	require.Equal(t, exitInterrupted, code, errs)
	line = regexp.MustCompile(`(?m)^replay: (.*)$`).FindStringSubmatch(out)[1]
	assert.Contains(t, line, "--lost-heartbeat-prob 0.125")
	assert.Regexp(t, ` --stop-at \d+$`, line)
	partialHash := hashRE.FindStringSubmatch(out)[1]
	assert.Equal(t, partialHash, replayHash(t, line), "an interrupted run's replay line")
	page, err = os.ReadFile(partial)
	require.NoError(t, err)
	assert.Contains(t, string(page), "The run stopped early (Ctrl-C)")
	m = regexp.MustCompile(`<pre class="cmd"><code>([^<]*)</code></pre>`).FindSubmatch(page)
	require.NotNil(t, m)
	assert.Equal(t, line, html.UnescapeString(string(m[1])), "the partial run's report replays the partial run")

	// sweep, plain and swarm: every line's replay command.
	for _, extra := range [][]string{nil, {"--swarm"}} {
		args := append(append([]string{"sweep", "--seeds", "2", "--start", "5", "--ignore-required-marks"}, overrides...), extra...)
		code, out, errs := runCLI(args...)
		require.Equal(t, exitOK, code, errs)
		for _, raw := range strings.Split(strings.TrimSpace(out), "\n") {
			var l seedLine
			require.NoError(t, json.Unmarshal([]byte(raw), &l))
			assert.Equal(t, l.TraceHash, replayHash(t, l.Replay), "sweep %v seed %d: %s", extra, l.Seed, l.Replay)
			if extra != nil {
				assert.Contains(t, l.Replay, "--retention", "a swarm seed's knobs are flags")
			}
		}
	}
}

// forgetfulStore acknowledges every SetTopology and keeps nothing: under
// protocol v2 (which calls the unfenced SetTopology) the simulator reports
// plugin-side data loss, a violation with a known replay.
type forgetfulStore struct{ *memstore.Store }

func (forgetfulStore) SetTopology(context.Context, string, int32, *plugin.TopologyDescription) error {
	return nil
}

// TestEveryPrintedViolationReplayReproducesItsRun proves the replay lines
// printed for a violation (run's summary, the report's "stop right after
// the failing step" and a sweep line) stop at the failing step and rerun
// to the same trace hash and the same violation.
func TestEveryPrintedViolationReplayReproducesItsRun(t *testing.T) {
	a := newApp(WithStore("forgetful", func() (plugin.Store, error) { return forgetfulStore{memstore.New()}, nil }))
	args := append([]string{"--store", "forgetful", "--protocol", "v2"}, small...)
	reportPath := filepath.Join(t.TempDir(), "r.html")
	var out, errb bytes.Buffer
	code := a.run(append([]string{"run", "--report", reportPath}, args...), &out, &errb)
	require.Equal(t, exitViolation, code, errb.String())
	hash := hashRE.FindStringSubmatch(out.String())[1]
	step := regexp.MustCompile(`VIOLATED: \S+ at step (\d+)`).FindStringSubmatch(out.String())[1]
	line := regexp.MustCompile(`(?m)^replay: (.*)$`).FindStringSubmatch(out.String())[1]
	assert.True(t, strings.HasSuffix(line, " --stop-at "+step), line)
	assert.Equal(t, hash, replayHashWith(t, a, line, exitViolation), "run's violation replay line")

	page, err := os.ReadFile(reportPath)
	require.NoError(t, err)
	cmds := regexp.MustCompile(`<pre class="cmd"><code>([^<]*)</code></pre>`).FindAllSubmatch(page, -1)
	require.Len(t, cmds, 2, "the run's replay and the violation's")
	assert.Equal(t, line, html.UnescapeString(string(cmds[1][1])), "the report's violation replay is the summary's")
	assert.Equal(t, hash, replayHashWith(t, a, html.UnescapeString(string(cmds[0][1])), exitViolation), "the report's replay of the whole run")

	out.Reset()
	errb.Reset()
	code = a.run(append([]string{"sweep", "--seeds", "1", "--ignore-required-marks"}, args...), &out, &errb)
	require.Equal(t, exitViolation, code, errb.String())
	var l seedLine
	require.NoError(t, json.Unmarshal(out.Bytes(), &l))
	require.NotNil(t, l.Violation)
	assert.True(t, strings.HasSuffix(l.Replay, fmt.Sprintf(" --stop-at %d", l.Violation.Step)), l.Replay)
	assert.Contains(t, errb.String(), "  replay: "+l.Replay, "the sweep summary prints the same line")
	assert.Equal(t, l.TraceHash, replayHashWith(t, a, l.Replay, exitViolation), "a sweep line's violation replay")
}
