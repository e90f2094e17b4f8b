package sim

import "github.com/coordsim/coordsim/kerr"

// faultAppendFailure fails an append to a partition's log with
// NOT_ENOUGH_REPLICAS, AppendFailureProb per append: the shard rolls back
// to its committed state.
func faultAppendFailure() faultKind {
	k := scaledKnob("append-failure", probParam, "faults.append_failure_prob", "an append fails (the shard rolls back to its committed state)",
		func(f *Faults) *float64 { return &f.AppendFailureProb }, 0.002, 0.02)
	k.beforeAppend = func(w *world, _ int32) error {
		if w.eng.chance(w.opts.Faults.AppendFailureProb) {
			w.mark("append-failed")
			return kerr.NotEnoughReplicas
		}
		return nil
	}
	return k
}
