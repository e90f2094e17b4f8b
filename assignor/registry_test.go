package assignor_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/assignor"
	"github.com/coordsim/coordsim/kerr"
)

type fakeAssignor struct{ name string }

func (f fakeAssignor) Name() string                                 { return f.name }
func (fakeAssignor) Assign(*assignor.Spec) (assignor.Target, error) { return nil, nil }

func TestRegistry_DefaultIsKafkasList(t *testing.T) {
	// group.consumer.assignors defaults to uniform,range; the first is the
	// default.
	r := assignor.Default()
	assert.Equal(t, []string{"uniform", "range"}, r.Names())
	assert.Equal(t, "uniform", r.Default().Name())
	a, ok := r.Lookup("range")
	require.True(t, ok)
	assert.Equal(t, "range", a.Name())
	_, ok = r.Lookup("sticky")
	assert.False(t, ok)
}

func TestRegistry_UnsupportedAssignorMessage(t *testing.T) {
	// GroupMetadataManagerTest.testConsumerHeartbeatRequestValidation: an
	// unknown name is UNSUPPORTED_ASSIGNOR with the supported list.
	err := assignor.Default().CheckSupported("bar")
	require.ErrorIs(t, err, kerr.UnsupportedAssignor)
	assert.EqualError(t, err, "UNSUPPORTED_ASSIGNOR: ServerAssignor bar is not supported. Supported assignors: uniform, range.")
	assert.NoError(t, assignor.Default().CheckSupported("range"))

	r, err := assignor.FromNames([]string{"range"})
	require.NoError(t, err)
	assert.EqualError(t, r.CheckSupported("bar"), "UNSUPPORTED_ASSIGNOR: ServerAssignor bar is not supported. Supported assignors: range.")
}

func TestRegistry_FromNamesValidates(t *testing.T) {
	// Unknown, duplicate and empty lists are refused; custom assignors are
	// found by name.
	_, err := assignor.FromNames([]string{"uniform", "sticky"})
	require.ErrorIs(t, err, kerr.InvalidRequest)
	_, err = assignor.FromNames([]string{"uniform", "uniform"})
	require.ErrorIs(t, err, kerr.InvalidRequest)
	_, err = assignor.FromNames(nil)
	require.ErrorIs(t, err, kerr.InvalidRequest)
	_, err = assignor.NewRegistry(fakeAssignor{""})
	require.ErrorIs(t, err, kerr.InvalidRequest)
	r, err := assignor.FromNames([]string{"custom", "range"}, fakeAssignor{"custom"})
	require.NoError(t, err)
	assert.Equal(t, "custom", r.Default().Name())
}

func TestRegistry_Preferred(t *testing.T) {
	// ConsumerGroupTest.testPreferredServerAssignor: the assignor named by
	// the most members wins; none named gives the default; a tie goes to
	// the one listed first; unknown names do not count.
	r := assignor.Default()
	assert.Equal(t, "uniform", r.Preferred(nil).Name())
	assert.Equal(t, "uniform", r.Preferred([]string{"", ""}).Name())
	assert.Equal(t, "range", r.Preferred([]string{"range"}).Name())
	assert.Equal(t, "range", r.Preferred([]string{"range", "range", "uniform"}).Name())
	assert.Equal(t, "uniform", r.Preferred([]string{"range", "uniform"}).Name())
	assert.Equal(t, "range", r.Preferred([]string{"sticky", "sticky", "range"}).Name())
}

// TestPreferredTiesAsKafka reproduces Kafka 4.4's choice between two
// server assignors named by as many members, recorded from its
// coordinator by the differential runner: a member joining with range
// beside one with uniform is assigned with range, and the other way round
// (--no-classic seed 70), as computePreferredServerAssignor's HashMap copy
// puts the new name at the head of the bucket both share; and a steady
// heartbeat of the range member moves the preferred assignor from the
// TimelineHashMap's (uniform) to the copy's (range), which bumps the group
// epoch in Kafka (--share seed 72).
func TestPreferredTiesAsKafka(t *testing.T) {
	r := assignor.Default()
	assert.Equal(t, "range", r.PreferredAfter([]string{"uniform"}, "", "range").Name())
	assert.Equal(t, "uniform", r.PreferredAfter([]string{"range"}, "", "uniform").Name())

	both := []string{"uniform", "range"}
	assert.Equal(t, "uniform", r.Preferred(both).Name())
	assert.Equal(t, "range", r.PreferredAfter(both, "range", "range").Name(), "range removed and added again goes first")
	assert.Equal(t, "uniform", r.PreferredAfter(both, "uniform", "uniform").Name())
	assert.Equal(t, "uniform", r.PreferredAfter([]string{"uniform", "uniform", "range"}, "range", "range").Name(), "no tie")
	assert.Equal(t, "range", r.PreferredAfter([]string{"uniform", "range"}, "uniform", "range").Name(), "a member moving")
	assert.Equal(t, "uniform", r.PreferredAfter(nil, "", "").Name(), "none named: the default")
	assert.Equal(t, "uniform", r.PreferredAfter([]string{"range"}, "range", "").Name(), "the last name dropped")
}
