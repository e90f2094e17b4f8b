package sim

import "github.com/coordsim/coordsim/sim/connectsim"

// faultShareDLQFail fails a KIP-1191 dead-letter write, ShareDLQFailProb
// per write: the record is archived anyway. The Connect simulator runs it.
func faultShareDLQFail() faultKind {
	return faultKind{
		name: "share-dlq-fail",
		params: []*Param{
			probParam("faults.share_dlq_fail_prob", "a KIP-1191 dead-letter write fails (the record is archived anyway)",
				func(o *Options) any { return &o.Faults.ShareDLQFailProb }).swarm(scaleHeavy()),
		},
		light:   func(f *Faults) { f.ShareDLQFailProb = 0.05 },
		heavy:   func(f *Faults) { f.ShareDLQFailProb = 0.2 },
		connect: func(f Faults, c *connectsim.Faults) { c.ShareDLQFailProb = f.ShareDLQFailProb },
	}
}
