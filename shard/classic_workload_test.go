package shard

// The classic protocol's operations in the random workloads of
// property_test.go: joins (new, known, static), syncs by leaders and
// followers, heartbeats and batch leaves, so that replay equality and the
// index checks cover classic groups.

// classicMembers are the classic member ids of group, sorted.
func (w *workload) classicMembers(group string) []string {
	g := w.h.s.lookup(group)
	if g == nil || g.classic == nil {
		return nil
	}
	var out []string
	for _, m := range g.classic.Members {
		out = append(out, m.MemberID)
	}
	return append(out, g.classic.PendingMembers...)
}

// classicMember picks a member of group, or "" (a new member).
func (w *workload) classicMember(group string) string {
	ms := w.classicMembers(group)
	if len(ms) == 0 || w.c.intn(4) == 0 {
		return ""
	}
	return w.pick(ms)
}

func (w *workload) classicGeneration(group string) int32 {
	if g := w.h.s.lookup(group); g != nil {
		return g.epoch + int32(w.c.intn(5)/4) // sometimes one ahead
	}
	return 0
}

// doClassic runs one classic operation.
func (w *workload) doClassic() {
	h := w.h
	group := w.group()
	w.handle++
	switch w.c.intn(4) {
	case 0:
		req := JoinGroupRequest{GroupID: group, MemberID: w.classicMember(group), ClientID: "c", SessionTimeoutMs: 6_000,
			RebalanceTimeoutMs: int32(1+w.c.intn(3)) * 2_000, ProtocolType: "consumer", RequireKnownMemberID: w.c.intn(3) > 0,
			Protocols: []ClassicProtocol{{Name: []string{"range", "sticky"}[w.c.intn(2)], Metadata: []byte(w.pick(wlTopics))}}, Handle: w.handle}
		if w.c.intn(4) == 0 {
			req.InstanceID = []string{"i0", "i1"}[w.c.intn(2)]
		}
		w.note("classic join %s/%q instance=%q", group, req.MemberID, req.InstanceID)
		res, err := pure(w, "JoinGroup", func() (Result[JoinGroupResponse], error) { return h.s.JoinGroup(h.nowMs, req) })
		if err == nil {
			applyResult(h, res)
		}
	case 1:
		member := w.classicMember(group)
		req := SyncGroupRequest{GroupID: group, MemberID: member, GenerationID: w.classicGeneration(group), Handle: w.handle}
		for _, m := range w.classicMembers(group) {
			req.Assignments = append(req.Assignments, SyncGroupAssignment{MemberID: m, Assignment: []byte("a-" + m)})
		}
		w.note("classic sync %s/%q generation=%d", group, member, req.GenerationID)
		res, err := pure(w, "SyncGroup", func() (Result[SyncGroupResponse], error) { return h.s.SyncGroup(h.nowMs, req) })
		if err == nil {
			applyResult(h, res)
		}
	case 2:
		req := HeartbeatRequest{GroupID: group, MemberID: w.classicMember(group), GenerationID: w.classicGeneration(group)}
		w.note("classic heartbeat %s/%q generation=%d", group, req.MemberID, req.GenerationID)
		res, err := pure(w, "Heartbeat", func() (Result[HeartbeatResponse], error) { return h.s.Heartbeat(h.nowMs, req) })
		if err == nil {
			applyResult(h, res)
		}
	case 3:
		req := LeaveGroupRequest{GroupID: group}
		for range 1 + w.c.intn(2) {
			req.Members = append(req.Members, LeaveGroupMember{MemberID: w.classicMember(group)})
		}
		w.note("classic leave %s %v", group, req.Members)
		res, err := pure(w, "LeaveGroup", func() (Result[LeaveGroupResponse], error) { return h.s.LeaveGroup(h.nowMs, req) })
		if err == nil {
			applyResult(h, res)
		}
	}
}
