package wire_test

import (
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/wire"
)

// The group describes over the wire, compared with Kafka's request tests
// (ConsumerGroupDescribeRequestTest, ShareGroupDescribeRequestTest,
// StreamsGroupDescribeRequestTest, DescribeGroupsRequestTest) and
// GroupCoordinatorServiceTest's InvalidGroupId tests: raw requests at the
// exact version on a one-broker cluster.

const (
	// kafkaGroupAuthorizedOperations is what the request tests expect with
	// IncludeAuthorizedOperations and no authorizer:
	// Utils.to32BitField(AclEntry.supportedOperations(GROUP)), the codes of
	// READ 3, DELETE 6, DESCRIBE 8, DESCRIBE_CONFIGS 10, ALTER_CONFIGS 11.
	kafkaGroupAuthorizedOperations int32 = 8 + 64 + 256 + 1024 + 2048
	// authorizedOperationsDefault is the field's default, INT32_MIN: what
	// a row answers when the request does not ask or the row has an error.
	authorizedOperationsDefault int32 = -2147483648
)

// oneOffsetsPartition is the request tests' cluster: one broker and one
// __consumer_offsets partition (OFFSETS_TOPIC_PARTITIONS_CONFIG = 1), so
// every group is described by the same partition and Kafka's row order is
// fully deterministic.
func oneOffsetsPartition(c *wire.Config) {
	c.Brokers = 1
	c.Coordinator.NumPartitions = 1
	c.Coordinator.StreamsInitialRebalanceDelay = 0
}

// rawSender is a raw connection to cl's only broker.
func rawSender(t *testing.T, cl *wire.Cluster) func(kmsg.Request) kmsg.Response {
	t.Helper()
	var c net.Conn = dial(t, cl.Addrs()[0])
	return func(req kmsg.Request) kmsg.Response { return roundTrip(t, c, req) }
}

// TestConsumerGroupDescribeWithNewGroupCoordinator reproduces the grp-1 half
// of ConsumerGroupDescribeRequestTest.testConsumerGroupDescribeWithNewGroupCoordinator
// at v0 and v1: a member subscribed by name to a missing topic is described
// with Kafka's SubscribedTopicRegex "" (ConsumerGroupMember.Builder's
// default, passed through by asConsumerGroupDescribeMember) and null
// instance id and rack; with IncludeAuthorizedOperations the group carries
// Kafka's authorized operations (KafkaApis.handleConsumerGroupDescribe),
// without it the default. An unknown group and the empty id keep the
// default: KafkaApis fills only rows without error.
func TestConsumerGroupDescribeWithNewGroupCoordinator(t *testing.T) {
	t.Parallel()
	cl := startCluster(t, oneOffsetsPartition)
	createTopic(t, testContext(t), newAdmin(t, cl), "foo", 3)
	send := rawSender(t, cl)
	hb := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	hb.Version, hb.Group, hb.MemberID, hb.RebalanceTimeoutMillis = 1, "grp-1", "member-1", 300000
	hb.SubscribedTopicNames, hb.Topics = []string{"bar"}, []kmsg.ConsumerGroupHeartbeatRequestTopic{}
	joined := send(hb).(*kmsg.ConsumerGroupHeartbeatResponse)
	require.Zero(t, joined.ErrorCode, "join: %v", joined.ErrorMessage)

	for v := int16(0); v <= 1; v++ {
		for _, include := range []bool{true, false} {
			req := kmsg.NewPtrConsumerGroupDescribeRequest()
			req.Version, req.Groups, req.IncludeAuthorizedOperations = v, []string{"grp-1", "grp-unknown"}, include
			resp := send(req).(*kmsg.ConsumerGroupDescribeResponse)
			require.Len(t, resp.Groups, 2, "v%d", v)
			g := resp.Groups[0]
			require.Equal(t, "grp-1", g.Group)
			require.Zero(t, g.ErrorCode, "v%d: %v", v, g.ErrorMessage)
			assert.Equal(t, "Stable", g.State)
			// A new group is at epoch 1 (ModernGroup); the join bumps it to 2.
			assert.Equal(t, int32(2), g.Epoch)
			assert.Equal(t, int32(2), g.AssignmentEpoch)
			assert.Equal(t, "uniform", g.AssignorName)
			wantOps := authorizedOperationsDefault
			if include {
				wantOps = kafkaGroupAuthorizedOperations
			}
			assert.Equal(t, wantOps, g.AuthorizedOperations, "v%d include=%v", v, include)
			require.Len(t, g.Members, 1)
			m := g.Members[0]
			assert.Equal(t, "member-1", m.MemberID)
			assert.Equal(t, joined.MemberEpoch, m.MemberEpoch)
			assert.Equal(t, "test", m.ClientID)
			assert.Equal(t, "/127.0.0.1", m.ClientHost)
			assert.Equal(t, []string{"bar"}, m.SubscribedTopics)
			if assert.NotNil(t, m.SubscribedTopicRegex, "v%d: Kafka describes an unset regex as \"\", not null", v) {
				assert.Equal(t, "", *m.SubscribedTopicRegex)
			}
			assert.Nil(t, m.InstanceID)
			assert.Nil(t, m.RackID)
			wantType := int8(1)
			if v == 0 {
				wantType = -1
			}
			assert.Equal(t, wantType, m.MemberType)

			unknown := resp.Groups[1]
			assert.Equal(t, "grp-unknown", unknown.Group)
			assert.Equal(t, int16(69), unknown.ErrorCode)
			assert.Equal(t, authorizedOperationsDefault, unknown.AuthorizedOperations, "an error row keeps the default")
		}

		req := kmsg.NewPtrConsumerGroupDescribeRequest()
		req.Version, req.Groups, req.IncludeAuthorizedOperations = v, []string{""}, true
		resp := send(req).(*kmsg.ConsumerGroupDescribeResponse)
		require.Len(t, resp.Groups, 1)
		assert.Equal(t, int16(24), resp.Groups[0].ErrorCode)
		assert.Equal(t, authorizedOperationsDefault, resp.Groups[0].AuthorizedOperations)
	}
}

