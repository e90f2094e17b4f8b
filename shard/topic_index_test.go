package shard

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTopologyReadyReadsOnlyImageTopics proves, for the random workloads'
// topologies under images that hold none, some or all of their topics, that
// readiness reads only the topics the index keys a group under
// (FuzzConfigureTopics checks the same on fuzzed topologies).
func TestTopologyReadyReadsOnlyImageTopics(t *testing.T) {
	for _, tp := range wlTopologies {
		for _, img := range []map[string]int32{{}, {"t0": 1, "t1": 2}, {"t0": 2, "t1": 2, "t2": 2, "t3": 2}} {
			requireReadsOnlyImageTopics(t, tp, img)
		}
	}
}

// TestNewImageRederivesOnlyGroupsOnChangedTopics proves a new image re-derives
// the streams groups whose topology names a topic whose partition count
// changed, whether it is installed as the successor of the shard's image
// (PrepareTopicImageFrom) or not, and that a group on other topics keeps
// its state: app-a waits for its changelog topic, app-b reads only "in".
func TestNewImageRederivesOnlyGroupsOnChangedTopics(t *testing.T) {
	stateful := &Topology{Epoch: 0, Subtopologies: []Subtopology{{ID: "0", SourceTopics: []string{"in"},
		StateChangelogTopics: []TopicInfo{{Name: "app-a-store-changelog"}}}}}
	for _, successor := range []bool{true, false} {
		h := newHarness(t, testConfig(), map[string]int32{"in": 2})
		base, err := PrepareTopicImage(TopicImage{Partitions: map[string]int32{"in": 2}})
		require.NoError(t, err)
		h.s.SetPreparedTopicImage(base)
		epochA := h.streamsJoin("app-a", "m1", stateful).MemberEpoch
		h.streamsJoin("app-b", "m1", topo(0, "in"))
		state := func(id string) GroupState {
			d, ok := h.s.DescribeGroup(id)
			require.True(t, ok)
			return d.State
		}
		require.Equal(t, StateNotReady, state("app-a"), "the changelog topic is missing")
		require.NotEqual(t, StateNotReady, state("app-b"))
		b := state("app-b")

		next := TopicImage{Partitions: map[string]int32{"in": 2, "app-a-store-changelog": 2}}
		var p *PreparedTopicImage
		if successor {
			p, err = PrepareTopicImageFrom(base, next)
			require.NoError(t, err)
			assert.Equal(t, []string{"app-a-store-changelog"}, p.changed)
			assert.Equal(t, []string{"app-a"}, h.s.groupsOnChangedTopics(p), "through the successor's changed topics")
		} else {
			p, err = PrepareTopicImage(next)
			require.NoError(t, err)
			assert.Equal(t, []string{"app-a"}, h.s.groupsOnChangedTopics(p), "through the index walk")
		}
		h.s.SetPreparedTopicImage(p)
		h.topics = next.Partitions
		assert.Equal(t, StateNotReady, state("app-a"), "successor=%v: until a heartbeat validates the topology", successor)
		h.streamsHeartbeat("app-a", "m1", epochA)
		assert.NotEqual(t, StateNotReady, state("app-a"), "successor=%v: the changelog topic exists now", successor)
		assert.Equal(t, b, state("app-b"))
		requireIndexesConsistent(t, h.s, "successor=%v", successor)
		requireSnapshotEqual(t, h.rebuild().Snapshot(), h.s.Snapshot(), "successor=%v: a rebuild", successor)
	}
}
