package sim

// faultMoveDuringCycle moves, with MoveDuringCycleProb, one of a broker's
// partitions right after the broker starts a cleanup cycle, within a
// plugin call's latency: the cycle's deletes then race the move.
func faultMoveDuringCycle() faultKind {
	k := scaledKnob("move-during-cycle", probParam, "faults.move_during_cycle_prob", "a partition with eligible groups moves right after a cleanup cycle starts",
		func(f *Faults) *float64 { return &f.MoveDuringCycleProb }, 0.05, 0.3)
	k.movesShards = func(f Faults) bool { return f.MoveDuringCycleProb > 0 }
	k.cycleStarted = func(w *world, b int) {
		if !w.eng.chance(w.opts.Faults.MoveDuringCycleProb) {
			return
		}
		ps := w.partitionsOf(b)
		if len(ps) > 0 {
			p := ps[w.eng.rng.IntN(len(ps))]
			w.eng.after(w.eng.uniform(0, w.opts.Faults.PluginLatencyMax), func() { w.moveShard(p, "during-cycle") })
		}
	}
	return k
}