// TestShareGroupDescribe reproduces ShareGroupDescribeRequestTest.testShareGroupDescribe:
// a share member subscribed to a missing topic, described at v1 with
// IncludeAuthorizedOperations, is Kafka's expected group, authorized
// operations included (KafkaApis.handleShareGroupDescribe); without the
// flag, and on an error row, the field keeps its default.
func TestShareGroupDescribe(t *testing.T) {
	t.Parallel()
	cl := startCluster(t, oneOffsetsPartition)
	createTopic(t, testContext(t), newAdmin(t, cl), "foo", 3)
	send := rawSender(t, cl)
	hb := kmsg.NewPtrShareGroupHeartbeatRequest()
	hb.Version, hb.GroupID, hb.MemberID, hb.SubscribedTopicNames = 1, "grp-1", "member-1", []string{"bar"}
	joined := send(hb).(*kmsg.ShareGroupHeartbeatResponse)
	require.Zero(t, joined.ErrorCode, "join: %v", joined.ErrorMessage)

	for _, include := range []bool{true, false} {
		req := kmsg.NewPtrShareGroupDescribeRequest()
		req.Version, req.GroupIDs, req.IncludeAuthorizedOperations = 1, []string{"grp-1", "grp-unknown"}, include
		resp := send(req).(*kmsg.ShareGroupDescribeResponse)
		require.Len(t, resp.Groups, 2)
		g := resp.Groups[0]
		require.Equal(t, "grp-1", g.GroupID)
		require.Zero(t, g.ErrorCode, "%v", g.ErrorMessage)
		assert.Equal(t, "Stable", g.GroupState)
		// A new group is at epoch 1 (ModernGroup); the join bumps it to 2.
		assert.Equal(t, int32(2), g.GroupEpoch)
		assert.Equal(t, int32(2), g.AssignmentEpoch)
		assert.Equal(t, "simple", g.Assignor)
		wantOps := authorizedOperationsDefault
		if include {
			wantOps = kafkaGroupAuthorizedOperations
		}
		assert.Equal(t, wantOps, g.AuthorizedOperations, "include=%v", include)
		require.Len(t, g.Members, 1)
		m := g.Members[0]
		assert.Equal(t, "member-1", m.MemberID)
		assert.Equal(t, joined.MemberEpoch, m.MemberEpoch)
		assert.Equal(t, "test", m.ClientID)
		assert.Equal(t, "/127.0.0.1", m.ClientHost)
		assert.Equal(t, []string{"bar"}, m.SubscribedTopicNames)
		assert.Nil(t, m.RackID)

		unknown := resp.Groups[1]
		assert.Equal(t, int16(69), unknown.ErrorCode)
		assert.Equal(t, authorizedOperationsDefault, unknown.AuthorizedOperations, "an error row keeps the default")
	}
}

