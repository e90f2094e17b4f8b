package shard

import (
	"slices"

	"github.com/coordsim/coordsim/kerr"
)

// The consumer-group (KIP-848) heartbeat, Kafka's
// GroupMetadataManager.consumerGroupHeartbeat and consumerGroupLeave, over
// the shared membership helpers of membership.go and the reconciliation of
// reconcile.go.

// LeaveGroupStaticMemberEpoch is the epoch of a static member that left
// temporarily (Kafka's LEAVE_GROUP_STATIC_MEMBER_EPOCH): it keeps its
// assignment until its session times out or a new member with its instance
// id replaces it.
const LeaveGroupStaticMemberEpoch int32 = -2

// validateOwnedPartitions bounds a consumer heartbeat's owned partitions:
// topic names coordsim can store and partitions that are not negative.
func validateOwnedPartitions(owned []TopicPartitions) error {
	for _, tp := range owned {
		if err := validateTopicName(tp.Topic); err != nil {
			return kerr.InvalidRequest.WithMessage("owned partitions: %v", err)
		}
		for _, p := range tp.Partitions {
			if p < 0 {
				return kerr.InvalidRequest.WithMessage("owned partition %s-%d is negative", tp.Topic, p)
			}
		}
	}
	return nil
}

// validateConsumerEpoch is Kafka's throwIfConsumerGroupMemberEpochIsInvalid:
// epoch 0 (a rejoin) passes; an older epoch is accepted only when it is the
// previous epoch and the owned partitions are a subset of the assignment
// (the response that carried the new epoch may have been lost).
func validateConsumerEpoch(m *member, epoch int32, owned []TopicPartitions) error {
	return validateMemberEpoch(Consumer, m, epoch, func() bool { return isSubset(owned, m.assigned) })
}

// validateMemberEpoch is the rule Kafka's
// throwIfConsumerGroupMemberEpochIsInvalid,
// throwIfShareGroupMemberEpochIsInvalid and
// throwIfStreamsGroupMemberEpochIsInvalid share, with their messages. Epoch
// 0 is a (re)join and always passes, even from a member that still exists
// with a higher epoch: Kafka trunk returns early on it in all three
// validators (KIP-848 fenced member recovery, KAFKA-19233;
// GroupMetadataManager*Test.testMemberCanRejoinWithEpochZero*,
// testShareGroupMemberCanRejoinWithEpochZero,
// testStreamsGroupMemberCanRejoinWithEpochZero), and the member goes on
// with its current epoch and assignment. Otherwise an epoch greater than the
// member's is fenced, and a smaller one is accepted only when it is the
// member's previous epoch and, for consumer and streams members,
// ownedContained reports that what the member owns is within its
// assignment (share members own nothing the coordinator checks: nil).
func validateMemberEpoch(typ GroupType, m *member, epoch int32, ownedContained func() bool) error {
	if epoch == 0 {
		return nil
	}
	kind := groupKind(typ)
	if epoch > m.memberEpoch {
		return kerr.FencedMemberEpoch.WithMessage("The %s group member has a greater member epoch (%d) than the one known by the group coordinator (%d). The member must abandon all its partitions and rejoin.", kind, epoch, m.memberEpoch)
	}
	if epoch >= m.memberEpoch {
		return nil
	}
	if typ == Share {
		if epoch != m.previousMemberEpoch {
			return kerr.FencedMemberEpoch.WithMessage("The share group member has a smaller member epoch (%d) than the one known by the group coordinator (%d), and it does not match the previous member epoch (%d). The member must abandon all its partitions and rejoin.", epoch, m.memberEpoch, m.previousMemberEpoch)
		}
		return nil
	}
	if epoch != m.previousMemberEpoch || !ownedContained() {
		return kerr.FencedMemberEpoch.WithMessage("The %s group member has a smaller member epoch (%d) than the one known by the group coordinator (%d). The member must abandon all its partitions and rejoin.", kind, epoch, m.memberEpoch)
	}
	return nil
}

// groupKind is a group type as Kafka's messages name it ("consumer",
// "share", "streams").
func groupKind(typ GroupType) string {
	switch typ {
	case Share:
		return "share"
	case Streams:
		return "streams"
	}
	return "consumer"
}

// memberUnknown is the UNKNOWN_MEMBER_ID of Kafka's
// ConsumerGroup/ShareGroup.getOrMaybeCreateMember and
// StreamsGroup.getMemberOrThrow.
func memberUnknown(memberID, groupID string) error {
	return kerr.UnknownMemberID.WithMessage("Member %s is not a member of group %s.", memberID, groupID)
}

// groupFull is the GROUP_MAX_SIZE_REACHED of Kafka's
// throwIfConsumerGroupIsFull, throwIfShareGroupIsFull and
// throwIfStreamsGroupIsFull.
func groupFull(typ GroupType, maxSize int) error {
	return kerr.GroupMaxSizeReached.WithMessage("The %s group has reached its maximum capacity of %d members.", groupKind(typ), maxSize)
}

