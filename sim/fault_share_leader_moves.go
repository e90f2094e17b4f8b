package sim

import "github.com/coordsim/coordsim/sim/connectsim"

// faultShareLeaderMoves moves a data partition's leadership,
// ShareLeaderMovesPerHour on average: its share-partitions are rebuilt
// from the persister. The Connect simulator runs it (Connect workloads
// only).
func faultShareLeaderMoves() faultKind {
	k := scaledKnob("share-leader-moves", rateParam, "faults.share_leader_moves_per_hour", "mean rate at which a data partition's leadership moves; its share partitions are rebuilt from the persister (Connect workloads only)",
		func(f *Faults) *float64 { return &f.ShareLeaderMovesPerHour }, 1, 6)
	k.connect = func(f Faults, c *connectsim.Faults) { c.ShareLeaderMovesPerHour = f.ShareLeaderMovesPerHour }
	return k
}
