package sim

// faultShardMoves moves a random partition to another broker,
// ShardMovesPerHour on average (a leader change: unload, then load on the
// target after the load delay).
func faultShardMoves() faultKind {
	return faultKind{
		name: "shard-moves",
		params: []*Param{
			rateParam("faults.shard_moves_per_hour", "mean rate at which a random partition moves to another broker",
				func(o *Options) any { return &o.Faults.ShardMovesPerHour }).swarm(scaleHeavy()),
		},
		light:       func(f *Faults) { f.ShardMovesPerHour = 0.5 },
		heavy:       func(f *Faults) { f.ShardMovesPerHour = 4 },
		movesShards: func(f Faults) bool { return f.ShardMovesPerHour > 0 },
		start: func(w *world, endMs int64) {
			if len(w.brokers) < 2 {
				return
			}
			w.poisson(w.opts.Faults.ShardMovesPerHour, endMs, func() {
				w.moveShard(int32(w.eng.rng.IntN(int(w.opts.Partitions))), "random")
			})
		},
	}
}
