package wire_test

import (
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestDescribesThroughOnlineMigration proves the describes of a group that
// goes from classic to consumer and back answer as a Kafka 4.4.0 broker
// answers oracle/brokerdiff's migration/classic-to-consumer-and-back (the
// values pinned here are the broker's): in ConsumerGroupDescribe the member
// converted from the classic group is CLASSIC (MemberType 0,
// ConsumerGroupMember.asConsumerGroupDescribeMember) and the
// consumer-protocol one CONSUMER (1), both with their connection's host;
// once the consumer-protocol member leaves and the group is classic again,
// preparing a rebalance, DescribeGroups shows protocol "", the classic
// member's client host, and its target assignment serialised as
// ConsumerProtocol bytes at its subscription's version
// (ClassicGroup.fromConsumerGroup, describeNoMetadata).
func TestDescribesThroughOnlineMigration(t *testing.T) {
	t.Parallel()
	cl := startCluster(t, oneOffsetsPartition)
	createTopic(t, testContext(t), newAdmin(t, cl), "orders", 3)
	send := rawSender(t, cl)
	const group = "bd-migration"

	sub := kmsg.NewConsumerMemberMetadata()
	sub.Version, sub.Topics = 0, []string{"orders"}
	join := kmsg.NewPtrJoinGroupRequest()
	join.Version, join.Group, join.ProtocolType = 9, group, "consumer"
	join.SessionTimeoutMillis, join.RebalanceTimeoutMillis = 45000, 10000
	p := kmsg.NewJoinGroupRequestProtocol()
	p.Name, p.Metadata = "range", sub.AppendTo(nil)
	join.Protocols = append(join.Protocols, p)
	required := send(join).(*kmsg.JoinGroupResponse)
	require.Equal(t, int16(79), required.ErrorCode, "MEMBER_ID_REQUIRED")
	join.MemberID = required.MemberID
	joined := send(join).(*kmsg.JoinGroupResponse)
	require.Zero(t, joined.ErrorCode)
	a := joined.MemberID

	sync := kmsg.NewPtrSyncGroupRequest()
	sync.Version, sync.Group, sync.MemberID, sync.Generation = 5, group, a, joined.Generation
	sync.ProtocolType, sync.Protocol = kmsg.StringPtr("consumer"), kmsg.StringPtr("range")
	assignment := kmsg.NewConsumerMemberAssignment()
	at := kmsg.NewConsumerMemberAssignmentTopic()
	at.Topic, at.Partitions = "orders", []int32{0, 1, 2}
	assignment.Topics = append(assignment.Topics, at)
	ga := kmsg.NewSyncGroupRequestGroupAssignment()
	ga.MemberID, ga.MemberAssignment = a, assignment.AppendTo(nil)
	sync.GroupAssignment = append(sync.GroupAssignment, ga)
	require.Zero(t, send(sync).(*kmsg.SyncGroupResponse).ErrorCode)

	hb := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	hb.Version, hb.Group, hb.MemberID, hb.RebalanceTimeoutMillis = 1, group, "bd-mig-b", 30000
	hb.SubscribedTopicNames, hb.Topics = []string{"orders"}, []kmsg.ConsumerGroupHeartbeatRequestTopic{}
	require.Zero(t, send(hb).(*kmsg.ConsumerGroupHeartbeatResponse).ErrorCode)

	describe := kmsg.NewPtrConsumerGroupDescribeRequest()
	describe.Version, describe.Groups = 1, []string{group}
	cg := send(describe).(*kmsg.ConsumerGroupDescribeResponse)
	require.Len(t, cg.Groups, 1)
	require.Zero(t, cg.Groups[0].ErrorCode)
	types := map[string]int8{}
	for _, m := range cg.Groups[0].Members {
		types[m.MemberID] = m.MemberType
		assert.Equal(t, "/127.0.0.1", m.ClientHost, "member %s", m.MemberID)
	}
	assert.Equal(t, map[string]int8{a: 0, "bd-mig-b": 1}, types, "MemberType: CLASSIC 0, CONSUMER 1")

	leave := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	leave.Version, leave.Group, leave.MemberID, leave.MemberEpoch = 1, group, "bd-mig-b", -1
	require.Zero(t, send(leave).(*kmsg.ConsumerGroupHeartbeatResponse).ErrorCode)

	dg := kmsg.NewPtrDescribeGroupsRequest()
	dg.Version, dg.Groups = 5, []string{group}
	groups := send(dg).(*kmsg.DescribeGroupsResponse).Groups
	require.Len(t, groups, 1)
	g := groups[0]
	require.Zero(t, g.ErrorCode)
	assert.Equal(t, "PreparingRebalance", g.State)
	assert.Equal(t, "consumer", g.ProtocolType)
	assert.Equal(t, "", g.Protocol, "no protocol outside Stable")
	require.Len(t, g.Members, 1)
	m := g.Members[0]
	assert.Equal(t, a, m.MemberID)
	assert.Equal(t, "/127.0.0.1", m.ClientHost)
	assert.Empty(t, m.ProtocolMetadata)
	// Kafka's bytes: version 0, orders [0 1] (a's target when b left),
	// null user data.
	assert.Equal(t, "00000000000100066f7264657273000000020000000000000001ffffffff", hex.EncodeToString(m.MemberAssignment))
}
