package sim

import "github.com/coordsim/coordsim/sim/connectsim"

// faultShareDLQFail fails a KIP-1191 dead-letter write, ShareDLQFailProb
// per write: the record is archived anyway. The Connect simulator runs it.
func faultShareDLQFail() faultKind {
	k := scaledKnob("share-dlq-fail", probParam, "faults.share_dlq_fail_prob", "a KIP-1191 dead-letter write fails (the record is archived anyway)",
		func(f *Faults) *float64 { return &f.ShareDLQFailProb }, 0.05, 0.2)
	k.connect = func(f Faults, c *connectsim.Faults) { c.ShareDLQFailProb = f.ShareDLQFailProb }
	return k
}
