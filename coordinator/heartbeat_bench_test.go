package coordinator

import (
	"fmt"
	"testing"

	"github.com/coordsim/coordsim/shard"
)

// benchHeartbeatTopics is the metadata image of the heartbeat benchmark:
// each group subscribes to both topics.
var benchHeartbeatTopics = map[string]int32{"orders": 6, "payments": 6}

// benchMember is one member of a benchmark group at its current epoch, and
// the subscription that drops a topic it owns partitions of.
type benchMember struct {
	group, id string
	epoch     int32
	keeps     []string
}

// stableConsumerGroups builds n consumer groups of 3 members on both
// benchHeartbeatTopics through the service (commit at once, so every
// heartbeat's records are committed when it returns), heartbeating with the
// owned partitions until each group is STABLE.
func stableConsumerGroups(b *testing.B, c *Coordinator, prefix string, n int) []benchMember {
	b.Helper()
	const members = 3
	out := make([]benchMember, 0, n*members)
	for g := range n {
		group := fmt.Sprintf("%s-%06d", prefix, g)
		for m := range members {
			_, err := c.ConsumerGroupHeartbeat(shard.ConsumerGroupHeartbeatRequest{
				GroupID: group, MemberID: fmt.Sprintf("member-%06d-%d-0123456789abcdef", g, m), MemberEpoch: 0,
				ClientID: "consumer-client", RebalanceTimeoutMs: 300_000, SubscribedTopicNames: []string{"orders", "payments"},
			}).Result()
			if err != nil {
				b.Fatal(err)
			}
		}
		var d shard.GroupDescription
		for range 5 {
			d = c.DescribeGroups([]string{group})[0].Description
			if d.State == shard.StateStable {
				break
			}
			for _, m := range d.Members {
				owned := append([]shard.TopicPartitions{}, m.Assignment...)
				_, err := c.ConsumerGroupHeartbeat(shard.ConsumerGroupHeartbeatRequest{
					GroupID: group, MemberID: m.MemberID, MemberEpoch: m.MemberEpoch, TopicPartitions: owned,
				}).Result()
				if err != nil {
					b.Fatal(err)
				}
			}
		}
		if d.State != shard.StateStable {
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

// BenchmarkConsumerGroupHeartbeat measures one KIP-848 heartbeat through the
// service: route, the shard's operation, append and replay of its records,
// the timers it schedules, commit and the response. The cases are
// shard.BenchmarkConsumerGroupHeartbeat's (3-member groups on two topics of
// 6 partitions, over the 50 hosted shards); the service's share of the cost
// is the difference.
//
//   - steady: a STABLE member at its epoch with nothing to change (1000
//     groups, the 3000 members cycling).
//   - rebalance-revoke: a STABLE member drops a topic it owns partitions
//     of; the group epoch is bumped, the target recomputed and the member
//     told to revoke. One fresh group per op, built before the timer.
//   - join: a fourth member joins a STABLE group. One fresh group per op.
func BenchmarkConsumerGroupHeartbeat(b *testing.B) {
	newCoordinator := func(b *testing.B) (*Coordinator, *benchClock) {
		clock := &benchClock{ms: 1_700_000_000_000}
		c := newBenchCoordinator(b, clock)
		if err := c.SetTopics(benchHeartbeatTopics); err != nil {
			b.Fatal(err)
		}
		return c, clock
	}

	b.Run("steady", func(b *testing.B) {
		c, clock := newCoordinator(b)
		members := stableConsumerGroups(b, c, "steady-group", 1000)
		reqs := make([]shard.ConsumerGroupHeartbeatRequest, len(members))
		for i, m := range members {
			reqs[i] = shard.ConsumerGroupHeartbeatRequest{GroupID: m.group, MemberID: m.id, MemberEpoch: m.epoch}
		}
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			clock.ms++
			req := reqs[i%len(reqs)]
			resp, err := c.ConsumerGroupHeartbeat(req).Result()
			if err != nil || resp.MemberEpoch != req.MemberEpoch {
				b.Fatalf("steady heartbeat of %s/%s: %+v, %v", req.GroupID, req.MemberID, resp, err)
			}
		}
	})

	b.Run("rebalance-revoke", func(b *testing.B) {
		c, clock := newCoordinator(b)
		members := stableConsumerGroups(b, c, "revoke-group", b.N)
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			clock.ms++
			m := members[3*i]
			resp, err := c.ConsumerGroupHeartbeat(shard.ConsumerGroupHeartbeatRequest{
				GroupID: m.group, MemberID: m.id, MemberEpoch: m.epoch, SubscribedTopicNames: m.keeps,
			}).Result()
			if err != nil || resp.MemberEpoch != m.epoch {
				b.Fatalf("heartbeat of %s/%s: %+v, %v", m.group, m.id, resp, err)
			}
		}
		b.StopTimer()
		m := members[3*(b.N-1)]
		for _, dm := range c.DescribeGroups([]string{m.group})[0].Description.Members {
			if dm.MemberID == m.id && (dm.State != shard.MemberUnrevokedPartitions || len(dm.PartitionsPendingRevocation) == 0) {
				b.Fatalf("member %s/%s is %s, want UNREVOKED_PARTITIONS", m.group, m.id, dm.State)
			}
		}
	})

	b.Run("join", func(b *testing.B) {
		c, clock := newCoordinator(b)
		members := stableConsumerGroups(b, c, "join-group", b.N)
		joiners := make([]string, b.N)
		for i := range joiners {
			joiners[i] = fmt.Sprintf("member-%06d-3-0123456789abcdef", i)
		}
		topics := []string{"orders", "payments"}
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			clock.ms++
			_, err := c.ConsumerGroupHeartbeat(shard.ConsumerGroupHeartbeatRequest{
				GroupID: members[3*i].group, MemberID: joiners[i], MemberEpoch: 0, ClientID: "consumer-client",
				RebalanceTimeoutMs: 300_000, SubscribedTopicNames: topics,
			}).Result()
			if err != nil {
				b.Fatal(err)
			}
		}
	})
}
