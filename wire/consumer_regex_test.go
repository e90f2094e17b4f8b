package wire_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/kerr"
)

// TestConsumerGroupHeartbeatRegexAndAssignor proves the endpoint hands
// SubscribedTopicRegex and ServerAssignor to the coordinator: a regex
// subscription is assigned the topics it matches, an invalid regex is
// INVALID_REGULAR_EXPRESSION and an unknown assignor UNSUPPORTED_ASSIGNOR,
// each with Kafka's message.
func TestConsumerGroupHeartbeatRegexAndAssignor(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	ctx := testContext(t)
	adm := newAdmin(t, cl)
	createTopic(t, ctx, adm, "orders-eu", 2)
	createTopic(t, ctx, adm, "orders-us", 1)
	createTopic(t, ctx, adm, "payments", 1)
	const group = "regex-group"
	node, err := cl.CoordinatorFor(coordinator.PartitionFor(group, 50))
	require.NoError(t, err)
	coord := newClient(t, cl).Broker(int(node))
	heartbeat := func(member string, regex, assignor *string) *kmsg.ConsumerGroupHeartbeatResponse {
		t.Helper()
		req := kmsg.NewPtrConsumerGroupHeartbeatRequest()
		req.Group, req.MemberID, req.MemberEpoch, req.RebalanceTimeoutMillis = group, member, 0, 30000
		req.SubscribedTopicRegex, req.ServerAssignor = regex, assignor
		req.Topics = []kmsg.ConsumerGroupHeartbeatRequestTopic{}
		resp, err := coord.Request(ctx, req)
		require.NoError(t, err)
		return resp.(*kmsg.ConsumerGroupHeartbeatResponse)
	}
	str := func(s string) *string { return &s }

	bad := heartbeat("m0", str("orders-("), nil)
	assert.Equal(t, kerr.InvalidRegularExpression.Code, bad.ErrorCode)
	require.NotNil(t, bad.ErrorMessage)
	assert.Equal(t, "SubscribedTopicRegex `orders-(` is not a valid regular expression: missing closing ).", *bad.ErrorMessage)

	bad = heartbeat("m0", str("orders-.*"), str("sticky"))
	assert.Equal(t, kerr.UnsupportedAssignor.Code, bad.ErrorCode)
	require.NotNil(t, bad.ErrorMessage)
	assert.Equal(t, "ServerAssignor sticky is not supported. Supported assignors: uniform, range.", *bad.ErrorMessage)

	ok := heartbeat("m1", str("orders-.*"), str("range"))
	require.Zero(t, ok.ErrorCode, "join: %v", ok.ErrorMessage)
	// The regex resolves after the join (Kafka's asynchronous refresh): the
	// member's next heartbeats get the topics.
	assert.Equal(t, 3, assignedAfterRegexRefresh(t, ctx, coord, group, "m1", ok), "the regex matched orders-eu and orders-us, not payments")
}

// assignedAfterRegexRefresh heartbeats a member that joined with a regex
// until an answer carries an assignment, as a KIP-848 client does while
// the coordinator resolves the regex in the background, and returns how
// many partitions it was given.
func assignedAfterRegexRefresh(t *testing.T, ctx context.Context, coord *kgo.Broker, group, member string, joined *kmsg.ConsumerGroupHeartbeatResponse) int {
	t.Helper()
	resp := joined
	for range 100 {
		if resp.Assignment != nil && len(resp.Assignment.Topics) > 0 {
			n := 0
			for _, tp := range resp.Assignment.Topics {
				n += len(tp.Partitions)
			}
			return n
		}
		time.Sleep(20 * time.Millisecond)
		req := kmsg.NewPtrConsumerGroupHeartbeatRequest()
		req.Group, req.MemberID, req.MemberEpoch = group, member, resp.MemberEpoch
		req.Topics = []kmsg.ConsumerGroupHeartbeatRequestTopic{}
		r, err := req.RequestWith(ctx, coord)
		require.NoError(t, err)
		require.Zero(t, r.ErrorCode, "heartbeat: %v", r.ErrorMessage)
		resp = r
	}
	t.Fatalf("%s got no assignment within 2 s of joining with a regex", member)
	return 0
}
