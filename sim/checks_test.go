package sim_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/plugin"
	"github.com/coordsim/coordsim/plugin/memstore"
	"github.com/coordsim/coordsim/sim"
)

// plainStore is memstore seen through Kafka's SPI alone: neither
// plugin.Lister nor plugin.FencedStore.
type plainStore struct{ plugin.Store }

// TestStoreWithoutListerIsRefused proves a store that cannot list its rows
// no longer gives a clean run that checked nothing (issue 26): it is
// refused before the run, by Run and by Preflight alike, with a typed error
// that names the checks and the way out.
func TestStoreWithoutListerIsRefused(t *testing.T) {
	o := small(t)
	o.Protocol = coordinator.CleanupV2
	o.Store = func() (plugin.Store, error) { return hiddenStore{memstore.New()}, nil }
	for name, run := range map[string]func() error{
		"Run":       func() error { _, err := sim.Run(o, nil); return err },
		"Preflight": func() error { return sim.Preflight(o) },
	} {
		err := run()
		var ce *sim.CapabilityError
		require.ErrorAs(t, err, &ce, name)
		assert.Equal(t, "plugin.Lister", ce.Missing, name)
		assert.Contains(t, err.Error(), sim.InvNoDataLossV2, name)
		assert.Contains(t, err.Error(), "--allow-unchecked", name)
	}
}

// TestStoreWithoutListerAllowedRecordsWhatWasSkipped proves that with
// AllowUnchecked the same store runs, and the result says which checks did
// not run and why, in Checks and in a warning.
func TestStoreWithoutListerAllowedRecordsWhatWasSkipped(t *testing.T) {
	o := small(t)
	o.Duration = time.Hour
	o.Protocol = coordinator.CleanupV2
	o.AllowUnchecked = true
	o.Store = func() (plugin.Store, error) { return hiddenStore{memstore.New()}, nil }
	res, err := sim.Run(o, nil)
	require.NoError(t, err)
	require.Len(t, res.Warnings, 1)
	assert.Contains(t, res.Warnings[0], "plugin.Lister")
	off := res.ChecksOff()
	assert.Contains(t, off, sim.InvNoDataLossV2+" (the store does not implement plugin.Lister)")
	assert.Equal(t, len(sim.Invariants), len(res.Checks), "every invariant is listed")
	assert.Less(t, res.ChecksRan(), len(sim.Invariants))
}

// TestProtocolV3WithUnfencedStoreIsRefused proves an unfenced store under
// protocol v3 is refused instead of silently running as v2 (whose move race
// v3 exists to close), and that the same store runs under v2.
func TestProtocolV3WithUnfencedStoreIsRefused(t *testing.T) {
	o := small(t)
	o.Duration = time.Hour
	o.Protocol = coordinator.CleanupV3
	o.AllowUnchecked = true
	o.Store = func() (plugin.Store, error) { return plainStore{memstore.New()}, nil }
	_, err := sim.Run(o, nil)
	var ce *sim.CapabilityError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, "plugin.FencedStore", ce.Missing)
	assert.Contains(t, err.Error(), "--protocol v2")
	require.ErrorAs(t, sim.Preflight(o), &ce)

	o.Protocol = coordinator.CleanupV2
	res, err := sim.Run(o, nil)
	require.NoError(t, err)
	assert.Equal(t, "v2", res.Protocol)
}

// TestResultListsTheChecksThatRan proves a result names every invariant
// and marks the ones its options leave out (no Connect workload: 8 and 17;
// v3: 15, which is v1's), so a reader can tell what a clean run checked.
func TestResultListsTheChecksThatRan(t *testing.T) {
	o := small(t)
	o.Duration = time.Hour
	res, err := sim.Run(o, nil)
	require.NoError(t, err)
	require.Len(t, res.Checks, len(sim.Invariants))
	assert.Empty(t, res.Warnings)
	ran := map[string]bool{}
	for _, c := range res.Checks {
		ran[c.Name] = c.Ran
	}
	assert.True(t, ran[sim.InvNoDataLossV2])
	assert.True(t, ran[sim.InvLiveness])
	assert.False(t, ran[sim.InvSharePartitions], "no Connect workload")
	assert.False(t, ran[sim.InvV1LeaksExplained], "v1 only")
}

// failWriter fails every write after the first n bytes.
type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		return 0, errors.New("no space left on device")
	}
	f.n -= len(p)
	return len(p), nil
}

// TestTraceWriteErrorIsReported proves a trace that cannot be written is
// an error, not a silently short file (issue 26: sim/trace.go never read
// its write error), and that the run itself still completes.
func TestTraceWriteErrorIsReported(t *testing.T) {
	o := small(t)
	o.Duration = 10 * time.Minute
	res, err := sim.Run(o, &failWriter{n: 1000})
	require.ErrorIs(t, err, sim.ErrTrace)
	assert.Contains(t, err.Error(), "no space left on device")
	require.NotNil(t, res, "the result of the completed run comes with the error")
	assert.Positive(t, res.Events)
}

// TestSkipInvariantGoesOnAndSays proves --skip-invariant's contract: a
// planted bug that a check catches no longer stops the run when that
// invariant is skipped, and the result says so (the check is marked not
// run, a warning names it, Skipped counts its violations); an unknown name
// is refused before anything runs.
func TestSkipInvariantGoesOnAndSays(t *testing.T) {
	o := small(t)
	o.Duration = time.Hour
	o.Mutants.PlainAbsPartitionFor = true
	caught, err := sim.Run(o, nil)
	require.NoError(t, err)
	require.NotNil(t, caught.Violation, "the mutant is caught when nothing is skipped")
	require.Equal(t, sim.InvRouting, caught.Violation.Invariant)

	o.SkipInvariants = []string{sim.InvRouting}
	res, err := sim.Run(o, nil)
	require.NoError(t, err)
	if res.Violation != nil {
		assert.NotEqual(t, sim.InvRouting, res.Violation.Invariant)
	}
	assert.Greater(t, res.Events, caught.Events, "the run went past the skipped violation")
	require.Len(t, res.Skipped, 1)
	assert.Equal(t, sim.InvRouting, res.Skipped[0].Invariant)
	assert.Positive(t, res.Skipped[0].Violations)
	require.NotNil(t, res.Skipped[0].First)
	assert.Equal(t, caught.Violation.Step, res.Skipped[0].First.Step, "the first skipped violation is where the unskipped run stopped")
	assert.Contains(t, res.ChecksOff(), sim.InvRouting+" (skipped (--skip-invariant): its violations are counted in skipped, not stopped at)")
	require.Len(t, res.Warnings, 1)
	assert.Contains(t, res.Warnings[0], sim.InvRouting)

	o.SkipInvariants = []string{"16-routng"}
	_, err = sim.Run(o, nil)
	var oe *sim.OptionError
	require.ErrorAs(t, err, &oe)
	assert.Contains(t, oe.Why, `no invariant "16-routng"`)
}

// TestV2KnownHolesOutsideV2Warns: the knob only excuses v2's holes, so a
// run under another protocol says it changes nothing instead of taking it
// silently.
func TestV2KnownHolesOutsideV2Warns(t *testing.T) {
	o := small(t)
	o.Duration = time.Hour
	o.V2KnownHoles = true
	res, err := sim.Run(o, nil)
	require.NoError(t, err)
	require.Len(t, res.Warnings, 1)
	assert.Contains(t, res.Warnings[0], "applies only to protocol v2")
}