func instanceUnknown(instanceID string) error {
	return kerr.UnknownMemberID.WithMessage("Instance id %s is unknown.", instanceID)
}

func instanceFenced(memberID, instanceID, owner string) error {
	return kerr.FencedInstanceID.WithMessage("Static member %s with instance id %s was fenced by member %s.", memberID, instanceID, owner)
}

// consumerHeartbeatOn is the consumer-group heartbeat on a view: member
// lookup (dynamic or static), member update, group epoch, target assignment,
// reconciliation, timers and the response.
func (s *Shard) consumerHeartbeatOn(nowMs int64, v *view, h *heartbeat) (heartbeatResult, error) {
	var out heartbeatResult
	if h.memberEpoch < 0 {
		return s.consumerLeave(nowMs, v, h)
	}
	join := h.memberEpoch == 0
	if join && h.owned == nil {
		h.owned = []TopicPartitions{} // a join owns nothing (see the request's doc)
	}
	// throwIfConsumerGroupIsFull runs before the member lookup.
	if _, m := v.find(h.memberID); m == nil && len(v.members) >= s.cfg.ConsumerMaxSize {
		return out, groupFull(Consumer, s.cfg.ConsumerMaxSize)
	}
	created, replaced := false, false
	if h.instanceID == "" {
		// getOrMaybeSubscribeDynamicConsumerGroupMember
		_, m := v.find(h.memberID)
		switch {
		case m == nil && !join:
			return out, memberUnknown(h.memberID, h.groupID)
		case m == nil:
			created = true
		default:
			if err := validateConsumerEpoch(m, h.memberEpoch, h.owned); err != nil {
				return out, err
			}
		}
	} else {
		// getOrMaybeSubscribeStaticConsumerGroupMember
		si, sm := staticMemberOf(v.members, h.instanceID)
		switch {
		case join && sm == nil:
			_, m := v.find(h.memberID)
			created = m == nil
		case join:
			if sm.memberEpoch != LeaveGroupStaticMemberEpoch {
				return out, kerr.UnreleasedInstanceID.WithMessage("Static member %s with instance id %s cannot join the group because the instance id is owned by %s member.",
					h.memberID, h.instanceID, sm.id)
			}
			v.replaceStaticMember(si, h.memberID)
			replaced = true
		case sm == nil:
			return out, instanceUnknown(h.instanceID)
		case sm.id != h.memberID:
			return out, instanceFenced(h.memberID, h.instanceID, sm.id)
		default:
			if err := validateConsumerEpoch(sm, h.memberEpoch, h.owned); err != nil {
				return out, err
			}
		}
	}
	i, _ := v.find(h.memberID)
	if created {
		v.members = slices.Insert(v.members, i, &member{id: h.memberID, hasMetadata: true, previousMemberEpoch: -1})
	}
	m := v.own(i)
	before := m.assigned
	oldAssignor := m.consumerPart().serverAssignor

	// 1. Create or update the member; a new subscription bumps the epoch.
	// A created member counts as changed from a blank one
	// (hasMemberSubscriptionChanged): it bumps the epoch only when it
	// names topics, or a regex the group has resolved.
	changed, bump, subsChanged := created, false, false
	if m.clientID != h.clientID {
		// Kafka sets the client id from the request header on every
		// heartbeat (setClientId(context.clientId())): a change writes
		// the member record, without an epoch bump.
		m.clientID, changed = h.clientID, true
	}
	if m.clientHost != h.clientHost {
		// And the client host (setClientHost(context.clientAddress())).
		m.clientHost, changed = h.clientHost, true
	}
	if h.rebalanceTimeoutMs != RebalanceTimeoutNotSent && m.rebalanceTimeoutMs != h.rebalanceTimeoutMs {
		m.rebalanceTimeoutMs, changed = h.rebalanceTimeoutMs, true
	}
	if h.instanceID != "" && m.instanceID() != h.instanceID {
		m.setInstanceID(h.instanceID)
		changed = true
	}
	changed = updateRack(m, h) || changed
	if m.classic != nil {
		// A consumer-protocol heartbeat drops the classic metadata
		// (setClassicMemberMetadata(null)).
		m.classic, changed = nil, true
	}
	if h.serverAssignor != nil && *h.serverAssignor != m.consumerPart().serverAssignor {
		m.setServerAssignor(*h.serverAssignor)
		changed = true
	}
	// Kafka bumps the group epoch when the assignor the group prefers
	// changes with the member (hasPreferredServerAssignorChanged, asked on
	// every heartbeat), and computes the target with that assignor.
	v.assignorChange = assignorChange{old: oldAssignor, new: m.consumerPart().serverAssignor, set: true}
	bump = v.preferredAssignorChanged(v.assignorChange) || bump
	if h.subscribedTopics != nil {
		if subs := sortedTopics(h.subscribedTopics); !slices.Equal(subs, m.subscribedTopics) && (len(subs) > 0 || len(m.subscribedTopics) > 0) {
			m.subscribedTopics = subs
			changed, bump, subsChanged = true, true, true
		}
	}
	// The member's regex, then a refresh of the group's (regex.go).
	if h.topicRegex != nil && *h.topicRegex != m.consumerPart().topicRegex {
		subsChanged = true
	}
	regexRecords, c, b, err := v.updateRegularExpressions(nowMs, i, h.topicRegex)
	if err != nil {
		return out, err
	}
	m = v.members[i]
	changed, bump = changed || c, bump || b
	if changed {
		// Room for the member record, the epoch record and the current
		// assignment: the usual records of a join or a new subscription.
		v.records = slices.Grow(v.records, 3+len(regexRecords))
		v.records = append(v.records, v.memberMetadataRecord(m, false))
	}
	v.records = append(v.records, regexRecords...)
	v.maybeBumpGroupEpoch(bump)

	// 2. The target assignment, when the group epoch passed it; an
	// assignor's error fails the heartbeat (Kafka's UnknownServerException).
	v.maybeAssign(nowMs)
	if v.assignErr != nil {
		return out, v.assignErr
	}

	// 3. Reconcile the member toward its target (maybeReconcile).
	if err := v.reconcileConsumer(nowMs, i, h.owned, subsChanged); err != nil {
		return out, err
	}
	m = v.members[i]
	v.timers = append(v.timers, s.sessionTimer(nowMs, Consumer, v.id, m))
	// The assignment goes out on a join, on a full request and on a change.
	out.sendAssignment = join || replaced || h.fullRequest() || !equalAssignment(before, m.assigned)
	out.memberEpoch, out.assignment, out.view = m.memberEpoch, m.assigned, v
	return out, nil
}

