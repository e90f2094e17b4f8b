package shard

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/offsets"
)

// subscription is a member's ConsumerProtocol subscription bytes (v3, as a
// Kafka 4 client sends them) naming topics.
func subscription(topics ...string) []byte {
	s := kmsg.NewConsumerMemberMetadata()
	s.Version, s.Topics, s.Generation = 3, topics, -1
	return s.AppendTo(nil)
}

// rangeMember is a member supporting "range" with metadata.
func rangeMember(id string, metadata []byte) ClassicMember {
	return ClassicMember{MemberID: id, ClientID: "c", RebalanceTimeoutMs: 10_000, SessionTimeoutMs: 10_000,
		Protocols: []ClassicProtocol{{Name: "range", Metadata: metadata}}}
}

// TestIsSubscribedToTopic proves Kafka's ClassicGroupTest.testIsSubscribedToTopic:
// a group without a protocol type subscribes to nothing; one of another
// protocol type than "consumer" neither (its topics are unknown); a
// consumer group's next generation without members knows it subscribes to
// nothing; with a member it subscribes to the member's topics.
func TestIsSubscribedToTopic(t *testing.T) {
	op := &classicOp{nowMs: testT, st: newClassicGroupState("groupId", testT)}
	st := op.st
	require.False(t, st.isSubscribedToTopic("topic"), "no protocol type")

	meta := subscription("topic")
	op.add(rangeMember("memberWithNonConsumerProtocol", meta), "My Protocol")
	op.transitionTo(StatePreparingRebalance)
	op.initNextGeneration()
	require.Equal(t, StateCompletingRebalance, st.State)
	_, known := st.computeSubscribedTopics()
	require.False(t, known, "another protocol type: Optional.empty")
	require.False(t, st.isSubscribedToTopic("topic"))

	op.remove("memberWithNonConsumerProtocol")
	op.add(rangeMember("memberWithConsumerProtocol", meta), ConsumerProtocolType)
	op.remove("memberWithConsumerProtocol")
	op.transitionTo(StatePreparingRebalance)
	op.initNextGeneration()
	require.Equal(t, StateEmpty, st.State)
	topics, known := st.computeSubscribedTopics()
	require.True(t, known, "no members: Optional.of(Set.of())")
	require.Empty(t, topics)
	require.True(t, st.usesConsumerGroupProtocol())
	require.False(t, st.isSubscribedToTopic("topic"))

	op.add(rangeMember("memberWithConsumerProtocol", meta), ConsumerProtocolType)
	op.transitionTo(StatePreparingRebalance)
	op.initNextGeneration()
	require.Equal(t, StateCompletingRebalance, st.State)
	topics, known = st.computeSubscribedTopics()
	require.True(t, known)
	require.Equal(t, []string{"topic"}, topics)
	require.True(t, st.usesConsumerGroupProtocol())
	require.True(t, st.isSubscribedToTopic("topic"))
	require.False(t, st.isSubscribedToTopic("other"))
}

// TestOffsetExpirationCondition proves the presence half of Kafka's
// ClassicGroupTest.testOffsetExpirationCondition: a group without a
// protocol type and an Empty one of any type have a condition, a
// non-Empty group of another protocol type none, a Stable consumer group
// whose topics are known one, and the same group rebalancing none. (The
// base timestamp half, an Empty group's deadline from its state timestamp,
// is not modelled: coordsim's offsets expire by their commit time.)
func TestOffsetExpirationCondition(t *testing.T) {
	op := &classicOp{nowMs: testT, st: newClassicGroupState("groupId", testT)}
	st := op.st
	require.True(t, st.hasOffsetExpirationCondition(), "1. no protocol type")

	meta := subscription("topic")
	op.add(rangeMember("memberWithNonConsumerProtocol", meta), "My Protocol")
	require.Equal(t, "My Protocol", st.ProtocolType)
	require.True(t, st.hasOffsetExpirationCondition(), "2. another protocol type, Empty")

	op.transitionTo(StatePreparingRebalance)
	require.False(t, st.hasOffsetExpirationCondition(), "3. another protocol type, not Empty")

	op.remove("memberWithNonConsumerProtocol")
	op.add(rangeMember("memberWithConsumerProtocol", meta), ConsumerProtocolType)
	op.initNextGeneration()
	op.transitionTo(StateStable)
	require.Equal(t, []string{"topic"}, st.SubscribedTopics)
	require.True(t, st.hasOffsetExpirationCondition(), "4. consumer, known topics, Stable")

	op.transitionTo(StatePreparingRebalance)
	require.False(t, st.hasOffsetExpirationCondition(), "5. consumer, known topics, rebalancing")
}

