package sim_test

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/internal/mutant"
	"github.com/coordsim/coordsim/sim"
	"github.com/coordsim/coordsim/sim/invariants"
)

// mutantCase is one planted bug: the mutant.Set field that plants it, the
// invariant that must catch it, and the short simulation that reaches it.
type mutantCase struct {
	field     string // the mutant.Set field
	invariant string
	opts      func(*testing.T) sim.Options
	seeds     uint64 // tried in order until one violates; 0 means 8
	// alsoBy lists other invariants that may catch the mutant first: a
	// bug that breaks two rules is caught by whichever the run reaches first.
	alsoBy []string
}

// mutantCases lists every mutant in internal/mutant with the invariant
// that catches it; docs/mutants.md is the same table in prose.
func mutantCases() []mutantCase {
	race := func(t *testing.T) sim.Options {
		o := builtin(t, "v1-race")
		o.Duration = 3 * time.Hour
		return o
	}
	short := func(d time.Duration, f func(*testing.T) sim.Options) func(*testing.T) sim.Options {
		return func(t *testing.T) sim.Options {
			o := f(t)
			o.Duration = d
			return o
		}
	}
	return []mutantCase{
		{field: "SkipSweepDeferral", invariant: sim.InvNoTombstoneWhileStored, opts: small},
		{field: "ClearUnobservedGroups", invariant: sim.InvClearOnlyObserved, opts: v1(small)},
		// Under v2 the mark re-checks eligibility and refuses these groups:
		// v2 guards against this bug, so the mutant runs under v1.
		{field: "ListNonEmptyForCleanup", invariant: sim.InvDeleteOnlyEligible, opts: v1(small)},
		{field: "NoSingleFlight", invariant: sim.InvSingleFlight, opts: small},
		{field: "ExpireEarly", invariant: sim.InvOffsetRetention, opts: short(time.Hour, small)},
		{field: "FinalizeNeverClears", invariant: sim.InvLiveness, opts: small},
		// Without shard moves, v2 runs the redeployed streams apps whose
		// pushes land during the delete (see maybeRedeploy).
		{field: "FinalizeKeepsAdvanced", invariant: sim.InvNoDataLossV2, opts: func(t *testing.T) sim.Options {
			o := race(t)
			o.Protocol = coordinator.CleanupV2
			o.Faults.ShardMovesPerHour, o.Faults.MoveDuringCycleProb = 0, 0
			return o
		}},
		// The corrupted committed state is what reads answer, so the shadow
		// read check usually sees it before the periodic rebuild does.
		{field: "StoreIgnoresFencingToken", invariant: sim.InvNoDataLossV2, opts: moveRaceV3, seeds: 3},
		{field: "StaleFencingToken", invariant: sim.InvNoDataLossV2, opts: moveRaceV3, seeds: 3},
		{field: "CorruptLiveReplay", invariant: sim.InvReplay, alsoBy: []string{sim.InvReadsCommitted}, opts: func(t *testing.T) sim.Options {
			o := small(t)
			o.ReplayCheckEvery = 20_000
			return o
		}},
		{field: "ShareSinkAckBeforePut", invariant: sim.InvSharePartitions, opts: func(t *testing.T) sim.Options { return builtin(t, "share-kill") }},
		{field: "ShareAckIgnoresOwner", invariant: sim.InvSharePartitions, opts: func(t *testing.T) sim.Options { return builtin(t, "share-at-least-once") }},
		// A coordinator that does not wait for the revocation hands a
		// partition to a new member while its old owner still holds it.
		{field: "SkipRevocation", invariant: sim.InvOneOwner, opts: short(time.Hour, small)},
		// The same for a streams group's active tasks.
		{field: "SkipTaskRevocation", invariant: sim.InvOneOwner, opts: short(time.Hour, small)},
		// A standby handed to the process that still runs the task active.
		// It needs a two-thread process whose standby moves mid-rebalance:
		// about one two-hour seed in six reaches it.
		{field: "SkipStandbyRelease", invariant: sim.InvStandbyApart, opts: small, seeds: 16},

		{field: "V1ClearIgnoresEpoch", invariant: sim.InvClearOnlyObserved, opts: race},
		{field: "NoOffsetsLeftIgnoresTxn", invariant: sim.InvGroupExpiry, opts: short(time.Hour, small)},
		{field: "ExpireStrictlyAfter", invariant: sim.InvOffsetExpiryOnTime, opts: short(time.Hour, small)},
		{field: "IgnoreLegacyExpireTimestamp", invariant: sim.InvOffsetExpiryOnTime, opts: short(time.Hour, small)},
		{field: "ReadsSeeUncommitted", invariant: sim.InvReadsCommitted, opts: short(time.Hour, small)},
		// OffsetFetch stays correct: only the describe-backs can catch it.
		{field: "DescribeSeesUncommitted", invariant: sim.InvReadsCommitted, opts: short(time.Hour, small)},
		{field: "PlainAbsPartitionFor", invariant: sim.InvRouting, opts: short(time.Hour, small)},
		{field: "DeleteNonEmptyGroups", invariant: sim.InvDeleteOnlyEmpty, opts: short(time.Hour, small)},
		{field: "HeartbeatKeepsSessionTimer", invariant: sim.InvNoLiveMemberFenced, opts: short(time.Hour, small)},
		// A classic member that keeps heartbeating is removed by its
		// heartbeat timer: only the rolling upgrade runs classic clients.
		{field: "ClassicHeartbeatKeepsTimer", invariant: sim.InvNoLiveMemberFenced, opts: short(time.Hour, func(t *testing.T) sim.Options { return builtin(t, "rolling-upgrade") })},
		{field: "V1FailedDeletesSucceed", invariant: sim.InvV1LeaksExplained, opts: v1(small)},
		{field: "ExpireSubscribed", invariant: sim.InvOffsetRetention, opts: short(time.Hour, small)},
		{field: "ShareIgnoresMaxInFlight", invariant: sim.InvShareInFlightCapped, opts: func(t *testing.T) sim.Options {
			o := builtin(t, "share-scaling")
			o.Connect.MaxRecordLocks = 100
			return o
		}},
		{field: "DropDLQWrites", invariant: sim.InvDLQConservation, opts: func(t *testing.T) sim.Options { return builtin(t, "share-faults") }},
		{field: "ExpirePendingTxnOffsets", invariant: sim.InvPendingTxnOffsetsKept, opts: short(time.Hour, small)},
		// A shard move without a share member's session timer.
		{field: "LoadDropsShareTimers", invariant: sim.InvMemberTimers, opts: short(time.Hour, small)},
		// A consumer member asked to revoke that jumps to the target epoch.
		{field: "RevokingMemberGetsTargetEpoch", invariant: sim.InvMemberEpochs, opts: short(time.Hour, small)},
		// The store fences too: only the coordinator's own check of the
		// write that follows a plugin call held past a reload of its
		// partition on the same broker catches it. The heavy preset's
		// call-past-reload fault (a leader bounce) reaches that in the ci
		// scenario: 30 of the first 40 heavy seeds, seed 1 among them.
		{field: "SkipCoordinatorFence", invariant: sim.InvCoordinatorFence, opts: heavyCI, seeds: 40},
		{field: "V1SkipsClearAfterDelete", invariant: sim.InvV1LossExplained, opts: v1(small)},
		// The knobs of the swarm's first v2 draw (TestSwarmV2DrawsCatchV2Mutant): v2's
		// known holes are excused there, this leak has no hole event.
		{field: "V2PushSkipsMark", invariant: sim.InvLiveness, opts: func(t *testing.T) sim.Options { return heavySwarm(t, 12) }},
		// A consumer member whose revocation hangs (the revocation-stalled
		// fault) is fenced ten rebalance timeouts late.
		{field: "RebalanceTimerTooLate", invariant: sim.InvRevocationBounded, opts: small},
		// An online upgrade that forgets a classic member's assignment: the
		// consumer group hands its partitions on while the client holds them.
		{field: "UpgradeDropsAssignment", invariant: sim.InvOneOwner, opts: short(2*time.Hour, func(t *testing.T) sim.Options { return builtin(t, "rolling-upgrade") })},
		// A bug in replay itself: the live shard and every rebuild agree
		// (TestReferenceModelSeesReplayBug), only the model disagrees.
		{field: "ReplayCommitsAbortedTxn", invariant: sim.InvReferenceModel, opts: replayModelCheck},
	}
}

