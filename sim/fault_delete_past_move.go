package sim

import (
	"fmt"
	"time"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/plugin"
)

// faultDeletePastMove makes a deleteTopology outlive a shard move: with
// DeletePastMoveProb the call is held for DeletePastMoveLatency and its
// group's partition moves to another broker at once, so the old owner's
// delete can land after the new owner solicited and stored a fresh
// description (the KIP-1331 v2 move race; protocol v3 fences it). No
// preset sets it; the v2-move-race scenario does.
func faultDeletePastMove() faultKind {
	return faultKind{
		name: "delete-past-move",
		params: []*Param{
			probParam("faults.delete_past_move_prob", "a `deleteTopology` is held past a move of its group's partition to another broker (the KIP-1331 v2 move race)",
				func(o *Options) any { return &o.Faults.DeletePastMoveProb }),
			durParam("faults.delete_past_move_latency", 0, "how long such a delete is held", func(o *Options) any { return &o.Faults.DeletePastMoveLatency }),
		},
		pluginCall: func(w *world, b int, op plugin.Op, groupID string, lat time.Duration) time.Duration {
			if op != plugin.OpDelete || !w.eng.chance(w.opts.Faults.DeletePastMoveProb) {
				return lat
			}
			w.deletePastMove(b, groupID)
			return w.opts.Faults.DeletePastMoveLatency
		},
	}
}

// deletePastMove holds broker b's deleteTopology for the group past a
// shard move: the group's partition moves away from b right after the
// call is issued (once the current event ends, so the move never runs
// inside the coordinator's own call).
func (w *world) deletePastMove(b int, groupID string) {
	p := coordinator.PartitionFor(groupID, w.opts.Partitions)
	w.mark("delete-past-move")
	w.tr(traceEvent{kind: tMark, broker: int16(b), group: groupID, detail: fmt.Sprintf("deleteTopology held for %s past a move of p%d", w.opts.Faults.DeletePastMoveLatency, p)})
	w.eng.after(0, func() {
		if w.owner[p] == b {
			w.moveShard(p, "delete-past-move")
		}
	})
}
