package shard

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// StreamsGroup.asDescribedGroup: a group without a configured topology, or
// whose configured topology is not ready, is described from its stored
// topology, sorted, with the counts the member sent; a ready one from its
// configured topology, with the decided counts of its internal topics. The
// stored topology itself is left as it was.
func TestStreamsGroupAsDescribedGroup(t *testing.T) {
	h := newHarness(t, testConfig(), map[string]int32{"b": 3, "a": 3})
	topology := &Topology{Epoch: 1, Subtopologies: []Subtopology{
		{ID: "1", RepartitionSourceTopics: []TopicInfo{{Name: "app-rp"}}, StateChangelogTopics: []TopicInfo{{Name: "app-z"}, {Name: "app-c"}}},
		{ID: "0", SourceTopics: []string{"b", "a"}, RepartitionSinkTopics: []string{"app-rp"}},
	}}
	assert.Nil(t, h.s.DescribedStreamsTopology("app", nil), "no group")
	r := h.streamsJoin("app", "m", topology)
	require.Contains(t, r.Status, StatusMissingInternalTopics)
	shape := func(d *Topology) ([]string, []string, map[string]int32) {
		require.NotNil(t, d)
		var ids []string
		counts := map[string]int32{}
		for _, st := range d.Subtopologies {
			ids = append(ids, st.ID)
			for _, ti := range append(append([]TopicInfo{}, st.RepartitionSourceTopics...), st.StateChangelogTopics...) {
				counts[ti.Name] = ti.Partitions
			}
		}
		return ids, d.Subtopologies[0].SourceTopics, counts
	}
	ids, sources, counts := shape(h.s.DescribedStreamsTopology("app", h.configured["app"]))
	assert.Equal(t, []string{"0", "1"}, ids)
	assert.Equal(t, []string{"a", "b"}, sources)
	assert.Equal(t, map[string]int32{"app-rp": 0, "app-z": 0, "app-c": 0}, counts, "not ready: the counts sent")

	h.setTopics(map[string]int32{"b": 3, "a": 3, "app-rp": 3, "app-z": 3, "app-c": 3})
	_, _, counts = shape(h.s.DescribedStreamsTopology("app", h.configured["app"]))
	assert.Equal(t, map[string]int32{"app-rp": 0, "app-z": 0, "app-c": 0}, counts, "the configured topology waits for a heartbeat")
	h.streamsHeartbeat("app", "m", r.MemberEpoch)
	d := h.s.DescribedStreamsTopology("app", h.configured["app"])
	ids, _, counts = shape(d)
	assert.Equal(t, []string{"0", "1"}, ids)
	assert.Equal(t, map[string]int32{"app-rp": 3, "app-z": 3, "app-c": 3}, counts, "ready: the decided counts")
	assert.Equal(t, []string{"app-c", "app-z"}, []string{d.Subtopologies[1].StateChangelogTopics[0].Name, d.Subtopologies[1].StateChangelogTopics[1].Name})

	g, _ := h.s.DescribeGroup("app")
	assert.Equal(t, "1", g.Topology.Subtopologies[0].ID, "the stored topology keeps its order")
	assert.Equal(t, []string{"b", "a"}, g.Topology.Subtopologies[1].SourceTopics)
	h.consumerJoin("c", "m", "a")
	assert.Nil(t, h.s.DescribedStreamsTopology("c", nil), "not a streams group")
}
