package shard

// streamsSteps is the streams group's entry of groupKinds: the sticky task
// assignor and the StreamsGroup* records.
type streamsSteps struct{}

func (streamsSteps) title() string { return "Streams" }

func (streamsSteps) assign(v *view) {
	targets, err := v.assignStreams()
	if v.assignErr = err; err != nil {
		return
	}
	v.setTargets(targets)
}

func (streamsSteps) memberMetadataRecord(v *view, m *member, tombstone bool) Record {
	return &StreamsGroupMemberMetadata{Group: v.id, MemberID: m.id, ProcessID: m.processID, ClientID: m.clientID,
		ClientHost: m.clientHost, RackID: m.rackID, InstanceID: m.instanceID(), RebalanceTimeoutMs: m.rebalanceTimeoutMs, TopologyEpoch: m.topologyEpoch(),
		UserEndpoint: m.userEndpoint(), Tombstone: tombstone}
}

func (streamsSteps) groupEpochRecord(v *view) Record {
	r := &StreamsGroupMetadata{Group: v.id, Epoch: v.epoch, MetadataHash: v.hash,
		StoredDescriptionTopologyEpoch: EpochNone, FailedDescriptionTopologyEpoch: EpochNone,
		LastNumStandbyReplicas: v.streamsNumStandbyReplicas()}
	if v.g != nil {
		r.ValidatedTopologyEpoch = v.g.validatedTopologyEpoch
		r.StoredDescriptionTopologyEpoch, r.FailedDescriptionTopologyEpoch = v.g.storedEpoch, v.g.failedEpoch
		if v.removing {
			// streamsGroupFenceMember writes the group's stored
			// lastAssignmentConfigs, not the group config of now.
			r.LastNumStandbyReplicas = v.g.lastNumStandbyReplicas
		}
	}
	if v.topo != nil && !v.removing {
		// Kafka's validatedTopologyEpoch: the topology's epoch once its
		// topics are configured (ConfiguredTopology.isReady), else -1. A
		// removal keeps the stored one (streamsGroupFenceMember).
		r.ValidatedTopologyEpoch = -1
		if v.s.topologyReady(v.topo) {
			r.ValidatedTopologyEpoch = v.topo.Epoch
		}
	}
	return r
}

func (streamsSteps) targetRecord(v *view, m *member) Record {
	active, standby, warmup := partitionsToTasks3(m.target, m.streamsPart().targetStandby, m.streamsPart().targetWarmup)
	return &StreamsGroupTargetAssignmentMember{Group: v.id, MemberID: m.id, ActiveTasks: active,
		StandbyTasks: standby, WarmupTasks: warmup}
}

func (streamsSteps) targetMemberRecord(v *view, id string, target []TopicPartitions, tombstone bool) Record {
	return &StreamsGroupTargetAssignmentMember{Group: v.id, MemberID: id, ActiveTasks: partitionsToTasks(target), Tombstone: tombstone}
}

func (streamsSteps) targetEpochRecord(v *view) Record {
	return &StreamsGroupTargetAssignmentMetadata{Group: v.id, AssignmentEpoch: v.aEpoch, AssignmentTimestampMs: v.aTimestampMs}
}

func (streamsSteps) currentAssignmentRecord(v *view, m *member, tombstone bool) Record {
	if tombstone {
		return &StreamsGroupCurrentMemberAssignment{Group: v.id, MemberID: m.id, Tombstone: true}
	}
	active, standby, warmup := partitionsToTasks3(m.assigned, m.streamsPart().standby, m.streamsPart().warmup)
	pActive, pStandby, pWarmup := partitionsToTasks3(m.pending, m.streamsPart().pendingStandby, m.streamsPart().pendingWarmup)
	return &StreamsGroupCurrentMemberAssignment{Group: v.id, MemberID: m.id, MemberEpoch: m.memberEpoch,
		PreviousMemberEpoch: m.previousMemberEpoch, State: streamsState(m.state),
		ActiveTasks: active, StandbyTasks: standby, WarmupTasks: warmup,
		ActiveTasksPendingRevocation: pActive, StandbyTasksPendingRevocation: pStandby, WarmupTasksPendingRevocation: pWarmup}
}

// expiresOffsets: a streams group's offsets expire by their commit time
// (StreamsGroup.offsetExpirationCondition is always present).
func (streamsSteps) expiresOffsets(*group) bool { return true }

// subscribesTo: once empty a streams group subscribes to nothing
// (KAFKA-19372), otherwise to its topology's source topics.
func (streamsSteps) subscribesTo(g *group, topic string) bool {
	if len(g.members) == 0 || g.topology == nil {
		return false
	}
	for _, st := range g.topology.Subtopologies {
		if st.ReadsTopic(topic) {
			return true
		}
	}
	return false
}

