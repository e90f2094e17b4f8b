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
	"github.com/coordsim/coordsim/sim"
	"github.com/coordsim/coordsim/sim/invariants"
)

// TestCLIRefusesBadInputNamingTheFlag proves each bad value is refused with
// exit 2 and a message naming the flag, before anything runs.
func TestCLIRefusesBadInputNamingTheFlag(t *testing.T) {
	missingDir := filepath.Join(t.TempDir(), "no", "such", "dir")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--groups", "0"}, "--groups 0: must be >= 1"},
		{[]string{"run", "--groups", "-5"}, "--groups -5: must be >= 1"},
		{[]string{"run", "--members-max", "0"}, "--members-max 0: must be in [1, 100]"},
		{[]string{"run", "--duration", "banana"}, `"banana"`},
		{[]string{"run", "--duration", "1ms"}, "--duration 1ms: must be in [1m, 8784h]"},
		{[]string{"sweep", "--seeds", "0"}, "--seeds 0: must be"},
		{[]string{"sweep", "--parallel", "2000"}, "--parallel 2000: must be"},
		{[]string{"replay", "--window", "0"}, "--window 0"},
		{[]string{"run", "--metrics-every", "10m"}, "--metrics-every 10m0s: needs --metrics FILE"},
		{[]string{"run", "--brokers", "three"}, "-brokers"},
		{[]string{"run", "--protocol", "v9"}, "-protocol"},
		{[]string{"run", "--plugin-transient", "0.7", "--plugin-permanent", "0.7"}, "--plugin-transient 0.7, --plugin-permanent 0.7: the plugin fault probabilities add up to more than 1"},
		{[]string{"sweep", "--seed", "4"}, "--seed is not used by sweep"},
		{[]string{"sweep", "--require-marks", "tick-droped"}, `--require-marks: unknown mark "tick-droped"`},
		{[]string{"run", "--skip-invariant", "9-one-ownr"}, `no invariant "9-one-ownr"`},
		{[]string{"sweep", "--skip-invariant", "9-one-owner,nope"}, `no invariant "nope"`},
		{[]string{"replay", "--skip-invariant", "nope"}, `no invariant "nope"`},
	} {
		code, _, errs := runCLI(c.args...)
		assert.Equal(t, exitUsage, code, "%v", c.args)
		assert.Contains(t, errs, c.want, "%v", c.args)
	}
	// An output path that cannot be created is an I/O failure (3), named
	// with its flag and path, before anything runs.
	for _, flag := range []string{"--report", "--metrics", "--trace", "--cpuprofile", "--memprofile", "--emit-scenario"} {
		path := filepath.Join(missingDir, "out")
		code, _, errs := runCLI("run", flag, path)
		assert.Equal(t, exitIO, code, flag)
		assert.Contains(t, errs, flag+" "+path, flag)
	}
	for _, flag := range []string{"--cpuprofile", "--memprofile"} {
		path := filepath.Join(missingDir, "out")
		code, out, errs := runCLI("sweep", "--seeds", "1", flag, path)
		assert.Equal(t, exitIO, code, flag)
		assert.Contains(t, errs, "coordsim sweep: "+flag+" "+path, flag)
		assert.Empty(t, out, "%s: no seed ran", flag)
	}
}

// TestBareCommandPrintsHelpAndVersionExists proves `coordsim` alone prints
// the help (exit 2) and `coordsim version` prints a version.
func TestBareCommandPrintsHelpAndVersionExists(t *testing.T) {
	code, out, errs := runCLI()
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, out)
	assert.Contains(t, errs, "commands:")
	code, out, _ = runCLI("version")
	assert.Equal(t, exitOK, code)
	assert.True(t, strings.HasPrefix(out, "coordsim "), out)
	code, _, errs = runCLI("version", "--short")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, `unexpected argument "--short"`)
	code, out, errs = runCLI("run", "-h")
	assert.Equal(t, exitOK, code)
	assert.Empty(t, errs, "the help asked for is output, on stdout")
	assert.Contains(t, out, "usage: coordsim run [flags]")
	assert.Contains(t, out, "-retention D", "every table parameter is a flag, with its placeholder")
	assert.NotContains(t, out, "(default: the scenario's) (default", "no doubled default")
}

