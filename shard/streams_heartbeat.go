package shard

import "slices"

// streamsHeartbeatOn is Kafka's GroupMetadataManager.streamsGroupHeartbeat
// on the view of a streams group, top to bottom: leave, get or create the
// member (getOrMaybeCreateDynamicStreamsGroupMember), update it and the
// topology, maybe bump the group epoch, the target assignment (held back
// by the initial rebalance delay), reconcile the member's tasks with
// revocation, re-arm the session timer, then the topology's status.
func (s *Shard) streamsHeartbeatOn(nowMs int64, v *view, h *heartbeat) (heartbeatResult, error) {
	var out heartbeatResult
	if h.memberEpoch < 0 {
		return v.leave(h)
	}
	i, m := v.find(h.memberID)
	bump := false
	switch {
	case m == nil && h.memberEpoch != 0:
		return out, memberUnknown(h.memberID, h.groupID)
	case m == nil:
		if len(v.members) >= s.cfg.StreamsMaxSize {
			return out, groupFull(Streams, s.cfg.StreamsMaxSize)
		}
		m = &member{id: h.memberID, hasMetadata: true}
		v.members = slices.Insert(v.members, i, m)
		bump = true
	default:
		// An existing member's epoch is validated on every heartbeat; a
		// rejoin (epoch 0) passes (validateMemberEpoch).
		if err := validateStreamsEpoch(m, h.memberEpoch, h); err != nil {
			return out, err
		}
	}
	out.sendAssignment = h.memberEpoch == 0
	m = v.own(i) // the heartbeating member may change; a copy is cheap
	changed := bump
	changed = updateStreamsClient(m, h) || changed // any epoch (streams_member_update.go)
	if h.memberEpoch == 0 {
		changed = changed || m.rebalanceTimeoutMs != h.rebalanceTimeoutMs
		m.rebalanceTimeoutMs = h.rebalanceTimeoutMs
	} else if h.rebalanceTimeoutMs != RebalanceTimeoutNotSent && h.rebalanceTimeoutMs != m.rebalanceTimeoutMs {
		// Kafka's maybeUpdateRebalanceTimeoutMs: a heartbeat that sends a
		// rebalance timeout sets it, join or not.
		m.rebalanceTimeoutMs, changed = h.rebalanceTimeoutMs, true
	}
	changed = updateRack(m, h) || changed
	if h.memberEpoch == 0 && !sameEndpoint(h.userEndpoint, m.userEndpoint()) {
		// A (re)join sets the endpoint as sent, null clearing it (Kafka
		// 4.4's setUserEndpoint when joining): a member metadata change.
		p := m.streamsPart()
		p.userEndpoint = cloneEndpoint(h.userEndpoint)
		m.setStreams(p)
		changed = true
	} else if h.userEndpoint != nil && !sameEndpoint(h.userEndpoint, m.userEndpoint()) {
		// maybeUpdateUserEndpoint: a member metadata change.
		p := m.streamsPart()
		p.userEndpoint = cloneEndpoint(h.userEndpoint)
		m.setStreams(p)
		changed = true
	}
	if h.memberEpoch == 0 {
		t := cloneTopology(h.topology) // the group and the record must not alias the request
		install, err := s.topologyOnJoin(v.topo, &t)
		if err != nil {
			return out, err
		}
		if install {
			v.topo = &t
			v.records = append(v.records, &StreamsGroupTopology{Group: v.id, Topology: t})
			bump = true
		}
		if m.topologyEpoch() != t.Epoch {
			p := m.streamsPart()
			p.topologyEpoch = t.Epoch
			m.setStreams(p)
			changed, bump = true, true
		}
	}
	if changed {
		// Kafka's hasStreamsMemberMetadataChanged: any change to a streams
		// member's metadata (rack, client, process, rebalance timeout,
		// topology epoch) bumps the group epoch.
		v.records = append(v.records, v.memberMetadataRecord(m, false))
		bump = true
	}
	bump = v.metadataHashChanged() || bump
	if v.assignmentConfigsChanged() {
		bump = true
	}
	if bump {
		v.bumpGroupEpoch()
	}
	var targetEpoch int32
	targetTasks := taskSets{}
	if v.streamsInitialRebalanceDelay(nowMs, h) {
		// Kafka gives the members no tasks, at epoch max(1, assignment
		// epoch), until the delay's timer computes the target (streams_delay.go).
		targetEpoch, out.assignmentDelayed = max(1, v.aEpoch), true
	} else {
		v.maybeAssign()
		targetEpoch, targetTasks = v.aEpoch, v.members[i].targets()
	}
	// Reconcile with revocation (streams_reconcile.go).
	reconciled, err := s.reconcileStreams(nowMs, v, i, h, targetEpoch, targetTasks)
	if err != nil {
		return out, err
	}
	m = v.members[i]
	out.sendAssignment = out.sendAssignment || reconciled
	v.timers = append(v.timers, s.sessionTimer(nowMs, Streams, v.id, m))
	out.memberEpoch = m.memberEpoch
	out.assignment, out.standby, out.warmup = m.assigned, m.streamsPart().standby, m.streamsPart().warmup
	if v.topo != nil {
		out.staleTopology, out.memberTopologyEpoch = m.topologyEpoch() < v.topo.Epoch, m.topologyEpoch()
		if out.topicStatus, err = s.streamsTopicStatus(v.topo); err != nil {
			return out, err // Kafka: configureTopics throws StreamsInvalidTopologyException
		}
	}
	out.view = v
	return out, nil
}