// reconcileConsumer is Kafka's maybeReconcile for member i of a consumer
// group: the member moves toward its target (CurrentAssignmentBuilder,
// reconcile.go) given the partitions it says it owns (nil: not sent), and
// a change writes its current assignment and arms its rebalance timer.
// subsChanged forces the assignment to follow a new subscription.
func (v *view) reconcileConsumer(nowMs int64, i int, owned []TopicPartitions, subsChanged bool) error {
	m := v.members[i]
	cur := m.currentAssignment()
	if !subsChanged && cur.isReconciledTo(v.aEpoch) {
		return nil
	}
	pending := cur.pending[roleActive]
	b := currentAssignmentBuilder{
		member: cur, targetEpoch: v.aEpoch, target: taskSets{m.target},
		// CurrentAssignmentBuilder.subscribedTopicIds maps the member's
		// topic names to ids through the metadata image: a subscribed
		// topic that was deleted is not subscribed any more.
		subscribed: func(topic string) bool {
			return m.subscribes(topic) && v.s.TopicPartitions(topic) > 0
		},
		enforceSubscriptionConsistency: subsChanged,
		// A partition this member is itself revoking does not count as
		// unreleased: only one member can own a partition.
		unreleased: &consumerUnreleased{v: v, pending: pending},
		owned:      taskSets{owned}, ownedSent: owned != nil,
		skipRevocation:     v.s.cfg.Mutants.SkipRevocation,
		revokingGetsTarget: v.s.cfg.Mutants.RevokingMemberGetsTargetEpoch,
	}
	next, err := b.build()
	if err != nil {
		return kerr.FencedMemberEpoch.WithMessage("%s", err.Error())
	}
	if !next.equal(&cur) {
		m = v.own(i)
		m.setCurrentAssignment(next)
		v.records = append(v.records, v.currentAssignmentRecord(m, false))
		v.timers = slices.Grow(v.timers, 2) // the rebalance timer and the session timer after it
		v.timers = append(v.timers, v.s.mutateRebalanceTimer(nowMs, rebalanceTimeoutOp(nowMs, Consumer, v.id, m)))
	}
	return nil
}

// fullRequest reports a heartbeat a client sends in full (on joining, or
// after an error or a timeout), which gets the member's assignment even when
// it did not change: Kafka's isFullRequest. Consumer (consumerGroupHeartbeat):
// rebalance timeout, a subscription by names or by regex, and owned
// partitions all set (a rebalance timeout of -1 is not sent). Share (shareGroupHeartbeat):
// SubscribedTopicNames set. Streams heartbeats have none.
func (h *heartbeat) fullRequest() bool {
	switch h.typ {
	case Consumer:
		return h.rebalanceTimeoutMs != RebalanceTimeoutNotSent && (h.subscribedTopics != nil || h.topicRegex != nil) && h.owned != nil
	case Share:
		return h.subscribedTopics != nil
	}
	return false
}

