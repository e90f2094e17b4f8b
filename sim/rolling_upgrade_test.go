package sim_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/sim"
)

// TestRollingUpgradeKeepsOneOwner is Kafka's consumer_protocol_migration
// system test in the simulator: classic applications (eager and
// cooperative) roll onto the consumer protocol and back, and every group is
// upgraded online and downgraded again with no partition held twice.
func TestRollingUpgradeKeepsOneOwner(t *testing.T) {
	o := builtin(t, "rolling-upgrade")
	o.Duration = 3 * time.Hour
	r, err := sim.Run(o, nil)
	require.NoError(t, err)
	require.Nil(t, r.Violation)
	for _, mark := range []string{"group-upgraded", "group-downgraded", "classic-eager-release", "classic-cooperative-second-round"} {
		require.Positive(t, r.Marks[mark], mark)
	}
	require.Equal(t, r.Marks["rolling-upgraded"], r.Marks["group-upgraded"], "every finished roll upgraded its group")
}
