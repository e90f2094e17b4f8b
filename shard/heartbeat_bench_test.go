package shard

import (
	"fmt"
	"testing"
)

// benchHeartbeatTopics is the metadata image of the heartbeat benchmarks:
// each group subscribes to both topics.
var benchHeartbeatTopics = map[string]int32{"orders": 6, "payments": 6}

// benchMember is one member of a benchmark group, at its current epoch.
type benchMember struct {
	group, id string
	epoch     int32
	// keeps is the subscription that drops a topic the member owns
	// partitions of, so that it must revoke them.
	keeps []string
}

// stableConsumerGroups builds n consumer groups of 3 members each,
// subscribed to both benchHeartbeatTopics, through ConsumerGroupHeartbeat
// with every result replayed, and heartbeats until every group is STABLE. It
// returns the members at their epochs, group by group.
func stableConsumerGroups(b *testing.B, s *Shard, nowMs int64, prefix string, n int) []benchMember {
	b.Helper()
	const members = 3
	out := make([]benchMember, 0, n*members)
	for g := range n {
		group := fmt.Sprintf("%s-%06d", prefix, g)
		ids := make([]string, members)
		for m := range ids {
			ids[m] = fmt.Sprintf("member-%06d-%d-0123456789abcdef", g, m)
			res, err := s.ConsumerGroupHeartbeat(nowMs, ConsumerGroupHeartbeatRequest{
				GroupID: group, MemberID: ids[m], MemberEpoch: 0, ClientID: "consumer-client",
				RebalanceTimeoutMs: 300_000, SubscribedTopicNames: []string{"orders", "payments"},
			})
			if err != nil {
				b.Fatal(err)
			}
			replayResult(b, s, res.Records)
		}
		for round := 0; round < 5; round++ {
			if st, _ := s.GroupState(group); st == StateStable {
				break
			}
			heartbeatAll(b, s, nowMs, group, ids)
		}
		d, _ := s.DescribeGroup(group)
		if d.State != StateStable {
			b.Fatalf("group %s is %s, want STABLE", group, d.State)
		}
		for _, m := range d.Members {
			keeps := []string{"payments"}
			if len(m.Assignment) > 0 && m.Assignment[0].Topic == "payments" {
				keeps = []string{"orders"}
			}
			out = append(out, benchMember{group: group, id: m.MemberID, epoch: m.MemberEpoch, keeps: keeps})
		}
	}
	return out
}

// BenchmarkConsumerGroupHeartbeat measures one KIP-848 heartbeat on a shard:
// ConsumerGroupHeartbeat and the replay of its records (the timers it returns
// are the coordinator's to apply). The groups have 3 members on two topics of
// 6 partitions; BenchmarkConsumerGroupHeartbeat in package coordinator runs
// the same cases through the service.
//
//   - steady: a STABLE member heartbeats at its epoch with nothing to
//     change (1000 groups, the 3000 members cycling): no records, the
//     session timer re-armed. This is almost every heartbeat of a live
//     group.
//   - rebalance-revoke: a STABLE member drops from its subscription a
//     topic it owns partitions of: its member record and a new group epoch are
//     written, the target assignment is recomputed, and the member is told
//     to revoke that topic's partitions (UNREVOKED_PARTITIONS, its current
//     assignment written, the rebalance timer armed). One fresh group per
//     op, built before the timer.
//   - join: a fourth member joins a STABLE group: its member record, a new
//     group epoch and the target assignment are written; the partitions it
//     is given are still owned, so it waits for them. One fresh group per
//     op, built before the timer.
func BenchmarkConsumerGroupHeartbeat(b *testing.B) {
	newShard := func(b *testing.B) *Shard {
		s, err := New(0, DefaultConfig())
		if err != nil {
			b.Fatal(err)
		}
		if err := s.SetTopics(benchHeartbeatTopics); err != nil {
			b.Fatal(err)
		}
		return s
	}

	b.Run("steady", func(b *testing.B) {
		s := newShard(b)
		nowMs := benchCommitMs
		members := stableConsumerGroups(b, s, nowMs, "steady-group", 1000)
		reqs := make([]ConsumerGroupHeartbeatRequest, len(members))
		for i, m := range members {
			reqs[i] = ConsumerGroupHeartbeatRequest{GroupID: m.group, MemberID: m.id, MemberEpoch: m.epoch}
		}
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			nowMs++
			req := reqs[i%len(reqs)]
			res, err := s.ConsumerGroupHeartbeat(nowMs, req)
			if err != nil || res.Response.MemberEpoch != req.MemberEpoch || len(res.Records) != 0 {
				b.Fatalf("steady heartbeat of %s/%s: %+v, %d records, %v", req.GroupID, req.MemberID, res.Response, len(res.Records), err)
			}
		}
	})

	b.Run("rebalance-revoke", func(b *testing.B) {
		s := newShard(b)
		nowMs := benchCommitMs
		members := stableConsumerGroups(b, s, nowMs, "revoke-group", b.N)
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			nowMs++
			m := members[3*i]
			res, err := s.ConsumerGroupHeartbeat(nowMs, ConsumerGroupHeartbeatRequest{
				GroupID: m.group, MemberID: m.id, MemberEpoch: m.epoch, SubscribedTopicNames: m.keeps,
			})
			if err != nil {
				b.Fatal(err)
			}
			replayResult(b, s, res.Records)
		}
		b.StopTimer()
		// Every op must have asked for a revocation: check the last.
		m := members[3*(b.N-1)]
		d, _ := s.DescribeGroup(m.group)
		for _, dm := range d.Members {
			if dm.MemberID == m.id && (dm.State != MemberUnrevokedPartitions || len(dm.PartitionsPendingRevocation) == 0) {
				b.Fatalf("member %s/%s is %s with %v pending revocation, want UNREVOKED_PARTITIONS", m.group, m.id, dm.State, dm.PartitionsPendingRevocation)
			}
		}
	})

	b.Run("join", func(b *testing.B) {
		s := newShard(b)
		nowMs := benchCommitMs
		members := stableConsumerGroups(b, s, nowMs, "join-group", b.N)
		joiners := make([]string, b.N)
		for i := range joiners {
			joiners[i] = fmt.Sprintf("member-%06d-3-0123456789abcdef", i)
		}
		topics := []string{"orders", "payments"}
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			nowMs++
			res, err := s.ConsumerGroupHeartbeat(nowMs, ConsumerGroupHeartbeatRequest{
				GroupID: members[3*i].group, MemberID: joiners[i], MemberEpoch: 0, ClientID: "consumer-client",
				RebalanceTimeoutMs: 300_000, SubscribedTopicNames: topics,
			})
			if err != nil {
				b.Fatal(err)
			}
			replayResult(b, s, res.Records)
		}
	})
}