// replaceStaticMember is Kafka's replaceMember: the static member at i,
// which left temporarily, is tombstoned and a copy of it under memberID (at
// epoch 0, its assignment and target kept) takes its place. Its timers are
// left to find the member gone, as Kafka leaves them in case the write is
// rolled back.
func (v *view) replaceStaticMember(i int, memberID string) {
	old := v.members[i]
	v.records = append(v.records,
		v.currentAssignmentRecord(old, true),
		v.targetMemberRecord(old.id, nil, true),
		v.memberMetadataRecord(old, true))
	nm := *old
	nm.id, nm.sessionKey = memberID, ""
	nm.memberEpoch, nm.previousMemberEpoch = 0, 0
	v.members = slices.Delete(v.members, i, i+1)
	j, existing := v.find(memberID)
	if existing != nil {
		v.members[j] = &nm
	} else {
		v.members = slices.Insert(v.members, j, &nm)
	}
	v.records = append(v.records,
		v.memberMetadataRecord(&nm, false),
		v.targetRecord(&nm), // a streams member's standby and warm-up tasks too
		v.currentAssignmentRecord(&nm, false))
}

// namedStaticMember is the static member h names by its instance id, as
// a consumer or streams leave looks it up: unknown (throwIfStaticMemberIsUnknown)
// or held by another member id (throwIfInstanceIdIsFenced) is an error.
func (v *view) namedStaticMember(h *heartbeat) (int, *member, error) {
	i, m := staticMemberOf(v.members, h.instanceID)
	if m == nil {
		return i, nil, instanceUnknown(h.instanceID)
	}
	if m.id != h.memberID {
		return i, nil, instanceFenced(h.memberID, h.instanceID, m.id)
	}
	return i, m, nil
}

// consumerLeave is Kafka's consumerGroupLeave: a dynamic member (-1) or a
// static member leaving for good (-1) is fenced; a static member leaving
// temporarily (-2) keeps its assignment at epoch -2 with nothing pending
// revocation, and its session timer, already running, fences it unless a
// new member with its instance id replaces it first.
func (s *Shard) consumerLeave(nowMs int64, v *view, h *heartbeat) (heartbeatResult, error) {
	var out heartbeatResult
	var i int
	var m *member
	if h.instanceID == "" {
		if i, m = v.find(h.memberID); m == nil {
			return out, memberUnknown(h.memberID, h.groupID)
		}
	} else {
		var err error
		if i, m, err = v.namedStaticMember(h); err != nil {
			return out, err
		}
	}
	out.memberEpoch, out.view = h.memberEpoch, v
	if h.memberEpoch == LeaveGroupStaticMemberEpoch {
		m = v.own(i)
		m.memberEpoch, m.pending = LeaveGroupStaticMemberEpoch, nil
		v.records = append(v.records, v.currentAssignmentRecord(m, false))
		return out, nil
	}
	v.fenceMembers(nowMs, m.id) // may downgrade the group (migration_downgrade.go)
	return out, nil
}

// partitionOwned reports whether a member of the stored group holds the
// partition: Kafka's currentPartitionEpoch reads the group as it was before
// this heartbeat, whose records change only the heartbeating member.
func (v *view) partitionOwned(topic string, p int32) bool {
	return v.g != nil && v.g.partitionOwned(topic, p)
}

// consumerUnreleased is a consumer member's isUnreleasedTask: a partition
// of its target is withheld while a member of the group owns it, unless it
// is one of the member's own pending revocations. Consumers have active
// partitions only.
type consumerUnreleased struct {
	v       *view
	pending []TopicPartitions
}

func (u *consumerUnreleased) unreleased(r taskRole, topic string, p int32) bool {
	return r == roleActive && u.v.partitionOwned(topic, p) && !containsPartition(u.pending, topic, p)
}

// maybeBumpGroupEpoch is updateSubscriptionMetadata's decision for a
// consumer group: a heartbeat that changed the subscription (bump) moves
// the group epoch on, with the metadata hash of now; otherwise the hash is
// looked at only once the group's metadata has expired (hasMetadataExpired:
// a group object the coordinator has not computed it for yet, or a topic
// image installed since), and a changed hash moves the epoch on. So a
// member that moves to a regex not resolved yet, whose topics drop out of
// the hash, does not bump the epoch until the resolution lands.
func (v *view) maybeBumpGroupEpoch(bump bool) {
	expired := v.g == nil || v.g.hashImage < v.s.imageVersion || v.g.hashImage == 0
	if !bump && !expired {
		return
	}
	if v.metadataHashChanged() || bump {
		v.epoch++
		v.records = append(v.records, v.groupEpochRecord())
	}
}
