package shard

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOnLoadedClassicGroupsDrain is GroupMetadataManagerTest.testOnLoaded's
// classic branch as a property: random workloads (classic groups, classic
// members of consumer groups, the other types) stop at a random step, a
// new owner loads the log and arms OnLoaded's timers, and no client speaks
// again. A load forgets every classic rebalance in progress, as Kafka's
// (classic_load.go): no loaded classic group is mid-rebalance or has a
// KIP-394 pending member. Every group must then empty within its timeouts:
// a member left without its heartbeat or session timer keeps its group from
// emptying. The loaded shard equals the log replayed with the same groups
// forgotten.
func TestOnLoadedClassicGroupsDrain(t *testing.T) {
	classicWithMembers, midRebalance := 0, 0
	for seed := uint64(1); seed <= 200; seed++ {
		c := randChooser{rand.New(rand.NewPCG(seed, 0))}
		steps := 50 + c.intn(250)
		name := fmt.Sprintf("seed=%d steps=%d", seed, steps)
		w := newWorkload(t, c, name, steps)
		w.run(steps, func() bool { return true })

		loaded := newHarness(t, w.h.cfg, w.h.topics)
		loaded.replay(w.h.log...)
		loaded.nowMs = w.h.nowMs
		loaded.s.groups.Ascend(func(g *group) bool {
			if g.typ == Classic && g.classic != nil && len(g.classic.Members)+len(g.classic.PendingMembers) > 0 {
				classicWithMembers++
				if g.classic.State == StatePreparingRebalance || g.classic.State == StateCompletingRebalance {
					midRebalance++
				}
			}
			return true
		})
		loaded.timers.apply(loaded.s.OnLoaded(loaded.nowMs))
		loaded.s.groups.Ascend(func(g *group) bool {
			if g.typ == Classic && g.classic != nil {
				assert.Contains(t, []GroupState{StateEmpty, StateStable}, g.classic.State, "%s: classic group %s just loaded", name, g.id)
				assert.Empty(t, g.classic.PendingMembers, "%s: classic group %s just loaded", name, g.id)
			}
			return true
		})
		// The workloads' session and rebalance timeouts are seconds; ten
		// minutes of silence outlast any chain of them.
		loaded.advance(loaded.nowMs + 600_000)

		loaded.s.groups.Ascend(func(g *group) bool {
			if g.typ == Classic {
				if g.classic != nil {
					assert.Contains(t, []GroupState{StateEmpty, StateDead}, g.classic.State, "%s: classic group %s after the load", name, g.id)
					assert.Empty(t, g.classic.PendingMembers, "%s: classic group %s's KIP-394 pending members after the load", name, g.id)
				}
				return true
			}
			assert.Empty(t, g.sortedMemberIDs(), "%s: %s group %s after the load", name, g.typ, g.id)
			return true
		})
		requireSnapshotEqual(t, loaded.s.Snapshot(), loaded.rebuild().Snapshot(), "%s", name)
	}
	t.Logf("loaded %d classic groups with members, %d of them mid-rebalance", classicWithMembers, midRebalance)
	require.Positive(t, classicWithMembers, "the workloads load classic groups with members")
	require.Positive(t, midRebalance, "the workloads load classic groups mid-rebalance")
}
