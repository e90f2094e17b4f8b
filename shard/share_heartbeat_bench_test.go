package shard_test

import (
	"fmt"
	"testing"

	"github.com/coordsim/coordsim/shard"
)

// BenchmarkShareGroupHeartbeat measures the steady KIP-932 heartbeat: a
// member of a settled share group (its partitions initialised and
// assigned) heartbeating at its epoch, which writes nothing. members is
// the group's size, topics the number of topics each member subscribes to
// (8 partitions each).
//
//	go test ./shard -run '^$' -bench BenchmarkShareGroupHeartbeat -benchmem -count 6
func BenchmarkShareGroupHeartbeat(b *testing.B) {
	for _, c := range []struct{ members, topics int }{{3, 1}, {3, 8}, {50, 8}} {
		b.Run(fmt.Sprintf("members=%d/topics=%d", c.members, c.topics), func(b *testing.B) {
			s, epochs := settledShareGroup(b, c.members, c.topics)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				m := i % c.members
				res, err := s.ShareGroupHeartbeat(1_000, shard.ShareGroupHeartbeatRequest{GroupID: "g", MemberID: memberID(m), MemberEpoch: epochs[m]})
				if err != nil || len(res.Records) != 0 {
					b.Fatalf("steady heartbeat: %v, %d records", err, len(res.Records))
				}
			}
		})
	}
}

func memberID(i int) string { return fmt.Sprintf("member-%03d", i) }

// settledShareGroup builds a share group whose members heartbeat until
// nothing changes, running every timer due at once (a share-state
// initialisation) on the way.
func settledShareGroup(b *testing.B, members, topics int) (*shard.Shard, []int32) {
	cfg := shard.DefaultConfig()
	cfg.ShareMaxSize = members
	s, err := shard.New(0, cfg)
	if err != nil {
		b.Fatal(err)
	}
	image := map[string]int32{}
	var subs []string
	for t := range topics {
		name := fmt.Sprintf("topic-%02d", t)
		image[name] = 8
		subs = append(subs, name)
	}
	if err := s.SetTopics(image); err != nil {
		b.Fatal(err)
	}
	apply := func(records []shard.Record, timers []shard.TimerOp) {
		for _, r := range records {
			if err := s.Replay(s.LastOffset()+1, r); err != nil {
				b.Fatal(err)
			}
		}
		for _, t := range timers {
			if !t.Cancel && t.DeadlineMs <= 0 && t.Task.Kind != shard.TaskSessionTimeout {
				res := s.RunTimer(0, t.Task)
				for _, r := range res.Records {
					if err := s.Replay(s.LastOffset()+1, r); err != nil {
						b.Fatal(err)
					}
				}
			}
		}
	}
	epochs := make([]int32, members)
	for round := 0; round < 4; round++ {
		for m := range members {
			req := shard.ShareGroupHeartbeatRequest{GroupID: "g", MemberID: memberID(m), MemberEpoch: epochs[m]}
			if epochs[m] == 0 {
				req.SubscribedTopicNames = subs
			}
			res, err := s.ShareGroupHeartbeat(0, req)
			if err != nil {
				b.Fatal(err)
			}
			apply(res.Records, res.Timers)
			epochs[m] = res.Response.MemberEpoch
		}
	}
	return s, epochs
}
