package sim

import "github.com/coordsim/coordsim/sim/connectsim"

// faultSharePersistFail fails a share-state write, SharePersistFailProb
// per write: the acknowledgement is rolled back, lock expiry stands. The
// Connect simulator runs it.
func faultSharePersistFail() faultKind {
	return faultKind{
		name: "share-persist-fail",
		params: []*Param{
			probParam("faults.share_persist_fail_prob", "a share-state write fails (an acknowledgement is rolled back; lock expiry stands)",
				func(o *Options) any { return &o.Faults.SharePersistFailProb }).swarm(scaleHeavy()),
		},
		light:   func(f *Faults) { f.SharePersistFailProb = 0.001 },
		heavy:   func(f *Faults) { f.SharePersistFailProb = 0.01 },
		connect: func(f Faults, c *connectsim.Faults) { c.SharePersistFailProb = f.SharePersistFailProb },
	}
}
