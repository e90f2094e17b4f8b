package coordinator_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/coordinator/coordtest"
	"github.com/coordsim/coordsim/shard"
)

// TestSetTopicsNilInstallsTheEmptyImage proves Coordinator.SetTopics(nil)
// installs the empty metadata image on every hosted shard (a streams group
// whose source topic vanished is NOT_READY), writes nothing, keeps replay
// equality, and that the image can be installed again.
func TestSetTopicsNilInstallsTheEmptyImage(t *testing.T) {
	h, err := coordtest.New(coordtest.WithTopics(map[string]int32{"foo": 3}))
	require.NoError(t, err)
	_, err = h.JoinStreams("g", "m1", shard.Topology{Epoch: 1, Subtopologies: []shard.Subtopology{{ID: "0", SourceTopics: []string{"foo"}}}})
	require.NoError(t, err)
	h.Poll()
	records := len(h.Records())

	require.NoError(t, h.Coordinator.SetTopics(nil))
	g, err := h.Group("g")
	require.NoError(t, err)
	assert.Equal(t, shard.StateNotReady, g.State)
	assert.Len(t, h.Records(), records, "metadata is not a record")
	require.NoError(t, h.CheckReplay())

	require.NoError(t, h.Coordinator.SetTopics(map[string]int32{"foo": 3}))
	g, err = h.Group("g")
	require.NoError(t, err)
	assert.NotEqual(t, shard.StateNotReady, g.State)
}
