package shard

import "github.com/twmb/franz-go/pkg/kmsg"

// The classic protocol's operations in the random workloads of
// property_test.go: joins (new, known, static), syncs by leaders and
// followers, heartbeats and batch leaves, so that replay equality and the
// index checks cover classic groups. In the groups consumerProtocolGroup
// names, the joins carry consumer-protocol subscriptions (with the
// partitions the member owns) and the leaders' assignments are
// consumer-protocol Assignments, so that consumer heartbeats upgrade
// classic groups, classic members join consumer groups, and leaves
// downgrade them (online migration) under the same checks; the other
// groups' bytes are opaque, which refuses an upgrade.

// classicMembers are the classic member ids of group, sorted: a classic
// group's members and pending members, or a consumer group's members that
// use the classic protocol.
func (w *workload) classicMembers(group string) []string {
	g := w.h.s.lookup(group)
	if g != nil && g.typ == Consumer {
		var out []string
		for _, id := range g.sortedMemberIDs() {
			if g.members[id].classic != nil {
				out = append(out, id)
			}
		}
		return out
	}
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

func (w *workload) classicGeneration(group, member string) int32 {
	g := w.h.s.lookup(group)
	if g == nil {
		return 0
	}
	if m := g.members[member]; m != nil {
		return m.memberEpoch + int32(w.c.intn(5)/4) // a consumer group's classic member
	}
	return g.epoch + int32(w.c.intn(5)/4) // sometimes one ahead
}

// classicMetadata is a join's protocol metadata: the topic as bytes, or a
// consumer-protocol Subscription of it owning what the member holds.
func (w *workload) classicMetadata(group, member, topic string) []byte {
	if !consumerProtocolGroup(group) {
		return []byte(topic)
	}
	m := kmsg.NewConsumerMemberMetadata()
	m.Version = int16(w.c.intn(4))
	m.Topics = []string{topic}
	for _, tp := range w.classicOwned(group, member) {
		m.OwnedPartitions = append(m.OwnedPartitions, kmsg.ConsumerMemberMetadataOwnedPartition{Topic: tp.Topic, Partitions: tp.Partitions})
	}
	return m.AppendTo(nil)
}

// consumerProtocolGroup reports whether the workload's classic members of
// group speak the consumer protocol (g0 and g2) or send opaque bytes.
func consumerProtocolGroup(group string) bool { return group == "g0" || group == "g2" }

// classicOwned is what a classic member holds: its assignment in a
// consumer group, or its classic assignment decoded.
func (w *workload) classicOwned(group, member string) []TopicPartitions {
	g := w.h.s.lookup(group)
	switch {
	case g == nil || member == "":
		return nil
	case g.typ == Consumer && g.members[member] != nil:
		return g.members[member].assigned
	case g.classic != nil && g.classic.member(member) != nil:
		parts, _, _ := decodeAssignment(g.classic.member(member).Assignment)
		return parts
	}
	return nil
}

// classicAssignments is a leader's SyncGroup assignments: opaque bytes, or
// the partitions of t0 and t1 dealt round-robin as consumer-protocol
// Assignments.
func (w *workload) classicAssignments(group string, members []string) []SyncGroupAssignment {
	out := make([]SyncGroupAssignment, len(members))
	encoded := consumerProtocolGroup(group)
	parts := make([][]TopicPartitions, len(members))
	if encoded && len(members) > 0 {
		i := w.c.intn(len(members))
		for _, t := range []string{"t0", "t1"} {
			for p := range w.h.s.TopicPartitions(t) {
				parts[i%len(members)] = append(parts[i%len(members)], TopicPartitions{Topic: t, Partitions: []int32{p}})
				i++
			}
		}
	}
	for i, m := range members {
		out[i] = SyncGroupAssignment{MemberID: m, Assignment: []byte("a-" + m)}
		if encoded {
			out[i].Assignment = encodeAssignment(normalizePartitions(parts[i]), 3)
		}
	}
	return out
}

// doClassic runs one classic operation.
func (w *workload) doClassic() {
	h := w.h
	group := w.group()
	w.handle++
	switch w.c.intn(4) {
	case 0:
		member := w.classicMember(group)
		req := JoinGroupRequest{GroupID: group, MemberID: member, ClientID: "c", SessionTimeoutMs: 6_000,
			RebalanceTimeoutMs: int32(1+w.c.intn(3)) * 2_000, ProtocolType: "consumer", RequireKnownMemberID: w.c.intn(3) > 0,
			Protocols: []ClassicProtocol{{Name: []string{"range", "sticky"}[w.c.intn(2)], Metadata: w.classicMetadata(group, member, w.pick(wlTopics))}},
			Handle:    w.handle}
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
		req := SyncGroupRequest{GroupID: group, MemberID: member, GenerationID: w.classicGeneration(group, member), Handle: w.handle,
			Assignments: w.classicAssignments(group, w.classicMembers(group))}
		w.note("classic sync %s/%q generation=%d", group, member, req.GenerationID)
		res, err := pure(w, "SyncGroup", func() (Result[SyncGroupResponse], error) { return h.s.SyncGroup(h.nowMs, req) })
		if err == nil {
			applyResult(h, res)
		}
	case 2:
		member := w.classicMember(group)
		req := HeartbeatRequest{GroupID: group, MemberID: member, GenerationID: w.classicGeneration(group, member)}
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
