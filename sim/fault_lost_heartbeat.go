package sim

// faultLostHeartbeat drops a member's heartbeat, LostHeartbeatProb per
// heartbeat, and with the same chance hangs a consumer's revocation
// callback (the client keeps heartbeating without acknowledging).
func faultLostHeartbeat() faultKind {
	return faultKind{
		name: "lost-heartbeat",
		params: []*Param{
			probParam("faults.lost_heartbeat_prob", "a heartbeat is dropped", func(o *Options) any { return &o.Faults.LostHeartbeatProb }).swarm(scaleHeavy()),
		},
		light:         func(f *Faults) { f.LostHeartbeatProb = 0.01 },
		heavy:         func(f *Faults) { f.LostHeartbeatProb = 0.05 },
		loseHeartbeat: func(w *world) bool { return w.eng.chance(w.opts.Faults.LostHeartbeatProb) },
	}
}