// TestStreamsGroupDescribeGroupsWithNewGroupCoordinator reproduces the
// authorized-operations assertion of
// StreamsGroupDescribeRequestTest.testStreamsGroupDescribeGroupsWithNewGroupCoordinator
// at v0 and v1: with IncludeAuthorizedOperations every described group
// carries Kafka's value (KafkaApis.handleStreamsGroupDescribe); without
// it, and on an error row, the default.
func TestStreamsGroupDescribeGroupsWithNewGroupCoordinator(t *testing.T) {
	t.Parallel()
	cl := startCluster(t, oneOffsetsPartition)
	createTopic(t, testContext(t), newAdmin(t, cl), "foo", 3)
	send := rawSender(t, cl)
	for _, group := range []string{"grp-1", "grp-2"} {
		join := kmsg.NewPtrStreamsGroupHeartbeatRequest()
		join.Group, join.MemberID, join.RebalanceTimeoutMillis = group, group+"-member", 300000
		join.ProcessID, join.Topology = ptr("process"), oneSubtopology("foo")
		noOwnedTasks(join)
		joined := send(join).(*kmsg.StreamsGroupHeartbeatResponse)
		require.Zero(t, joined.ErrorCode, "join %s: %v", group, joined.ErrorMessage)
	}
	for v := int16(0); v <= 1; v++ {
		for _, include := range []bool{true, false} {
			req := kmsg.NewPtrStreamsGroupDescribeRequest()
			req.Version, req.Groups, req.IncludeAuthorizedOperations = v, []string{"grp-1", "grp-2", "grp-unknown"}, include
			resp := send(req).(*kmsg.StreamsGroupDescribeResponse)
			require.Len(t, resp.Groups, 3, "v%d", v)
			wantOps := authorizedOperationsDefault
			if include {
				wantOps = kafkaGroupAuthorizedOperations
			}
			for i, g := range resp.Groups[:2] {
				assert.Equal(t, []string{"grp-1", "grp-2"}[i], g.Group)
				require.Zero(t, g.ErrorCode, "v%d %s: %v", v, g.Group, g.ErrorMessage)
				assert.Equal(t, wantOps, g.AuthorizedOperations, "v%d %s include=%v", v, g.Group, include)
				assert.Len(t, g.Members, 1)
			}
			unknown := resp.Groups[2]
			assert.Equal(t, int16(69), unknown.ErrorCode)
			assert.Equal(t, authorizedOperationsDefault, unknown.AuthorizedOperations, "an error row keeps the default")
		}
	}
}

// TestGroupDescribeInvalidGroupId reproduces GroupCoordinatorServiceTest's
// testConsumerGroupDescribeInvalidGroupId and testStreamsGroupDescribeInvalidGroupId
// (and the share twin of GroupCoordinatorService.shareGroupDescribe) over
// the wire: each empty group id is answered INVALID_GROUP_ID with no
// message, and those rows come before every described group, in request
// order, as GroupCoordinatorService adds their futures before the
// partitions'; the others keep request order within the one partition.
// Asked for authorized operations, only the described group has them.
func TestGroupDescribeInvalidGroupId(t *testing.T) {
	t.Parallel()
	cl := startCluster(t, oneOffsetsPartition)
	createTopic(t, testContext(t), newAdmin(t, cl), "foo", 3)
	send := rawSender(t, cl)

	cj := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	cj.Version, cj.Group, cj.MemberID, cj.RebalanceTimeoutMillis = 1, "consumer-grp", "c1", 300000
	cj.SubscribedTopicNames, cj.Topics = []string{"foo"}, []kmsg.ConsumerGroupHeartbeatRequestTopic{}
	require.Zero(t, send(cj).(*kmsg.ConsumerGroupHeartbeatResponse).ErrorCode)
	sj := kmsg.NewPtrShareGroupHeartbeatRequest()
	sj.Version, sj.GroupID, sj.MemberID, sj.SubscribedTopicNames = 1, "share-grp", "s1", []string{"foo"}
	require.Zero(t, send(sj).(*kmsg.ShareGroupHeartbeatResponse).ErrorCode)
	tj := kmsg.NewPtrStreamsGroupHeartbeatRequest()
	tj.Group, tj.MemberID, tj.RebalanceTimeoutMillis = "streams-grp", "t1", 300000
	tj.ProcessID, tj.Topology = ptr("process"), oneSubtopology("foo")
	noOwnedTasks(tj)
	require.Zero(t, send(tj).(*kmsg.StreamsGroupHeartbeatResponse).ErrorCode)

	// row is one answered row: group id, code, message, authorized operations.
	type row struct {
		group string
		code  int16
		msg   *string
		ops   int32
	}
	want := func(group string) []row {
		return []row{
			{"", 24, nil, authorizedOperationsDefault},
			{"", 24, nil, authorizedOperationsDefault},
			{group, 0, nil, kafkaGroupAuthorizedOperations},
			{"grp-unknown", 69, ptr("Group grp-unknown not found."), authorizedOperationsDefault},
		}
	}
	ids := func(group string) []string { return []string{group, "", "grp-unknown", ""} }

	t.Run("ConsumerGroupDescribe", func(t *testing.T) {
		req := kmsg.NewPtrConsumerGroupDescribeRequest()
		req.Version, req.Groups, req.IncludeAuthorizedOperations = 1, ids("consumer-grp"), true
		var got []row
		for _, g := range send(req).(*kmsg.ConsumerGroupDescribeResponse).Groups {
			got = append(got, row{g.Group, g.ErrorCode, g.ErrorMessage, g.AuthorizedOperations})
		}
		assert.Equal(t, want("consumer-grp"), got)
	})
	t.Run("ShareGroupDescribe", func(t *testing.T) {
		req := kmsg.NewPtrShareGroupDescribeRequest()
		req.Version, req.GroupIDs, req.IncludeAuthorizedOperations = 1, ids("share-grp"), true
		var got []row
		for _, g := range send(req).(*kmsg.ShareGroupDescribeResponse).Groups {
			got = append(got, row{g.GroupID, g.ErrorCode, g.ErrorMessage, g.AuthorizedOperations})
		}
		assert.Equal(t, want("share-grp"), got)
	})
	t.Run("StreamsGroupDescribe", func(t *testing.T) {
		req := kmsg.NewPtrStreamsGroupDescribeRequest()
		req.Version, req.Groups, req.IncludeAuthorizedOperations = 1, ids("streams-grp"), true
		var got []row
		for _, g := range send(req).(*kmsg.StreamsGroupDescribeResponse).Groups {
			got = append(got, row{g.Group, g.ErrorCode, g.ErrorMessage, g.AuthorizedOperations})
		}
		assert.Equal(t, want("streams-grp"), got)
	})
}

