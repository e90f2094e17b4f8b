package shard

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/kerr"
)

// TestLeaveOfUnknownGroupNamesNoGroupType proves a leave (epoch -1, or -2
// for a static member) of a group that does not exist answers
// GROUP_ID_NOT_FOUND "Group <id> not found." as Kafka 4.4 does (its leave
// looks the group up by id alone), while a heartbeat at a positive epoch
// names the type ("Consumer group <id> not found."). Found by the
// differential runner against Kafka's GroupCoordinatorShard.
func TestLeaveOfUnknownGroupNamesNoGroupType(t *testing.T) {
	s, err := New(0, DefaultConfig())
	require.NoError(t, err)
	message := func(err error) string {
		require.ErrorIs(t, err, kerr.GroupIDNotFound)
		var me *kerr.MessageError
		require.ErrorAs(t, err, &me)
		return me.Message
	}
	_, err = s.ConsumerGroupHeartbeat(testT, ConsumerGroupHeartbeatRequest{RebalanceTimeoutMs: RebalanceTimeoutNotSent, GroupID: "g", MemberID: "m", MemberEpoch: -1})
	assert.Equal(t, "Group g not found.", message(err))
	_, err = s.ConsumerGroupHeartbeat(testT, ConsumerGroupHeartbeatRequest{RebalanceTimeoutMs: RebalanceTimeoutNotSent, GroupID: "g", MemberID: "m", MemberEpoch: -2, InstanceID: "i"})
	assert.Equal(t, "Group g not found.", message(err))
	_, err = s.ShareGroupHeartbeat(testT, ShareGroupHeartbeatRequest{GroupID: "s", MemberID: "m", MemberEpoch: -1})
	assert.Equal(t, "Group s not found.", message(err))
	_, err = s.ConsumerGroupHeartbeat(testT, ConsumerGroupHeartbeatRequest{RebalanceTimeoutMs: RebalanceTimeoutNotSent, GroupID: "g", MemberID: "m", MemberEpoch: 3})
	assert.Equal(t, "Consumer group g not found.", message(err))
	_, err = s.ShareGroupHeartbeat(testT, ShareGroupHeartbeatRequest{GroupID: "s", MemberID: "m", MemberEpoch: 3})
	assert.Equal(t, "Share group s not found.", message(err))
}
