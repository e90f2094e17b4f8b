package shard

import (
	"fmt"
	"slices"
	"strings"

	"github.com/coordsim/coordsim/assignor/javaorder"
	"github.com/coordsim/coordsim/kerr"
)

// Internal topics of streams groups, as Kafka trunk's
// org.apache.kafka.coordinator.group.streams.topics package computes them
// (InternalTopicManager.configureTopics with RepartitionTopics,
// CopartitionedTopicsEnforcer and ChangelogTopics): from a topology and the
// metadata image, the partition count of every repartition and changelog
// topic, the number of tasks of every subtopology, and the internal topics
// that must be created. A topic configuration problem is a heartbeat status
// (MISSING_SOURCE_TOPICS, INCORRECTLY_PARTITIONED_TOPICS,
// MISSING_INTERNAL_TOPICS) that leaves the group NOT_READY; an invalid
// topology is STREAMS_INVALID_TOPOLOGY.
//
// Kafka iterates hash maps and sets here; coordsim iterates subtopologies
// in the topology's order and topics in name order, so the same inputs give
// the same partition counts and the same first error.
//
// Kafka hands the topics to create to the broker, which asks the controller
// to create them (KafkaApis via AutoTopicCreationManager) after the
// heartbeat; the shard creates nothing: the heartbeat's answer carries them
// (StreamsGroupHeartbeatResponse.InternalTopicsToCreate) and the caller
// creates them (the wire endpoint in its data plane, the simulator in its
// topic image), after which the new metadata image makes the group ready.

// CreatableTopic is Kafka's CreateTopicsRequestData.CreatableTopic as
// configureTopics builds it: ReplicationFactor -1 takes the broker default.
type CreatableTopic struct {
	Name              string
	NumPartitions     int32
	ReplicationFactor int16
	Configs           []TopicConfig
}

// configuredSubtopology is Kafka's ConfiguredSubtopology.
type configuredSubtopology struct {
	id            string
	numberOfTasks int32
	// repartitionSourceTopics and stateChangelogTopics are the internal
	// topics with their decided partition counts.
	repartitionSourceTopics []CreatableTopic
	stateChangelogTopics    []CreatableTopic
}

// configuredTopology is Kafka's ConfiguredTopology: subtopologies is nil when
// the configuration failed; status is set (with its detail) when it failed
// or internal topics are missing, and then the group is not ready.
type configuredTopology struct {
	epoch                     int32
	subtopologies             []configuredSubtopology
	internalTopicsToBeCreated []CreatableTopic // by name
	status                    StreamsStatus
	detail                    string
	failed                    bool
}

// isReady is ConfiguredTopology.isReady: no topic configuration problem.
func (c *configuredTopology) isReady() bool { return !c.failed }

// numberOfTasks returns the configured task count of a subtopology (0 for
// an unknown one or a topology that is not ready).
func (c *configuredTopology) numberOfTasks(id string) int32 {
	for _, st := range c.subtopologies {
		if st.id == id {
			return st.numberOfTasks
		}
	}
	return 0
}

// topicConfigurationError is Kafka's TopicConfigurationException.
type topicConfigurationError struct {
	status StreamsStatus
	detail string
}

