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

// TestUpgradeAfterKafkaResetIsKafkasHole proves the one-owner check names
// Kafka 4.4's online-upgrade hole for what it is, and nothing else: in
// rolling-upgrade seed 244 under heavy faults, classic groups whose
// assignments Kafka's resetAndPropagateAssignmentWithError emptied (a
// rebalance begun while CompletingRebalance, or a failed SyncGroup write)
// are upgraded by the next consumer-protocol join, and a partition a
// cooperative classic client still holds is handed to another member
// (issue 24; coordtest online_migration.txt, group h, is the story request
// by request). The take is counted as the hole, not a violation; the mutant
// UpgradeDropsAssignment, which drops an assignment the classic group did
// have, stays a violation (TestMutationScore). Seeds reaching the hole
// change with the shard's classic code: the 200-seed heavy sweep's
// upgrade-reset-hole marks list them.
func TestUpgradeAfterKafkaResetIsKafkasHole(t *testing.T) {
	o := builtin(t, "rolling-upgrade")
	faults, err := sim.PresetFaults(sim.FaultsHeavy)
	require.NoError(t, err)
	o.Faults, o.Seed = faults, 244
	r, err := sim.Run(o, nil)
	require.NoError(t, err)
	require.Nil(t, r.Violation)
	require.Positive(t, r.Marks["upgrade-reset-hole"], "the seed no longer reaches the hole: pick another")
}

// TestUpgradeDropsAssignmentCaughtUnderHeavyFaults proves the hole's
// excuse does not hide coordsim's own upgrade bug: with the mutant
// UpgradeDropsAssignment planted, every one of the first heavy seeds of
// rolling-upgrade still violates 9-one-owner.
func TestUpgradeDropsAssignmentCaughtUnderHeavyFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("20 seeds of rolling-upgrade")
	}
	for seed := uint64(1); seed <= 20; seed++ {
		o := builtin(t, "rolling-upgrade")
		faults, err := sim.PresetFaults(sim.FaultsHeavy)
		require.NoError(t, err)
		o.Faults, o.Seed, o.Mutants.UpgradeDropsAssignment = faults, seed, true
		r, err := sim.Run(o, nil)
		require.NoError(t, err)
		require.NotNil(t, r.Violation, "seed %d", seed)
		require.Equal(t, sim.InvOneOwner, r.Violation.Invariant, "seed %d: %s", seed, r.Violation.Detail)
	}
}
