package shard

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/kerr"
)

// TestRandomWorkloadsMigrate proves the random workloads of
// property_test.go (whose replay equality and index checks then cover
// them) reach online migration: upgrades of classic groups, classic
// members joining consumer groups, and downgrades. And that an upgrade
// keeps what every classic member owns: each converted member holds
// exactly the partitions of its last classic assignment (those the image
// knows), so no client loses a partition it still consumes to another.
func TestRandomWorkloadsMigrate(t *testing.T) {
	upgrades, classicMembers, downgrades, kept := 0, 0, 0, 0
	for seed := uint64(1); seed <= 200; seed++ {
		w := newWorkload(t, randChooser{rand.New(rand.NewPCG(seed, 0))}, fmt.Sprintf("seed=%d", seed), 300)
		for w.step = 0; w.step < 300; w.step++ {
			before := classicAssignments(w.h.s)
			w.do()
			for group, owned := range before {
				g := w.h.s.lookup(group)
				if g == nil || g.typ != Consumer {
					continue // not upgraded by this step
				}
				for member, parts := range owned {
					if m := g.members[member]; m != nil && m.classic != nil {
						if len(parts) > 0 {
							kept++
						}
						require.Equal(t, parts, m.assigned, "seed %d step %d: %s/%s after the upgrade", seed, w.step, group, member)
					}
				}
			}
		}
		for i, r := range w.h.log {
			switch r := r.(type) {
			case *ConsumerGroupMemberMetadata:
				if r.Classic != nil {
					classicMembers++
				}
			case *GroupMetadata:
				if i+1 < len(w.h.log) && r.Tombstone {
					if next, ok := w.h.log[i+1].(*ConsumerGroupMemberMetadata); ok && next.Classic != nil {
						upgrades++
					}
				}
			case *ConsumerGroupMetadata:
				if i+1 < len(w.h.log) && r.Tombstone {
					if next, ok := w.h.log[i+1].(*GroupMetadata); ok && !next.Tombstone && len(next.Members) > 0 {
						downgrades++
					}
				}
			}
		}
	}
	t.Logf("upgrades=%d classic member records=%d downgrades=%d members converted with partitions=%d", upgrades, classicMembers, downgrades, kept)
	require.Positive(t, upgrades, "no upgrade")
	require.Positive(t, classicMembers, "no classic member in a consumer group")
	require.Positive(t, downgrades, "no downgrade")
	require.Positive(t, kept, "no upgrade converted a member that held partitions: the assignment check is vacuous")
}

// classicAssignments is every classic group member's assignment, decoded
// and filtered to the image's partitions, by group and member.
func classicAssignments(s *Shard) map[string]map[string][]TopicPartitions {
	out := map[string]map[string][]TopicPartitions{}
	s.groups.Ascend(func(g *group) bool {
		if g.typ != Classic || g.classic == nil {
			return true
		}
		byMember := map[string][]TopicPartitions{}
		for _, m := range g.classic.Members {
			parts, _, err := decodeAssignment(m.Assignment)
			if err != nil {
				return true
			}
			byMember[m.MemberID] = s.knownPartitions(parts)
		}
		out[g.id] = byMember
		return true
	})
	return out
}

