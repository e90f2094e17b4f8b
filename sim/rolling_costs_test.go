package sim_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/sim"
	"github.com/coordsim/coordsim/sim/consumption"
)

// TestRollingUpgradeComparedWithAllKIP848 proves the comparison's numbers
// are measured, not made up: measuring the rolling-upgrade run leaves its
// trace as it was (hash 566a0082a2e15a2c since the uniform assignor
// visits members and topics in Kafka's hash-table orders), the baseline
// rolls nothing and
// converts no group, both runs hold
// the same applications, every upgrade roll pauses some partition (an
// eager member releases everything at each rejoin, a leaver's partitions
// wait for their next owner), and each run read some records twice over
// its life.
func TestRollingUpgradeComparedWithAllKIP848(t *testing.T) {
	o := builtin(t, "rolling-upgrade")
	o.Seed = 1
	rolling, err := sim.Run(o, nil)
	require.NoError(t, err)
	require.Nil(t, rolling.Violation)
	assert.Equal(t, "566a0082a2e15a2c", rolling.TraceHash, "measuring the costs must not change the rolling-upgrade run")
	baseline, err := sim.Run(sim.KIP848Baseline(o), nil)
	require.NoError(t, err)
	require.Nil(t, baseline.Violation)
	for _, mark := range []string{"rolling-upgraded", "rolling-downgraded", "group-upgraded", "group-downgraded", "classic-eager-release", "classic-rebalance"} {
		assert.Positive(t, rolling.Marks[mark], mark)
		assert.Zero(t, baseline.Marks[mark], "the baseline runs no classic client and no roll: %s", mark)
	}
	require.NotNil(t, rolling.Consumption)
	require.NotNil(t, baseline.Consumption)
	require.Len(t, baseline.Consumption.Groups, 40)
	upgrades := 0
	for g, gr := range rolling.Consumption.Groups {
		assert.Equal(t, gr.ID, baseline.Consumption.Groups[g].ID)
		assert.Empty(t, baseline.Consumption.Groups[g].Windows, "the baseline has no rolls")
		for _, w := range gr.Windows {
			if w.Kind != consumption.Upgrade {
				continue
			}
			upgrades++
			one := &consumption.Log{Groups: []consumption.Group{{ID: gr.ID, BornMs: gr.BornMs, EndMs: gr.EndMs, Partitions: gr.Partitions, Windows: []consumption.Window{w}}}}
			for _, p := range rolling.Consumption.Pauses {
				if p.Group == g {
					p.Group = 0
					one.Pauses = append(one.Pauses, p)
				}
			}
			scopes, err := consumption.Compare(one, &consumption.Log{Groups: one.Groups})
			require.NoError(t, err)
			assert.Positive(t, scopes[0].Rolling.PauseMs, "group %s's upgrade roll %v paused nothing", gr.ID, w)
		}
	}
	assert.Equal(t, int(rolling.Marks["rolling-upgraded"]), upgrades, "one window per finished upgrade roll")

	c, err := sim.CompareKIP848(rolling, baseline)
	require.NoError(t, err)
	require.Len(t, c.Scopes, 3)
	assert.Equal(t, rolling.TraceHash, c.Rolling.TraceHash)
	assert.Equal(t, baseline.TraceHash, c.Baseline.TraceHash)
	assert.NotEqual(t, c.Rolling.TraceHash, c.Baseline.TraceHash)
	// 40 upgrade rolls and 40 downgrade rolls finished (rollNext stops a
	// roll at its application's end).
	assert.Equal(t, int64(80), c.Rolling.Rolls)
	assert.Zero(t, c.Baseline.Rolls)
	up, whole := c.Scopes[0], c.Scopes[2]
	assert.Equal(t, consumption.ScopeUpgrade, up.Name)
	assert.Equal(t, 40, up.Windows)
	assert.Positive(t, up.Rolling.PauseMs)
	assert.Positive(t, whole.Rolling.Duplicates)
	assert.Positive(t, whole.Baseline.Duplicates, "crashes re-read what was read since the last commit, on either protocol")
	assert.Equal(t, whole.Rolling, rolling.Consumption.Total())
}
