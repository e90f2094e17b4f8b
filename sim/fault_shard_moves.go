package sim

// faultShardMoves moves a random partition to another broker,
// ShardMovesPerHour on average (a leader change: unload, then load on the
// target after the load delay).
func faultShardMoves() faultKind {
	k := scaledKnob("shard-moves", rateParam, "faults.shard_moves_per_hour", "mean rate at which a random partition moves to another broker",
		func(f *Faults) *float64 { return &f.ShardMovesPerHour }, 0.5, 4)
	k.movesShards = func(f Faults) bool { return f.ShardMovesPerHour > 0 }
	k.start = func(w *world, endMs int64) {
		if len(w.brokers) < 2 {
			return
		}
		w.poisson(w.opts.Faults.ShardMovesPerHour, endMs, func() {
			w.moveShard(int32(w.eng.rng.IntN(int(w.opts.Partitions))), "random")
		})
	}
	return k
}
