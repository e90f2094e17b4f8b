package sim

import (
	"fmt"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/plugin"
	"github.com/coordsim/coordsim/sim/invariants"
)

// InvCoordinatorFence holds v3's second fence to account on its own: a
// write that records a plugin call's outcome lands only in the load of the
// partition the call was made for. Issue 27: with the store fencing stale
// calls too, a weakened coordinator-side check passed every other
// invariant.
const InvCoordinatorFence = invariants.CoordinatorFence

// pluginDelivery is the plugin call whose completion a broker is being
// handed: what a write made meanwhile follows.
type pluginDelivery struct {
	broker int
	p      int32
	op     plugin.Op
	group  string
	// token is the broker's load epoch of p when the call was issued: the
	// read the call follows was made in the same event, so it is the
	// call's fencing token. hosted is false when p was not hosted then.
	token  int32
	hosted bool
}

// fencedWrites are the KIP-1331 writes that follow a plugin call and carry
// its token (coordinator.fencedWrite's callers).
var fencedWrites = map[string]bool{
	"streams-group-set-stored-topology-epoch":           true,
	"streams-group-set-failed-topology-epoch":           true,
	"streams-group-mark-topology-uncertain":             true,
	"mark-topology-uncertain-batch":                     true,
	"finalize-stored-topology-epoch-after-delete-batch": true,
}

// issued returns the delivery context of a plugin call broker b issues now
// for groupID.
func (w *world) issued(b int, op plugin.Op, groupID string) pluginDelivery {
	p := coordinator.PartitionFor(groupID, w.opts.Partitions)
	token, hosted := w.brokers[b].c.LoadEpoch(p)
	return pluginDelivery{broker: b, p: p, op: op, group: groupID, token: token, hosted: hosted}
}

// delivering wraps the hand-over of a plugin call's result: the writes
// deliver makes are checked against the call's token (23).
func (c *checker) delivering(d pluginDelivery, deliver func()) {
	if now, ok := c.w.brokers[d.broker].c.LoadEpoch(d.p); d.hosted && ok && now != d.token {
		c.w.mark("plugin-done-after-reload")
	}
	prev := c.delivery
	c.delivery = &d
	deliver()
	c.delivery = prev
}

// checkCoordinatorFence checks a write broker b makes on partition p (23).
func (c *checker) checkCoordinatorFence(b int, p int32, op string) {
	d := c.delivery
	if d == nil || d.broker != b || d.p != p || !fencedWrites[op] || !c.w.opts.Protocol.RefusesStaleLoadWrites() {
		return
	}
	if now, _ := c.w.brokers[b].c.LoadEpoch(p); now != d.token {
		c.w.violate(InvCoordinatorFence, fmt.Sprintf("broker %d applied %s on partition %d at load epoch %d after the %s of group %s made at load epoch %d",
			b, op, p, now, d.op, d.group, d.token))
	}
}
