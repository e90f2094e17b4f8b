package shard

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/kerr"
)

// richTopology is a two-subtopology topology with every field Kafka's
// StreamsGroupTopologyValue carries: subtopology 0 reads "in" and writes the
// repartition topic "rp"; subtopology 1 reads "rp" and "side", copartitioned,
// and backs a store with "store-changelog".
func richTopology() *Topology {
	return &Topology{Epoch: 1, Subtopologies: []Subtopology{
		{ID: "0", SourceTopics: []string{"in"}, RepartitionSinkTopics: []string{"rp"}},
		{ID: "1", SourceTopics: []string{"side"}, RepartitionSourceTopics: []TopicInfo{{Name: "rp"}},
			StateChangelogTopics: []TopicInfo{{Name: "store-changelog", Configs: []TopicConfig{{Key: "cleanup.policy", Value: "compact"}}}},
			CopartitionGroups:    []CopartitionGroup{{SourceTopics: []int16{0}, RepartitionSourceTopics: []int16{0}}}},
	}}
}

// A subtopology is stateful exactly when it has state changelog topics, as
// Kafka's TopologyDescriber.isStateful says; the sticky task assignor reads it.
func TestSubtopologyStateful(t *testing.T) {
	tp := richTopology()
	assert.False(t, tp.Subtopologies[0].Stateful())
	assert.True(t, tp.Subtopologies[1].Stateful())
}

// RequiredTopics is Kafka's StreamsTopology.requiredTopics: sources,
// repartition sources and changelogs, not the sink topics.
func TestStreamsTopology_RequiredTopics(t *testing.T) {
	assert.Equal(t, []string{"in", "rp", "side", "store-changelog"}, richTopology().RequiredTopics())
}

// A clone shares no slice with the original, and topologyEqual notices a
// change in every field.
func TestCloneTopologyAndEqual(t *testing.T) {
	orig := richTopology()
	c := cloneTopology(orig)
	require.True(t, topologyEqual(orig, &c))
	mutations := []func(*Topology){
		func(t *Topology) { t.Subtopologies[0].RepartitionSinkTopics[0] = "x" },
		func(t *Topology) { t.Subtopologies[1].RepartitionSourceTopics[0].Partitions = 4 },
		func(t *Topology) { t.Subtopologies[1].RepartitionSourceTopics[0].ReplicationFactor = 3 },
		func(t *Topology) { t.Subtopologies[1].StateChangelogTopics[0].Name = "x" },
		func(t *Topology) { t.Subtopologies[1].StateChangelogTopics[0].Configs[0].Value = "delete" },
		func(t *Topology) { t.Subtopologies[1].CopartitionGroups[0].SourceTopics = nil },
	}
	for i, mutate := range mutations {
		m := cloneTopology(orig)
		mutate(&m)
		assert.False(t, topologyEqual(orig, &m), "mutation %d", i)
		assert.True(t, topologyEqual(orig, richTopology()), "mutation %d reached the original", i)
	}
}

// Bad topologies are refused with STREAMS_INVALID_TOPOLOGY (a bad topic name
// with INVALID_TOPIC_EXCEPTION) before anything is written; a good one joins.
func TestValidateTopology_InternalTopicsBadInput(t *testing.T) {
	cases := map[string]struct {
		mutate func(*Topology)
		want   error
	}{
		"no source topics": {func(t *Topology) { t.Subtopologies[0].SourceTopics = nil }, kerr.StreamsInvalidTopology},
		"copartition source index out of range": {func(t *Topology) {
			t.Subtopologies[1].CopartitionGroups[0].SourceTopics = []int16{1}
		}, kerr.StreamsInvalidTopology},
		"copartition repartition index negative": {func(t *Topology) {
			t.Subtopologies[1].CopartitionGroups[0].RepartitionSourceTopics = []int16{-1}
		}, kerr.StreamsInvalidTopology},
		"negative partitions":         {func(t *Topology) { t.Subtopologies[1].RepartitionSourceTopics[0].Partitions = -1 }, kerr.StreamsInvalidTopology},
		"changelog fixes partitions":  {func(t *Topology) { t.Subtopologies[1].StateChangelogTopics[0].Partitions = 2 }, kerr.StreamsInvalidTopology},
		"negative replication factor": {func(t *Topology) { t.Subtopologies[1].StateChangelogTopics[0].ReplicationFactor = -1 }, kerr.StreamsInvalidTopology},
		"empty changelog name":        {func(t *Topology) { t.Subtopologies[1].StateChangelogTopics[0].Name = "" }, kerr.InvalidTopicException},
		"empty sink name":             {func(t *Topology) { t.Subtopologies[0].RepartitionSinkTopics[0] = "" }, kerr.InvalidTopicException},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, testConfig(), nil)
			tp := richTopology()
			tc.mutate(tp)
			res, err := h.s.StreamsGroupHeartbeat(h.nowMs, StreamsGroupHeartbeatRequest{GroupID: "g", MemberID: "m", RebalanceTimeoutMs: 1000, Topology: tp})
			assert.ErrorIs(t, err, tc.want)
			assert.Empty(t, res.Records, "a refused join writes nothing")
		})
	}
	h := newHarness(t, testConfig(), nil)
	res, err := h.s.StreamsGroupHeartbeat(h.nowMs, StreamsGroupHeartbeatRequest{GroupID: "g", MemberID: "m", RebalanceTimeoutMs: 1000, Topology: richTopology()})
	mustApply(h, res, err)
	assert.True(t, topologyEqual(richTopology(), h.s.lookup("g").topology))
	assert.True(t, topologyEqual(richTopology(), h.rebuild().lookup("g").topology), "replay keeps every field")
}
