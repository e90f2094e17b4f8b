package scenario

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/sim"
)

// TestMarshalRoundTrips proves that every built-in scenario, and a swarm
// seed of one, written by Marshal parses back to the same options.
func TestMarshalRoundTrips(t *testing.T) {
	scs := Builtins()
	sw, err := Builtin("ci")
	require.NoError(t, err)
	sw.Options.Seed = 77
	sim.Swarm(&sw.Options)
	scs = append(scs, sw)
	for _, sc := range scs {
		data, err := Marshal(sc)
		require.NoError(t, err, sc.Name)
		back, err := Parse("emitted.yaml", data)
		require.NoError(t, err, "%s:\n%s", sc.Name, data)
		want := sc.Options
		want.Store, back.Options.Store = nil, nil
		assert.Equal(t, want, back.Options, sc.Name)
		assert.Equal(t, sc.RequiredMarks, back.RequiredMarks, sc.Name)
	}
}
