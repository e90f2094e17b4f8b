package shard

import "github.com/coordsim/coordsim/kerr"

// classicSteps is the classic group's entry of groupKinds. Classic members
// never take the KIP-848 heartbeat paths: JoinGroup, SyncGroup, Heartbeat
// and LeaveGroup run classicOp (classic*.go), and the group's state comes
// from its classic state (deriveState). So only what the shared code asks
// of every group differs here: the topics whose offsets the group keeps.
// Everything else answers as the consumer group a consumer-protocol join
// converts an empty classic group into.
type classicSteps struct{ consumerSteps }

// initialEpoch: a classic group's generation starts at 0 (ClassicGroup).
func (classicSteps) initialEpoch() int32 { return 0 }

// subscribesTo is ClassicGroup.isSubscribedToTopic: the subscribed topics
// computed from the members' consumer-protocol subscriptions
// (classic_subscriptions.go).
func (classicSteps) subscribesTo(g *group, topic string) bool {
	return g.classicIsSubscribedToTopic(topic)
}

// expiresOffsets is ClassicGroup.offsetExpirationCondition's presence: a
// rebalancing group, or a Stable one whose subscriptions are unknown,
// keeps all its offsets.
func (classicSteps) expiresOffsets(g *group) bool { return g.classicHasOffsetExpirationCondition() }

// validateOffsetDelete is ClassicGroup.validateOffsetDelete: a group with
// members (not Empty) of another protocol type than "consumer" is
// NON_EMPTY_GROUP (Errors.NON_EMPTY_GROUP's default message).
func (classicSteps) validateOffsetDelete(g *group) error {
	if g.notEmpty() && (g.classic == nil || !g.classic.usesConsumerGroupProtocol()) {
		return kerr.NonEmptyGroup.WithMessage("The group is not empty.")
	}
	return nil
}

// deriveState: a classic group's state is its classic state
// (ClassicGroup's own state machine, classic_state.go).
func (classicSteps) deriveState(g *group, _ readiness) GroupState { return g.classicState() }

func (classicSteps) validateOffsetCommit(g *group, req commitRequest) (partitionValidator, error) {
	return validateClassicOffsetCommit(g, req)
}

// validateOffsetFetch: classic simple groups have no members to check.
func (classicSteps) validateOffsetFetch(*group, string, int32) error { return nil }

func (classicSteps) appendTombstones(records []Record, id string) []Record {
	return append(records, &GroupMetadata{Group: id, Tombstone: true})
}

// convertTo: a join (epoch 0) of a type that takes over classic groups
// converts this one, online when it has members (classicUpgrades,
// migration_upgrade.go), or, empty, by writing its tombstone first
// ("Converted the empty classic group to a <type> group"; offsets, keyed
// by group id, stay).
func (classicSteps) convertTo(s *Shard, nowMs int64, g *group, h *heartbeat) (*view, bool, error) {
	if h.memberEpoch != 0 {
		return nil, false, nil
	}
	if g.notEmpty() {
		if classicUpgrades[h.typ] == nil {
			return nil, false, nil
		}
		v, err := classicUpgrades[h.typ](s, nowMs, g)
		return v, err == nil, err
	}
	if !groupKinds[h.typ].convertsEmptyClassic() {
		return nil, false, nil
	}
	v := s.newView(nil, h.typ, h.groupID)
	v.records = append(v.records, &GroupMetadata{Group: h.groupID, Tombstone: true})
	return v, true, nil
}
