package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/plugin"
	"github.com/coordsim/coordsim/plugin/memstore"
)

// spiOnly is a user's store written for Kafka's SPI alone: no List, no
// fenced calls.
type spiOnly struct{ plugin.Store }

// unlisted has the fenced calls but no List.
type unlisted struct{ plugin.FencedStore }

func weakerApp() *app {
	return newApp(
		WithStore("spi", func() (plugin.Store, error) { return spiOnly{memstore.New()}, nil }),
		WithStore("unlisted", func() (plugin.Store, error) { return unlisted{memstore.New()}, nil }),
	)
}

func runWeaker(args ...string) (code int, stdout, stderr string) {
	var out, errb strings.Builder
	code = weakerApp().run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// TestStoreWithoutListerIsRefusedBeforeTheRun proves the first
// case: a store without plugin.Lister no longer gives a clean exit-0 run
// that skipped the data-loss and leaked-row checks. run, replay and sweep
// refuse it (exit 2) before anything runs or is written, saying what is
// missing and what to do.
func TestStoreWithoutListerIsRefusedBeforeTheRun(t *testing.T) {
	dir := t.TempDir()
	trace, results := filepath.Join(dir, "t.txt"), filepath.Join(dir, "s.jsonl")
	for _, args := range [][]string{
		{"run", "--store", "unlisted", "--trace", trace},
		{"replay", "--store", "unlisted"},
		{"sweep", "--store", "unlisted", "--seeds", "2", "--resume", results},
	} {
		code, out, errs := runWeaker(append(args, small...)...)
		assert.Equal(t, exitUsage, code, "%v", args)
		assert.Empty(t, out, "%v: nothing ran", args)
		assert.Contains(t, errs, "--store unlisted: the topology store cli.unlisted does not implement plugin.Lister", "%v", args)
		assert.Contains(t, errs, "6-no-plugin-side-data-loss", "%v", args)
		assert.Contains(t, errs, "--allow-unchecked", "%v: the way out", args)
	}
	assert.NoFileExists(t, trace, "a refused run writes no file")
	assert.NoFileExists(t, results)
}

// TestAllowUncheckedSaysWhatWasNotChecked proves --allow-unchecked runs
// such a store and says, in the summary, on stderr, in the JSON result, in
// the report's header and in the sweep summary, which checks did not run;
// and that its replay command carries the flag.
func TestAllowUncheckedSaysWhatWasNotChecked(t *testing.T) {
	args := append([]string{"--store", "unlisted", "--allow-unchecked"}, small...)
	code, out, errs := runWeaker(append([]string{"run"}, args...)...)
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, out, "  WARNING         the topology store cli.unlisted does not implement plugin.Lister")
	assert.Regexp(t, `  checks          \d+ of \d+ ran; not run: .*6-no-plugin-side-data-loss \(the store does not implement plugin.Lister\)`, out)
	assert.Contains(t, errs, "WARNING: the topology store cli.unlisted")
	assert.Contains(t, out, "--store unlisted --allow-unchecked\n", "the replay reproduces the allowance")

	report := filepath.Join(t.TempDir(), "r.html")
	code, out, errs = runWeaker(append([]string{"run", "--json", "--report", report}, args...)...)
	require.Equal(t, exitOK, code, errs)
	var res struct {
		Warnings []string `json:"warnings"`
		Checks   []struct {
			Name string `json:"name"`
			Ran  bool   `json:"ran"`
		} `json:"checks"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	require.Len(t, res.Warnings, 1)
	assert.Contains(t, res.Warnings[0], "plugin.Lister")
	page, err := os.ReadFile(report)
	require.NoError(t, err)
	head, _, _ := strings.Cut(string(page), "<h2")
	assert.True(t, strings.Contains(head, "does not implement plugin.Lister"), "the report's header, before the first section, carries the warning")

	code, _, errs = runWeaker(append([]string{"sweep", "--seeds", "2", "--duration", "20m"}, args[:3]...)...)
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, errs, "WARNING (2 of 2 seeds): the topology store cli.unlisted does not implement plugin.Lister")
}

// TestProtocolV3WithUnfencedStoreIsRefused proves the second case:
// a store without the fenced calls under protocol v3 no longer runs as v2
// behind a header that says v3; it is refused, and runs under v2 when the
// user asks for v2.
func TestProtocolV3WithUnfencedStoreIsRefused(t *testing.T) {
	code, out, errs := runWeaker(append([]string{"run", "--store", "spi", "--allow-unchecked", "--protocol", "v3"}, small...)...)
	assert.Equal(t, exitUsage, code, errs)
	assert.Empty(t, out)
	assert.Contains(t, errs, "does not implement plugin.FencedStore, which cleanup protocol v3 fences its calls with")
	assert.Contains(t, errs, "--protocol v2")

	code, out, errs = runWeaker(append([]string{"run", "--store", "spi", "--allow-unchecked", "--protocol", "v2"}, small...)...)
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, out, ", protocol v2, ")
}

// TestHeaderShowsEffectiveProtocolAndChecks proves a clean run's header
// names the protocol it ran and how many checks ran, and names those its
// options leave out, so a clean run can be told from one that checked less.
func TestHeaderShowsEffectiveProtocolAndChecks(t *testing.T) {
	code, out, errs := runCLI(append([]string{"run"}, small...)...)
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, out, ", protocol v3, ")
	assert.Regexp(t, `(?m)^  checks          \d+ of \d+ ran; not run: .*8-share-partitions \(no Connect workload\)`, out)
	assert.NotContains(t, out, "WARNING")
	assert.Regexp(t, `invariants      held \(the \d+ checks that ran\)`, out)
}
