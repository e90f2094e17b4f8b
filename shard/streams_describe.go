package shard

import (
	"slices"
	"strings"
)

// DescribedStreamsTopology is a streams group's topology as
// StreamsGroupDescribe shows it (Kafka's StreamsGroup.asDescribedGroup):
// when the group has a configured topology and it is ready
// (ConfiguredTopology.isReady), the configured one
// (ConfiguredTopology.asStreamsGroupDescribeTopology), each internal topic
// with the partition count decided over the image its heartbeat saw
// (ConfiguredInternalTopic.asStreamsGroupDescribeTopicInfo); otherwise the
// stored one, with the counts the member sent (0 for "the coordinator
// decides"; StreamsTopology.asStreamsGroupDescribeTopology). Either way the
// subtopologies come sorted by id, the source and repartition sink topics
// by name and the internal topics by name, as both of Kafka's do. Copartition
// groups are not described (they index the unsorted lists). configured is
// the group's configured topology, the soft state the coordinator keeps
// (nil: none, as after the heartbeat that created the group or a load).
// nil when groupID is not a streams group with a topology. The result is
// the caller's.
func (s *Shard) DescribedStreamsTopology(groupID string, configured *ConfiguredTopology) *Topology {
	g := s.lookup(groupID)
	if g == nil || g.typ != Streams || g.topology == nil {
		return nil
	}
	var decided map[string]int32 // internal topic → decided partitions
	if configured != nil {
		if c, err := configureTopics(g.topology, configured.partitionsOf); err == nil && c.isReady() {
			decided = map[string]int32{}
			for _, st := range c.subtopologies {
				for _, ct := range append(slices.Clone(st.repartitionSourceTopics), st.stateChangelogTopics...) {
					decided[ct.Name] = ct.NumPartitions
				}
			}
		}
	}
	out := cloneTopology(g.topology)
	byName := func(a, b TopicInfo) int { return strings.Compare(a.Name, b.Name) }
	for i := range out.Subtopologies {
		st := &out.Subtopologies[i]
		slices.Sort(st.SourceTopics)
		slices.Sort(st.RepartitionSinkTopics)
		slices.SortFunc(st.RepartitionSourceTopics, byName)
		slices.SortFunc(st.StateChangelogTopics, byName)
		st.CopartitionGroups = nil
		for _, infos := range [2][]TopicInfo{st.RepartitionSourceTopics, st.StateChangelogTopics} {
			for j := range infos {
				if n, ok := decided[infos[j].Name]; ok {
					infos[j].Partitions = n
				}
			}
		}
	}
	slices.SortFunc(out.Subtopologies, func(a, b Subtopology) int { return strings.Compare(a.ID, b.ID) })
	return &out
}
