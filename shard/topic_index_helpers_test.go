package shard

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// topicGroupsString lists the index, one "topic group" a line; tests compare
// it with one rebuilt from the groups.
func (s *Shard) topicGroupsString() string {
	var b strings.Builder
	s.topicGroups.Ascend(func(e topicGroup) bool {
		b.WriteString(e.topic + " " + e.group + "\n")
		return true
	})
	return b.String()
}

// rebuiltTopicGroupsString is topicGroupsString of an index built from the
// groups' current topologies.
func (s *Shard) rebuiltTopicGroupsString() string {
	set := map[topicGroup]bool{}
	s.groups.Ascend(func(g *group) bool {
		if g.topology != nil {
			for topic := range g.topology.imageTopics {
				set[topicGroup{topic, g.id}] = true
			}
		}
		return true
	})
	entries := slices.SortedFunc(maps.Keys(set), func(a, b topicGroup) int {
		if c := strings.Compare(a.topic, b.topic); c != 0 {
			return c
		}
		return strings.Compare(a.group, b.group)
	})
	var b strings.Builder
	for _, e := range entries {
		b.WriteString(e.topic + " " + e.group + "\n")
	}
	return b.String()
}

// requireTopicIndexConsistent checks the topic → groups index against the
// groups' topologies and the topologyReady memo against a fresh answer for
// every group's current topology.
func requireTopicIndexConsistent(t testing.TB, s *Shard, ctx string) {
	t.Helper()
	require.Equal(t, s.rebuiltTopicGroupsString(), s.topicGroupsString(), "%s: topic → groups index", ctx)
	s.groups.Ascend(func(g *group) bool {
		if ready, ok := s.ready[g.topology]; ok && g.topology != nil {
			require.Equal(t, topologyReady(g.topology, s.TopicPartitions), ready, "%s: memoized readiness of %s", ctx, g.id)
		}
		return true
	})
}

// setTopicsFrom installs img as the successor of the last image the
// workload prepared (PrepareTopicImageFrom).
func (w *workload) setTopicsFrom(img map[string]int32) {
	w.t.Helper()
	p, err := PrepareTopicImageFrom(w.image, TopicImage{Partitions: img})
	require.NoError(w.t, err)
	w.h.s.SetPreparedTopicImage(p)
	w.h.topics, w.image = maps.Clone(img), p
}

// requireReadsOnlyImageTopics proves topologyReady(tp) over img asks the
// image only about tp.imageTopics, which the topic → groups index keys on:
// a change to any other topic cannot change the answer.
func requireReadsOnlyImageTopics(t testing.TB, tp *Topology, img map[string]int32) {
	t.Helper()
	named := map[string]bool{}
	for topic := range tp.imageTopics {
		named[topic] = true
	}
	topologyReady(tp, func(topic string) int32 {
		require.True(t, named[topic], "topologyReady read %q, which the topology does not name", topic)
		return img[topic]
	})
}

// linkImages makes each of a and b the other's successor, as
// PrepareTopicImageFrom would if either could be prepared first, so a
// benchmark can install them in turn without preparing a new image each
// time.
func linkImages(a, b *PreparedTopicImage) {
	a.base, a.changed = b.id, changedTopics(b.topics, a.topics)
	b.base, b.changed = a.id, changedTopics(a.topics, b.topics)
}

// freshReadiness computes topologyReady over s's image without the memo.
type freshReadiness struct{ s *Shard }

func (r freshReadiness) topologyReady(t *Topology) bool { return topologyReady(t, r.s.TopicPartitions) }