// configureTopics is InternalTopicManager.configureTopics over partitionsOf,
// the metadata image (0: the topic does not exist). The error, when not
// nil, is STREAMS_INVALID_TOPOLOGY.
func configureTopics(t *Topology, partitionsOf func(string) int32) (configuredTopology, error) {
	out := configuredTopology{epoch: t.Epoch}
	fail := func(e *topicConfigurationError) (configuredTopology, error) {
		out.failed, out.status, out.detail = true, e.status, e.detail
		return out, nil
	}
	if e := missingSourceTopicsError(t, partitionsOf); e != nil {
		return fail(e)
	}
	decided, cfgErr, err := decidePartitionCounts(t, partitionsOf)
	if err != nil {
		return out, err
	}
	if cfgErr != nil {
		return fail(cfgErr)
	}
	count := func(topic string) int32 { return partitionCount(partitionsOf, decided, topic) }
	for i := range t.Subtopologies {
		st := &t.Subtopologies[i]
		c := configuredSubtopology{id: st.ID}
		for _, topic := range append(slices.Clone(st.SourceTopics), st.RepartitionSourceTopicNames()...) {
			c.numberOfTasks = max(c.numberOfTasks, count(topic))
		}
		c.repartitionSourceTopics = configureInternalTopics(st.RepartitionSourceTopics, decided)
		c.stateChangelogTopics = configureInternalTopics(st.StateChangelogTopics, decided)
		out.subtopologies = append(out.subtopologies, c)
	}
	slices.SortFunc(out.subtopologies, func(a, b configuredSubtopology) int { return strings.Compare(a.id, b.id) })
	toCreate, cfgErr := missingInternalTopics(t, out.subtopologies, partitionsOf)
	if cfgErr != nil {
		out.subtopologies = nil
		return fail(cfgErr)
	}
	if len(toCreate) > 0 {
		names := make([]string, len(toCreate))
		for i, ct := range toCreate {
			names[i] = ct.Name
		}
		out.internalTopicsToBeCreated = toCreate
		out.failed, out.status = true, StatusMissingInternalTopics
		out.detail = "Internal topics are missing: " + summarizeTopics(names)
	}
	return out, nil
}

// streamsTopicStatus is the topic configuration of t when it is not ready
// (nil when it is). A topology of source topics alone skips the
// configuration: it is ready when its source topics exist, which keeps the
// common heartbeat free of allocations.
func (s *Shard) streamsTopicStatus(t *Topology) (*configuredTopology, error) {
	if !t.hasInternalTopics() {
		if e := missingSourceTopicsError(t, s.TopicPartitions); e != nil {
			return &configuredTopology{epoch: t.Epoch, failed: true, status: e.status, detail: e.detail}, nil
		}
		return nil, nil
	}
	if s.topologyReady(t) {
		return nil, nil // configureTopics would find it ready: no error either
	}
	c, err := configureTopics(t, s.TopicPartitions)
	if err != nil || c.isReady() {
		return nil, err
	}
	return &c, nil
}

