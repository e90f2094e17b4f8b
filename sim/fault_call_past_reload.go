package sim

import (
	"fmt"
	"time"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/plugin"
)

// faultCallPastReload holds a fenced plugin call (setTopology,
// deleteTopology) past a reload of its partition on the broker that made
// it: with CallPastReloadProb the group's partition moves to another broker
// right after the call is issued and comes back halfway through
// CallPastReloadLatency, for which the call is held. It is a leader bounce:
// a broker's coordinator partitions move away (a restart, a lost ISR) and
// preferred-leader election brings them back, while a slow store still
// works on the old load's call. The call's outcome then reaches a later
// load of its partition on the same broker, which v3's coordinator fence
// must refuse (23-coordinator-fence, mark plugin-done-after-reload); the
// store's fence often cannot: when no other owner called for the group
// meanwhile, the call's token is still the newest the store saw. Without
// it a coordinator-side fence is exercised only by the v2-move-race
// scenario, where a held delete may ride two moves back to its broker.
func faultCallPastReload() faultKind {
	return faultKind{
		name: "call-past-reload",
		params: []*Param{
			probParam("faults.call_past_reload_prob", "a `setTopology` or `deleteTopology` is held while its group's partition moves to another broker and back (a leader bounce), so it completes in a later load of the partition on the broker that made it",
				func(o *Options) any { return &o.Faults.CallPastReloadProb }),
			durParam("faults.call_past_reload_latency", 0, "how long such a call is held; the partition comes back halfway",
				func(o *Options) any { return &o.Faults.CallPastReloadLatency }),
		},
		heavy:       func(f *Faults) { f.CallPastReloadProb, f.CallPastReloadLatency = 0.02, time.Minute },
		movesShards: func(f Faults) bool { return f.CallPastReloadProb > 0 },
		pluginCall: func(w *world, b int, op plugin.Op, groupID string, lat time.Duration) time.Duration {
			if op != plugin.OpSet && op != plugin.OpDelete || !w.eng.chance(w.opts.Faults.CallPastReloadProb) {
				return lat
			}
			w.callPastReload(b, op, groupID)
			return max(lat, w.opts.Faults.CallPastReloadLatency)
		},
	}
}

// callPastReload bounces the partition of broker b's call for groupID: it
// moves away once the current event ends (never inside the coordinator's
// own call) and back to b halfway through the hold, unless the faults
// healed meanwhile or another move already brought it back.
func (w *world) callPastReload(b int, op plugin.Op, groupID string) {
	p := coordinator.PartitionFor(groupID, w.opts.Partitions)
	if len(w.brokers) < 2 {
		return
	}
	hold := w.opts.Faults.CallPastReloadLatency
	w.mark("call-past-reload")
	w.tr(traceEvent{kind: tMark, broker: int16(b), group: groupID, detail: fmt.Sprintf("%s held for %s past a bounce of p%d", op, hold, p)})
	w.eng.after(0, func() {
		if w.owner[p] == b {
			w.moveShard(p, "bounce")
		}
	})
	w.eng.after(hold/2, func() {
		if !w.healed && w.owner[p] >= 0 && w.owner[p] != b {
			w.moveShardTo(p, b, "bounce back")
		}
	})
}
