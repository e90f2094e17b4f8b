package sim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/coordinator/coordtest"
	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/shard"
)

// TestMemberTimersParkedClassicMemberAfterRollback proves that
// 21-member-timers accepts what issue 27's seeds (18, 29 and 171 of the
// heavy rolling-upgrade sweep) reached, Kafka's own state: a follower
// parked in SyncGroup whose heartbeat expired right after a rollback, so it
// has no heartbeat timer while the group's pending-sync timer is armed;
// and that it still reports such a member once the group has no timer to
// answer it, and a member not parked that has no heartbeat timer.
func TestMemberTimersParkedClassicMemberAfterRollback(t *testing.T) {
	h, err := coordtest.New(coordtest.WithTopics(map[string]int32{"foo": 2}))
	require.NoError(t, err)
	c := h.Coordinator
	join := func(client string) *shard.JoinGroupResponse {
		var out shard.JoinGroupResponse
		c.JoinGroup(shard.JoinGroupRequest{GroupID: "p", ClientID: client, SessionTimeoutMs: 10_000, RebalanceTimeoutMs: 30_000,
			ProtocolType: "consumer", Protocols: []shard.ClassicProtocol{{Name: "range", Metadata: []byte("foo")}}}).
			OnDone(func(r shard.JoinGroupResponse, err error) {
				require.NoError(t, err)
				out = r
			})
		h.Poll()
		return &out
	}
	a, b := join("A"), join("B")
	h.Advance(7 * time.Second) // the initial rebalance delay, extended once for B
	require.NoError(t, a.Err)
	require.Equal(t, a.MemberID, a.Leader)
	sync := c.SyncGroup(shard.SyncGroupRequest{GroupID: "p", MemberID: b.MemberID, GenerationID: b.GenerationID})
	h.Poll()
	require.False(t, sync.Done(), "the follower waits for its leader")

	// A's client is dead: its heartbeat expires at 16 s with B's; A's
	// expiry fails its append, B's, right after the rollback, finds B
	// parked.
	h.FailNextAppend(kerr.NotEnoughReplicas)
	h.Advance(9 * time.Second)
	p := c.PartitionFor("p")
	latest, err := c.LatestShard(p)
	require.NoError(t, err)
	keys := c.TimerKeys(p)
	require.NotContains(t, keys, shard.ClassicHeartbeatKey("p", b.MemberID), "Kafka arms nothing for a parked member's expiry")
	require.Contains(t, keys, shard.ClassicSyncKey("p"))
	require.Empty(t, missingTimer(latest, keys))

	without := func(drop string) []string {
		var out []string
		for _, k := range keys {
			if k != drop {
				out = append(out, k)
			}
		}
		return out
	}
	require.Contains(t, missingTimer(latest, without(shard.ClassicSyncKey("p"))), "is parked in the COMPLETING_REBALANCE state",
		"a parked member needs its group's sync timer")
	require.Contains(t, missingTimer(latest, without(shard.ClassicHeartbeatKey("p", a.MemberID))), "has no heartbeat timer",
		"the leader, not parked, needs its heartbeat timer")

	// The retried expiry answers B and re-arms its heartbeat.
	h.Advance(500 * time.Millisecond)
	require.True(t, sync.Done())
	r, err := sync.Result()
	require.NoError(t, err)
	require.ErrorIs(t, r.Err, kerr.RebalanceInProgress)
	require.Contains(t, c.TimerKeys(p), shard.ClassicHeartbeatKey("p", b.MemberID))
}
