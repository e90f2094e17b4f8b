package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/sim"
	"github.com/coordsim/coordsim/sim/connectsim"
	"github.com/coordsim/coordsim/sim/scenario"
)

func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = newApp().run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// small is a scenario and duration that finish in well under a second.
var small = []string{"--scenario", "ci", "--duration", "1h"}

// TestRunPrintsSummaryAndReplayCommand proves run prints the summary a user
// reads (events, invariants, the replay command) and exits 0.
func TestRunPrintsSummaryAndReplayCommand(t *testing.T) {
	code, out, _ := runCLI(append([]string{"run"}, small...)...)
	require.Equal(t, exitOK, code, out)
	for _, want := range []string{"events", "virtual/wall", "cleanup cycles", "invariants      held",
		"replay: go run ./cmd/coordsim replay --scenario ci --seed 1 --duration 1h0m0s"} {
		assert.Contains(t, out, want)
	}
	assert.NotContains(t, out, "  sink ", "no connector lines without a Connect workload")
}

// TestSummaryPrintsSinks proves the summary has one line per connector after
// the shard moves: its counts, the refusal of a refused one, the kill
// redelivery when a task was killed with records in flight, and the
// rebalance pauses of a consumer-group sink.
func TestSummaryPrintsSinks(t *testing.T) {
	sc := &scenario.Scenario{Name: "connect", Options: sim.DefaultOptions()}
	r := &sim.Result{Connect: []connectsim.SinkResult{
		{Name: "s3", Kind: "share", Group: "connect-s3", TasksStarted: 2, Produced: 180000, Received: 180240, Unique: 180000,
			Duplicates: 240, ThroughputPerSec: 100.2},
		{Name: "s4", Kind: "share", Group: "connect-s4", TasksStarted: 3, TasksKilled: 1, Produced: 10, Received: 10, Unique: 10,
			Redeliveries: 4, Lost: 1, Undelivered: 2, KilledInFlight: 4, KilledRedelivered: 4, MaxKillRedeliveryMs: 31_200},
		{Name: "jdbc", Kind: "consumer", Group: "connect-jdbc", TasksStarted: 6, RebalancePauses: 7, RebalancePausedMs: 21_000},
		{Name: "x", Kind: "share", Group: "orders", Refused: "group orders is a consumer group"},
	}}
	var out bytes.Buffer
	printSummary(&out, sc, r)
	want := []string{
		"  shard moves     0",
		"  sink s3 (share, group connect-s3)  produced 180000, received 180240 (unique 180000, duplicates 240), redelivered 0, archived 0, dead-lettered 0, lost 0, tasks started 2 failed 0 killed 0, throughput 100 records/s",
		"  sink s4 (share, group connect-s4)  produced 10, received 10 (unique 10, duplicates 0), redelivered 4, archived 0, dead-lettered 0, lost 1, undelivered 2, tasks started 3 failed 0 killed 1, throughput 0 records/s, killed in flight 4, redelivered 4, longest wait 31.2s",
		"  sink jdbc (consumer, group connect-jdbc)  produced 0, received 0 (unique 0, duplicates 0), redelivered 0, archived 0, dead-lettered 0, lost 0, tasks started 6 failed 0 killed 0, throughput 0 records/s, rebalance pauses 7 (21s paused)",
		"  sink x (share, group orders)  REFUSED: group orders is a consumer group",
	}
	assert.Contains(t, out.String(), strings.Join(want, "\n")+"\n", "the sink lines follow the shard moves, in the workload's order")
}