// TestReplayPastTheEndExitsTwo proves --stop-at beyond the run's last step
// says so and exits 2.
func TestReplayPastTheEndExitsTwo(t *testing.T) {
	code, _, errs := runCLI(append([]string{"replay", "--stop-at", "100000000"}, small...)...)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "--stop-at 100000000 is past the end: the run has ")
}

// TestMergeRefusesBadInput proves --merge refuses empty input, a line that
// is not a sweep line (two lines run together included), and a seed given
// twice, naming the file and line.
func TestMergeRefusesBadInput(t *testing.T) {
	code, out, errs := runCLI(append([]string{"sweep", "--seeds", "1"}, small...)...)
	require.Equal(t, exitOK, code, errs)
	dir := t.TempDir()
	write := func(name, body string) string {
		f := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(f, []byte(body), 0o600))
		return f
	}
	good, empty, stub := write("good.jsonl", out), write("empty.jsonl", ""), write("stub.jsonl", `{"seed":1}`+"\n")
	joined := write("joined.jsonl", strings.TrimSuffix(out, "\n")+strings.Replace(out, `"seed":1`, `"seed":2`, 1))
	for _, c := range []struct {
		files []string
		want  string
	}{
		{[]string{empty}, "no sweep lines"},
		{[]string{stub}, "stub.jsonl:1: not a sweep line"},
		{[]string{good, good}, "seed 1 given twice"},
		{[]string{joined}, "joined.jsonl:1: not a sweep line"}, // its second seed would vanish unseen
	} {
		code, _, errs := runCLI(append([]string{"sweep", "--merge"}, c.files...)...)
		assert.Equal(t, exitUsage, code, "%v", c.files)
		assert.Contains(t, errs, c.want)
	}
}

// TestSweepResumeSkipsSeedsDone proves --resume appends each seed's line to
// the file, skips the seeds already there, drops a partial last line left
// by a killed sweep, and summarises old and new lines together.
func TestSweepResumeSkipsSeedsDone(t *testing.T) {
	f := filepath.Join(t.TempDir(), "out.jsonl")
	args := append([]string{"sweep", "--resume", f, "--parallel", "2"}, small...)
	code, out, errs := runCLI(append(args, "--seeds", "2")...)
	require.Equal(t, exitOK, code, errs)
	assert.Empty(t, out, "the lines go to the file")
	first, err := os.ReadFile(f)
	require.NoError(t, err)
	require.Equal(t, 2, strings.Count(string(first), "\n"))
	// A killed sweep leaves half a line.
	require.NoError(t, os.WriteFile(f, append(first, []byte(`{"seed":3,"scen`)...), 0o600))
	code, _, errs = runCLI(append(args, "--seeds", "3")...)
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, errs, "2 seeds already in")
	assert.Contains(t, errs, "sweep summary: 3 seeds")
	all, err := os.ReadFile(f)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(all), string(first)), "earlier lines are kept")
	lines := strings.Split(strings.TrimSpace(string(all)), "\n")
	require.Len(t, lines, 3)
	assert.Contains(t, lines[2], `"seed":3,`)
	code, _, errs = runCLI("sweep", "--merge", f)
	assert.Equal(t, exitOK, code, errs)
}

