package shard

import (
	"slices"
	"strings"
)

// DescribedStreamsTopology is a streams group's topology as
// StreamsGroupDescribe shows it (Kafka's StreamsGroup.asDescribedGroup):
// when the topology's topics configure (ConfiguredTopology.isReady), the
// configured one (ConfiguredTopology.asStreamsGroupDescribeTopology), each
// internal topic with its decided partition count
// (ConfiguredInternalTopic.asStreamsGroupDescribeTopicInfo); otherwise the
// stored one, with the counts the member sent (0 for "the coordinator
// decides"; StreamsTopology.asStreamsGroupDescribeTopology). Either way the
// subtopologies come sorted by id, the source and repartition sink topics
// by name and the internal topics by name, as both of Kafka's do. Copartition
// groups are not described (they index the unsorted lists). Kafka keeps the
// configured topology of the group's last heartbeat; here readiness is the
// group's validated topology epoch (what that heartbeat persisted) and the
// counts are configured against the shard's current metadata image. nil
// when groupID is not a
// streams group with a topology. The result is the caller's.
func (s *Shard) DescribedStreamsTopology(groupID string) *Topology {
	g := s.lookup(groupID)
	if g == nil || g.typ != Streams || g.topology == nil {
		return nil
	}
	var configured map[string]int32 // internal topic → decided partitions
	// Ready as of the group's last epoch bump (its validated topology epoch,
	// which Kafka persists when the configured topology is ready), and
	// still configurable against the current image.
	if g.validatedTopologyEpoch != g.topology.Epoch {
		// not ready: the stored topology
	} else if c, err := configureTopics(g.topology, s.TopicPartitions); err == nil && c.isReady() {
		configured = map[string]int32{}
		for _, st := range c.subtopologies {
			for _, ct := range append(slices.Clone(st.repartitionSourceTopics), st.stateChangelogTopics...) {
				configured[ct.Name] = ct.NumPartitions
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
				if n, ok := configured[infos[j].Name]; ok {
					infos[j].Partitions = n
				}
			}
		}
	}
	slices.SortFunc(out.Subtopologies, func(a, b Subtopology) int { return strings.Compare(a.ID, b.ID) })
	return &out
}
