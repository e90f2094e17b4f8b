package shard

import (
	"github.com/coordsim/coordsim/assignor/taskassignor"
	"github.com/coordsim/coordsim/kerr"
)

// The streams-group target assignment through Kafka's sticky task assignor
// (package taskassignor): GroupMetadataManager.updateStreamsTargetAssignment
// with its TargetAssignmentBuilder. The spec holds the members that run the
// group's topology epoch (a member still on an older epoch gets no tasks, as
// before), each with its process id and its current target as the base for
// stickiness; the topology holds each subtopology's task count from
// taskSpace and whether it is stateful; num.standby.replicas is the
// group's setting. Members keep their previous standby and warm-up targets
// as standby candidates; the sticky assignor assigns no warm-up tasks.

// streamsNumStandbyReplicas is the group's num.standby.replicas: its
// streams.num.standby.replicas group config, else the broker's
// group.streams.num.standby.replicas (Kafka's
// GroupMetadataManager.streamsGroupAssignmentConfigs; the coordinator
// checks both against group.streams.max.standby.replicas).
func (v *view) streamsNumStandbyReplicas() int32 { return v.s.streamsNumStandbyReplicas(v.id) }

func (s *Shard) streamsNumStandbyReplicas(group string) int32 {
	if n, ok := s.streamsStandbys[group]; ok {
		return n
	}
	return s.cfg.StreamsNumStandbyReplicas
}

// assignmentConfigsChanged reports whether the group's num.standby.replicas
// differs from the one of its last group-epoch bump: Kafka's
// streamsGroupHeartbeat compares streamsGroupAssignmentConfigs with
// StreamsGroup.lastAssignmentConfigs and bumps the group epoch ("Assignment
// configurations changed"). A new group bumps anyway.
func (v *view) assignmentConfigsChanged() bool {
	return v.g != nil && v.g.lastNumStandbyReplicas != v.streamsNumStandbyReplicas()
}

// MaxStreamsGroupConfigs bounds the streams groups with a group config.
const MaxStreamsGroupConfigs = 100_000

// SetStreamsGroupConfigs installs the streams groups' dynamic
// streams.num.standby.replicas group configs (group id → value; a group not
// in the map uses Config.StreamsNumStandbyReplicas). Like the topic image
// they are broker metadata, not records: Kafka keeps group configs in the
// cluster metadata, and a shard rebuilt from its log needs them installed
// again. A change bumps the group epoch at the group's next heartbeat
// (assignmentConfigsChanged). A negative value is INVALID_CONFIG and
// changes nothing.
func (s *Shard) SetStreamsGroupConfigs(numStandbyReplicas map[string]int32) error {
	if len(numStandbyReplicas) > MaxStreamsGroupConfigs {
		return kerr.InvalidConfig.WithMessage("at most %d streams groups may have a group config, got %d", MaxStreamsGroupConfigs, len(numStandbyReplicas))
	}
	img := make(map[string]int32, len(numStandbyReplicas))
	for id, n := range numStandbyReplicas {
		if n < 0 {
			return kerr.InvalidConfig.WithMessage("Invalid value %d for configuration streams.num.standby.replicas: Value must be at least 0", n)
		}
		img[id] = n
	}
	s.streamsStandbys = img
	return nil
}

// subtopologyStateful reports whether a subtopology has state, so its tasks
// get standbys: Kafka's ConfiguredSubtopology is stateful when it has state
// changelog topics.
func subtopologyStateful(st Subtopology) bool { return len(st.StateChangelogTopics) > 0 }