// replayModelCheck is the ci scenario for an hour with the replay and
// reference-model checks every 20 000 events: an aborted transaction's
// offsets are gone (expired) by the end of the liveness phase.
func replayModelCheck(t *testing.T) sim.Options {
	o := small(t)
	o.Duration, o.ReplayCheckEvery = time.Hour, 20_000
	return o
}

// TestReferenceModelSeesReplayBug is issue 27's point: a bug in shard's
// replay that every replay repeats (mutant.ReplayCommitsAbortedTxn, kept by
// the checker's own rebuilds as a real bug would be) passes the replay
// equality (7) and the committed reads (10), whose references replay with
// the same code; the reference model (26) sees it. The run skips 26, so it
// goes on to the end, and counts 26's violations.
func TestReferenceModelSeesReplayBug(t *testing.T) {
	o := replayModelCheck(t)
	o.Mutants = mutant.Set{ReplayCommitsAbortedTxn: true}
	o.SkipInvariants = []string{sim.InvReferenceModel}
	r, err := sim.Run(o, nil)
	require.NoError(t, err)
	require.Nil(t, r.Violation, "7, 10 and the others hold: the bug is in both copies")
	require.Len(t, r.Skipped, 1)
	require.Positive(t, r.Skipped[0].Violations, "26 sees the aborted offsets the shard committed")
	t.Logf("26 failed %d times; first: %s", r.Skipped[0].Violations, r.Skipped[0].First.Detail)
}

