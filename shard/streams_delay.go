package shard

import "strconv"

// The initial rebalance delay of streams groups (KIP-1071,
// group.streams.initial.rebalance.delay.ms), as Kafka trunk's
// GroupMetadataManager.streamsGroupHeartbeat and
// computeDelayedTargetAssignment do it:
//
//   - A heartbeat that finds the group empty (a new group, or one whose
//     members all left) schedules the timer "initial-rebalance-timeout-<group>"
//     if it is absent, the group's streams.initial.rebalance.delay.ms
//     (SetGroupTimeouts) or Config.StreamsInitialRebalanceDelayMs ahead.
//   - While the timer is pending, a heartbeat that finds the group epoch past
//     the assignment epoch computes no target: the member reconciles to no
//     tasks at epoch max(1, assignment epoch) and the answer carries
//     ASSIGNMENT_DELAYED "Assignment delayed due to the configured initial
//     rebalance delay.". A streams group's first epoch bump goes from 0 to 2,
//     so those members (epoch 1) stay behind the group epoch.
//   - When the timer fires, the target assignment of every member is computed
//     and written at the group epoch; members take their tasks at their next
//     heartbeat. An empty or deleted group, or one without a topology, gets
//     nothing; nor does a group without a configured topology (Kafka's soft
//     StreamsGroup.configuredTopology, which the coordinator keeps: a group
//     has none between the heartbeat that created it and its next one, and
//     none after a load).
//   - Deleting the group cancels the timer. Like Kafka's timer it lives
//     outside the log: a shard loaded elsewhere does not re-arm it, so the
//     next heartbeat there assigns at once.
//
// The shard owns no timers: the coordinator tells it whether the timer is
// pending (StreamsGroupHeartbeatRequest.InitialRebalanceScheduled) and
// applies the TimerOp (IfAbsent) the heartbeat returns.

// bumpGroupEpoch increments the group epoch and writes the group's epoch
// record. A new group's first bump goes to 2 (its initialEpoch is 1).
func (v *view) bumpGroupEpoch() {
	v.epoch++
	v.records = append(v.records, v.groupEpochRecord())
}

// streamsInitialRebalanceDelay schedules the initial rebalance delay when
// the group was empty before this heartbeat and reports whether the delay
// holds back the target assignment now.
func (v *view) streamsInitialRebalanceDelay(nowMs int64, h *heartbeat) bool {
	scheduled := h.initialRebalanceScheduled
	empty := v.g == nil || len(v.g.members) == 0
	if delay := v.s.streamsInitialRebalanceDelayMs(v.id); empty && delay > 0 && !scheduled {
		t := Task{Kind: TaskStreamsInitialRebalance, Type: Streams, GroupID: v.id}
		v.timers = append(v.timers, TimerOp{Key: t.Key(), DeadlineMs: nowMs + int64(delay), IfAbsent: true, Task: t})
		scheduled = true
	}
	return scheduled && v.epoch > v.aEpoch
}

// ConfiguredTopology is Kafka's StreamsGroup.configuredTopology as the
// coordinator keeps it beside the shard: the partition counts of the
// topics the group's topology names, as the image had them when a
// heartbeat configured it. The delayed assignment computes with it, so a
// topic change no heartbeat has seen yet is not seen there either. Nil is
// none.
type ConfiguredTopology struct {
	partitions map[string]int32
}

// configure snapshots t over the shard's image.
func (s *Shard) configure(t *Topology) *ConfiguredTopology {
	c := &ConfiguredTopology{partitions: map[string]int32{}}
	for name := range t.imageTopics {
		c.partitions[name] = s.TopicPartitions(name)
	}
	return c
}

func (c *ConfiguredTopology) partitionsOf(topic string) int32 { return c.partitions[topic] }

// computeDelayedTargetAssignment is Kafka's computeDelayedTargetAssignment:
// the initial rebalance delay has passed, so the target assignment of every
// member is computed at the group epoch. The members' current assignments
// are left to their next heartbeats.
func (s *Shard) computeDelayedTargetAssignment(nowMs int64, groupID string, configured *ConfiguredTopology, taskOffsets map[string]MemberTaskOffsets) Result[struct{}] {
	var res Result[struct{}]
	g := s.streamsGroup(groupID)
	// Kafka throws IllegalStateException when the group epoch is not past
	// the assignment epoch; here a timer that outlived its reason (a
	// heartbeat on a new owner assigned already) does nothing.
	if g == nil || len(g.members) == 0 || g.topology == nil || g.epoch <= g.assignmentEpoch {
		return res
	}
	if configured == nil {
		// "Cannot compute delayed target assignment: configured topology
		// is not present".
		return res
	}
	v := s.newView(g, Streams, groupID)
	v.configured = configured
	v.taskOffsets = taskOffsetsView{kept: taskOffsets}
	v.maybeAssign(nowMs)
	res.Records = v.records
	return res
}

// summarizeTopics is Kafka's InternalTopicManager.summarizeTopics: up to
// three names, then " and N additional topics"; "<none>" for none.
func summarizeTopics(topics []string) string {
	if len(topics) == 0 {
		return "<none>"
	}
	const maxToShow = 3
	out := ""
	for i, t := range topics[:min(len(topics), maxToShow)] {
		if i > 0 {
			out += ", "
		}
		out += t
	}
	if len(topics) > maxToShow {
		out += " and " + strconv.Itoa(len(topics)-maxToShow) + " additional topics"
	}
	return out
}
