package shard

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
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
	res, err := h.s.ConsumerGroupHeartbeat(h.nowMs, ConsumerGroupHeartbeatRequest{GroupID: "g", MemberID: id, MemberEpoch: m.memberEpoch})
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
	lres, err := h.s.ConsumerGroupHeartbeat(h.nowMs, ConsumerGroupHeartbeatRequest{GroupID: "g", MemberID: "c2", MemberEpoch: LeaveGroupMemberEpoch})
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
