package sim

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFaultKindsAreRowsAndFiles proves the fault seam's shape: every row
// of faultKinds lives in its own file named after it, acts somewhere (a
// kind with keys and no hook would be a switch that does nothing), and
// owns at least one faults.* key; and every faults.* key of Params belongs
// to exactly one kind.
func TestFaultKindsAreRowsAndFiles(t *testing.T) {
	owner := map[string]string{}
	for _, k := range faultKinds {
		file := "fault_" + strings.ReplaceAll(k.name, "-", "_") + ".go"
		_, err := os.Stat(file)
		assert.NoError(t, err, "fault kind %s lives in %s", k.name, file)
		acts := k.store != nil || k.configure != nil || k.connect != nil || k.start != nil || k.pluginCall != nil ||
			k.beforeAppend != nil || k.commitDelay != nil || k.cycleStarted != nil || k.loseHeartbeat != nil || k.crashMember != nil
		assert.True(t, acts, "fault kind %s has no hook: it would never act", k.name)
		require.NotEmpty(t, k.params, "fault kind %s has no keys", k.name)
		for _, p := range k.params {
			assert.True(t, strings.HasPrefix(p.Key, "faults."), "kind %s: key %s is not in the faults section", k.name, p.Key)
			assert.Empty(t, owner[p.Key], "key %s belongs to two kinds", p.Key)
			owner[p.Key] = k.name
		}
	}
	for _, p := range Params {
		if sec, _ := p.Section(); sec == "faults" {
			assert.NotEmpty(t, owner[p.Key], "key %s belongs to no fault kind", p.Key)
		}
	}
}

// TestFaultPresetsKeepTheirValues pins the light and heavy presets, which
// the kinds' files now set piece by piece, to the values they had as one
// literal: a preset that moves changes every scenario built on it.
func TestFaultPresetsKeepTheirValues(t *testing.T) {
	light, err := PresetFaults(FaultsLight)
	require.NoError(t, err)
	assert.Equal(t, Faults{
		PluginTransient: 0.05, PluginPermanent: 0.01, PluginAppliedTransient: 0.01,
		PluginLatencyMin: 5 * time.Millisecond, PluginLatencyMax: 2 * time.Second,
		PluginBurstProb: 0.002, PluginBurstLength: 5,
		ShardMovesPerHour: 0.5, MoveDuringCycleProb: 0.05, LoadDelay: 200 * time.Millisecond,
		AppendFailureProb: 0.002, CommitDelayMax: 50 * time.Millisecond,
		MemberCrashProb: 0.01, LostHeartbeatProb: 0.01,
		ShareLeaderMovesPerHour: 1, SharePersistFailProb: 0.001, ShareDLQFailProb: 0.05, TaskKillsPerHour: 1,
	}, light)
	heavy, err := PresetFaults(FaultsHeavy)
	require.NoError(t, err)
	assert.Equal(t, Faults{
		PluginTransient: 0.2, PluginPermanent: 0.05, PluginAppliedTransient: 0.05,
		PluginLatencyMin: 10 * time.Millisecond, PluginLatencyMax: 30 * time.Second,
		PluginLatencyTailProb: 0.1, PluginLatencyTailMax: 150 * time.Second,
		PluginBurstProb: 0.01, PluginBurstLength: 20,
		ShardMovesPerHour: 4, MoveDuringCycleProb: 0.3, LoadDelay: 2 * time.Second,
		AppendFailureProb: 0.02, CommitDelayMax: 500 * time.Millisecond,
		MemberCrashProb: 0.05, LostHeartbeatProb: 0.05,
		ShareLeaderMovesPerHour: 6, SharePersistFailProb: 0.01, ShareDLQFailProb: 0.2, TaskKillsPerHour: 6,
		// Issue 27: a leader bounce under a held plugin call, so heavy
		// sweeps reach the coordinator's own v3 fence.
		CallPastReloadProb: 0.02, CallPastReloadLatency: time.Minute,
	}, heavy)
	none, err := PresetFaults(FaultsNone)
	require.NoError(t, err)
	assert.Equal(t, Faults{}, none)
	_, err = PresetFaults("medium")
	assert.Error(t, err)
}
