package shard

import (
	"fmt"
	"slices"

	"github.com/coordsim/coordsim/kerr"
)

// Helpers over the streams topology model (records.go's Topology,
// Subtopology, TopicInfo, CopartitionGroup): copies, equality, the topics a
// topology needs and its validation.

// Stateful reports whether the subtopology has state stores backed by
// changelog topics: Kafka's TopologyDescriber.isStateful, which the sticky
// task assignor reads to place standby tasks.
func (st *Subtopology) Stateful() bool { return len(st.StateChangelogTopics) > 0 }

// ReadsTopic reports whether the subtopology reads topic, as a source or a
// repartition source topic.
func (st *Subtopology) ReadsTopic(topic string) bool {
	return slices.Contains(st.SourceTopics, topic) || slices.ContainsFunc(st.RepartitionSourceTopics, func(ti TopicInfo) bool {
		return ti.Name == topic
	})
}

// hasInternalTopics reports whether the topology has repartition or
// changelog topics or copartition groups: only then does the coordinator
// configure internal topics; a topology of source topics alone is ready
// when they exist.
func (t *Topology) hasInternalTopics() bool {
	for i := range t.Subtopologies {
		st := &t.Subtopologies[i]
		if len(st.RepartitionSourceTopics)+len(st.RepartitionSinkTopics)+len(st.StateChangelogTopics)+len(st.CopartitionGroups) > 0 {
			return true
		}
	}
	return false
}

// RepartitionSourceTopicNames returns the names of the repartition source
// topics, in the topology's order.
func (st *Subtopology) RepartitionSourceTopicNames() []string {
	return topicInfoNames(st.RepartitionSourceTopics)
}

// StateChangelogTopicNames returns the names of the state changelog topics,
// in the topology's order.
func (st *Subtopology) StateChangelogTopicNames() []string {
	return topicInfoNames(st.StateChangelogTopics)
}

func topicInfoNames(infos []TopicInfo) []string {
	if len(infos) == 0 {
		return nil
	}
	out := make([]string, len(infos))
	for i, ti := range infos {
		out[i] = ti.Name
	}
	return out
}

// copartitionTopics resolves a copartition group's indexes to topic names,
// the source topics first (Kafka's copartitionGroupsFromPersistedSubtopology).
// The indexes were validated with the topology.
func copartitionTopics(st *Subtopology, cg CopartitionGroup) []string {
	out := make([]string, 0, len(cg.SourceTopics)+len(cg.RepartitionSourceTopics))
	for _, i := range cg.SourceTopics {
		out = append(out, st.SourceTopics[i])
	}
	for _, i := range cg.RepartitionSourceTopics {
		out = append(out, st.RepartitionSourceTopics[i].Name)
	}
	return out
}