// TestRunJSONAndFiles proves --json is valid JSON with the result, and that
// --report, --metrics and --trace write their files.
func TestRunJSONAndFiles(t *testing.T) {
	dir := t.TempDir()
	report, metrics, trace := filepath.Join(dir, "r.html"), filepath.Join(dir, "m.prom"), filepath.Join(dir, "t.txt")
	code, out, errs := runCLI(append([]string{"run", "--json", "--report", report, "--metrics", metrics, "--trace", trace,
		"--check-determinism"}, small...)...)
	require.Equal(t, exitOK, code, errs)
	var res struct {
		Seed      uint64 `json:"seed"`
		Events    int64  `json:"events"`
		TraceHash string `json:"trace_hash"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	assert.Equal(t, uint64(1), res.Seed)
	assert.Positive(t, res.Events)
	assert.Contains(t, errs, "determinism: two runs, trace hash "+res.TraceHash)
	for _, f := range []string{report, metrics, trace} {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		assert.NotEmpty(t, b, f)
	}
	m, _ := os.ReadFile(metrics)
	assert.Contains(t, string(m), "kafka_coordinator_offset_commit_total")
	tr, _ := os.ReadFile(trace)
	lines := int64(strings.Count(string(tr), "\n"))
	assert.Positive(t, lines)
	assert.LessOrEqual(t, lines, res.Events, "at most one line per event (polls that ran nothing are not traced)")
	assert.True(t, strings.HasPrefix(string(tr), "step="), "trace lines start with their step")
}

// TestReplayStopsAtStep proves replay stops after the given step and prints
// the trace window there.
func TestReplayStopsAtStep(t *testing.T) {
	code, out, errs := runCLI(append([]string{"replay", "--stop-at", "500", "--window", "5"}, small...)...)
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, out, "stopped at step 500")
	assert.Contains(t, out, "last 5 trace events")
	assert.Contains(t, out, "step=500 ")
}

// TestSweepShardsAndMerge proves a sweep split with --shard and merged with
// --merge gives the same summary as one sweep, and prints one JSON line per
// seed.
func TestSweepShardsAndMerge(t *testing.T) {
	base := append([]string{"sweep", "--seeds", "4", "--parallel", "2"}, small...)
	code, whole, errs := runCLI(base...)
	require.Equal(t, exitOK, code, errs)
	require.Equal(t, 4, strings.Count(whole, "\n"))
	dir := t.TempDir()
	var files []string
	for i, part := range []string{"0/2", "1/2"} {
		code, out, errs := runCLI(append(append([]string{}, base...), "--shard", part)...)
		require.Equal(t, exitOK, code, errs)
		f := filepath.Join(dir, []string{"a.jsonl", "b.jsonl"}[i])
		require.NoError(t, os.WriteFile(f, []byte(out), 0o600))
		files = append(files, f)
	}
	code, merged, _ := runCLI(append([]string{"sweep", "--merge"}, files...)...)
	require.Equal(t, exitOK, code)
	assert.Contains(t, merged, "sweep summary: 4 seeds")
	assert.Contains(t, errs, "sweep summary: 4 seeds")
}

// TestSweepFailsOnMissingRequiredMark proves a sweep exits 1 when a required
// mark was never reached.
func TestSweepFailsOnMissingRequiredMark(t *testing.T) {
	code, _, errs := runCLI(append([]string{"sweep", "--seeds", "1", "--require-marks", "share-leader-move"}, small...)...)
	assert.Equal(t, exitViolation, code)
	assert.Contains(t, errs, "REQUIRED MARK NEVER REACHED: share-leader-move")
}

// TestBadUsageExitsTwo proves bad commands, flags, scenarios and values exit
// 2 with a message, and help exits 0.
func TestBadUsageExitsTwo(t *testing.T) {
	for _, args := range [][]string{
		{"frobnicate"},
		{"run", "--no-such-flag"},
		{"run", "--scenario", "no-such-scenario"},
		{"run", "--faults", "extreme"},
		{"run", "--protocol", "v4"},
		{"run", "--brokers", "0"},
		{"run", "--store", "sqlite"},
		{"run", "extra-argument"},
		{"sweep", "--shard", "2/2"},
		{"sweep", "--seeds", "0"},
		{"replay", "--stop-at", "-1"},
	} {
		code, _, errs := runCLI(args...)
		assert.Equal(t, exitUsage, code, "%v", args)
		assert.NotEmpty(t, errs, "%v", args)
	}
	code, out, _ := runCLI("help")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "commands:")
	code, out, _ = runCLI("scenarios", "-v")
	assert.Equal(t, exitOK, code)
	for _, name := range []string{"ci", "default", "v1-race", "large"} {
		assert.Contains(t, out, name)
	}
}

// TestBadScenarioFileNamesLineAndKey proves a bad YAML file is refused with
// its line and the offending key.
func TestBadScenarioFileNamesLineAndKey(t *testing.T) {
	f := filepath.Join(t.TempDir(), "bad.yaml")
	require.NoError(t, os.WriteFile(f, []byte("name: bad\nworkload:\n  membrs_max: 3\n"), 0o600))
	code, _, errs := runCLI("run", "--scenario", f)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, ":3:")
	assert.Contains(t, errs, "membrs_max")
}

// TestGroupCountsNameSimpleGroups proves the summary's group counts call
// Kafka's member-less classic groups "simple" at the end as at creation
// (and as the report does), in Kafka's type order.
func TestGroupCountsNameSimpleGroups(t *testing.T) {
	assert.Equal(t, "consumer/STABLE=1 streams/EMPTY=3 simple/EMPTY=2",
		joinCounts(map[string]int{"classic/EMPTY": 2, "consumer/STABLE": 1, "streams/EMPTY": 3}))
	assert.Equal(t, "consumer=1 simple=2", joinCounts(map[string]int{"simple": 2, "consumer": 1}))
}
