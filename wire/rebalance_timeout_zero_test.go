package wire_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestConsumerJoinWithRebalanceTimeoutZeroOverTheWire: Kafka's
// GroupCoordinatorService refuses a join's RebalanceTimeoutMs only when it
// is -1 (not sent), so a client's join with 0 is a member with a rebalance
// timeout of 0, and its first join to a new group lands on epoch 2 (a
// ModernGroup starts at 1).
func TestConsumerJoinWithRebalanceTimeoutZeroOverTheWire(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	ctx := testContext(t)
	createTopic(t, ctx, newAdmin(t, cl), "t", 2)
	const group = "rebalance-timeout-zero"
	send := coordinatorOf(t, ctx, cl, group)

	join := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	join.Group, join.MemberID, join.MemberEpoch = group, "m1", 0
	join.RebalanceTimeoutMillis, join.SubscribedTopicNames = 0, []string{"t"}
	join.Topics = []kmsg.ConsumerGroupHeartbeatRequestTopic{}
	resp := send(join).(*kmsg.ConsumerGroupHeartbeatResponse)
	require.Zero(t, resp.ErrorCode, "a join with rebalance timeout 0: %v", resp.ErrorMessage)
	assert.Equal(t, int32(2), resp.MemberEpoch)

	join.MemberID, join.RebalanceTimeoutMillis = "m2", -1
	resp = send(join).(*kmsg.ConsumerGroupHeartbeatResponse)
	assert.Equal(t, "INVALID_REQUEST RebalanceTimeoutMs must be provided in first request.",
		kerr.TypedErrorForCode(resp.ErrorCode).Message+" "+derefString(resp.ErrorMessage))
}
