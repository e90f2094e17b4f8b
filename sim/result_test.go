package sim_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/sim"
)

// TestConnectorGroupsAreCounted proves a scenario whose only groups are its
// connectors' lists them among the groups created (the report and the
// summary showed none).
func TestConnectorGroupsAreCounted(t *testing.T) {
	o := builtin(t, "share-sink")
	res, err := sim.Run(o, nil)
	require.NoError(t, err)
	assert.Equal(t, 1, res.GroupsCreated["share"], "the share sink's group")
}
