package shard

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStaticMemberReplacedDuringRebalanceCompletesJoin follows Kafka 4.4's
// updateStaticMemberThenRebalanceOrCompleteJoin: a static member that
// rejoins with an unknown member id while its group is PreparingRebalance
// replaces its old id and counts as joined, so when every other member has
// joined too the join phase completes at once (maybeCompleteJoinPhase),
// answering the parked JoinGroups, instead of waiting for the rebalance
// timeout. Found by the differential runner (--regex seed 1118).
func TestStaticMemberReplacedDuringRebalanceCompletesJoin(t *testing.T) {
	h := newHarness(t, testConfig(), map[string]int32{"t0": 2})
	h.s.cfg.Classic.InitialRebalanceDelayMs = 0
	h.cfg = h.s.cfg
	join := func(memberID, instanceID string, handle uint64) Result[JoinGroupResponse] {
		res, err := h.s.JoinGroup(h.nowMs, JoinGroupRequest{GroupID: "g", MemberID: memberID, InstanceID: instanceID, ClientID: "c",
			SessionTimeoutMs: 10_000, RebalanceTimeoutMs: 30_000, ProtocolType: ConsumerProtocolType, Handle: handle,
			Protocols: []ClassicProtocol{{Name: "range", Metadata: subscription("t0")}}})
		require.NoError(t, err)
		applyResult(h, res)
		return res
	}
	join("", "i1", 1) // the static member, parked in the initial join
	h.advance(h.nowMs + 1)
	require.Equal(t, StateCompletingRebalance, h.s.lookup("g").classic.State)
	dynamicID := join("", "", 2).Response.MemberID // MEMBER_ID_REQUIRED
	parked := join(dynamicID, "", 3)               // a rebalance begins
	require.True(t, parked.Response.Pending)
	require.Equal(t, StatePreparingRebalance, h.s.lookup("g").classic.State)

	res := join("", "i1", 4) // the static member rejoins under a new id
	var answered []uint64
	for _, c := range res.Completions {
		if c.Join != nil && c.Join.Err == nil {
			answered = append(answered, c.Handle)
		}
	}
	assert.ElementsMatch(t, []uint64{3, 4}, answered, "both parked joins answered in the same operation")
	assert.Equal(t, StateCompletingRebalance, h.s.lookup("g").classic.State)
}
