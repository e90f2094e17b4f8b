package sim

// faultMoveDuringCycle moves, with MoveDuringCycleProb, one of a broker's
// partitions right after the broker starts a cleanup cycle, within a
// plugin call's latency: the cycle's deletes then race the move.
func faultMoveDuringCycle() faultKind {
	return faultKind{
		name: "move-during-cycle",
		params: []*Param{
			probParam("faults.move_during_cycle_prob", "a partition with eligible groups moves right after a cleanup cycle starts",
				func(o *Options) any { return &o.Faults.MoveDuringCycleProb }).swarm(scaleHeavy()),
		},
		light:       func(f *Faults) { f.MoveDuringCycleProb = 0.05 },
		heavy:       func(f *Faults) { f.MoveDuringCycleProb = 0.3 },
		movesShards: func(f Faults) bool { return f.MoveDuringCycleProb > 0 },
		cycleStarted: func(w *world, b int) {
			if !w.eng.chance(w.opts.Faults.MoveDuringCycleProb) {
				return
			}
			ps := w.partitionsOf(b)
			if len(ps) > 0 {
				p := ps[w.eng.rng.IntN(len(ps))]
				w.eng.after(w.eng.uniform(0, w.opts.Faults.PluginLatencyMax), func() { w.moveShard(p, "during-cycle") })
			}
		},
	}
}
