package sim

import (
	"time"

	"github.com/coordsim/coordsim/shard"
)

// A rolling-upgrade application (workload.rolling_upgrade_groups): a
// consumer application whose instances start as classic consumers
// (classic_actor.go), eager or cooperative by the group's index. A quarter
// into its life its instances restart one at a time onto the consumer
// protocol (group.protocol=consumer): the first one's join upgrades the
// classic group online into a consumer group whose other members keep
// speaking the classic protocol. Past five eighths of its life they roll
// back one at a time: the last consumer-protocol member's leave downgrades
// the group to a classic one. The one-owner invariant is checked on every
// take throughout, across both conversions. What the rolls cost the
// application's records is measured in rolling_costs.go.

const rollingLabel = "rolling"

// rollGap bounds the pause between two restarts of a roll.
var rollGapMin, rollGapMax = 20 * time.Second, time.Minute

// rollingApp is a rolling-upgrade application's state.
type rollingApp struct {
	// classic is the protocol new instances start with.
	classic     bool
	cooperative bool
}

// rollingGroup makes g a rolling-upgrade application: dynamic members, no
// idle variant, eager for even indexes, cooperative for odd. The baseline
// (Workload.RollingUpgradeBaseline) starts it on the consumer protocol instead.
func rollingGroup(g *simGroup, i int, baseline bool) {
	g.rolling = &rollingApp{classic: !baseline, cooperative: i%2 == 1}
	g.static, g.variant = false, variantPlain
}

// scheduleRolls plans the upgrade and the downgrade; the baseline never
// rolls.
func (w *world) scheduleRolls(g *simGroup) {
	if w.opts.Workload.RollingUpgradeBaseline {
		return
	}
	life := g.diesMs - g.bornMs
	w.eng.at(g.bornMs+life/4, func() { w.startRoll(g, false) })
	w.eng.at(g.bornMs+life*5/8, func() { w.startRoll(g, true) })
}

// startRoll switches the protocol new instances start with and restarts
// the others one at a time.
func (w *world) startRoll(g *simGroup, toClassic bool) {
	if w.healed || w.nowMs() >= g.diesMs {
		return
	}
	g.rolling.classic = toClassic
	w.costs.window(g, toClassic, true, w.nowMs())
	protocol := "group.protocol=consumer"
	if toClassic {
		protocol = "group.protocol=classic"
	}
	w.client(tUpgrade, g.id, "", protocol)
	w.rollNext(g)
}

// rollNext restarts the first live instance still on the old protocol; when
// none is left, it marks the roll done and, a little later, whether the
// group converted.
func (w *world) rollNext(g *simGroup) {
	if w.healed || w.nowMs() >= g.diesMs {
		return
	}
	toClassic := g.rolling.classic
	for _, m := range g.members {
		if !m.gone && (m.classic != nil) != toClassic {
			w.client(tRestart, g.id, m.id, "rolling")
			w.stop(m)
			w.addMember(g)
			w.eng.after(w.eng.uniform(rollGapMin, rollGapMax), func() { w.rollNext(g) })
			return
		}
	}
	if toClassic {
		w.mark("rolling-downgraded")
	} else {
		w.mark("rolling-upgraded")
	}
	w.eng.after(time.Minute, func() { w.markConverted(g, toClassic) })
}

// markConverted marks a group the coordinator converted to the protocol
// its instances now all speak.
func (w *world) markConverted(g *simGroup, toClassic bool) {
	w.costs.window(g, toClassic, false, w.nowMs()) // the roll's window: the group has settled
	w.readCommitted(g.id, func(s *shard.Shard) {
		switch typ, ok := s.GroupType(g.id); {
		case !ok:
		case toClassic && typ == shard.Classic:
			w.mark("group-downgraded")
		case !toClassic && typ == shard.Consumer:
			w.mark("group-upgraded")
		}
	})
}
