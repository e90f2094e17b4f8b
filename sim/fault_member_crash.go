package sim

// faultMemberCrash crashes an active member, MemberCrashProb at each of
// its commits: it stops heartbeating, is fenced, and a new instance
// replaces it a little later (actors.go, commitLoop).
func faultMemberCrash() faultKind {
	return faultKind{
		name: "member-crash",
		params: []*Param{
			probParam("faults.member_crash_prob", "an active member crashes at one of its commits",
				func(o *Options) any { return &o.Faults.MemberCrashProb }).swarm(scaleHeavy()),
		},
		light:       func(f *Faults) { f.MemberCrashProb = 0.01 },
		heavy:       func(f *Faults) { f.MemberCrashProb = 0.05 },
		crashMember: func(w *world) bool { return w.eng.chance(w.opts.Faults.MemberCrashProb) },
	}
}
