package sim

import (
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/coordsim/coordsim/shard"
)

// Streams apps with internal topics. Every third streams app (no random
// draw, so the other apps' randomness is unchanged) runs a topology with a
// repartition step and a state store, as a Kafka Streams groupBy().count()
// joined with a second topic would: subtopology 0 reads the app's topic and
// writes "<app>-repartition"; subtopology 1 reads that repartition topic and
// a side topic, copartitioned, and backs its store with
// "<app>-store-changelog". The coordinator finds the internal topics missing
// (MISSING_INTERNAL_TOPICS, the group NOT_READY) and names them with their
// partition counts; like Kafka's broker, which asks the controller to create
// them after the heartbeat, the world creates them after
// internalTopicCreateDelay and installs the new topic image on every
// broker. The app's next heartbeat finds the group ready.

// Copartitioned joins. One streams app in twelve (again by index, no draw)
// joins its topic with a side topic directly, a KStream-KStream join with
// no repartition step: one subtopology reads both, copartitioned. When the
// two topics have different partition counts in the image (the default
// topics all do) the coordinator answers INCORRECTLY_PARTITIONED_TOPICS
// and the group stays NOT_READY; Kafka Streams' StreamThread throws a
// TopologyException on that status, the thread dies and the default
// uncaught-exception handler (SHUTDOWN_CLIENT) closes the instance, which
// leaves the group. The simulated instance does the same.

// internalTopicCreateDelay models the controller's round trip for
// CreateTopics.
const internalTopicCreateDelay = 200 * time.Millisecond

// withInternalTopics decides whether a streams app runs the topology with
// internal topics, and which topic is its side input.
func withInternalTopics(g *simGroup, i int, topics []string) {
	if g.typ != shard.Streams || i%3 != 1 || len(topics) < 2 {
		return
	}
	for j, t := range topics {
		if t == g.topic {
			g.side = topics[(j+1)%len(topics)]
		}
	}
}

// withCopartitionedJoin decides whether a streams app runs the
// copartitioned join, and which topic is its side input.
func withCopartitionedJoin(g *simGroup, i int, topics []string) {
	if g.typ != shard.Streams || i%12 != 2 || len(topics) < 2 {
		return
	}
	for j, t := range topics {
		if t == g.topic {
			g.side, g.join = topics[(j+1)%len(topics)], true
		}
	}
}

// joinTopology is the topology of an app with a copartitioned join.
func joinTopology(g *simGroup, epoch int32) *shard.Topology {
	return &shard.Topology{Epoch: epoch, Subtopologies: []shard.Subtopology{
		{ID: "0", SourceTopics: []string{g.topic, g.side}, CopartitionGroups: []shard.CopartitionGroup{{SourceTopics: []int16{0, 1}}}},
	}}
}

// internalTopology is the topology of an app with internal topics.
func internalTopology(g *simGroup, epoch int32) *shard.Topology {
	rp := g.id + "-repartition"
	return &shard.Topology{Epoch: epoch, Subtopologies: []shard.Subtopology{
		{ID: "0", SourceTopics: []string{g.topic}, RepartitionSinkTopics: []string{rp}},
		{ID: "1", SourceTopics: []string{g.side}, RepartitionSourceTopics: []shard.TopicInfo{{Name: rp}},
			StateChangelogTopics: []shard.TopicInfo{{Name: g.id + "-store-changelog", Configs: []shard.TopicConfig{{Key: "cleanup.policy", Value: "compact"}}}},
			CopartitionGroups:    []shard.CopartitionGroup{{SourceTopics: []int16{0}, RepartitionSourceTopics: []int16{0}}}},
	}}
}

// onStreamsStatus reacts to a streams heartbeat's statuses: marks, the
// creation of the internal topics the coordinator found missing, and the
// shutdown on INCORRECTLY_PARTITIONED_TOPICS, which it reports (an instance
// shutting down answers no solicitation: its thread died first).
func (w *world) onStreamsStatus(m *simMember, r shard.StreamsGroupHeartbeatResponse) (shutdown bool) {
	for _, st := range r.Status {
		switch st {
		case shard.StatusAssignmentDelayed:
			// The group's initial rebalance delay (Kafka's 3 s default).
			w.mark("streams-assignment-delayed")
		case shard.StatusMissingInternalTopics:
			w.mark("streams-missing-internal-topics")
		case shard.StatusIncorrectlyPartitionedTopics:
			w.mark("streams-incorrectly-partitioned")
			// StreamThread's TopologyException: the instance shuts down
			// (after this response is handled, as the thread unwinds).
			shutdown = true
			if !m.gone {
				w.client(tResponse, m.g.id, m.id, "INCORRECTLY_PARTITIONED_TOPICS: shutting down")
				w.eng.after(0, func() {
					if !m.gone {
						w.mark("streams-shutdown-on-topology-error")
						w.leave(m)
					}
				})
			}
		}
	}
	if len(r.InternalTopicsToCreate) == 0 {
		return shutdown
	}
	var names []string
	for _, ct := range r.InternalTopicsToCreate {
		names = append(names, fmt.Sprintf("%s@%d", ct.Name, ct.NumPartitions))
	}
	w.client(tResponse, m.g.id, m.id, "MISSING_INTERNAL_TOPICS create="+strings.Join(names, ","))
	topics := r.InternalTopicsToCreate
	w.eng.after(internalTopicCreateDelay, func() { w.createInternalTopics(m.g.id, topics) })
	return shutdown
}

// createInternalTopics adds the topics that do not exist yet to the topic
// image and installs it on every broker (Kafka: the controller creates
// them and the metadata image reaches every coordinator).
func (w *world) createInternalTopics(group string, topics []shard.CreatableTopic) {
	var created []string
	next := maps.Clone(w.topics)
	for _, ct := range topics {
		if _, ok := next[ct.Name]; ok || ct.NumPartitions < 1 {
			continue
		}
		next[ct.Name] = ct.NumPartitions
		created = append(created, ct.Name)
	}
	if len(created) == 0 {
		return
	}
	w.topics = next
	w.installTopicImage()
	w.mark("streams-internal-topics-created")
	w.client(tResponse, group, "", "internal topics created: "+strings.Join(created, ","))
}