// TestComputeSubscribedTopicsReadsV0Prefix proves that the subscribed
// topics are the union of every member's, read with the v0 schema whatever
// the version (ConsumerProtocol.deserializeConsumerProtocolSubscription(buf,
// 0): a v3 subscription's owned partitions and rack are ignored), and that
// one member's unparsable metadata makes them unknown, which for a
// consumer group means subscribed to every topic.
func TestComputeSubscribedTopicsReadsV0Prefix(t *testing.T) {
	st := &ClassicGroupState{Group: "g", State: StateStable, ProtocolType: ConsumerProtocolType, ProtocolName: "range",
		Members: []ClassicMember{rangeMember("a", subscription("t1", "t0")), rangeMember("b", subscription("t2", "t0"))}}
	topics, known := st.computeSubscribedTopics()
	require.True(t, known)
	require.Equal(t, []string{"t0", "t1", "t2"}, topics)

	st.Members[1].Protocols[0].Metadata = []byte{0, 3, 0, 0}
	st.setSubscribedTopics()
	require.False(t, st.SubscribedTopicsKnown, "a truncated subscription: SchemaException, Optional.empty")
	require.True(t, st.isSubscribedToTopic("anything"), "unknown topics of a consumer group: usesConsumerGroupProtocol")

	st.ProtocolName = ""
	_, known = st.computeSubscribedTopics()
	require.False(t, known, "no protocol chosen")
}

// TestConsumerSubscriptionTopicsV0 proves the v0 reader against the bytes
// Kafka's fails on: every truncation of a subscription fails until the
// user data's length is read, and null or oversized lengths fail.
func TestConsumerSubscriptionTopicsV0(t *testing.T) {
	v0 := kmsg.NewConsumerMemberMetadata()
	v0.Version, v0.Topics, v0.UserData = 0, []string{"foo", "bar"}, []byte("ud")
	b := v0.AppendTo(nil)
	topics, ok := consumerSubscriptionTopicsV0(b)
	require.True(t, ok)
	require.Equal(t, []string{"foo", "bar"}, topics)
	// The user data's four length bytes end the part Kafka must read;
	// shorter is an underflow, and a length past the end fails too.
	need := len(b) - len("ud")
	for n := 0; n < len(b); n++ {
		_, ok := consumerSubscriptionTopicsV0(b[:n])
		require.Equal(t, false, ok, "truncated to %d bytes", n)
		if n == need-1 {
			break
		}
	}
	_, ok = consumerSubscriptionTopicsV0(append(b[:need:need], 'x', 'x'))
	require.True(t, ok, "the user data's bytes are there")
	null := append([]byte(nil), b[:need-4]...)
	null = binary.BigEndian.AppendUint32(null, 0xffffffff)
	_, ok = consumerSubscriptionTopicsV0(null)
	require.True(t, ok, "null user data")

	negative := []byte{0, 0, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0}
	_, ok = consumerSubscriptionTopicsV0(negative)
	require.False(t, ok, "a null topic array")
	nullTopic := []byte{0, 0, 0, 0, 0, 1, 0xff, 0xff, 0, 0, 0, 0}
	_, ok = consumerSubscriptionTopicsV0(nullTopic)
	require.False(t, ok, "a null topic name")
	withTrailing := append(subscription("t"), 1, 2, 3)
	topics, ok = consumerSubscriptionTopicsV0(withTrailing)
	require.True(t, ok, "trailing bytes are ignored")
	require.Equal(t, []string{"t"}, topics)
}