// assignStreams computes the streams group's new target: active and
// standby tasks per member, in the view's member order. An assignor's error is Kafka's "Failed to
// compute a new target assignment" as UNKNOWN_SERVER_ERROR.
func (v *view) assignStreams() ([]taskSets, error) {
	out := make([]taskSets, len(v.members))
	ids, tasksOf := v.taskSpace()
	if len(ids) == 0 {
		return out, nil // no topology, or not ready: Kafka assigns nothing
	}
	topology := make(taskassignor.Topology, 0, len(v.topo.Subtopologies))
	for _, st := range v.topo.Subtopologies {
		topology = append(topology, taskassignor.Subtopology{ID: st.ID, NumTasks: tasksOf(st.ID), Stateful: subtopologyStateful(st)})
	}
	standbys := v.streamsNumStandbyReplicas()
	if v.configured != nil && v.g != nil {
		// The delayed assignment computes with the configs of the group's
		// last epoch bump (computeDelayedTargetAssignment passes
		// lastAssignmentConfigs), not the group config of now.
		standbys = v.g.lastNumStandbyReplicas
	}
	spec := taskassignor.GroupSpec{NumStandbyReplicas: standbys}
	spec.Members = make([]taskassignor.AssignmentMemberSpec, 0, len(v.members))
	// The members' task lists share one array, sized first.
	ntasks := 0
	for _, m := range v.members {
		ntasks += len(m.assigned) + len(m.streamsPart().standby) + len(m.streamsPart().warmup)
	}
	taskBuf := make([]taskassignor.Tasks, 0, ntasks)
	toTasks := func(a []TopicPartitions) []taskassignor.Tasks {
		if len(a) == 0 {
			return nil
		}
		from := len(taskBuf)
		for _, x := range a {
			taskBuf = append(taskBuf, taskassignor.Tasks{SubtopologyID: x.Topic, Partitions: x.Partitions})
		}
		return taskBuf[from:len(taskBuf):len(taskBuf)]
	}
	// Every member, whatever topology epoch it runs: Kafka 4.4's
	// TargetAssignmentBuilder puts all of the group's members into the
	// GroupSpec (a member on an older epoch gets tasks and a status). With
	// Config.StreamsTopologyUpdates, ahead of Kafka, a member still on an
	// older topology gets nothing until it rejoins with the group's.
	for _, m := range v.members {
		if v.s.cfg.StreamsTopologyUpdates && m.topologyEpoch() != v.topo.Epoch {
			continue
		}
		// Kafka requires a process id on join; a member without one (the
		// shard does not refuse it) is a process of its own.
		proc := m.processID
		if proc == "" {
			proc = "member:" + m.id
		}
		// The tasks the member holds now, not its target: Kafka 4.4's
		// TargetAssignmentBuilder.createMemberMetadataAndState reads
		// StreamsGroupMember.assignedTasks, so a task still being revoked
		// from one member or not yet acknowledged by another counts for
		// stickiness where the member last had it.
		spec.Members = append(spec.Members, taskassignor.AssignmentMemberSpec{
			MemberID: m.id, ProcessID: proc, ActiveTasks: toTasks(m.assigned),
			StandbyTasks: toTasks(m.streamsPart().standby), WarmupTasks: toTasks(m.streamsPart().warmup),
			TaskOffsets: v.taskOffsets.assignorOffsets(m.id),
		})
	}
	if len(spec.Members) == 0 {
		return out, nil
	}
	target, err := taskassignor.Default().Assign(&spec, topology)
	if err != nil {
		return nil, kerr.UnknownServerError.WithMessage("Failed to compute a new target assignment for epoch %d: %v", v.epoch, err)
	}
	// The members' task lists come back in one array too.
	total := 0
	for _, a := range target {
		total += len(a.ActiveTasks) + len(a.StandbyTasks) + len(a.WarmupTasks)
	}
	buf := make([]TopicPartitions, 0, total)
	fromTasks := func(a []taskassignor.Tasks) []TopicPartitions {
		if len(a) == 0 {
			return nil
		}
		from := len(buf)
		for _, x := range a {
			buf = append(buf, TopicPartitions{Topic: x.SubtopologyID, Partitions: x.Partitions})
		}
		return buf[from:len(buf):len(buf)]
	}
	for i, m := range v.members {
		if a, ok := target.Of(m.id); ok {
			out[i] = taskSets{roleActive: fromTasks(a.ActiveTasks), roleStandby: fromTasks(a.StandbyTasks), roleWarmup: fromTasks(a.WarmupTasks)}
		}
	}
	return out, nil
}
