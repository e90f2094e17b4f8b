package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/coordsim/coordsim/sim"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunComparesRollingUpgradeWithAllKIP848 proves `coordsim run` of a
// rolling-upgrade workload also runs the all-KIP-848 baseline and prints
// both side by side, saying which run is which, in the summary and in the
// JSON; that --compare-kip848=false skips it and that the first run's
// trace hash is the same either way (the second run cannot change the
// first); that --rolling-upgrade-baseline runs the baseline alone, with
// the hash the comparison gave it; and that a workload without
// rolling-upgrade applications is not compared.
func TestRunComparesRollingUpgradeWithAllKIP848(t *testing.T) {
	args := []string{"run", "--scenario", "rolling-upgrade", "--seed", "1", "--duration", "2h"}
	code, out, errs := runCLI(args...)
	require.Equal(t, exitOK, code, errs)
	for _, want := range []string{
		"  KIP-848 comparison  the same seed, faults and applications, run twice:",
		"    rolling upgrade  classic clients rolled onto the consumer protocol and back",
		"    all KIP-848      the same applications on the consumer protocol from the start, never rolled; 0 rolls",
		"rolling upgrade            all KIP-848                ratio",
		"    during the upgrade rolls (", "    during the downgrade rolls (", "    whole run (40 applications, ",
		"      records consumed twice  ", "      partition pause (longest)  ",
	} {
		assert.Contains(t, out, want)
	}

	code, out, errs = runCLI(append(args, "--json")...)
	require.Equal(t, exitOK, code, errs)
	var res struct {
		TraceHash string `json:"trace_hash"`
		KIP848    *struct {
			Rolling struct {
				TraceHash string `json:"trace_hash"`
				Rolls     int64  `json:"rolls"`
			} `json:"rolling_upgrade_run"`
			Baseline struct {
				TraceHash string `json:"trace_hash"`
				Rolls     int64  `json:"rolls"`
			} `json:"all_kip848_run"`
			Scopes []struct {
				Name     string           `json:"name"`
				Rolling  map[string]int64 `json:"rolling_upgrade"`
				Baseline map[string]int64 `json:"all_kip848"`
			} `json:"scopes"`
		} `json:"kip848_comparison"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	require.NotNil(t, res.KIP848)
	assert.Equal(t, res.TraceHash, res.KIP848.Rolling.TraceHash, "the first run is the rolling upgrade")
	assert.NotEqual(t, res.TraceHash, res.KIP848.Baseline.TraceHash)
	assert.Positive(t, res.KIP848.Rolling.Rolls)
	assert.Zero(t, res.KIP848.Baseline.Rolls)
	require.Len(t, res.KIP848.Scopes, 3)
	for _, s := range res.KIP848.Scopes {
		for _, k := range []string{"duplicates", "pause_ms", "longest_pause_ms"} {
			assert.Contains(t, s.Rolling, k, s.Name)
			assert.Contains(t, s.Baseline, k, s.Name)
		}
	}
	assert.Positive(t, res.KIP848.Scopes[2].Rolling["pause_ms"])

	code, out, errs = runCLI(append(args, "--compare-kip848=false")...)
	require.Equal(t, exitOK, code, errs)
	assert.NotContains(t, out, "KIP-848 comparison")
	assert.Contains(t, out, "  trace hash      "+res.TraceHash+"\n")

	code, out, errs = runCLI(append(args, "--rolling-upgrade-baseline")...)
	require.Equal(t, exitOK, code, errs)
	assert.NotContains(t, out, "KIP-848 comparison", "the baseline alone is not compared with itself")
	assert.Contains(t, out, "  trace hash      "+res.KIP848.Baseline.TraceHash+"\n")

	code, out, errs = runCLI(append([]string{"run"}, small...)...)
	require.Equal(t, exitOK, code, errs)
	assert.NotContains(t, out, "KIP-848 comparison", "no rolling-upgrade applications, nothing to compare")
}

// TestCtrlCDuringTheBaselineLeavesTheRunUncompared proves Ctrl-C during
// the all-KIP-848 run stops it and prints the finished first run without
// a comparison, saying why, with the first run's exit code.
func TestCtrlCDuringTheBaselineLeavesTheRunUncompared(t *testing.T) {
	args := []string{"run", "--scenario", "rolling-upgrade", "--seed", "1", "--duration", "2h", "--json"}
	code, out, errs := runCLI(args...)
	require.Equal(t, exitOK, code, errs)
	var res struct {
		Events int64 `json:"events"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	// The first run polls once per 32768 events; the next poll is the
	// baseline's first.
	f := &fakeHost{interruptAt: res.Events/32768 + 1}
	code, out, errs = runWith(f, args[:len(args)-1]...)
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, errs, "coordsim run: no KIP-848 comparison: the all-KIP-848 run was interrupted at step 32768\n")
	assert.NotContains(t, out, "KIP-848 comparison")
	assert.Contains(t, out, "invariants      held")
}