// stableClassicGroup forms a Stable classic group "foo" whose one member
// subscribes to topics, and returns the member id.
func stableClassicGroup(t *testing.T, h *harness, topics ...string) string {
	t.Helper()
	return classicGroupOfOne(t, h, "foo", subscription(topics...), encodeAssignment(nil, 3))
}

func deleteOffset(t *testing.T, h *harness, group, topic string) error {
	t.Helper()
	res, err := h.s.DeleteOffsets(group, []TopicPartitions{{Topic: topic, Partitions: []int32{0}}})
	if err != nil {
		return err
	}
	resp := applyResult(h, res)
	require.Len(t, resp.Topics, 1)
	require.Len(t, resp.Topics[0].Partitions, 1)
	return resp.Topics[0].Partitions[0].Err
}

// TestGenericGroupOffsetDeleteWithErrors proves Kafka's
// OffsetMetadataManagerTest.testGenericGroupOffsetDelete and
// testGenericGroupOffsetDeleteWithErrors through the shard: a Stable
// classic group whose member subscribes to "bar" refuses to delete bar's
// offset (GROUP_SUBSCRIBED_TO_TOPIC) and deletes another topic's. A
// replayed shard answers alike.
func TestGenericGroupOffsetDeleteWithErrors(t *testing.T) {
	h := newHarness(t, testConfig(), map[string]int32{"bar": 1, "baz": 1})
	id := stableClassicGroup(t, h, "bar")
	h.commit("foo", id, 1, h.nowMs, "bar-0", "baz-0")
	require.ErrorIs(t, deleteOffset(t, h, "foo", "bar"), kerr.GroupSubscribedToTopic)
	require.NoError(t, deleteOffset(t, h, "foo", "baz"))
	_, ok := h.s.offsets.Get(offsets.Key{Group: "foo", Topic: "baz", Partition: 0})
	require.False(t, ok, "baz-0 deleted")

	requireSnapshotEqual(t, h.s.Snapshot(), h.rebuild().Snapshot(), "replay")
	h.s = h.rebuild()
	require.ErrorIs(t, deleteOffset(t, h, "foo", "bar"), kerr.GroupSubscribedToTopic)
}

// TestClassicGroupSubscribedTopicsLastUntilNextGeneration proves that the
// subscribed topics are those of the group's last generation: a member
// joining with another subscription moves the group into a rebalance but
// not its topics, so OffsetDelete still deletes the new member's topic
// (Kafka computes them in initNextGeneration only).
func TestClassicGroupSubscribedTopicsLastUntilNextGeneration(t *testing.T) {
	h := newHarness(t, testConfig(), map[string]int32{"bar": 1, "baz": 1})
	id := stableClassicGroup(t, h, "bar")
	h.commit("foo", id, 1, h.nowMs, "baz-0")
	res, err := h.s.JoinGroup(h.nowMs, JoinGroupRequest{GroupID: "foo", ClientID: "c2", SessionTimeoutMs: 10_000,
		RebalanceTimeoutMs: 10_000, ProtocolType: ConsumerProtocolType, Handle: 10,
		Protocols: []ClassicProtocol{{Name: "range", Metadata: subscription("baz")}}})
	require.True(t, mustApply(h, res, err).Pending)
	require.Equal(t, StatePreparingRebalance, h.s.lookup("foo").classic.State)
	require.NoError(t, deleteOffset(t, h, "foo", "baz"), "baz is not in the last generation's topics")
	require.ErrorIs(t, deleteOffset(t, h, "foo", "bar"), kerr.GroupSubscribedToTopic)
}

