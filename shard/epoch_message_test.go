package shard

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/kerr"
)

// TestInvalidMemberEpochMessagesAsGroupCoordinatorService proves the
// coordinator API refuses a member epoch Kafka's GroupCoordinatorService
// refuses with the service's words: "MemberEpoch is invalid." for a
// consumer epoch below -2 and a share epoch below -1, the epoch and its
// bound for a streams epoch below -2 (Kafka 4.4's
// throwIf{Consumer,Share,Streams}GroupHeartbeatRequestIsInvalid).
func TestInvalidMemberEpochMessagesAsGroupCoordinatorService(t *testing.T) {
	s, err := New(0, DefaultConfig())
	require.NoError(t, err)
	message := func(err error) string {
		require.ErrorIs(t, err, kerr.InvalidRequest)
		var me *kerr.MessageError
		require.ErrorAs(t, err, &me)
		return me.Message
	}
	_, err = s.ConsumerGroupHeartbeat(testT, ConsumerGroupHeartbeatRequest{RebalanceTimeoutMs: RebalanceTimeoutNotSent, GroupID: "g", MemberID: "m", MemberEpoch: -3})
	assert.Equal(t, "MemberEpoch is invalid.", message(err))
	_, err = s.ShareGroupHeartbeat(testT, ShareGroupHeartbeatRequest{GroupID: "s", MemberID: "m", MemberEpoch: -2})
	assert.Equal(t, "MemberEpoch is invalid.", message(err))
	_, err = s.ShareGroupHeartbeat(testT, ShareGroupHeartbeatRequest{GroupID: "s", MemberID: "m", MemberEpoch: -5})
	assert.Equal(t, "MemberEpoch is invalid.", message(err))
	_, err = s.StreamsGroupHeartbeat(testT, StreamsGroupHeartbeatRequest{RebalanceTimeoutMs: RebalanceTimeoutNotSent, GroupID: "a", MemberID: "m", MemberEpoch: -3})
	assert.Equal(t, "MemberEpoch is -3, but must be greater than or equal to -2.", message(err))
}
