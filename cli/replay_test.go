package cli

import (
	"encoding/json"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	rest, ok := strings.CutPrefix(cmd, DefaultProgram+" ")
	require.True(t, ok, "a replay command starts with %q: %q", DefaultProgram, cmd)
	args := shellWords(t, rest)
	require.Equal(t, "replay", args[0], cmd)
	code, out, errs := runCLI(args...)
	require.Equal(t, exitOK, code, "%s\n%s%s", cmd, out, errs)
	m := hashRE.FindStringSubmatch(out)
	require.NotNil(t, m, out)
	return m[1]
}

// TestEveryPrintedReplayReproducesItsRun proves the simulator's central
// promise for every place that prints a replay command: run's summary (a
// built-in with overrides, and a YAML file by its path), a sweep line, a
// swarm sweep line, the HTML report, and a scenario written by
// --emit-scenario all rerun to the same trace hash.
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