// TestClassicGroupOffsetDeleteNonConsumerProtocol proves ClassicGroup.validateOffsetDelete:
// a group with members of another protocol type than "consumer" refuses
// OffsetDelete with NON_EMPTY_GROUP.
func TestClassicGroupOffsetDeleteNonConsumerProtocol(t *testing.T) {
	h := newHarness(t, testConfig(), map[string]int32{"bar": 1})
	res, err := h.s.JoinGroup(h.nowMs, JoinGroupRequest{GroupID: "foo", ClientID: "c", SessionTimeoutMs: 10_000,
		RebalanceTimeoutMs: 10_000, ProtocolType: "connect", Handle: 1,
		Protocols: []ClassicProtocol{{Name: "default", Metadata: subscription("bar")}}})
	mustApply(h, res, err)
	require.NotEqual(t, StateEmpty, h.s.lookup("foo").classic.State)
	require.ErrorIs(t, deleteOffset(t, h, "foo", "bar"), kerr.NonEmptyGroup)
}

// TestClassicGroupOffsetExpiry proves cleanupExpiredOffsets over a classic
// group: Stable, the offsets of topics its members do not subscribe to
// expire and the subscribed ones stay; in a rebalance nothing expires
// (offsetExpirationCondition is empty).
func TestClassicGroupOffsetExpiry(t *testing.T) {
	h := newHarness(t, testConfig(), map[string]int32{"bar": 1, "baz": 1, "qux": 1})
	id := stableClassicGroup(t, h, "bar")
	h.commit("foo", id, 1, h.nowMs, "bar-0", "baz-0", "qux-0")
	retention := h.cfg.OffsetsRetentionMs

	res := h.s.CleanupGroupMetadata(h.nowMs + retention)
	require.Equal(t, []string{"foo/baz-0", "foo/qux-0"}, offsetTombstoneKeys(res.Records), "Stable: unsubscribed topics expire")
	require.Equal(t, res.Records, h.s.cleanupGroupMetadataFullScan(h.nowMs+retention).Records)

	jres, err := h.s.JoinGroup(h.nowMs, JoinGroupRequest{GroupID: "foo", ClientID: "c2", SessionTimeoutMs: 10_000,
		RebalanceTimeoutMs: 10_000, ProtocolType: ConsumerProtocolType, Handle: 10,
		Protocols: []ClassicProtocol{{Name: "range", Metadata: subscription("baz")}}})
	mustApply(h, jres, err)
	require.Equal(t, StatePreparingRebalance, h.s.lookup("foo").classic.State)
	require.Empty(t, h.s.CleanupGroupMetadata(h.nowMs+retention).Records, "rebalancing: nothing expires")
	require.Empty(t, h.s.cleanupGroupMetadataFullScan(h.nowMs+retention).Records)
}

// TestReplayGroupMetadataComputesSubscribedTopics proves that loading a
// classic group from its GroupMetadata record alone computes its
// subscribed topics from the recorded subscriptions, as Kafka's replay
// does (setSubscribedTopics(computeSubscribedTopics())).
func TestReplayGroupMetadataComputesSubscribedTopics(t *testing.T) {
	h := newHarness(t, testConfig(), map[string]int32{"bar": 1})
	h.replay(&GroupMetadata{Group: "foo", ProtocolType: ConsumerProtocolType, Generation: 3, Protocol: "range", Leader: "m1",
		Members: []GroupMetadataMember{{MemberID: "m1", ClientID: "c", SessionTimeoutMs: 10_000, RebalanceTimeoutMs: 10_000,
			Subscription: subscription("bar", "baz")}}})
	st := h.s.lookup("foo").classic
	require.True(t, st.SubscribedTopicsKnown)
	require.Equal(t, []string{"bar", "baz"}, st.SubscribedTopics)
	require.True(t, h.s.lookup("foo").isSubscribedToTopic("baz"))
	require.False(t, h.s.lookup("foo").isSubscribedToTopic("qux"))
}

