package shard

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLeaveResponseCarriesNoHeartbeatInterval reproduces the responses
// GroupMetadataManagerTest asserts for leaves (testLeavingMemberBumpsGroupEpoch,
// testStaticMemberGetsBackAssignmentUponRejoin's temporary leave,
// testShareGroupLeavingMemberBumpsGroupEpoch, and the streams twin): only
// the member id and the epoch (-1, or -2 for a static member), so
// HeartbeatIntervalMs is 0, while a regular heartbeat carries the interval.
func TestLeaveResponseCarriesNoHeartbeatInterval(t *testing.T) {
	h := newHarness(t, testConfig(), map[string]int32{"foo": 2})

	join := h.consumerJoin("c", "m1", "foo")
	require.Positive(t, join.HeartbeatIntervalMs, "a join carries the interval")
	res, err := h.s.ConsumerGroupHeartbeat(h.nowMs, ConsumerGroupHeartbeatRequest{RebalanceTimeoutMs: RebalanceTimeoutNotSent, GroupID: "c", MemberID: "m1", MemberEpoch: -1})
	leave := mustApply(h, res, err)
	assert.Equal(t, ConsumerGroupHeartbeatResponse{MemberID: "m1", MemberEpoch: -1}, leave, "consumer leave")

	res, err = h.s.ConsumerGroupHeartbeat(h.nowMs, ConsumerGroupHeartbeatRequest{GroupID: "c", MemberID: "s1", InstanceID: "i1",
		MemberEpoch: 0, RebalanceTimeoutMs: 300_000, SubscribedTopicNames: []string{"foo"}})
	mustApply(h, res, err)
	res, err = h.s.ConsumerGroupHeartbeat(h.nowMs, ConsumerGroupHeartbeatRequest{RebalanceTimeoutMs: RebalanceTimeoutNotSent, GroupID: "c", MemberID: "s1", InstanceID: "i1", MemberEpoch: -2})
	leave = mustApply(h, res, err)
	assert.Equal(t, ConsumerGroupHeartbeatResponse{MemberID: "s1", MemberEpoch: -2}, leave, "static consumer leave")

	require.Positive(t, h.shareJoin("sh", "m1", "foo").HeartbeatIntervalMs)
	shareLeave := h.shareHeartbeat("sh", "m1", -1)
	assert.Equal(t, ShareGroupHeartbeatResponse{MemberID: "m1", MemberEpoch: -1}, shareLeave, "share leave")

	require.Positive(t, h.streamsJoin("st", "m1", topo(1, "foo")).HeartbeatIntervalMs)
	streamsLeave := h.streamsHeartbeat("st", "m1", -1)
	assert.Equal(t, int32(-1), streamsLeave.MemberEpoch, "streams leave")
	assert.Zero(t, streamsLeave.HeartbeatIntervalMs, "streams leave")
}
