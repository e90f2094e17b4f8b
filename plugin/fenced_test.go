package plugin_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/plugin"
	"github.com/coordsim/coordsim/plugin/memstore"
)

// wrapper claims the fenced methods but says the store it wraps has none.
type wrapper struct{ *memstore.Store }

func (wrapper) SupportsFencing() bool { return false }

// TestAsFenced proves AsFenced accepts a store with the fenced methods, and
// refuses a plain store and a wrapper that reports it cannot fence.
func TestAsFenced(t *testing.T) {
	_, ok := plugin.AsFenced(memstore.New())
	assert.True(t, ok)
	_, ok = plugin.AsFenced(struct{ plugin.Store }{memstore.New()})
	assert.False(t, ok, "a plain Store")
	_, ok = plugin.AsFenced(wrapper{memstore.New()})
	assert.False(t, ok, "a wrapper around an unfenced store")
}

// TestSafeFencedCalls proves the Safe fenced calls check their input before
// the store (a negative token, a nil store, a bad group id: permanent, nothing
// changes), pass ErrFenced through classified permanent, and do not call a
// store whose context is already done.
func TestSafeFencedCalls(t *testing.T) {
	ctx := context.Background()
	s := memstore.New()
	d := plugin.SampleTopology(1, 1)
	require.NoError(t, plugin.SafeSetFenced(ctx, s, "g", 1, d, 3))

	assert.ErrorIs(t, plugin.SafeSetFenced(ctx, s, "g", 2, d, -1), plugin.ErrInvalidArgument)
	assert.ErrorIs(t, plugin.SafeDeleteFenced(ctx, s, "g", -1), plugin.ErrInvalidArgument)
	assert.ErrorIs(t, plugin.SafeDeleteFenced(ctx, s, "", 3), plugin.ErrInvalidArgument)
	assert.ErrorIs(t, plugin.SafeSetFenced(ctx, nil, "g", 1, d, 3), plugin.ErrNoStore)
	assert.ErrorIs(t, plugin.SafeDeleteFenced(ctx, nil, "g", 3), plugin.ErrNoStore)

	err := plugin.SafeDeleteFenced(ctx, s, "g", 2)
	require.ErrorIs(t, err, plugin.ErrFenced)
	assert.Equal(t, plugin.ClassPermanent, plugin.Classify(err))

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	err = plugin.SafeDeleteFenced(cancelled, s, "g", 3)
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, plugin.ClassTransient, plugin.Classify(err))

	got, err := s.GetTopology(ctx, "g", 1)
	require.NoError(t, err)
	assert.True(t, got.Equal(d), "nothing above changed the row")
}

// TestFence proves the shared rule: lower refused, equal and higher accepted,
// no token yet accepted.
func TestFence(t *testing.T) {
	assert.NoError(t, plugin.Fence("g", 0, false, 0))
	assert.NoError(t, plugin.Fence("g", 5, true, 5))
	assert.NoError(t, plugin.Fence("g", 5, true, 6))
	err := plugin.Fence("g", 5, true, 4)
	assert.True(t, errors.Is(err, plugin.ErrFenced))
	assert.ErrorContains(t, err, `group "g": token 4 is below 5`)
	//lint:ignore SA1012 the nil context is the input under test
	assert.NoError(t, plugin.CheckContext(nil), "a nil context is tolerated")
}
