package shard

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// The member fields an online conversion carries across, which the
// describes show: the client host and whether the member speaks the
// classic protocol.

// TestLastConsumerProtocolMemberLeavingConsumerGroupClientHost proves the
// client host goes through both conversions and replay, as in
// GroupMetadataManagerTest.testLastConsumerProtocolMemberLeavingConsumerGroup,
// whose expected classic group gives each member its consumer member's
// clientHost: the classic member's host becomes its consumer member's
// (ConsumerGroup.fromClassicGroup) on its member record, the
// consumer-protocol member's comes from its heartbeat, and when that member
// leaves the classic group's GroupMetadata record gives the classic member
// its host back (ClassicGroup.fromConsumerGroup). The description types the
// classic member by its classic metadata.
func TestLastConsumerProtocolMemberLeavingConsumerGroupClientHost(t *testing.T) {
	h := newHarness(t, testConfig(), map[string]int32{"t0": 2})
	h.s.cfg.Classic.InitialRebalanceDelayMs = 0
	h.cfg = h.s.cfg
	sub := kmsg.NewConsumerMemberMetadata()
	sub.Version, sub.Topics = 3, []string{"t0"}
	jres, err := h.s.JoinGroup(h.nowMs, JoinGroupRequest{GroupID: "g", ClientID: "c", ClientHost: "/10.0.0.1",
		SessionTimeoutMs: 10_000, RebalanceTimeoutMs: 10_000, ProtocolType: ConsumerProtocolType, Handle: 1,
		Protocols: []ClassicProtocol{{Name: "range", Metadata: sub.AppendTo(nil)}}})
	a := mustApply(h, jres, err).MemberID
	h.advance(h.nowMs + 1) // the join phase ends
	sres, err := h.s.SyncGroup(h.nowMs, SyncGroupRequest{GroupID: "g", MemberID: a, GenerationID: 1, Handle: 2,
		Assignments: []SyncGroupAssignment{{MemberID: a,
			Assignment: encodeAssignment([]TopicPartitions{{Topic: "t0", Partitions: []int32{0, 1}}}, 3)}}})
	require.NoError(t, mustApply(h, sres, err).Err)

	res, err := h.s.ConsumerGroupHeartbeat(h.nowMs, ConsumerGroupHeartbeatRequest{GroupID: "g", MemberID: "c1",
		ClientID: "client-c1", ClientHost: "/10.0.0.2", RebalanceTimeoutMs: 300_000, SubscribedTopicNames: []string{"t0"}})
	require.NoError(t, err)
	hosts := map[string]string{}
	for _, r := range res.Records {
		if r, ok := r.(*ConsumerGroupMemberMetadata); ok && !r.Tombstone {
			hosts[r.MemberID] = r.ClientHost
		}
	}
	require.Equal(t, map[string]string{a: "/10.0.0.1", "c1": "/10.0.0.2"}, hosts, "member records: %s", formatRecords(res.Records))
	applyResult(h, res)
	d, ok := h.s.DescribeGroup("g")
	require.True(t, ok)
	require.Equal(t, Consumer, d.Type)
	byID := map[string]MemberDescription{}
	for _, m := range d.Members {
		byID[m.MemberID] = m
	}
	require.Equal(t, "/10.0.0.1", byID[a].ClientHost)
	require.NotNil(t, byID[a].Classic, "the converted member speaks the classic protocol")
	require.Equal(t, "/10.0.0.2", byID["c1"].ClientHost)
	require.Nil(t, byID["c1"].Classic)
	requireSnapshotEqual(t, h.s.Snapshot(), h.rebuild().Snapshot(), "replay after the upgrade")

	res, err = h.s.ConsumerGroupHeartbeat(h.nowMs, ConsumerGroupHeartbeatRequest{RebalanceTimeoutMs: RebalanceTimeoutNotSent, GroupID: "g", MemberID: "c1",
		MemberEpoch: LeaveGroupMemberEpoch, ClientID: "client-c1", ClientHost: "/10.0.0.2"})
	require.NoError(t, err)
	var classic *GroupMetadata
	for _, r := range res.Records {
		if r, ok := r.(*GroupMetadata); ok && !r.Tombstone {
			classic = r
		}
	}
	require.NotNil(t, classic, "no downgrade: %s", formatRecords(res.Records))
	require.Len(t, classic.Members, 1)
	require.Equal(t, "/10.0.0.1", classic.Members[0].ClientHost)
	applyResult(h, res)
	d, _ = h.s.DescribeGroup("g")
	require.Equal(t, Classic, d.Type)
	require.Equal(t, "/10.0.0.1", d.Classic.Members[0].ClientHost)
	requireSnapshotEqual(t, h.s.Snapshot(), h.rebuild().Snapshot(), "replay after the downgrade")
}

// TestConsumerHeartbeatWritesNewClientHost proves a heartbeat from another
// address writes the member's record with it, without an epoch bump, even
// on the steady path, as Kafka's consumerGroupHeartbeat sets the client host
// from the request context on every heartbeat; the same address writes
// nothing.
func TestConsumerHeartbeatWritesNewClientHost(t *testing.T) {
	h := newHarness(t, testConfig(), map[string]int32{"t0": 2})
	beat := func(epoch int32, host string) Result[ConsumerGroupHeartbeatResponse] {
		req := ConsumerGroupHeartbeatRequest{RebalanceTimeoutMs: RebalanceTimeoutNotSent, GroupID: "g", MemberID: "m", MemberEpoch: epoch, ClientID: "client-m",
			ClientHost: host, TopicPartitions: ownedBy(h.s, "g", "m")}
		if epoch == 0 {
			// Later heartbeats send no subscription, as a KIP-848 client's
			// do, so they can take the steady path.
			req.RebalanceTimeoutMs, req.SubscribedTopicNames = 300_000, []string{"t0"}
		}
		res, err := h.s.ConsumerGroupHeartbeat(h.nowMs, req)
		require.NoError(t, err)
		return res
	}
	epoch := applyResult(h, beat(0, "/10.0.0.1")).MemberEpoch
	require.Equal(t, epoch, applyResult(h, beat(epoch, "/10.0.0.1")).MemberEpoch) // reconciled
	res := beat(epoch, "/10.0.0.1")
	require.Empty(t, res.Records, "same host: %s", formatRecords(res.Records))
	res = beat(epoch, "/10.0.0.9")
	require.Len(t, res.Records, 1, "%s", formatRecords(res.Records))
	r, ok := res.Records[0].(*ConsumerGroupMemberMetadata)
	require.True(t, ok, "%s", formatRecords(res.Records))
	require.Equal(t, "/10.0.0.9", r.ClientHost)
	require.Equal(t, epoch, applyResult(h, res).MemberEpoch)
	d, _ := h.s.DescribeGroup("g")
	require.Equal(t, "/10.0.0.9", d.Members[0].ClientHost)
	requireSnapshotEqual(t, h.s.Snapshot(), h.rebuild().Snapshot(), "replay")
}