// RequiredTopics is Kafka's StreamsTopology.requiredTopics: every source,
// repartition source and state changelog topic of the topology, sorted and
// deduplicated. The group's metadata hash covers them, so creating a missing
// internal topic bumps the group epoch and reconfigures the topology.
func (t *Topology) RequiredTopics() []string {
	var out []string
	for i := range t.Subtopologies {
		st := &t.Subtopologies[i]
		out = append(out, st.SourceTopics...)
		out = append(out, st.RepartitionSourceTopicNames()...)
		out = append(out, st.StateChangelogTopicNames()...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// cloneTopology deep-copies t, so the group and its record never alias a
// request.
func cloneTopology(t *Topology) Topology {
	c := Topology{Epoch: t.Epoch, Subtopologies: make([]Subtopology, len(t.Subtopologies))}
	for i, st := range t.Subtopologies {
		c.Subtopologies[i] = Subtopology{
			ID:                      st.ID,
			SourceTopics:            slices.Clone(st.SourceTopics),
			RepartitionSinkTopics:   slices.Clone(st.RepartitionSinkTopics),
			RepartitionSourceTopics: cloneTopicInfos(st.RepartitionSourceTopics),
			StateChangelogTopics:    cloneTopicInfos(st.StateChangelogTopics),
		}
		for _, cg := range st.CopartitionGroups {
			c.Subtopologies[i].CopartitionGroups = append(c.Subtopologies[i].CopartitionGroups, CopartitionGroup{
				SourceTopics: slices.Clone(cg.SourceTopics), RepartitionSourceTopics: slices.Clone(cg.RepartitionSourceTopics),
			})
		}
	}
	return c
}

func cloneTopicInfos(infos []TopicInfo) []TopicInfo {
	if infos == nil {
		return nil
	}
	out := make([]TopicInfo, len(infos))
	for i, ti := range infos {
		out[i] = ti
		out[i].Configs = slices.Clone(ti.Configs)
	}
	return out
}

// topologyEqual is Kafka's StreamsTopology.equals: the same epoch and the
// same subtopologies, field by field (nil and empty lists are equal, as
// Kafka's records do not tell them apart).
func topologyEqual(a, b *Topology) bool {
	return a.Epoch == b.Epoch && slices.EqualFunc(a.Subtopologies, b.Subtopologies, subtopologyEqual)
}

func subtopologyEqual(x, y Subtopology) bool {
	return x.ID == y.ID && slices.Equal(x.SourceTopics, y.SourceTopics) &&
		slices.Equal(x.RepartitionSinkTopics, y.RepartitionSinkTopics) &&
		slices.EqualFunc(x.RepartitionSourceTopics, y.RepartitionSourceTopics, topicInfoEqual) &&
		slices.EqualFunc(x.StateChangelogTopics, y.StateChangelogTopics, topicInfoEqual) &&
		slices.EqualFunc(x.CopartitionGroups, y.CopartitionGroups, func(a, b CopartitionGroup) bool {
			return slices.Equal(a.SourceTopics, b.SourceTopics) && slices.Equal(a.RepartitionSourceTopics, b.RepartitionSourceTopics)
		})
}

func topicInfoEqual(a, b TopicInfo) bool {
	return a.Name == b.Name && a.Partitions == b.Partitions && a.ReplicationFactor == b.ReplicationFactor && slices.Equal(a.Configs, b.Configs)
}

// validateTopology checks a topology from a join or a record. Kafka leaves
// most of this to the client; coordsim refuses what would make the
// coordinator's own computations meaningless, with STREAMS_INVALID_TOPOLOGY.
func validateTopology(t *Topology) error {
	if t.Epoch < 0 {
		return kerr.InvalidRequest.WithMessage("topology epoch is %d, but must be >= 0", t.Epoch)
	}
	if len(t.Subtopologies) == 0 {
		return kerr.StreamsInvalidTopology.WithMessage("topology has no subtopologies")
	}
	seen := map[string]bool{}
	for i := range t.Subtopologies {
		st := &t.Subtopologies[i]
		if st.ID == "" {
			return kerr.StreamsInvalidTopology.WithMessage("subtopology with an empty id")
		}
		if seen[st.ID] {
			return kerr.StreamsInvalidTopology.WithMessage("duplicate subtopology id %q", st.ID)
		}
		seen[st.ID] = true
		if err := validateSubtopology(st); err != nil {
			return err
		}
	}
	return nil
}

func validateSubtopology(st *Subtopology) error {
	if len(st.SourceTopics)+len(st.RepartitionSourceTopics) == 0 {
		// Kafka's ChangelogTopics.setup and computeNumberOfTasks.
		return kerr.StreamsInvalidTopology.WithMessage("No source topics found for subtopology %s", st.ID)
	}
	// A bad topic name is INVALID_TOPIC_EXCEPTION, wrapped with the subtopology.
	names := append(slices.Clone(st.SourceTopics), st.RepartitionSinkTopics...)
	names = append(names, st.RepartitionSourceTopicNames()...)
	for _, topic := range append(names, st.StateChangelogTopicNames()...) {
		if err := validateTopicName(topic); err != nil {
			return fmt.Errorf("subtopology %q: %w", st.ID, err)
		}
	}
	for _, infos := range [][]TopicInfo{st.RepartitionSourceTopics, st.StateChangelogTopics} {
		for _, ti := range infos {
			if ti.Partitions < 0 || ti.Partitions > MaxTopicPartitions {
				return kerr.StreamsInvalidTopology.WithMessage("subtopology %s: internal topic %s has %d partitions", st.ID, ti.Name, ti.Partitions)
			}
			if ti.ReplicationFactor < 0 {
				return kerr.StreamsInvalidTopology.WithMessage("subtopology %s: internal topic %s has replication factor %d", st.ID, ti.Name, ti.ReplicationFactor)
			}
		}
	}
	for _, ti := range st.StateChangelogTopics {
		if ti.Partitions != 0 {
			// The wire schema: "always 0 for changelog topics".
			return kerr.StreamsInvalidTopology.WithMessage("subtopology %s: changelog topic %s fixes %d partitions", st.ID, ti.Name, ti.Partitions)
		}
	}
	for _, cg := range st.CopartitionGroups {
		for _, i := range cg.SourceTopics {
			if i < 0 || int(i) >= len(st.SourceTopics) {
				return kerr.StreamsInvalidTopology.WithMessage("subtopology %s: copartition group source topic index %d out of range", st.ID, i)
			}
		}
		for _, i := range cg.RepartitionSourceTopics {
			if i < 0 || int(i) >= len(st.RepartitionSourceTopics) {
				return kerr.StreamsInvalidTopology.WithMessage("subtopology %s: copartition group repartition source topic index %d out of range", st.ID, i)
			}
		}
	}
	return nil
}