// TestDowngradeComputesSubscribedTopics proves that a consumer group
// downgraded to a classic group knows its classic members' topics at once,
// as Kafka's ClassicGroup.fromConsumerGroup sets
// computeSubscribedTopics() after choosing the protocol, and that a
// replayed shard has them too.
func TestDowngradeComputesSubscribedTopics(t *testing.T) {
	h := newHarness(t, testConfig(), map[string]int32{"t0": 2, "t1": 1})
	classicGroupOfOne(t, h, "g", subscription("t0"), encodeAssignment([]TopicPartitions{{Topic: "t0", Partitions: []int32{0, 1}}}, 3))
	h.consumerJoin("g", "c1", "t1") // upgrades the group
	require.Equal(t, Consumer, h.s.lookup("g").typ)
	res, err := h.s.ConsumerGroupHeartbeat(h.nowMs, ConsumerGroupHeartbeatRequest{RebalanceTimeoutMs: RebalanceTimeoutNotSent, GroupID: "g", MemberID: "c1",
		MemberEpoch: LeaveGroupMemberEpoch})
	mustApply(h, res, err)
	g := h.s.lookup("g")
	require.Equal(t, Classic, g.typ, "the last consumer member's leave downgrades the group")
	require.True(t, g.classic.SubscribedTopicsKnown)
	require.Equal(t, []string{"t0"}, g.classic.SubscribedTopics)
	require.True(t, g.isSubscribedToTopic("t0"))
	require.False(t, g.isSubscribedToTopic("t1"), "the leaving consumer member's topic")
	requireSnapshotEqual(t, h.s.Snapshot(), h.rebuild().Snapshot(), "replay after the downgrade")
}

// TestDowngradeKeepsStayingMembersConsumerTimers follows Kafka 4.4's
// convertToClassicGroup, which cancels only the leaving member's
// consumer-group timers: the classic members that stay keep theirs, and
// one that fires while the group is classic does nothing
// (consumerGroupFenceMemberOperation finds no consumer group). Found by
// the differential runner (--share seed 128, --regex seed 719): Kafka
// fences such a member when the group is upgraded again before the timer
// fires.
func TestDowngradeKeepsStayingMembersConsumerTimers(t *testing.T) {
	h := newHarness(t, testConfig(), map[string]int32{"t0": 2, "t1": 1})
	classicGroupOfOne(t, h, "g", subscription("t0"), encodeAssignment([]TopicPartitions{{Topic: "t0", Partitions: []int32{0, 1}}}, 3))
	h.consumerJoin("g", "c1", "t1") // upgrades the group
	var classicID string
	for id, m := range h.s.lookup("g").members {
		if m.classic != nil {
			classicID = id
		}
	}
	require.NotEmpty(t, classicID)
	res, err := h.s.ConsumerGroupHeartbeat(h.nowMs, ConsumerGroupHeartbeatRequest{RebalanceTimeoutMs: RebalanceTimeoutNotSent, GroupID: "g", MemberID: "c1",
		MemberEpoch: LeaveGroupMemberEpoch})
	require.NoError(t, err)
	assert.Contains(t, res.Timers, TimerOp{Key: SessionTimeoutKey("g", "c1"), Cancel: true}, "the leaving member's timers go")
	for _, op := range res.Timers {
		if op.Cancel {
			assert.NotContains(t, op.Key, classicID, "a staying member's timer is kept: %s", op.Key)
		}
	}
	applyResult(h, res)
	require.Equal(t, Classic, h.s.lookup("g").typ)
	fired := h.s.RunTimer(h.nowMs+1, Task{Kind: TaskSessionTimeout, Type: Consumer, GroupID: "g", MemberID: classicID})
	assert.Empty(t, fired.Records, "a consumer-group timer firing on the classic group does nothing")
}