// missingSourceTopicsError is throwOnMissingSourceTopics.
func missingSourceTopicsError(t *Topology, partitionsOf func(string) int32) *topicConfigurationError {
	var missing []string
	for _, st := range t.Subtopologies {
		for _, topic := range st.SourceTopics {
			if partitionsOf(topic) <= 0 {
				missing = append(missing, topic)
			}
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return &topicConfigurationError{StatusMissingSourceTopics, "Source topics " + summarizeTopics(sortedTopics(missing)) + " are missing."}
}

// partitionCount is InternalTopicManager.getPartitionCount: the metadata
// image first, then the counts decided so far (0: unknown).
func partitionCount(partitionsOf func(string) int32, decided map[string]int32, topic string) int32 {
	if n := partitionsOf(topic); n > 0 {
		return n
	}
	return decided[topic]
}

// decidePartitionCounts is InternalTopicManager.decidePartitionCounts:
// repartition topics, then copartitioning, then changelog topics.
func decidePartitionCounts(t *Topology, partitionsOf func(string) int32) (map[string]int32, *topicConfigurationError, error) {
	decided, err := repartitionTopicsSetup(t, partitionsOf)
	if err != nil {
		return nil, nil, err
	}
	fixed, flexible := map[string]bool{}, map[string]bool{}
	for _, st := range t.Subtopologies {
		for _, ti := range st.RepartitionSourceTopics {
			if ti.Partitions != 0 {
				fixed[ti.Name] = true
			} else {
				flexible[ti.Name] = true
			}
		}
	}
	count := func(topic string) int32 { return partitionCount(partitionsOf, decided, topic) }
	for i := range t.Subtopologies {
		st := &t.Subtopologies[i]
		for _, cg := range st.CopartitionGroups {
			counts, cfgErr, err := enforceCopartitioning(copartitionTopics(st, cg), fixed, flexible, count)
			if err != nil || cfgErr != nil {
				return nil, cfgErr, err
			}
			for _, topic := range sortedKeys(counts) {
				decided[topic] = counts[topic]
			}
		}
	}
	changelogs, err := changelogTopicsSetup(t, count)
	if err != nil {
		return nil, nil, err
	}
	for _, topic := range sortedKeys(changelogs) {
		decided[topic] = changelogs[topic]
	}
	return decided, nil, nil
}

// repartitionTopicsSetup is RepartitionTopics.setup: the fixed counts, then
// a fix point giving each repartition sink topic the largest count of the
// topics its subtopology reads. The source topics exist (checked before).
func repartitionTopicsSetup(t *Topology, partitionsOf func(string) int32) (map[string]int32, error) {
	counts := map[string]int32{}
	for _, st := range t.Subtopologies {
		for _, ti := range st.RepartitionSourceTopics {
			if ti.Partitions != 0 {
				counts[ti.Name] = ti.Partitions
			}
		}
	}
	for {
		needed, progress := false, false
		for _, st := range t.Subtopologies {
			for _, sink := range st.RepartitionSinkTopics {
				if _, ok := counts[sink]; ok {
					continue
				}
				var n int32
				for _, ti := range st.RepartitionSourceTopics {
					n = max(n, counts[ti.Name])
				}
				for _, topic := range st.SourceTopics {
					n = max(n, partitionsOf(topic))
				}
				if n == 0 {
					needed = true
					continue
				}
				counts[sink], progress = n, true
			}
		}
		if !needed {
			break
		}
		if !progress {
			return nil, kerr.StreamsInvalidTopology.WithMessage("Failed to compute number of partitions for all repartition topics. There may be loops in the topology that cannot be resolved.")
		}
	}
	for _, st := range t.Subtopologies {
		for _, ti := range st.RepartitionSourceTopics {
			if _, ok := counts[ti.Name]; !ok {
				return nil, kerr.StreamsInvalidTopology.WithMessage("Failed to compute number of partitions for all repartition topics, because a repartition source topic is never used as a sink topic.")
			}
		}
	}
	return counts, nil
}

// enforceCopartitioning is CopartitionedTopicsEnforcer.enforce for one
// copartition group: the partition count its repartition topics must have.
// fixed and flexible are the topology's repartition source topics whose
// count the topology fixes or leaves to the coordinator.
func enforceCopartitioning(topics []string, fixed, flexible map[string]bool, count func(string) int32) (map[string]int32, *topicConfigurationError, error) {
	if len(topics) == 0 {
		return nil, nil, nil
	}
	topics = sortedTopics(topics)
	repartition, other := map[string]int32{}, map[string]int32{}
	for _, topic := range topics {
		if fixed[topic] || flexible[topic] {
			repartition[topic] = count(topic)
		} else {
			other[topic] = count(topic)
		}
	}
	var n int32
	switch {
	case len(other) == 0 && len(fixed) > 0:
		// Kafka checks every fixed repartition topic of the topology here,
		// not only the group's (validateAndGetNumOfPartitions).
		fixedNames := sortedKeys(fixed)
		n = count(fixedNames[0])
		for _, topic := range fixedNames {
			if count(topic) != n {
				return nil, &topicConfigurationError{StatusIncorrectlyPartitionedTopics,
					"Following topics do not have the same number of partitions: [" + javaMap(repartition) + "]"}, nil
			}
		}
	case len(other) == 0:
		for _, c := range repartition {
			n = max(n, c)
		}
		if n == 0 {
			return nil, nil, kerr.StreamsInvalidTopology.WithMessage("All topics in the copartition group had undefined partition number: [%s]", strings.Join(sortedKeys(repartition), ", "))
		}
	default:
		first := other[sortedKeys(other)[0]]
		for _, c := range other {
			if c != first {
				return nil, &topicConfigurationError{StatusIncorrectlyPartitionedTopics,
					"Following topics do not have the same number of partitions: [" + javaMap(other) + "]"}, nil
			}
		}
		n = first
	}
	out := map[string]int32{}
	for _, topic := range sortedKeys(repartition) {
		out[topic] = n
		if fixed[topic] && repartition[topic] != n {
			return nil, &topicConfigurationError{StatusIncorrectlyPartitionedTopics, fmt.Sprintf(
				"Number of partitions [%d] of repartition topic [%s] doesn't match number of partitions [%d] of the source topic.",
				repartition[topic], topic, n)}, nil
		}
	}
	return out, nil, nil
}

// changelogTopicsSetup is ChangelogTopics.setup: every state changelog
// topic gets the largest partition count of the topics its subtopology
// reads.
func changelogTopicsSetup(t *Topology, count func(string) int32) (map[string]int32, error) {
	out := map[string]int32{}
	for i := range t.Subtopologies {
		st := &t.Subtopologies[i]
		var n int32
		for _, topic := range append(slices.Clone(st.SourceTopics), st.RepartitionSourceTopicNames()...) {
			n = max(n, count(topic))
		}
		if n == 0 {
			return nil, kerr.StreamsInvalidTopology.WithMessage("No source topics found for subtopology %s", st.ID)
		}
		for _, ti := range st.StateChangelogTopics {
			out[ti.Name] = n
		}
	}
	return out, nil
}

// configureInternalTopics is fromPersistedTopicInfo for each topic: a fixed
// count wins, else the decided one; replication factor 0 becomes -1 (the
// broker default), as toCreatableTopic does.
func configureInternalTopics(infos []TopicInfo, decided map[string]int32) []CreatableTopic {
	var out []CreatableTopic
	for _, ti := range infos {
		ct := CreatableTopic{Name: ti.Name, NumPartitions: ti.Partitions, ReplicationFactor: ti.ReplicationFactor, Configs: slices.Clone(ti.Configs)}
		if ct.NumPartitions == 0 {
			ct.NumPartitions = decided[ti.Name]
		}
		if ct.ReplicationFactor == 0 {
			ct.ReplicationFactor = -1
		}
		out = append(out, ct)
	}
	return out
}

// missingInternalTopics is InternalTopicManager.missingInternalTopics: the
// internal topics the image lacks, by name; an existing one with another
// partition count is INCORRECTLY_PARTITIONED_TOPICS.
func missingInternalTopics(t *Topology, subs []configuredSubtopology, partitionsOf func(string) int32) ([]CreatableTopic, *topicConfigurationError) {
	want := map[string]CreatableTopic{}
	for _, st := range subs {
		for _, ct := range append(slices.Clone(st.repartitionSourceTopics), st.stateChangelogTopics...) {
			want[ct.Name] = ct
		}
	}
	for _, topic := range requiredTopicsInKafkasOrder(t) {
		n := partitionsOf(topic)
		if n <= 0 {
			continue
		}
		ct, ok := want[topic]
		delete(want, topic)
		if ok && n != ct.NumPartitions {
			return nil, &topicConfigurationError{StatusIncorrectlyPartitionedTopics, fmt.Sprintf(
				"Existing topic %s has different number of partitions: expected %d, found %d", topic, ct.NumPartitions, n)}
		}
	}
	var out []CreatableTopic
	for _, name := range sortedKeys(want) {
		out = append(out, want[name])
	}
	return out, nil
}

// requiredTopicsInKafkasOrder is StreamsTopology.requiredTopics in its
// iteration order, which decides which of several wrongly sized internal
// topics missingInternalTopics names: a HashSet (Collectors.toSet) of each
// subtopology's source, repartition source and changelog topics, the
// subtopologies visited in the order of the HashMap of them by id
// (StreamsTopology.fromRecord's Collectors.toMap).
func requiredTopicsInKafkasOrder(t *Topology) []string {
	ids := make([]string, len(t.Subtopologies))
	for i := range t.Subtopologies {
		ids[i] = t.Subtopologies[i].ID
	}
	var names []string
	for _, i := range javaorder.PutOrder(ids) {
		st := &t.Subtopologies[i]
		names = append(names, st.SourceTopics...)
		names = append(names, st.RepartitionSourceTopicNames()...)
		names = append(names, st.StateChangelogTopicNames()...)
	}
	order := javaorder.PutOrder(names)
	out := make([]string, len(order))
	for k, i := range order {
		out[k] = names[i]
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// javaMap renders a map as Java's TreeMap.toString does: "{a=1, b=2}".
func javaMap(m map[string]int32) string {
	parts := make([]string, 0, len(m))
	for _, k := range sortedKeys(m) {
		parts = append(parts, fmt.Sprintf("%s=%d", k, m[k]))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}
