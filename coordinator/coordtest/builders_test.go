package coordtest_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/coordinator/coordtest"
	"github.com/coordsim/coordsim/plugin/memstore"
	"github.com/coordsim/coordsim/shard"
)

// TestWithGroupsSeedsStates proves the builders seed groups in the states
// asked for, as GroupMetadataManagerTestContext.Builder does: a stable
// consumer group with offsets, an empty streams group that keeps its stored
// description epoch and offsets, a share group, a simple group; and that a
// builder asked for an impossible state fails New.
func TestWithGroupsSeedsStates(t *testing.T) {
	cfg := coordinator.DefaultConfig()
	cfg.NumPartitions = 4
	h, err := coordtest.New(coordtest.WithConfig(cfg), coordtest.WithPlugin(memstore.New()),
		coordtest.WithTopics(map[string]int32{"in": 2}),
		coordtest.WithGroups(
			coordtest.ConsumerGroup("c").WithMember("m1", "in").WithMember("m2", "in").WithOffset("in", 0, 7),
			coordtest.StreamsGroup("s", topo).WithMember("m1").WithStoredDescription().WithOffset("in", 1, 3).Empty(),
			coordtest.ShareGroup("sh").WithMember("m1", "in"),
			coordtest.SimpleGroup("simple").WithOffset("in", 0, 1),
		))
	require.NoError(t, err)
	c, err := h.Group("c")
	require.NoError(t, err)
	assert.Equal(t, shard.Consumer, c.Type)
	assert.Len(t, c.Members, 2)
	s, err := h.Group("s")
	require.NoError(t, err)
	assert.Equal(t, shard.Streams, s.Type)
	assert.Equal(t, shard.StateEmpty, s.State)
	assert.Equal(t, int32(1), s.StoredDescriptionTopologyEpoch)
	offs, err := h.Offsets("s")
	require.NoError(t, err)
	assert.Len(t, offs, 1)
	sh, err := h.Group("sh")
	require.NoError(t, err)
	assert.Equal(t, shard.Share, sh.Type)
	simple, err := h.Group("simple")
	require.NoError(t, err)
	assert.Equal(t, shard.Classic, simple.Type)
	require.NoError(t, h.CheckReplay())

	_, err = coordtest.New(coordtest.WithConfig(cfg), coordtest.WithGroups(coordtest.StreamsGroup("x", topo).WithStoredDescription()))
	assert.ErrorContains(t, err, "seeding x: push")
	_, err = coordtest.New(coordtest.WithConfig(cfg), coordtest.WithGroups(coordtest.SimpleGroup("y").WithMember("m")))
	assert.ErrorContains(t, err, "a simple group has no members")
}
