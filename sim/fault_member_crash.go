package sim

// faultMemberCrash crashes an active member, MemberCrashProb at each of
// its commits: it stops heartbeating, is fenced, and a new instance
// replaces it a little later (actors.go, commitLoop).
func faultMemberCrash() faultKind {
	k := scaledKnob("member-crash", probParam, "faults.member_crash_prob", "an active member crashes at one of its commits",
		func(f *Faults) *float64 { return &f.MemberCrashProb }, 0.01, 0.05)
	k.crashMember = func(w *world) bool { return w.eng.chance(w.opts.Faults.MemberCrashProb) }
	return k
}