// TestReplayGroupPrintsItsState proves replay --group prints the group's
// state, its description epochs, its plugin rows and its timeline.
func TestReplayGroupPrintsItsState(t *testing.T) {
	code, out, errs := runCLI(append([]string{"replay", "--stop-at", "20000", "--window", "3", "--group", "streams-000008"}, small...)...)
	require.Equal(t, exitOK, code, errs)
	for _, want := range []string{"group streams-000008: streams ", "stored description epoch ", "failed description epoch ",
		"plugin rows: ", "timeline (its last ", " push group=streams-000008 ", " stored-epoch "} {
		assert.Contains(t, out, want)
	}
	assert.NotContains(t, out[strings.Index(out, "timeline"):], " heartbeat ", "heartbeats are left out of the timeline")
}

// TestCustomStoreFromTheCommandLine proves a program built with WithStore
// offers the store by name in every subcommand and prints replay commands
// that name the program and the store; an unknown store is refused with the
// names offered.
func TestCustomStoreFromTheCommandLine(t *testing.T) {
	opened := 0
	a := newApp(WithStore("mine", func() (plugin.Store, error) { opened++; return memstore.New(), nil }), WithProgram("go run ./cmd/mysim"))
	var out, errb strings.Builder
	code := a.run(append([]string{"run", "--store", "mine"}, small...), &out, &errb)
	require.Equal(t, exitOK, code, errb.String())
	assert.Equal(t, 1, opened, "the store checked before the run is the run's")
	assert.Contains(t, out.String(), "replay: go run ./cmd/mysim replay --scenario ci --seed 1 --duration 1h0m0s --store mine")
	out.Reset()
	errb.Reset()
	code = a.run(append([]string{"sweep", "--seeds", "2", "--store", "mine"}, small...), &out, &errb)
	require.Equal(t, exitOK, code, errb.String())
	assert.Equal(t, 4, opened, "one store per seed, and one checked before the first")
	assert.Contains(t, out.String(), `--store mine"`)
	errb.Reset()
	code = a.run([]string{"run", "--store", "yours"}, &out, &errb)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errb.String(), `--store "yours": one of bolt, memstore, mine`)
}

// TestMetricsTimeSeries proves --metrics-every writes one block of metrics
// per interval of virtual time, whose rates are measured then (not all 0),
// and leaves the trace unchanged.
func TestMetricsTimeSeries(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "m.prom")
	code, out, errs := runCLI(append([]string{"run", "--metrics", f, "--metrics-every", "10m"}, small...)...)
	require.Equal(t, exitOK, code, errs)
	data, err := os.ReadFile(f)
	require.NoError(t, err)
	blocks := strings.Count(string(data), "# coordsim sample at virtual time ")
	assert.GreaterOrEqual(t, blocks, 6, "an hour of workload and its liveness phase, every 10m")
	assert.Contains(t, string(data), "# coordsim sample at virtual time 10m0s\n")
	assert.Contains(t, string(data), "# coordsim end state at virtual time ")
	assert.Regexp(t, `kafka_coordinator_offset_commit_rate\{[^}]*\} [1-9]`, string(data), "a rate measured during the run is not 0")
	_, plain, _ := runCLI(append([]string{"run"}, small...)...)
	assert.Equal(t, hashRE.FindStringSubmatch(plain)[1], hashRE.FindStringSubmatch(out)[1], "sampling metrics does not change the run")
	code, _, errs = runCLI(append([]string{"run", "--metrics-every", "10m"}, small...)...)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "--metrics-every 10m0s: needs --metrics FILE")
}

