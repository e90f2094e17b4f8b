package wire_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	require.NotNil(t, ok.Assignment)
	n := 0
	for _, tp := range ok.Assignment.Topics {
		n += len(tp.Partitions)
	}
	assert.Equal(t, 3, n, "the regex matched orders-eu and orders-us, not payments")
}
