package sim

import "github.com/coordsim/coordsim/sim/connectsim"

// faultSharePersistFail fails a share-state write, SharePersistFailProb
// per write: the acknowledgement is rolled back, lock expiry stands. The
// Connect simulator runs it.
func faultSharePersistFail() faultKind {
	k := scaledKnob("share-persist-fail", probParam, "faults.share_persist_fail_prob", "a share-state write fails (an acknowledgement is rolled back; lock expiry stands)",
		func(f *Faults) *float64 { return &f.SharePersistFailProb }, 0.001, 0.01)
	k.connect = func(f Faults, c *connectsim.Faults) { c.SharePersistFailProb = f.SharePersistFailProb }
	return k
}