// TestBooleanOptionsReplay proves a printed replay command that sets a
// boolean parameter reruns its run: it was printed "--plugin false", which
// the flag parser refuses ("unexpected argument"), so a run without a
// topology store, or the all-KIP-848 baseline, could not be replayed.
func TestBooleanOptionsReplay(t *testing.T) {
	code, out, errs := runCLI(append([]string{"run", "--plugin=false"}, small...)...)
	require.Equal(t, exitOK, code, errs)
	line := replayLineRE.FindStringSubmatch(out)
	require.NotNil(t, line, out)
	assert.Contains(t, line[1], " --plugin=false")
	assert.Equal(t, hashRE.FindStringSubmatch(out)[1], replayHash(t, line[1]))

	code, out, errs = runCLI("run", "--scenario", "rolling-upgrade", "--seed", "1", "--duration", "1h", "--json")
	require.Equal(t, exitOK, code, errs)
	var res struct {
		KIP848 struct {
			Baseline struct {
				TraceHash string `json:"trace_hash"`
				Replay    string `json:"replay"`
			} `json:"all_kip848_run"`
		} `json:"kip848_comparison"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	assert.Contains(t, res.KIP848.Baseline.Replay, " --rolling-upgrade-baseline=true")
	assert.Equal(t, res.KIP848.Baseline.TraceHash, replayHash(t, res.KIP848.Baseline.Replay), "the baseline's command reruns the baseline")
}

// TestBaselineViolationExitsAsAViolation proves a violation in the
// all-KIP-848 baseline does not pass silently: with a mutant planted in the
// baseline alone (the first run holds every invariant), run prints the
// first run's summary and the comparison, which names the violation and
// the command that replays it, and exits 1, as for a violation of its own;
// the JSON carries it as kip848_comparison.all_kip848_run.violated, with
// its invariant and replay. The same run with a clean baseline exits 0.
func TestBaselineViolationExitsAsAViolation(t *testing.T) {
	args := []string{"run", "--scenario", "rolling-upgrade", "--seed", "1", "--duration", "2h"}
	plant := func(o *sim.Options) { o.Mutants.SkipRevocation = true }

	code, out, errs := runPlanted(plant, args...)
	require.Equal(t, exitViolation, code, errs)
	assert.Contains(t, out, "  invariants      held (the ", "the first run held")
	assert.Contains(t, out, "  KIP-848 comparison  ")
	assert.Regexp(t, `(?m)^    all KIP-848 .*, VIOLATED 9-one-owner at step \d+ \(its figures stop there\)$`, out)
	assert.Regexp(t, `(?m)^                     replay it: .* --rolling-upgrade-baseline=true.* --stop-at \d+$`, out)
	assert.Regexp(t, `(?m)^  baseline        VIOLATED: the all KIP-848 run broke 9-one-owner at step \d+ .*: exit 1$`, out)
	assert.Contains(t, errs, "coordsim run: the all-KIP-848 run VIOLATED 9-one-owner at step ")
	assert.Regexp(t, `(?m)^replay: .*--seed 1 `, out, "the summary still ends with the first run's replay")

	code, out, errs = runPlanted(plant, append(args, "--json")...)
	require.Equal(t, exitViolation, code, errs)
	var res struct {
		Violation *struct{} `json:"violation"`
		KIP848    struct {
			Baseline struct {
				Violation string `json:"violation"`
				Replay    string `json:"replay"`
				Violated  *struct {
					Invariant string `json:"invariant"`
					Step      int64  `json:"step"`
					Detail    string `json:"detail"`
					Replay    string `json:"replay"`
				} `json:"violated"`
			} `json:"all_kip848_run"`
			Rolling struct {
				Violated *struct{} `json:"violated"`
			} `json:"rolling_upgrade_run"`
		} `json:"kip848_comparison"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	assert.Nil(t, res.Violation, "the first run held")
	assert.Nil(t, res.KIP848.Rolling.Violated)
	v := res.KIP848.Baseline.Violated
	require.NotNil(t, v)
	assert.Equal(t, "9-one-owner", v.Invariant)
	assert.NotEmpty(t, v.Detail)
	assert.Equal(t, fmt.Sprintf("%s --stop-at %d", res.KIP848.Baseline.Replay, v.Step), v.Replay)
	assert.Equal(t, fmt.Sprintf("9-one-owner at step %d", v.Step), res.KIP848.Baseline.Violation)

	code, out, errs = runPlanted(func(*sim.Options) {}, args...)
	require.Equal(t, exitOK, code, errs)
	assert.NotContains(t, out, "VIOLATED")
	assert.NotContains(t, errs, "VIOLATED")
}

// runPlanted runs the program with plant changing the all-KIP-848
// baseline's options alone.
func runPlanted(plant func(*sim.Options), args ...string) (code int, stdout, stderr string) {
	a := newApp()
	a.baselineOptions = plant
	var out, errb bytes.Buffer
	code = a.run(args, &out, &errb)
	return code, out.String(), errb.String()
}
