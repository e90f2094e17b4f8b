package wire_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/wire"
)

// TestJoinGroupV0V1RoundTrip proves that JoinGroup v0 and v1, which Kafka
// 4.4 still serves, are answered and act, over raw requests: a v0 member
// joins an empty group and leads it, syncs (SyncGroup v0) and heartbeats
// (Heartbeat v0). Then a v1 member joins with a short rebalance timeout.
// v0 carries no rebalance timeout, so the v0 member's is its session
// timeout (JoinGroupRequest.maybeOverrideRebalanceTimeout): the join phase
// the v1 member opened lasts that long, waiting for the silent v0 member,
// rather than the v1 member's own 300 ms.
func TestJoinGroupV0V1RoundTrip(t *testing.T) {
	t.Parallel()
	const sessionMs = 2500
	cl := startCluster(t, func(c *wire.Config) {
		c.Brokers = 1
		c.Coordinator.Classic.MinSessionTimeoutMs = 200
		c.Coordinator.Classic.InitialRebalanceDelayMs = 0
	})
	const group = "join-v0"
	protocol := func() kmsg.JoinGroupRequestProtocol {
		p := kmsg.NewJoinGroupRequestProtocol()
		p.Name, p.Metadata = "range", []byte{0, 1}
		return p
	}

	c0 := dial(t, cl.Addrs()[0])
	j0 := kmsg.NewPtrJoinGroupRequest()
	j0.Version = 0
	j0.Group, j0.SessionTimeoutMillis, j0.ProtocolType = group, sessionMs, "consumer"
	j0.Protocols = append(j0.Protocols, protocol())
	r0 := roundTrip(t, c0, j0).(*kmsg.JoinGroupResponse)
	require.Zero(t, r0.ErrorCode, "JoinGroup v0")
	require.NotEmpty(t, r0.MemberID)
	assert.Equal(t, int32(1), r0.Generation)
	assert.Equal(t, r0.MemberID, r0.LeaderID, "the only member leads")
	require.NotNil(t, r0.Protocol)
	assert.Equal(t, "range", *r0.Protocol)
	require.Len(t, r0.Members, 1)
	assert.Equal(t, []byte{0, 1}, r0.Members[0].ProtocolMetadata)

	s0 := kmsg.NewPtrSyncGroupRequest()
	s0.Version = 0
	s0.Group, s0.Generation, s0.MemberID = group, r0.Generation, r0.MemberID
	a := kmsg.NewSyncGroupRequestGroupAssignment()
	a.MemberID, a.MemberAssignment = r0.MemberID, []byte{7}
	s0.GroupAssignment = append(s0.GroupAssignment, a)
	sr := roundTrip(t, c0, s0).(*kmsg.SyncGroupResponse)
	require.Zero(t, sr.ErrorCode, "SyncGroup v0")
	assert.Equal(t, []byte{7}, sr.MemberAssignment)

	hb := kmsg.NewPtrHeartbeatRequest()
	hb.Version = 0
	hb.Group, hb.Generation, hb.MemberID = group, r0.Generation, r0.MemberID
	assert.Zero(t, roundTrip(t, c0, hb).(*kmsg.HeartbeatResponse).ErrorCode, "Heartbeat v0")

	c1 := dial(t, cl.Addrs()[0])
	j1 := kmsg.NewPtrJoinGroupRequest()
	j1.Version = 1
	j1.Group, j1.SessionTimeoutMillis, j1.RebalanceTimeoutMillis, j1.ProtocolType = group, sessionMs, 300, "consumer"
	j1.Protocols = append(j1.Protocols, protocol())
	start := time.Now()
	r1 := roundTrip(t, c1, j1).(*kmsg.JoinGroupResponse)
	waited := time.Since(start)
	require.Zero(t, r1.ErrorCode, "JoinGroup v1")
	assert.Equal(t, int32(2), r1.Generation)
	assert.Equal(t, r1.MemberID, r1.LeaderID, "the v0 member, silent, was removed")
	assert.Len(t, r1.Members, 1)
	assert.GreaterOrEqual(t, waited, sessionMs*time.Millisecond*8/10,
		"the join phase waited for the v0 member's rebalance timeout, its session timeout")
}
