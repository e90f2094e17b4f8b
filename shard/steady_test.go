package shard

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSteadyHeartbeatMatchesSlowPath proves, over 200 seeds of random
// consumer, share and streams membership, that whenever the steady-state
// fast path answers a heartbeat, the full path gives the same answer: no
// records, the same timers, epoch, assignment and statuses.
func TestSteadyHeartbeatMatchesSlowPath(t *testing.T) {
	topics := map[string]int32{"a": 3, "b": 2}
	fast := 0
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 0x57ead))
		h := newHarness(t, DefaultConfig(), topics)
		epochs := map[string]int32{}
		types := []GroupType{Consumer, Share, Streams}
		for step := range 150 {
			typ := types[rng.IntN(len(types))]
			g := fmt.Sprintf("%s-%d", typ, rng.IntN(3))
			m := fmt.Sprintf("m%d", rng.IntN(3))
			key := g + "/" + m
			hb := &heartbeat{typ: typ, groupID: g, memberID: m, memberEpoch: epochs[key], rebalanceTimeoutMs: 1000}
			switch rng.IntN(6) {
			case 0: // join
				hb.memberEpoch = 0
				if typ == Streams {
					hb.topology = &Topology{Epoch: int32(rng.IntN(2)), Subtopologies: []Subtopology{{ID: "0", SourceTopics: []string{"a"}}}}
				} else {
					hb.subscribedTopics = []string{[]string{"a", "b"}[rng.IntN(2)]}
				}
			case 1: // leave
				hb.memberEpoch = -1
			case 2:
				if rng.IntN(4) == 0 {
					h.setTopics(map[string]int32{"a": int32(2 + rng.IntN(3)), "b": 2})
				}
			}
			grp := h.s.lookup(g)
			if steady, ok := h.s.steadyHeartbeat(h.nowMs, grp, hb); ok {
				fast++
				slow, err := heartbeatPaths[typ](h.s, h.nowMs, h.s.newView(grp, typ, g), hb)
				require.NoError(t, err, "seed %d step %d", seed, step)
				require.Empty(t, slow.view.records, "seed %d step %d: the slow path wrote records", seed, step)
				require.Equal(t, slow.view.timers, steady.view.timers, "seed %d step %d", seed, step)
				require.Equal(t, slow.memberEpoch, steady.memberEpoch)
				require.Equal(t, slow.assignment, steady.assignment)
				require.Equal(t, slow.staleTopology, steady.staleTopology)
				require.Equal(t, slow.topicStatus, steady.topicStatus)
				require.False(t, slow.sendAssignment)
			}
			out, err := h.s.doHeartbeat(h.nowMs, hb)
			if err != nil {
				continue
			}
			h.replay(out.view.records...)
			if out.memberEpoch >= 0 {
				epochs[key] = out.memberEpoch
			} else {
				delete(epochs, key)
			}
			h.nowMs += int64(rng.IntN(3000))
		}
	}
	require.Greater(t, fast, 1000, "the workload must reach the fast path often")
}