// TestDescribeGroupsAuthorizedOperations proves DescribeGroups' authorized
// operations as KafkaApis.handleDescribeGroupsRequest sets them: from v3,
// when asked, on every row without error, which below v6 includes the Dead
// row of a group that is not found or not classic
// (GroupMetadataManager.describeGroups sets no error there); at v6 those
// rows carry GROUP_ID_NOT_FOUND and keep the default, while a simple group
// still gets them. Not asked, or below v3, every row keeps the default.
func TestDescribeGroupsAuthorizedOperations(t *testing.T) {
	t.Parallel()
	cl := startCluster(t, oneOffsetsPartition)
	createTopic(t, testContext(t), newAdmin(t, cl), "foo", 3)
	send := rawSender(t, cl)
	commit := kmsg.NewPtrOffsetCommitRequest()
	commit.Version, commit.Group, commit.Generation = 8, "simple", -1
	ct := kmsg.NewOffsetCommitRequestTopic()
	ct.Topic = "foo"
	cp := kmsg.NewOffsetCommitRequestTopicPartition()
	cp.Partition, cp.Offset, cp.LeaderEpoch = 0, 1, -1
	ct.Partitions = []kmsg.OffsetCommitRequestTopicPartition{cp}
	commit.Topics = []kmsg.OffsetCommitRequestTopic{ct}
	require.Zero(t, send(commit).(*kmsg.OffsetCommitResponse).Topics[0].Partitions[0].ErrorCode)

	for v := int16(0); v <= 6; v++ {
		for _, include := range []bool{true, false} {
			req := kmsg.NewPtrDescribeGroupsRequest()
			req.Version, req.Groups, req.IncludeAuthorizedOperations = v, []string{"simple", "grp-unknown"}, include
			resp := send(req).(*kmsg.DescribeGroupsResponse)
			require.Len(t, resp.Groups, 2, "v%d", v)
			simple, unknown := resp.Groups[0], resp.Groups[1]
			require.Zero(t, simple.ErrorCode, "v%d", v)
			assert.Equal(t, "Empty", simple.State)
			assert.Equal(t, "Dead", unknown.State)
			asked := include && v >= 3
			wantSimple, wantUnknown := authorizedOperationsDefault, authorizedOperationsDefault
			if asked {
				wantSimple = kafkaGroupAuthorizedOperations
				if v < 6 {
					wantUnknown = kafkaGroupAuthorizedOperations
				}
			}
			assert.Equal(t, wantSimple, simple.AuthorizedOperations, "v%d include=%v simple", v, include)
			assert.Equal(t, wantUnknown, unknown.AuthorizedOperations, "v%d include=%v unknown (code %d)", v, include, unknown.ErrorCode)
		}
	}
}
