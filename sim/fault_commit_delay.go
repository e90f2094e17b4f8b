package sim

import "time"

// faultCommitDelay delays each append's commit by a uniform [0,
// CommitDelayMax]: the shard's uncommitted writes are visible to reads
// that accept them meanwhile.
func faultCommitDelay() faultKind {
	return faultKind{
		name: "commit-delay",
		params: []*Param{
			durParam("faults.commit_delay_max", 0, "each append commits after a uniform [0, max] delay",
				func(o *Options) any { return &o.Faults.CommitDelayMax }).swarm(uniformDur(0, time.Second, time.Millisecond)),
		},
		light: func(f *Faults) { f.CommitDelayMax = 50 * time.Millisecond },
		heavy: func(f *Faults) { f.CommitDelayMax = 500 * time.Millisecond },
		commitDelay: func(w *world) time.Duration {
			if w.opts.Faults.CommitDelayMax <= 0 {
				return 0
			}
			return w.eng.uniform(0, w.opts.Faults.CommitDelayMax)
		},
	}
}