// heavyCI is the ci scenario under the heavy fault preset, as `coordsim
// sweep --scenario ci --faults heavy` runs it.
func heavyCI(t *testing.T) sim.Options {
	o := builtin(t, "ci")
	var err error
	o.Faults, err = sim.PresetFaults(sim.FaultsHeavy)
	require.NoError(t, err)
	return o
}

func moveRaceV3(t *testing.T) sim.Options {
	o := builtin(t, "v2-move-race")
	o.Protocol = coordinator.CleanupV3
	return o
}

// notYetCaught lists mutants no simulation catches yet, with the reason;
// docs/mutants.md lists them too. The test logs them and fails when one
// gets a case (remove it here then).
var notYetCaught = map[string]string{}

// TestMutationScore is the checker's mutation score: every mutant in
// internal/mutant, planted alone, makes a short simulation violate the
// invariant the registry (sim/invariants) ties it to, within a few seeds. A
// mutant without a case, a case the registry does not list under its
// invariant, or an invariant no mutant proves, fails the test.
func TestMutationScore(t *testing.T) {
	cases := mutantCases()
	byField := map[string]bool{}
	covered := map[string]bool{}
	for _, tc := range cases {
		byField[tc.field] = true
		covered[tc.invariant] = true
	}
	st := reflect.TypeOf(mutant.Set{})
	for i := range st.NumField() {
		name := st.Field(i).Name
		if why, ok := notYetCaught[name]; ok {
			require.False(t, byField[name], "mutant %s has a case: drop it from notYetCaught", name)
			t.Logf("not yet caught: %s (%s)", name, why)
			continue
		}
		require.True(t, byField[name], "mutant %s has no case", name)
	}
	for _, inv := range sim.Invariants {
		require.True(t, covered[inv], "invariant %s has no mutant case", inv)
	}
	trips := map[string]string{} // mutant -> the invariant the registry ties it to
	for _, inv := range invariants.All() {
		for _, m := range inv.Mutants {
			require.Empty(t, trips[m], "the registry lists mutant %s under %s and %s", m, trips[m], inv.Name)
			trips[m] = inv.Name
			require.True(t, byField[m], "the registry lists mutant %s under %s, which has no case", m, inv.Name)
		}
	}
	for _, tc := range cases {
		require.Equal(t, trips[tc.field], tc.invariant, "mutant %s: the registry and the case name different invariants", tc.field)
	}
	for _, tc := range cases {
		t.Run(tc.field, func(t *testing.T) {
			t.Parallel()
			var set mutant.Set
			f := reflect.ValueOf(&set).Elem().FieldByName(tc.field)
			require.True(t, f.IsValid(), "no mutant %s", tc.field)
			f.SetBool(true)
			seeds := tc.seeds
			if seeds == 0 {
				seeds = 8
			}
			var got []string
			for seed := uint64(1); seed <= seeds; seed++ {
				o := tc.opts(t)
				o.Seed, o.Mutants = seed, set
				r, err := sim.Run(o, nil)
				require.NoError(t, err)
				if r.Violation == nil {
					continue
				}
				if r.Violation.Invariant == tc.invariant || slices.Contains(tc.alsoBy, r.Violation.Invariant) {
					require.NotEmpty(t, r.Violation.Trace, "a violation prints the recent trace")
					t.Logf("seed %d: %s at step %d: %s", seed, r.Violation.Invariant, r.Violation.Step, r.Violation.Detail)
					return
				}
				got = append(got, r.Violation.Invariant+": "+r.Violation.Detail)
			}
			t.Fatalf("no seed violated %s (violations seen: %v)", tc.invariant, got)
		})
	}
}
