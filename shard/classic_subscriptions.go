package shard

import (
	"encoding/binary"
	"slices"
)

// A classic group's subscribed topics (Kafka's ClassicGroup.subscribedTopics,
// an Optional<Set<String>>): what OffsetDelete refuses to delete
// (GROUP_SUBSCRIBED_TO_TOPIC) and what the offset sweep keeps. Kafka
// computes them only at a few points (computeSubscribedTopics, called by
// initNextGeneration, by fromConsumerGroup on a downgrade and by the replay
// of a GroupMetadata record on load) and keeps them until the next one, so
// members that join, leave or change their subscription in between do not
// move them. coordsim computes them at the same points and keeps them in
// the ClassicGroupState snapshot (SubscribedTopics, SubscribedTopicsKnown),
// so a replayed shard has the live one's.

// computeSubscribedTopics is ClassicGroup.computeSubscribedTopics: unknown
// (known false, Kafka's Optional.empty) unless the protocol type is
// "consumer"; none (known, Set.of()) without members; unknown without a
// chosen protocol; otherwise the union of the topics every member's
// metadata for the chosen protocol names, unknown if one does not parse.
func (st *ClassicGroupState) computeSubscribedTopics() (topics []string, known bool) {
	if st.ProtocolType != ConsumerProtocolType {
		return nil, false
	}
	if len(st.Members) == 0 {
		return nil, true
	}
	if st.ProtocolName == "" {
		return nil, false
	}
	var all []string
	for i := range st.Members {
		ts, ok := consumerSubscriptionTopicsV0(st.Members[i].metadata(st.ProtocolName))
		if !ok {
			return nil, false
		}
		all = append(all, ts...)
	}
	return sortedTopics(all), true
}

// setSubscribedTopics stores computeSubscribedTopics in the snapshot
// (ClassicGroup.setSubscribedTopics(computeSubscribedTopics())).
func (st *ClassicGroupState) setSubscribedTopics() {
	st.SubscribedTopics, st.SubscribedTopicsKnown = st.computeSubscribedTopics()
}

// usesConsumerGroupProtocol is ClassicGroup.usesConsumerGroupProtocol: the
// protocol type is "consumer".
func (st *ClassicGroupState) usesConsumerGroupProtocol() bool {
	return st.ProtocolType == ConsumerProtocolType
}

// isSubscribedToTopic is ClassicGroup.isSubscribedToTopic: membership in
// the subscribed topics when they are known; when they are not (a consumer
// group whose first generation has not started, or whose subscriptions do
// not parse), every topic for a consumer-protocol group and none for any
// other protocol type.
func (st *ClassicGroupState) isSubscribedToTopic(topic string) bool {
	if !st.SubscribedTopicsKnown {
		return st.usesConsumerGroupProtocol()
	}
	_, ok := slices.BinarySearch(st.SubscribedTopics, topic)
	return ok
}

// hasOffsetExpirationCondition reports whether
// ClassicGroup.offsetExpirationCondition is present, that is whether the
// sweep may expire any of the group's offsets: always for a group without
// a protocol type (a simple group) or an Empty one; otherwise only a Stable
// consumer-protocol group whose subscribed topics are known (it then
// expires the offsets of the other topics). A group in a rebalance, or of
// another protocol type, keeps all its offsets.
//
// Kafka bases an Empty group's deadlines on its current state timestamp
// when it has one; coordsim's offsets expire by their commit time.
func (st *ClassicGroupState) hasOffsetExpirationCondition() bool {
	if st.ProtocolType == "" || st.State == StateEmpty {
		return true
	}
	return st.usesConsumerGroupProtocol() && st.SubscribedTopicsKnown && st.State == StateStable
}

// consumerSubscriptionTopicsV0 reads the topics of ConsumerProtocol
// subscription bytes as computeSubscribedTopics does: the version header
// (ConsumerProtocol.deserializeVersion), then the v0 schema whatever the
// version (topics, then nullable user data: the prefix every later version
// extends), trailing bytes ignored. ok is false where Kafka's parse fails:
// a buffer underflow (a SchemaException, which Kafka catches: "not aware
// of the subscribed topics"), and also a null or oversized array, string
// or user data, for which Kafka's generated reader throws a
// RuntimeException that computeSubscribedTopics does not catch (the
// operation fails in Kafka; coordsim reads them as unknown topics).
func consumerSubscriptionTopicsV0(b []byte) (topics []string, ok bool) {
	if len(b) < 2+4 {
		return nil, false
	}
	r := b[2:]
	n := int32(binary.BigEndian.Uint32(r))
	r = r[4:]
	if n < 0 || 2*int64(n) > int64(len(r)) {
		return nil, false // each topic takes at least its 2-byte length
	}
	topics = make([]string, 0, n)
	for range n {
		if len(r) < 2 {
			return nil, false
		}
		l := int16(binary.BigEndian.Uint16(r))
		r = r[2:]
		if l < 0 || int(l) > len(r) {
			return nil, false
		}
		topics = append(topics, string(r[:l]))
		r = r[l:]
	}
	if len(r) < 4 {
		return nil, false
	}
	if u := int32(binary.BigEndian.Uint32(r)); u > 0 && int64(u) > int64(len(r)-4) {
		return nil, false
	}
	return topics, true
}

// classicIsSubscribedToTopic is isSubscribedToTopic for a classic group; a
// simple group (offsets only, no protocol type) subscribes to nothing.
func (g *group) classicIsSubscribedToTopic(topic string) bool {
	return g.classic != nil && g.classic.isSubscribedToTopic(topic)
}

// classicHasOffsetExpirationCondition is hasOffsetExpirationCondition for a
// classic group; a simple group's offsets expire.
func (g *group) classicHasOffsetExpirationCondition() bool {
	return g.classic == nil || g.classic.hasOffsetExpirationCondition()
}
