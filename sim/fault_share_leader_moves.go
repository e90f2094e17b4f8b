package sim

import "github.com/coordsim/coordsim/sim/connectsim"

// faultShareLeaderMoves moves a data partition's leadership,
// ShareLeaderMovesPerHour on average: its share-partitions are rebuilt
// from the persister. The Connect simulator runs it (Connect workloads
// only).
func faultShareLeaderMoves() faultKind {
	return faultKind{
		name: "share-leader-moves",
		params: []*Param{
			rateParam("faults.share_leader_moves_per_hour", "mean rate at which a data partition's leadership moves; its share partitions are rebuilt from the persister (Connect workloads only)",
				func(o *Options) any { return &o.Faults.ShareLeaderMovesPerHour }).swarm(scaleHeavy()),
		},
		light:   func(f *Faults) { f.ShareLeaderMovesPerHour = 1 },
		heavy:   func(f *Faults) { f.ShareLeaderMovesPerHour = 6 },
		connect: func(f Faults, c *connectsim.Faults) { c.ShareLeaderMovesPerHour = f.ShareLeaderMovesPerHour },
	}
}
