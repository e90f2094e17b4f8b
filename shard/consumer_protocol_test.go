package shard

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/kerr"
)

// FuzzConsumerProtocol proves the consumer-protocol decoders never panic on
// a client's bytes, that an assignment they accept survives its own
// encoding at every version, and that the record formatter takes anything.
func FuzzConsumerProtocol(f *testing.F) {
	sub := kmsg.NewConsumerMemberMetadata()
	sub.Version, sub.Topics, sub.Generation = 3, []string{"t0", "t1"}, 4
	sub.OwnedPartitions = []kmsg.ConsumerMemberMetadataOwnedPartition{{Topic: "t0", Partitions: []int32{1, 0}}}
	f.Add(sub.AppendTo(nil))
	f.Add(encodeAssignment([]TopicPartitions{{Topic: "t0", Partitions: []int32{0, 1}}}, 1))
	f.Add([]byte{})
	f.Add([]byte("t0"))
	f.Add([]byte{0, 3, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = decodeSubscription(b)
		_ = formatSubscriptionBytes(b)
		_ = formatAssignmentBytes(b)
		parts, _, err := decodeAssignment(b)
		if err != nil {
			return
		}
		for v := int16(0); v <= consumerProtocolMaxVersion; v++ {
			again, userData, err := decodeAssignment(encodeAssignment(parts, v))
			require.NoError(t, err)
			require.False(t, userData)
			require.Equal(t, parts, again, "version %d", v)
		}
	})
}

// FuzzOnlineUpgrade proves a consumer-protocol join to a classic group
// whose member sent arbitrary protocol metadata and got an arbitrary
// assignment either upgrades the group, with replay equal to the live
// state, or is refused with Kafka's GROUP_ID_NOT_FOUND (malformed or custom
// protocol) or UNKNOWN_SERVER_ERROR (a partition given twice), changing
// nothing.
func FuzzOnlineUpgrade(f *testing.F) {
	sub := kmsg.NewConsumerMemberMetadata()
	sub.Version, sub.Topics = 3, []string{"t0"}
	good := sub.AppendTo(nil)
	f.Add(good, encodeAssignment([]TopicPartitions{{Topic: "t0", Partitions: []int32{0, 1}}}, 3))
	f.Add(good, []byte{})
	f.Add([]byte("t0"), []byte("a"))
	withUserData := kmsg.NewConsumerMemberAssignment()
	withUserData.UserData = []byte{1}
	f.Add(good, withUserData.AppendTo(nil))
	f.Fuzz(func(t *testing.T, metadata, assignment []byte) {
		h := newHarness(t, testConfig(), map[string]int32{"t0": 2})
		classicGroupOfOne(t, h, "g", metadata, assignment)
		before := len(h.log)
		res, err := h.s.ConsumerGroupHeartbeat(h.nowMs, ConsumerGroupHeartbeatRequest{GroupID: "g", MemberID: "c1", ClientID: "c",
			RebalanceTimeoutMs: 10_000, SubscribedTopicNames: []string{"t0"}})
		if err != nil {
			require.Contains(t, []*kerr.Error{kerr.GroupIDNotFound, kerr.UnknownServerError}, kerr.As(err), "%v", err)
			return
		}
		applyResult(h, res)
		require.Greater(t, len(h.log), before)
		requireSnapshotEqual(t, h.s.Snapshot(), h.rebuild().Snapshot(), "replay after the upgrade")
	})
}

// classicGroupOfOne makes group a Stable classic group of one member (client
// id "c") that joined with metadata and synced assignment; it returns the
// member's id.
func classicGroupOfOne(t *testing.T, h *harness, group string, metadata, assignment []byte) string {
	t.Helper()
	h.s.cfg.Classic.InitialRebalanceDelayMs = 0
	h.cfg = h.s.cfg
	jres, err := h.s.JoinGroup(h.nowMs, JoinGroupRequest{GroupID: group, ClientID: "c", SessionTimeoutMs: 10_000,
		RebalanceTimeoutMs: 10_000, ProtocolType: ConsumerProtocolType, Handle: 1,
		Protocols: []ClassicProtocol{{Name: "range", Metadata: metadata}}})
	join := mustApply(h, jres, err)
	h.advance(h.nowMs + 1)
	sres, err := h.s.SyncGroup(h.nowMs, SyncGroupRequest{GroupID: group, MemberID: join.MemberID, GenerationID: 1, Handle: 2,
		Assignments: []SyncGroupAssignment{{MemberID: join.MemberID, Assignment: assignment}}})
	sync := mustApply(h, sres, err)
	require.NoError(t, sync.Err)
	return join.MemberID
}
