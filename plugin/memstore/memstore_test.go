package memstore_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/plugin"
	"github.com/coordsim/coordsim/plugin/memstore"
	"github.com/coordsim/coordsim/plugin/plugintest"
)

// TestConformance proves that memstore, under both policies, keeps every rule of the
// plugin.Store contract.
func TestConformance(t *testing.T) {
	for _, p := range []memstore.Policy{memstore.NewestEpochWins, memstore.LastWriteWins} {
		t.Run(p.String(), func(t *testing.T) {
			plugintest.Run(t, func() (plugin.Store, error) { return memstore.New(memstore.WithPolicy(p)), nil })
		})
	}
}

// TestOlderEpochSet proves the documented choice: by default a set at an older epoch
// succeeds and keeps the newer description; with LastWriteWins it replaces it, as in
// Kafka's in-memory plugin.
func TestOlderEpochSet(t *testing.T) {
	ctx := context.Background()
	d3, d4 := plugin.SampleTopology(3, 1), plugin.SampleTopology(4, 1)
	tests := []struct {
		policy     memstore.Policy
		wantEpoch  int32
		wantStored *plugin.TopologyDescription
	}{
		{memstore.NewestEpochWins, 4, d4},
		{memstore.LastWriteWins, 3, d3},
	}
	for _, tt := range tests {
		t.Run(tt.policy.String(), func(t *testing.T) {
			s := memstore.New(memstore.WithPolicy(tt.policy))
			require.NoError(t, s.SetTopology(ctx, "g", 4, d4))
			require.NoError(t, s.SetTopology(ctx, "g", 3, d3), "a stale set is not a failure")
			got, err := s.GetTopology(ctx, "g", tt.wantEpoch)
			require.NoError(t, err)
			assert.True(t, got.Equal(tt.wantStored), "got %v", got)
			assert.Equal(t, []memstore.Entry{{GroupID: "g", TopologyEpoch: tt.wantEpoch}}, s.List())
		})
	}
}

// TestListSortedAndLen proves that List is sorted by group id whatever the insertion
// order, and that Len counts groups, not epochs.
func TestListSortedAndLen(t *testing.T) {
	ctx := context.Background()
	s := memstore.New()
	d := plugin.SampleTopology(1, 1)
	for i, g := range []string{"c", "a", "b", "a"} {
		require.NoError(t, s.SetTopology(ctx, g, int32(i), d))
	}
	assert.Equal(t, 3, s.Len())
	assert.Equal(t, []memstore.Entry{{GroupID: "a", TopologyEpoch: 3}, {GroupID: "b", TopologyEpoch: 2}, {GroupID: "c", TopologyEpoch: 0}}, s.List())
	require.NoError(t, s.DeleteTopology(ctx, "b"))
	assert.Equal(t, []memstore.Entry{{GroupID: "a", TopologyEpoch: 3}, {GroupID: "c", TopologyEpoch: 0}}, s.List())
}

// TestBadArgumentsArePermanent proves that bad input is refused with a permanent
// error instead of being stored.
func TestBadArgumentsArePermanent(t *testing.T) {
	ctx := context.Background()
	s := memstore.New()
	d := plugin.SampleTopology(1, 1)
	errs := []error{
		s.SetTopology(ctx, "", 1, d),
		s.SetTopology(ctx, "g", -1, d),
		s.SetTopology(ctx, "g", 1, nil),
		s.SetTopology(ctx, "g", 1, &plugin.TopologyDescription{}),
		s.DeleteTopology(ctx, ""),
	}
	_, err := s.GetTopology(ctx, "", 1)
	errs = append(errs, err)
	for i, err := range errs {
		assert.Equal(t, plugin.ClassPermanent, plugin.Classify(err), "case %d: %v", i, err)
	}
	assert.Zero(t, s.Len())
}

// TestCloseDropsRows proves that Close empties the store and later calls fail with
// ErrClosed, concurrently with other callers, without a data race.
func TestCloseDropsRows(t *testing.T) {
	ctx := context.Background()
	s := memstore.New()
	d := plugin.SampleTopology(1, 1)
	require.NoError(t, s.SetTopology(ctx, "g", 1, d))
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() { _, _ = s.GetTopology(ctx, "g", 1) })
	}
	require.NoError(t, s.Close())
	wg.Wait()
	assert.Zero(t, s.Len())
	assert.Empty(t, s.List())
	assert.ErrorIs(t, s.SetTopology(ctx, "g", 2, d), plugin.ErrClosed)
	require.NoError(t, s.Close(), "a second Close is not an error")
}
