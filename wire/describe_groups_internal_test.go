package wire

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/shard"
)

// describedMember is GroupMetadataManagerTest's member of its describe
// tests: a static member with a subscription and an assignment.
func describedMember() shard.ClassicMember {
	return shard.ClassicMember{MemberID: "member-id", InstanceID: "group-instance-id", ClientID: "client-id",
		ClientHost: "client-host", Protocols: []shard.ClassicProtocol{{Name: "range", Metadata: []byte{0, 1, 2}}},
		Assignment: []byte{0}}
}

func describedClassicGroup(state shard.GroupState) kmsg.DescribeGroupsResponseGroup {
	d := shard.GroupDescription{GroupID: "group-id", Type: shard.Classic, State: state, ProtocolType: "consumer",
		Classic: &shard.ClassicGroupState{Group: "group-id", State: state, ProtocolType: "consumer", ProtocolName: "range",
			Members: []shard.ClassicMember{describedMember()}}}
	g := kmsg.NewDescribeGroupsResponseGroup()
	describeClassicMembers(&g, d, 5)
	return g
}

// TestDescribeGroupRebalancing reproduces
// GroupMetadataManagerTest.testDescribeGroupRebalancing: a group preparing a
// rebalance is described with protocol "" and its members without metadata
// but with the assignment they hold (ClassicGroupMember.describeNoMetadata),
// their client host included.
func TestDescribeGroupRebalancing(t *testing.T) {
	g := describedClassicGroup(shard.StatePreparingRebalance)
	require.Equal(t, "", g.Protocol)
	require.Len(t, g.Members, 1)
	m := g.Members[0]
	require.Equal(t, "member-id", m.MemberID)
	require.Equal(t, kmsg.StringPtr("group-instance-id"), m.InstanceID)
	require.Equal(t, "client-id", m.ClientID)
	require.Equal(t, "client-host", m.ClientHost)
	require.Equal(t, []byte{}, m.ProtocolMetadata)
	require.Equal(t, []byte{0}, m.MemberAssignment)
}

// TestDescribeGroupStable reproduces
// GroupMetadataManagerTest.testDescribeGroupStable: a Stable group shows its
// protocol and each member's metadata in it as well as its assignment.
func TestDescribeGroupStable(t *testing.T) {
	g := describedClassicGroup(shard.StateStable)
	require.Equal(t, "range", g.Protocol)
	require.Len(t, g.Members, 1)
	m := g.Members[0]
	require.Equal(t, "client-host", m.ClientHost)
	require.Equal(t, []byte{0, 1, 2}, m.ProtocolMetadata)
	require.Equal(t, []byte{0}, m.MemberAssignment)
}