// TestConsumerHeartbeatDropsClassicMetadata proves a consumer-protocol
// heartbeat from a classic member of a consumer group writes its member
// record without ClassicMemberMetadata, as Kafka's consumerGroupHeartbeat
// sets it to null, even when nothing else changed (the steady path must not
// answer it).
func TestConsumerHeartbeatDropsClassicMetadata(t *testing.T) {
	h := newHarness(t, testConfig(), map[string]int32{"t0": 2})
	sub := kmsg.NewConsumerMemberMetadata()
	sub.Version, sub.Topics = 3, []string{"t0"}
	id := classicGroupOfOne(t, h, "g", sub.AppendTo(nil), encodeAssignment([]TopicPartitions{{Topic: "t0", Partitions: []int32{0, 1}}}, 3))
	h.consumerJoin("g", "c1", "t0") // upgrades the group
	// The classic member rejoins owning only its new target: it reaches the
	// group epoch, reconciled, where a heartbeat could take the steady path.
	m := h.s.lookup("g").members[id]
	sub.OwnedPartitions = []kmsg.ConsumerMemberMetadataOwnedPartition{{Topic: "t0", Partitions: m.target[0].Partitions}}
	jres, err := h.s.JoinGroup(h.nowMs, JoinGroupRequest{GroupID: "g", MemberID: id, ClientID: "c", SessionTimeoutMs: 10_000,
		RebalanceTimeoutMs: 10_000, ProtocolType: ConsumerProtocolType, Handle: 3,
		Protocols: []ClassicProtocol{{Name: "range", Metadata: sub.AppendTo(nil)}}})
	require.NoError(t, mustApply(h, jres, err).Err)
	g := h.s.lookup("g")
	m = g.members[id]
	require.NotNil(t, m.classic)
	require.Equal(t, g.epoch, m.memberEpoch)
	require.Equal(t, MemberStable, m.state)
	res, err := h.s.ConsumerGroupHeartbeat(h.nowMs, ConsumerGroupHeartbeatRequest{RebalanceTimeoutMs: RebalanceTimeoutNotSent, GroupID: "g", MemberID: id, MemberEpoch: m.memberEpoch})
	require.NoError(t, err)
	var dropped bool
	for _, r := range res.Records {
		if r, ok := r.(*ConsumerGroupMemberMetadata); ok && r.MemberID == id && !r.Tombstone {
			dropped = r.Classic == nil
		}
	}
	require.True(t, dropped, "records: %s", formatRecords(res.Records))
	applyResult(h, res)
	require.Nil(t, h.s.lookup("g").members[id].classic)
	requireSnapshotEqual(t, h.s.Snapshot(), h.rebuild().Snapshot(), "replay")
}

// TestUpgradeAnswersParkedRequests proves an online upgrade answers the
// classic group's parked requests REBALANCE_IN_PROGRESS, as Kafka's
// convertToConsumerGroup does with completeAllJoinFutures and
// completeAllSyncFutures before anything else: a JoinGroup waiting for the
// rebalance and a SyncGroup waiting for the leader when the upgrade
// succeeds, and the same answers when it fails afterwards (here, members
// whose metadata is not the consumer protocol), when the heartbeat's error
// comes with them and with the classic group's state in which no request
// is parked any more.
func TestUpgradeAnswersParkedRequests(t *testing.T) {
	sub := kmsg.NewConsumerMemberMetadata()
	sub.Version, sub.Topics = 3, []string{"t0"}
	subscription := sub.AppendTo(nil)
	join := func(h *harness, group, client string, handle uint64, metadata []byte) JoinGroupResponse {
		t.Helper()
		res, err := h.s.JoinGroup(h.nowMs, JoinGroupRequest{GroupID: group, ClientID: client, SessionTimeoutMs: 10_000,
			RebalanceTimeoutMs: 10_000, ProtocolType: ConsumerProtocolType, Handle: handle,
			Protocols: []ClassicProtocol{{Name: "range", Metadata: metadata}}})
		return mustApply(h, res, err)
	}
	rebalancing := Completion{Handle: 1, Join: &JoinGroupResponse{Err: rebalanceInProgress()}}
	for _, tc := range []struct {
		name     string
		metadata []byte
		sync     bool // the follower B has synced and waits for its leader
		fails    bool
		want     []Completion
	}{
		{name: "join parked, upgraded", metadata: subscription, want: []Completion{rebalancing, {Handle: 2, Join: &JoinGroupResponse{Err: rebalanceInProgress()}}}},
		{name: "sync parked, upgraded", metadata: subscription, sync: true, want: []Completion{{Handle: 3, Sync: &SyncGroupResponse{Err: rebalanceInProgress()}}}},
		{name: "join parked, malformed", metadata: []byte("t0"), fails: true, want: []Completion{rebalancing, {Handle: 2, Join: &JoinGroupResponse{Err: rebalanceInProgress()}}}},
		{name: "sync parked, malformed", metadata: []byte("t0"), sync: true, fails: true, want: []Completion{{Handle: 3, Sync: &SyncGroupResponse{Err: rebalanceInProgress()}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, testConfig(), map[string]int32{"t0": 2})
			require.True(t, join(h, "g", "a", 1, tc.metadata).Pending)
			require.True(t, join(h, "g", "b", 2, tc.metadata).Pending)
			ids := map[uint64]string{} // by their JoinGroup's handle
			for _, m := range h.s.lookup("g").classic.Members {
				ids[m.JoinHandle] = m.MemberID
			}
			if tc.sync {
				h.advance(h.nowMs + 10_000) // the initial rebalance delay ends
				res, err := h.s.SyncGroup(h.nowMs, SyncGroupRequest{GroupID: "g", MemberID: ids[2], GenerationID: 1, Handle: 3})
				require.True(t, mustApply(h, res, err).Pending)
			}
			for i := range tc.want {
				if j := tc.want[i].Join; j != nil {
					j.MemberID = ids[tc.want[i].Handle]
				}
			}
			res, err := h.s.ConsumerGroupHeartbeat(h.nowMs, ConsumerGroupHeartbeatRequest{GroupID: "g", MemberID: "c1",
				SubscribedTopicNames: []string{"t0"}, RebalanceTimeoutMs: 10_000})
			require.Equal(t, tc.want, res.Completions)
			if !tc.fails {
				require.NoError(t, err)
				applyResult(h, res)
				require.Equal(t, Consumer, h.s.lookup("g").typ)
				return
			}
			require.ErrorIs(t, err, kerr.GroupIDNotFound)
			require.Len(t, res.Records, 1, "records: %s", formatRecords(res.Records))
			applyResult(h, res)
			st := h.s.lookup("g").classic
			require.Len(t, st.Members, 2)
			for _, m := range st.Members {
				require.Zero(t, m.JoinHandle, "%s is parked", m.MemberID)
				require.Zero(t, m.SyncHandle, "%s is parked", m.MemberID)
			}
			requireSnapshotEqual(t, h.s.Snapshot(), h.rebuild().Snapshot(), "replay")
		})
	}
}

