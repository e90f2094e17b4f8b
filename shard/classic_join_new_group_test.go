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
