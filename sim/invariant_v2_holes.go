package sim

import (
	"fmt"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/plugin"
)

// Under Options.V2KnownHoles the checker excuses, under v2, a lost row (6-no-
// plugin-side-data-loss) or a leaked one (6-liveness) only when an event of
// the same group observed earlier in the run ties it to a hole that Kafka's
// merged v2 keeps (docs/kip1331-v3.md); any loss or leak of a group without
// such an event stays a violation, so a v2 bug outside the holes is caught.
// The events:
//
//   - hole 2: a deleteTopology of the group landed after the load of its
//     partition that issued it had ended (the partition moved, or moved and
//     came back), so it can erase a row the next load recorded, or its
//     cycle's finalize can land in the next load;
//   - hole 3: a finalize (or mark) write of a cycle failed after the cycle
//     issued the group's delete, so a push that landed during the delete
//     keeps its epoch over a row the delete erased;
//   - hole 4: a setTopology of the group landed when its group was gone
//     from the committed state (cleaned and tombstoned while the push was
//     in flight), so the row outlives the group.
//
// Each is the exact moment of the hole's story, not "something happened to
// the group": a loss on one broker with no failed write (the finalize
// forgetting a push, for instance) has none of them.

// excusesV2Holes reports whether this run excuses v2's known holes.
func (c *checker) excusesV2Holes() bool { return c.w.opts.v2HolesExcused() }

// v2HolesExcused reports whether V2KnownHoles applies: it means nothing
// under another protocol.
func (o Options) v2HolesExcused() bool { return o.V2KnownHoles && o.Protocol == coordinator.CleanupV2 }

// v2Hole records the first hole event of groupID.
func (c *checker) v2Hole(groupID, why string) {
	if _, seen := c.v2Holes[groupID]; seen || !c.excusesV2Holes() {
		return
	}
	c.v2Holes[groupID] = why
	c.w.mark("v2-hole-event")
}

// onV2PluginLanded looks at a plugin call the moment it reaches the store
// for the events of holes 2 and 4.
func (c *checker) onV2PluginLanded(d pluginDelivery, err error) {
	if !c.excusesV2Holes() {
		return
	}
	w := c.w
	switch d.op {
	case plugin.OpDelete:
		if now, ok := w.brokers[d.broker].c.LoadEpoch(d.p); d.hosted && (!ok || now != d.token) {
			c.v2Hole(d.group, fmt.Sprintf("hole 2: a deleteTopology issued by broker %d's load %d of partition %d landed after that load ended", d.broker, d.token, d.p))
		}
	case plugin.OpSet:
		if err != nil || w.owner[d.p] < 0 {
			return
		}
		if _, found := w.committedStored(d.group); !found {
			c.v2Hole(d.group, "hole 4: a setTopology landed after its group was cleaned and tombstoned")
		}
	}
}

// v2HoleExplains returns the hole event behind a lost or leaked row of
// groupID, if this run excuses v2's holes and one was observed; it counts
// the excuse with the mark v2-known-hole and a trace line.
func (c *checker) v2HoleExplains(groupID, what string) bool {
	why, ok := c.v2Holes[groupID]
	if !ok || !c.excusesV2Holes() {
		return false
	}
	w := c.w
	w.mark("v2-known-hole")
	w.tr(traceEvent{kind: tMark, broker: -1, group: groupID, detail: fmt.Sprintf("v2 known hole: %s, explained by %s", what, why)})
	return true
}