// TestClassicMemberBehindGroupEpochOnlySyncs proves that a classic member
// of a consumer group is told to rejoin (REBALANCE_IN_PROGRESS) only once
// the group's assignment epoch passed its epoch, as Kafka's
// throwIfRebalanceInProgress and classicGroupHeartbeatToConsumerGroup
// compare: a consumer member's leave bumps the group epoch before any new
// target exists, and the classic member still syncs and heartbeats.
// Found by the differential runner (seed 46 of the classic ops).
func TestClassicMemberBehindGroupEpochOnlySyncs(t *testing.T) {
	h := newHarness(t, testConfig(), map[string]int32{"t0": 2})
	sub := kmsg.NewConsumerMemberMetadata()
	sub.Version, sub.Topics = 3, []string{"t0"}
	id := classicGroupOfOne(t, h, "g", sub.AppendTo(nil), encodeAssignment([]TopicPartitions{{Topic: "t0", Partitions: []int32{0, 1}}}, 3))
	h.consumerJoin("g", "c1", "t0") // upgrades the group
	h.consumerJoin("g", "c2", "t0")
	m := h.s.lookup("g").members[id]
	sub.OwnedPartitions = []kmsg.ConsumerMemberMetadataOwnedPartition{{Topic: "t0", Partitions: m.target[0].Partitions}}
	jres, err := h.s.JoinGroup(h.nowMs, JoinGroupRequest{GroupID: "g", MemberID: id, ClientID: "c", SessionTimeoutMs: 10_000,
		RebalanceTimeoutMs: 10_000, ProtocolType: ConsumerProtocolType, Handle: 3,
		Protocols: []ClassicProtocol{{Name: "range", Metadata: sub.AppendTo(nil)}}})
	joined := mustApply(h, jres, err)
	require.NoError(t, joined.Err)
	before := h.s.lookup("g").epoch
	lres, err := h.s.ConsumerGroupHeartbeat(h.nowMs, ConsumerGroupHeartbeatRequest{RebalanceTimeoutMs: RebalanceTimeoutNotSent, GroupID: "g", MemberID: "c2", MemberEpoch: LeaveGroupMemberEpoch})
	mustApply(h, lres, err)
	g := h.s.lookup("g")
	require.Less(t, before, g.epoch, "the leave bumps the group epoch")
	require.Equal(t, g.members[id].memberEpoch, g.assignmentEpoch, "no new target yet")
	sres, err := h.s.SyncGroup(h.nowMs, SyncGroupRequest{GroupID: "g", MemberID: id, GenerationID: joined.GenerationID,
		ProtocolType: ConsumerProtocolType, ProtocolName: joined.ProtocolName, Handle: 4})
	require.NoError(t, mustApply(h, sres, err).Err)
	hres, err := h.s.Heartbeat(h.nowMs, HeartbeatRequest{GroupID: "g", MemberID: id, GenerationID: joined.GenerationID})
	require.NoError(t, mustApply(h, hres, err).Err)
}
