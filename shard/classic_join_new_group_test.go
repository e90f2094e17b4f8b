package shard

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/kerr"
)

// TestClassicGroupJoinNewGroupRecords proves what a JoinGroup writes and
// answers for a group that does not exist, as Kafka 4.4's
// classicGroupJoinToClassicGroup: a new member's MEMBER_ID_REQUIRED commits
// the new group with newEmptyGroupMetadataRecord (protocol type "", the
// group's creation time as state timestamp), and a member id for a group
// it does not find is UNKNOWN_MEMBER_ID (GroupIdNotFoundException caught).
// Found by the differential runner's classic ops.
func TestClassicGroupJoinNewGroupRecords(t *testing.T) {
	h := newHarness(t, testConfig(), map[string]int32{"t0": 1})
	res, err := h.s.JoinGroup(h.nowMs, JoinGroupRequest{GroupID: "g", MemberID: "c-unknown", ClientID: "c", SessionTimeoutMs: 10_000,
		RebalanceTimeoutMs: 10_000, ProtocolType: ConsumerProtocolType, Handle: 1, RequireKnownMemberID: true,
		Protocols: []ClassicProtocol{{Name: "range"}}})
	require.NoError(t, err)
	require.ErrorIs(t, res.Response.Err, kerr.UnknownMemberID)
	require.Empty(t, res.Records)
	res, err = h.s.JoinGroup(h.nowMs, JoinGroupRequest{GroupID: "g", ClientID: "c", SessionTimeoutMs: 10_000,
		RebalanceTimeoutMs: 10_000, ProtocolType: ConsumerProtocolType, Handle: 2, RequireKnownMemberID: true,
		Protocols: []ClassicProtocol{{Name: "range"}}})
	require.NoError(t, err)
	require.ErrorIs(t, res.Response.Err, kerr.MemberIDRequired)
	var gm *GroupMetadata
	for _, r := range res.Records {
		if r, ok := r.(*GroupMetadata); ok {
			gm = r
		}
	}
	require.NotNil(t, gm, "records: %s", formatRecords(res.Records))
	require.Equal(t, "", gm.ProtocolType)
	require.Equal(t, h.nowMs, gm.CurrentStateTimestampMs)
	applyResult(h, res)
	requireSnapshotEqual(t, h.s.Snapshot(), h.rebuild().Snapshot(), "replay")
}

// TestPendingMemberExpiryCompletesInitialJoin proves that when a pending
// member (one sent back with MEMBER_ID_REQUIRED) expires while the only
// other member waits in the initial rebalance delay, the join phase
// completes at once, as Kafka 4.4's removePendingMemberAndUpdateClassicGroup
// does (it checks that every member joined, not the previous state, unlike
// maybeCompleteJoinPhase). Found by the differential runner (seed 13 of
// --streams draws).
func TestPendingMemberExpiryCompletesInitialJoin(t *testing.T) {
	h := newHarness(t, testConfig(), map[string]int32{"t0": 1})
	join := func(client, member string, handle uint64, sessionMs int32) JoinGroupResponse {
		res, err := h.s.JoinGroup(h.nowMs, JoinGroupRequest{GroupID: "g", MemberID: member, ClientID: client, SessionTimeoutMs: sessionMs,
			RebalanceTimeoutMs: 30_000, ProtocolType: ConsumerProtocolType, Handle: handle, RequireKnownMemberID: true,
			Protocols: []ClassicProtocol{{Name: "range"}}})
		return mustApply(h, res, err)
	}
	require.ErrorIs(t, join("a", "", 1, 10_000).Err, kerr.MemberIDRequired) // a stays pending
	h.advance(h.nowMs + 3_000)
	b := join("b", "", 2, 45_000)
	require.ErrorIs(t, b.Err, kerr.MemberIDRequired)
	h.advance(h.nowMs + 4_000)
	require.True(t, join("b", b.MemberID, 3, 45_000).Pending, "b waits in the initial rebalance delay")
	st := h.s.lookup("g").classic
	require.Equal(t, StatePreparingRebalance, st.State)
	// a's session ends at 10 s, before b's initial delay (7 s + 3 s): the
	// expiry completes the join phase.
	task := Task{Kind: TaskClassicHeartbeat, Type: Classic, GroupID: "g", MemberID: st.PendingMembers[0]}
	res := h.s.RunTimer(testT+10_000, task)
	var answered bool
	for _, c := range res.Completions {
		answered = answered || c.Handle == 3 && c.Join != nil && c.Join.Err == nil && c.Join.GenerationID == 1
	}
	require.True(t, answered, "b's join is answered: %+v", res.Completions)
	applyResult(h, res)
	require.Equal(t, StateCompletingRebalance, h.s.lookup("g").classic.State)
}
