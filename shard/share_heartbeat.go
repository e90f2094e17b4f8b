package shard

import (
	"maps"
	"slices"
)

// shareHeartbeatOn is Kafka's GroupMetadataManager.shareGroupHeartbeat
// on the view of a share group, top to bottom: leave, throwIfShareGroupIsFull,
// get or create the member (getOrMaybeSubscribeShareGroupMember), update
// it, maybe bump the group epoch, the target assignment (of the initialised
// partitions), then the member moves straight to its target (share members
// do not reconcile), the session timer is re-armed and the subscribed
// partitions not yet initialised are asked for (share_init.go).
func (s *Shard) shareHeartbeatOn(nowMs int64, v *view, h *heartbeat) (heartbeatResult, error) {
	var out heartbeatResult
	if h.memberEpoch < 0 {
		return v.leave(h)
	}
	i, m := v.find(h.memberID)
	// throwIfShareGroupIsFull runs before the member lookup, so an unknown
	// member of a full share group is refused for the size whatever its
	// epoch (docs/share-groups.md §2.2 steps 3-4).
	if m == nil && len(v.members) >= s.cfg.ShareMaxSize {
		return out, groupFull(Share, s.cfg.ShareMaxSize)
	}
	bump := false
	switch {
	case m == nil && h.memberEpoch != 0:
		return out, memberUnknown(h.memberID, h.groupID)
	case m == nil:
		m = &member{id: h.memberID, hasMetadata: true}
		v.members = slices.Insert(v.members, i, m)
		bump = true
	default:
		if err := validateMemberEpoch(Share, m, h.memberEpoch, nil); err != nil {
			return out, err
		}
	}
	// The assignment goes out on a join or rejoin (epoch 0), on a full
	// request (SubscribedTopicNames set: Kafka's isFullRequest, which a
	// client sends after an error) and when it changed (below).
	out.sendAssignment = h.memberEpoch == 0 || h.fullRequest()
	m = v.own(i) // the heartbeating member may change; a copy is cheap
	changed := bump
	if m.clientID != h.clientID {
		// Every heartbeat sets the header's client id, as Kafka's
		// shareGroupHeartbeat does: a change writes the member record,
		// without an epoch bump.
		m.clientID, changed = h.clientID, true
	}
	if m.clientHost != h.clientHost {
		// And the client host (setClientHost(context.clientAddress())).
		m.clientHost, changed = h.clientHost, true
	}
	if h.memberEpoch == 0 {
		changed = changed || m.processID != h.processID || m.rebalanceTimeoutMs != h.rebalanceTimeoutMs
		m.processID, m.rebalanceTimeoutMs = h.processID, h.rebalanceTimeoutMs
	}
	changed = updateRack(m, h) || changed
	c, b := updateSubscription(m, h)
	changed, bump = changed || c, bump || b
	if changed {
		v.records = append(v.records, v.memberMetadataRecord(m, false))
	}
	// A settled target short of the initialised partitions needs a new
	// one (share_init.go), judged on the group as it was.
	if v.g != nil && v.aEpoch >= v.epoch && initializedAssignmentPending(v.g.shareState, maps.Values(v.g.members)) {
		bump = true
	}
	bump = v.metadataHashChanged() || bump
	if bump {
		v.bumpGroupEpoch()
	}
	v.maybeAssign(nowMs)
	// ShareGroupAssignmentBuilder: a member behind the target epoch, or
	// whose heartbeat bumped the group epoch (Kafka passes bumpGroupEpoch
	// as hasSubscriptionChanged: a subscription change, a metadata hash
	// change, a pending initialised assignment), is assigned its target's
	// partitions of the topics it subscribes to that exist
	// (filterAssignedPartitions: a heterogeneous target may keep topics
	// nobody subscribes to, and a target the assignment interval held back
	// may name a deleted topic).
	targetEpoch := v.aEpoch
	if m.memberEpoch != targetEpoch || bump {
		next := subscribedPartitions(v.members[i].target, m.subscribedTopics, s.TopicPartitions)
		if m.memberEpoch != targetEpoch || !equalAssignment(m.assigned, next) {
			// The answer carries the assignment when the partitions changed
			// (ShareGroupMember.hasAssignedPartitionsChanged), not for a new
			// epoch alone.
			out.sendAssignment = out.sendAssignment || !equalAssignment(m.assigned, next)
			if m.memberEpoch != targetEpoch {
				// updateMemberEpoch; a filter alone keeps both epochs.
				m.previousMemberEpoch, m.memberEpoch = m.memberEpoch, targetEpoch
			}
			m.assigned = next
			v.records = append(v.records, v.currentAssignmentRecord(m, false))
		}
	}
	v.timers = append(v.timers, s.sessionTimer(nowMs, Share, v.id, m))
	v.maybeRequestShareInitialization(nowMs)
	out.memberEpoch, out.assignment = m.memberEpoch, m.assigned
	out.view = v
	return out, nil
}

// subscribedPartitions is target without the topics the member does not
// subscribe to or that do not exist; target itself when it has none.
func subscribedPartitions(target []TopicPartitions, subscribed []string, partitionsOf func(string) int32) []TopicPartitions {
	return keepTopics(target, func(topic string) bool {
		_, ok := slices.BinarySearch(subscribed, topic)
		return ok && partitionsOf(topic) > 0
	})
}
