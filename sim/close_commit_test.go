package sim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/shard"
)

// TestConsumerCloseCommitsBeforeLeaving proves that a simulated KIP-848
// consumer that closes gracefully commits the position of every partition
// it owns, accepted by the coordinator at its member epoch, before its
// leave heartbeat removes it (as Kafka's AsyncKafkaConsumer.close runs
// autoCommitOnClose and runRebalanceCallbacksOnClose before
// leaveGroupOnClose), while one that crashes commits nothing and stays a
// member until the coordinator fences it.
func TestConsumerCloseCommitsBeforeLeaving(t *testing.T) {
	for _, tc := range []struct {
		name      string
		close     func(w *world, m *simMember)
		committed bool
	}{
		{"graceful", func(w *world, m *simMember) { w.stop(m) }, true},
		{"crash", func(w *world, m *simMember) {
			w.opts.Faults.MemberCrashProb = 1
			w.commitLoop(m)
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := DefaultOptions()
			opts.Brokers, opts.Partitions, opts.Plugin, opts.Duration = 1, 1, false, time.Hour
			opts.Workload.StreamsApps, opts.Workload.ConsumerGroups, opts.Workload.ShareGroups, opts.Workload.SimpleGroups = 0, 0, 0, 0
			opts.Workload.CommitInterval = time.Hour // no periodic commit in the test's minutes
			opts.Faults = Faults{}
			w, err := newWorld(opts, nil)
			require.NoError(t, err)
			endMs := startMs + time.Hour.Milliseconds()
			g := &simGroup{id: "g", typ: shard.Consumer, topic: "orders", diesMs: endMs}
			w.groups = append(w.groups, g)
			m := w.addMember(g)
			run := func(d time.Duration) {
				t.Helper()
				until := w.nowMs() + d.Milliseconds()
				for w.nowMs() < until {
					fn, ok := w.eng.next(until)
					if !ok {
						return
					}
					fn()
					w.schedulePolls()
				}
			}
			run(30 * time.Second)
			require.True(t, m.joined, "the member joined")
			require.Positive(t, m.epoch)
			require.NotEmpty(t, m.assigned, "the member owns partitions")
			owned := m.assigned
			m.offset = 4242 // the position it consumed to
			commitsBefore := w.res.OffsetCommits

			tc.close(w, m)
			run(time.Second)

			require.True(t, m.gone)
			var count int
			for _, tp := range owned {
				count += len(tp.Partitions)
			}
			require.NoError(t, w.brokers[0].c.ReadShard(0, func(s *shard.Shard) {
				for _, tp := range owned {
					for _, p := range tp.Partitions {
						o, ok := s.Offset(g.id, tp.Topic, p)
						if tc.committed {
							require.True(t, ok, "partition %d committed on close", p)
							require.EqualValues(t, 4242, o.Offset, "partition %d", p)
						} else {
							require.False(t, ok, "a crash committed partition %d", p)
						}
					}
				}
				_, member := s.MemberState(g.id, m.id)
				require.Equal(t, !tc.committed, member, "a graceful close leaves the group at once; a crash stays until fenced")
			}))
			if tc.committed {
				require.EqualValues(t, count, w.res.OffsetCommits-commitsBefore, "the coordinator accepted the close's commit of every owned partition")
			} else {
				require.Equal(t, commitsBefore, w.res.OffsetCommits)
			}
		})
	}
}
