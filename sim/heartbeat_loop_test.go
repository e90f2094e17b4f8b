package sim

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/shard"
)

// TestRejoinWithHeartbeatInFlightKeepsOneLoop proves that a simulated member
// that rejoins while one of its heartbeats waits for a commit (a streams
// instance's topology upgrade calls join at any moment) keeps one heartbeat
// loop: the in-flight heartbeat's late answer is ignored (the member stays at
// epoch 0 until its join is answered) and from then on the member heartbeats
// once per interval. Before f55a8b0 the late answer restarted the old loop
// beside the join's, so every member heartbeated twice per interval (the
// acceptance swarm's 9-one-owner seeds 72 and 653).
func TestRejoinWithHeartbeatInFlightKeepsOneLoop(t *testing.T) {
	for _, typ := range []shard.GroupType{shard.Consumer, shard.Streams, shard.Share} {
		t.Run(typ.String(), func(t *testing.T) {
			hb := &heartbeatTimes{group: "g"}
			opts := DefaultOptions()
			opts.Brokers, opts.Partitions, opts.Plugin, opts.Duration = 1, 1, false, time.Hour
			opts.Workload.StreamsApps, opts.Workload.ConsumerGroups, opts.Workload.ShareGroups, opts.Workload.SimpleGroups = 0, 0, 0, 0
			opts.Workload.CommitInterval = 2 * time.Second
			opts.Faults = Faults{CommitDelayMax: 3 * time.Second}
			w, err := newWorld(opts, hb)
			require.NoError(t, err)
			hb.eng = w.eng
			log := w.logs.Partition(0)
			endMs := startMs + time.Hour.Milliseconds()
			// A group that only commits shares the member's partition: its
			// writes wait up to 3 s for their commit, and so does every
			// response behind them.
			committer := &simGroup{id: "c", typ: shard.Classic, topic: "orders", diesMs: endMs}
			g := &simGroup{id: "g", typ: typ, topic: "orders", diesMs: endMs}
			w.groups = append(w.groups, committer, g)
			w.simpleCommitLoop(committer)
			m := w.addMember(g)
			step := func() {
				t.Helper()
				fn, ok := w.eng.next(endMs)
				require.True(t, ok, "the simulation ran out of events")
				fn()
				w.schedulePolls()
			}

			// Run until the member's loop sends a heartbeat whose answer
			// waits for earlier writes to commit: it is in flight.
			sentEnd := int64(-1)
			for sentEnd < 0 {
				require.Less(t, w.nowMs(), startMs+(10*time.Minute).Milliseconds(), "no heartbeat waited for a commit")
				before := len(hb.atMs)
				step()
				if len(hb.atMs) > before && m.joined && log.HighWatermark() < log.EndOffset() {
					sentEnd = log.EndOffset()
				}
			}

			// The member rejoins then, as a topology upgrade makes it; the
			// join is answered no earlier than the heartbeat before it.
			w.join(m)
			for log.HighWatermark() < sentEnd {
				step()
			}
			answeredMs, sent := w.nowMs(), len(hb.atMs)
			for w.nowMs() < answeredMs+(10*time.Minute).Milliseconds() {
				step()
			}
			require.Positive(t, m.epoch, "the join was answered")

			// One loop: the late answer scheduled no heartbeat of its own,
			// so the member sends one heartbeat at a time, an interval after
			// the last one's answer; and the join's loop goes on.
			after := hb.atMs[sent:]
			require.GreaterOrEqual(t, len(after), int((10*time.Minute)/(heartbeatInterval+opts.Faults.CommitDelayMax)),
				"the join's loop keeps heartbeating: %v", after)
			assert.GreaterOrEqual(t, after[0]-answeredMs, heartbeatInterval.Milliseconds(), "the first heartbeat after the answers")
			for i := 1; i < len(after); i++ {
				require.GreaterOrEqual(t, after[i]-after[i-1], heartbeatInterval.Milliseconds(),
					"heartbeats %d and %d after the rejoin, at %d and %d ms: two loops", i-1, i, after[i-1]-startMs, after[i]-startMs)
			}
		})
	}
}

// heartbeatTimes records the virtual times of one group's heartbeat trace
// lines (the test group has one member: they are all its loop's).
type heartbeatTimes struct {
	group string
	eng   *engine
	atMs  []int64
}

func (h *heartbeatTimes) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte(" heartbeat group="+h.group+" ")) {
		h.atMs = append(h.atMs, h.eng.nowMs)
	}
	return len(p), nil
}