// TestHelpGoesToStdoutPerCommand proves `coordsim help CMD` prints that
// command's help (issue 26: it printed the general help), and that help
// asked for with help, -h or --help goes to stdout with exit 0, for every
// command; an unknown command is refused on stderr.
func TestHelpGoesToStdoutPerCommand(t *testing.T) {
	for _, cmd := range []string{"run", "replay", "sweep", "scenarios", "invariants", "serve"} {
		for _, args := range [][]string{{"help", cmd}, {cmd, "-h"}, {cmd, "--help"}} {
			code, out, errs := runCLI(args...)
			assert.Equal(t, exitOK, code, "%v", args)
			assert.Contains(t, out, "usage: coordsim "+cmd+" ", "%v", args)
			assert.NotContains(t, out, "commands:", "%v: the command's help, not the general one", args)
			assert.Empty(t, errs, "%v", args)
		}
	}
	for _, args := range [][]string{{"help"}, {"-h"}, {"--help"}, {"help", "version"}} {
		code, out, errs := runCLI(args...)
		assert.Equal(t, exitOK, code, "%v", args)
		assert.Contains(t, out, "exit codes: 0 clean, 1 violation, 2 usage, 3 I/O", "%v", args)
		assert.Empty(t, errs, "%v", args)
	}
	code, out, errs := runCLI("help", "frobnicate")
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, out)
	assert.Contains(t, errs, `unknown command "frobnicate"`)
}

// TestInvariantsListsTheRegistry proves `coordsim invariants` lists every
// invariant of the registry with its mutants, -v adds the rule, and
// --markdown prints docs/invariants.md's table.
func TestInvariantsListsTheRegistry(t *testing.T) {
	code, out, errs := runCLI("invariants")
	require.Equal(t, exitOK, code, errs)
	for _, inv := range invariants.All() {
		assert.Contains(t, out, inv.Name+"\n  "+inv.Promise+"\n  mutants: "+strings.Join(inv.Mutants, ", ")+"\n")
	}
	assert.NotContains(t, out, "rule:")
	_, out, _ = runCLI("invariants", "-v")
	assert.Contains(t, out, "  rule:    "+invariants.All()[0].Rule)
	_, out, _ = runCLI("invariants", "--markdown")
	assert.Equal(t, invariants.Markdown(), out)
}

// TestSkipInvariantIsNeverSilent proves a run with --skip-invariant says so
// in its summary and JSON, and that its replay command keeps the flag, so
// a rerun checks no more than the run did.
func TestSkipInvariantIsNeverSilent(t *testing.T) {
	code, out, errs := runCLI(append([]string{"run", "--skip-invariant", sim.InvRouting, "--skip-invariant", sim.InvOneOwner}, small...)...)
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, out, "9-one-owner (skipped (--skip-invariant)")
	assert.Contains(t, out, "WARNING         skipped by --skip-invariant (Options.SkipInvariants): 16-routing, 9-one-owner")
	assert.Contains(t, out, "skipped         16-routing: no violation")
	assert.Contains(t, out, "--skip-invariant 16-routing --skip-invariant 9-one-owner")
	code, out, errs = runCLI(append([]string{"run", "--json", "--skip-invariant", sim.InvRouting}, small...)...)
	require.Equal(t, exitOK, code, errs)
	var res sim.Result
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	require.Len(t, res.Skipped, 1)
	assert.Equal(t, sim.InvRouting, res.Skipped[0].Invariant)
	assert.Zero(t, res.Skipped[0].Violations)
}

// TestSweepSummaryCountsSkippedViolations proves a sweep with
// --skip-invariant says, per skipped invariant, how many seeds violated it
// and the first of them: what a bisect reads.
func TestSweepSummaryCountsSkippedViolations(t *testing.T) {
	skipped := func(n int64) []*sim.SkippedInvariant {
		sk := &sim.SkippedInvariant{Invariant: sim.InvOneOwner, Violations: n}
		if n > 0 {
			sk.First = &sim.Violation{Invariant: sim.InvOneOwner, Step: 7}
		}
		return []*sim.SkippedInvariant{sk}
	}
	lines := []*seedLine{{Seed: 9, Skipped: skipped(2)}, {Seed: 4, Skipped: skipped(1)}, {Seed: 5, Skipped: skipped(0)}}
	var out strings.Builder
	assert.Equal(t, exitOK, summarize(lines, nil, &out), "a skipped invariant's violations do not fail the sweep")
	assert.Contains(t, out.String(), "skipped 9-one-owner: violated in 2 of 3 seeds, the first seed 4\n")
}
