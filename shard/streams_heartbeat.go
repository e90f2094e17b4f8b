package shard

import (
	"slices"

	"github.com/coordsim/coordsim/kerr"
)

// streamsHeartbeatOn is Kafka's GroupMetadataManager.streamsGroupHeartbeat
// on the view of a streams group, top to bottom: leave, get or create the
// member (getOrMaybeCreateDynamicStreamsGroupMember, or the static one,
// which may replace a static member that left), update it and the
// topology, maybe bump the group epoch, the target assignment (held back
// by the initial rebalance delay), reconcile the member's tasks with
// revocation, re-arm the session timer, then the topology's status.
func (s *Shard) streamsHeartbeatOn(nowMs int64, v *view, h *heartbeat) (heartbeatResult, error) {
	var out heartbeatResult
	if h.memberEpoch < 0 {
		return v.streamsLeave(h)
	}
	v.taskOffsets = heartbeatTaskOffsets(h)
	bump, err := s.streamsMember(v, h, &out)
	if err != nil {
		return out, err
	}
	i, _ := v.find(h.memberID)
	out.sendAssignment = h.memberEpoch == 0
	m := v.own(i) // the heartbeating member may change; a copy is cheap
	before := epochRelevant(m)
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
	if h.instanceID != "" && h.instanceID != m.instanceID() {
		m.setStreamsInstanceID(h.instanceID) // maybeUpdateInstanceId
		changed = true
	}
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
		// Kafka's hasStreamsMemberMetadataChanged: any change to a dynamic
		// streams member's metadata (rack, client, process, rebalance
		// timeout, endpoint, topology epoch) bumps the group epoch; a
		// static member's only when its topology epoch, rack or process
		// changed (hasEpochRelevantMemberConfigChanged), so a static
		// member's restart under another client id moves no task.
		v.records = append(v.records, v.memberMetadataRecord(m, false))
		if h.instanceID == "" || epochRelevant(m) != before {
			bump = true
		}
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
		targetEpoch, out.assignmentDelay = max(1, v.aEpoch), initialRebalanceDelay
	} else {
		v.maybeAssign(nowMs)
		targetEpoch = v.aEpoch
		targetTasks = v.refinedTarget(i, targetEpoch, bump, out.replacedStatic) // streams_refined.go
		if v.assignmentHeld {
			out.assignmentDelay = assignmentIntervalDelay
		}
	}
	// Reconcile with revocation (streams_reconcile.go).
	reconciled, err := s.reconcileStreams(nowMs, v, i, h, targetEpoch, targetTasks)
	if err != nil {
		out.view = v
		return out, configuredThenThrew{err}
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

// streamsMember gets or creates the heartbeating member (Kafka's
// getOrMaybeCreateDynamicStreamsGroupMember and
// getOrMaybeCreateStaticStreamsGroupMember), after
// throwIfStreamsGroupIsFull on a join, which admits a static member's
// instance id. A static member joining under the instance id of one that
// left temporarily (-2) replaces it: the old id's records are tombstoned
// and the new id takes its metadata, target and tasks at epoch 0
// (replaceStreamsMember). It reports whether a member was created.
func (s *Shard) streamsMember(v *view, h *heartbeat, out *heartbeatResult) (created bool, err error) {
	join := h.memberEpoch == 0
	i, m := v.find(h.memberID)
	si, sm := -1, (*member)(nil)
	if h.instanceID != "" {
		si, sm = staticMemberOf(v.members, h.instanceID)
	}
	if join && sm == nil && m == nil && len(v.members) >= s.cfg.StreamsMaxSize {
		return false, groupFull(Streams, s.cfg.StreamsMaxSize)
	}
	switch {
	case h.instanceID == "" && m == nil && !join:
		return false, memberUnknown(h.memberID, h.groupID)
	case h.instanceID == "" && m != nil:
		// An existing member's epoch is validated on every heartbeat; a
		// rejoin (epoch 0) passes (validateMemberEpoch).
		return false, validateStreamsEpoch(m, h.memberEpoch, h)
	case h.instanceID == "" || join && sm == nil:
		if m == nil {
			v.members = slices.Insert(v.members, i, &member{id: h.memberID, hasMetadata: true})
			return true, nil
		}
		return false, nil // getOrCreateDefaultMember: no epoch check
	case join:
		if sm.memberEpoch != LeaveGroupStaticMemberEpoch {
			return false, kerr.UnreleasedInstanceID.WithMessage("Static member %s with instance id %s cannot join the group because the instance id is owned by %s member.",
				h.memberID, h.instanceID, sm.id)
		}
		out.replacedStatic = sm
		v.replaceStaticMember(si, h.memberID)
		return false, nil
	case sm == nil:
		return false, instanceUnknown(h.instanceID)
	case sm.id != h.memberID:
		return false, instanceFenced(h.memberID, h.instanceID, sm.id)
	}
	return false, validateStreamsEpoch(sm, h.memberEpoch, h)
}

// streamsLeave is Kafka's streamsGroupLeave: a dynamic member (-1), or a
// static member leaving for good (-1, found by its instance id), is
// fenced; a static member leaving temporarily (-2) keeps its tasks at
// epoch -2 with nothing pending revocation, and its session timer, already
// running, fences it unless a member with its instance id replaces it
// first (streamsGroupStaticMemberGroupLeave).
func (v *view) streamsLeave(h *heartbeat) (heartbeatResult, error) {
	if h.instanceID == "" {
		return v.leave(h)
	}
	var out heartbeatResult
	i, _, err := v.namedStaticMember(h)
	if err != nil {
		return out, err
	}
	out.memberEpoch, out.view = h.memberEpoch, v
	if h.memberEpoch != LeaveGroupStaticMemberEpoch {
		v.removeMember(i)
		return out, nil
	}
	m := v.own(i)
	m.memberEpoch, m.pending = LeaveGroupStaticMemberEpoch, nil
	p := m.streamsPart()
	p.pendingStandby, p.pendingWarmup = nil, nil
	m.setStreams(p)
	v.records = append(v.records, v.currentAssignmentRecord(m, false))
	return out, nil
}

// epochRelevantConfig is what of a streams member's metadata moves the
// group epoch when a static member changes it (Kafka's
// hasEpochRelevantMemberConfigChanged; client tags are not modelled).
type epochRelevantConfig struct {
	topologyEpoch     int32
	rackID, processID string
}

func epochRelevant(m *member) epochRelevantConfig {
	return epochRelevantConfig{m.topologyEpoch(), m.rackID, m.processID}
}