// earlyState: a streams group with no topology, or whose topology's
// epoch is not the validated one its last group metadata record holds, is
// NOT_READY (StreamsGroup.maybeUpdateGroupState). The validated epoch is
// written by a heartbeat that configured the topology over the image of
// its day, so a topic change shows in the state at the next heartbeat,
// not at once.
func (streamsSteps) earlyState(g *group, _ readiness) (GroupState, bool) {
	if g.topology == nil || g.topology.Epoch != g.validatedTopologyEpoch {
		return StateNotReady, true
	}
	return 0, false
}

func (streamsSteps) setting(streams, _, _ int32) int32 { return streams }

func (streamsSteps) readsTopology() bool { return true }

func (streamsSteps) rebalanceTimeouts() bool { return true }

// steadyChanged: a streams member whose client changed, whose owned tasks
// the slow path refuses, or whose group's num.standby.replicas changed
// (the slow path bumps the group epoch) is not steady.
func (streamsSteps) steadyChanged(s *Shard, g *group, m *member, h *heartbeat) bool {
	return streamsClientChanged(m, h) ||
		s.validateOwnedTaskIDs(g.topology, m.topologyEpoch(), &h.ownedTasks) != nil ||
		checkTaskOffsets(h.taskOffsets, h.taskEndOffsets) != nil ||
		g.lastNumStandbyReplicas != s.streamsNumStandbyReplicas(g.id)
}

func (streamsSteps) checkMemberRemoval(Record, *group, *member) error { return nil }

func (streamsSteps) forgetMember(g *group, old *member) { g.removeTaskOwners(old) }

func (streamsSteps) checkRequest(_ *Shard, h *heartbeat) error {
	c := StreamsHeartbeatCheck{
		GroupID: h.groupID, MemberID: h.memberID, InstanceID: nullIfEmpty(h.instanceID), RackID: nullIfEmpty(h.rackID),
		MemberEpoch: h.memberEpoch, RebalanceTimeoutMs: h.rebalanceTimeoutMs,
		ActiveTasks: List{Len: len(h.ownedTasks[roleActive])}, StandbyTasks: List{Len: len(h.ownedTasks[roleStandby])},
		WarmupTasks: List{Len: len(h.ownedTasks[roleWarmup])}, Topology: h.topology != nil,
	}
	if h.topology != nil {
		for _, st := range h.topology.Subtopologies {
			c.Changelogs = append(c.Changelogs, st.StateChangelogTopics...)
		}
	}
	return CheckStreamsHeartbeat(c)
}

func (streamsSteps) convertsEmptyClassic() bool { return true }

func (streamsSteps) deriveState(g *group, ready readiness) GroupState { return g.modernState(ready) }

// initialEpoch: a new streams group is at group epoch 1 and assignment
// epoch 1 (TargetAssignmentMetadata.INITIAL) before its first member.
func (streamsSteps) initialEpoch() int32 { return 1 }

// describeMember: a streams member's description names tasks, not
// partitions.
func (streamsSteps) describeMember(md *MemberDescription, m *member) {
	md.Assignment, md.TargetAssignment = nil, nil
	md.ActiveTasks, md.TargetActiveTasks = partitionsToTasks(m.assigned), partitionsToTasks(m.target)
	md.StandbyTasks, md.WarmupTasks = partitionsToTasks(m.streamsPart().standby), partitionsToTasks(m.streamsPart().warmup)
	md.TargetStandbyTasks, md.TargetWarmupTasks = partitionsToTasks(m.streamsPart().targetStandby), partitionsToTasks(m.streamsPart().targetWarmup)
	md.ActiveTasksPendingRevocation = partitionsToTasks(m.pending)
	md.StandbyTasksPendingRevocation, md.WarmupTasksPendingRevocation = partitionsToTasks(m.streamsPart().pendingStandby), partitionsToTasks(m.streamsPart().pendingWarmup)
	md.PartitionsPendingRevocation = nil
}

func (streamsSteps) validateOffsetCommit(g *group, req commitRequest) (partitionValidator, error) {
	return validateModernOffsetCommit(g, req, "streams", streamsAssignmentEpochValidator)
}

func (streamsSteps) validateOffsetFetch(g *group, memberID string, memberEpoch int32) error {
	return validateModernOffsetFetch(g, memberID, memberEpoch)
}

func (streamsSteps) validateOffsetDelete(*group) error { return nil }

func (streamsSteps) appendTombstones(records []Record, id string) []Record {
	return append(records,
		&StreamsGroupTargetAssignmentMetadata{Group: id, Tombstone: true},
		&StreamsGroupMetadata{Group: id, Tombstone: true},
		&StreamsGroupTopology{Group: id, Tombstone: true})
}

// appendTimerCancels cancels the initial rebalance delay
// (StreamsGroup.cancelTimers).
func (streamsSteps) appendTimerCancels(ops []TimerOp, id string) []TimerOp {
	return append(ops, TimerOp{Key: StreamsInitialRebalanceKey(id), Cancel: true})
}

func (streamsSteps) shouldExpire() bool { return true }

func (streamsSteps) keepsDescriptionEpochs() bool { return true }

func (streamsSteps) convertTo(*Shard, int64, *group, *heartbeat) (*view, bool, error) {
	return nil, false, nil
}
