package shard

import (
	"slices"
	"strings"
)

// A classic group's state: replay of its two records and the read-only
// questions Kafka's ClassicGroup answers (supportsProtocols,
// selectProtocol, hasAllMembersJoined, ...). The working copy an
// operation edits is a *ClassicGroupState of its own (classicOp), so the
// replayed one is never written.

// classicState is deriveState for a classic group.
func (g *group) classicState() GroupState {
	if g.classic == nil {
		return StateEmpty
	}
	return g.classic.State
}

// notEmpty is Kafka's !group.isEmpty(): a classic group is empty in the
// Empty state only (one waiting out its initial rebalance delay after its
// only member left is PreparingRebalance with no member, and is kept),
// any other group when it has no member.
func (g *group) notEmpty() bool {
	if g.typ == Classic {
		return g.classicState() != StateEmpty
	}
	return len(g.members) > 0
}

// applyClassicGroupState installs a snapshot written by a classic
// operation.
func (s *Shard) applyClassicGroupState(r *ClassicGroupState) error {
	if r.Group == "" {
		return replayErr(r, "empty group id")
	}
	if r.State != StateEmpty && r.State != StatePreparingRebalance && r.State != StateCompletingRebalance &&
		r.State != StateStable && r.State != StateDead {
		return replayErr(r, "state %s is not a classic state", r.State)
	}
	g, err := s.groupForRecord(r, Classic, true)
	if err != nil {
		return err
	}
	g.classic, g.classicLive = r, true
	g.protocolType, g.epoch, g.currentStateTimestampMs = r.ProtocolType, r.Generation, r.CurrentStateTimestampMs
	s.remembered(r.Group)
	s.refresh(r.Group)
	return nil
}

// classicStateFromMetadata is Kafka's replay of GroupMetadataValue: Empty
// without members, Stable with them, each member supporting the group's
// protocol only.
func classicStateFromMetadata(r *GroupMetadata) *ClassicGroupState {
	st := &ClassicGroupState{Group: r.Group, State: StateEmpty, PreviousState: StateEmpty, Generation: r.Generation,
		ProtocolType: r.ProtocolType, ProtocolName: r.Protocol, Leader: r.Leader, CurrentStateTimestampMs: r.CurrentStateTimestampMs}
	for _, m := range r.Members {
		rebalance := m.RebalanceTimeoutMs
		if rebalance == -1 {
			rebalance = m.SessionTimeoutMs
		}
		st.Members = append(st.Members, ClassicMember{MemberID: m.MemberID, InstanceID: m.InstanceID, ClientID: m.ClientID,
			ClientHost: m.ClientHost, RebalanceTimeoutMs: rebalance, SessionTimeoutMs: m.SessionTimeoutMs,
			Protocols: []ClassicProtocol{{Name: r.Protocol, Metadata: m.Subscription}}, Assignment: m.Assignment})
	}
	slices.SortFunc(st.Members, func(a, b ClassicMember) int { return strings.Compare(a.MemberID, b.MemberID) })
	if len(st.Members) > 0 {
		st.State = StateStable
	}
	st.setSubscribedTopics()
	return st
}

// clone copies the snapshot for an operation to edit: the member slice and
// the lists are fresh; byte slices are shared, never written.
func (st *ClassicGroupState) clone() *ClassicGroupState {
	c := *st
	c.Members = slices.Clone(st.Members)
	c.PendingMembers = slices.Clone(st.PendingMembers)
	c.PendingSyncMembers = slices.Clone(st.PendingSyncMembers)
	return &c
}

// member returns the member with id, or nil.
func (st *ClassicGroupState) member(id string) *ClassicMember {
	i, ok := slices.BinarySearchFunc(st.Members, id, func(m ClassicMember, id string) int { return strings.Compare(m.MemberID, id) })
	if !ok {
		return nil
	}
	return &st.Members[i]
}

// staticMemberID is ClassicGroup.staticMemberId: the member id holding
// instanceID, "" for none.
func (st *ClassicGroupState) staticMemberID(instanceID string) string {
	for i := range st.Members {
		if st.Members[i].InstanceID == instanceID {
			return st.Members[i].MemberID
		}
	}
	return ""
}

func (st *ClassicGroupState) isPendingMember(id string) bool {
	_, ok := slices.BinarySearch(st.PendingMembers, id)
	return ok
}

func (st *ClassicGroupState) numAwaitingJoin() int {
	n := 0
	for i := range st.Members {
		if st.Members[i].JoinHandle != 0 {
			n++
		}
	}
	return n
}

// hasAllMembersJoined is ClassicGroup.hasAllMembersJoined.
func (st *ClassicGroupState) hasAllMembersJoined() bool {
	return len(st.Members) == st.numAwaitingJoin() && len(st.PendingMembers) == 0
}

// rebalanceTimeoutMs is ClassicGroup.rebalanceTimeoutMs: the largest of
// the members'.
func (st *ClassicGroupState) rebalanceTimeoutMs() int64 {
	var out int32
	for i := range st.Members {
		out = max(out, st.Members[i].RebalanceTimeoutMs)
	}
	return int64(out)
}

// candidateProtocols are the protocols every member supports, in the first
// member's order of preference.
func (st *ClassicGroupState) candidateProtocols() []string {
	if len(st.Members) == 0 {
		return nil
	}
	var out []string
	for _, p := range st.Members[0].Protocols {
		all := true
		for i := 1; i < len(st.Members) && all; i++ {
			all = supports(&st.Members[i], p.Name)
		}
		if all {
			out = append(out, p.Name)
		}
	}
	return out
}

func supports(m *ClassicMember, name string) bool {
	return slices.ContainsFunc(m.Protocols, func(p ClassicProtocol) bool { return p.Name == name })
}

// supportsProtocols is ClassicGroup.supportsProtocols: an Empty group takes
// any non-empty protocol type and list; otherwise the type must match and
// one of the protocols must be supported by every member.
func (st *ClassicGroupState) supportsProtocols(protocolType string, protocols []ClassicProtocol) bool {
	if st.State == StateEmpty {
		return protocolType != "" && len(protocols) > 0
	}
	if st.ProtocolType != protocolType {
		return false
	}
	for _, p := range protocols {
		all := true
		for i := range st.Members {
			if !supports(&st.Members[i], p.Name) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// selectProtocol is ClassicGroup.selectProtocol: each member votes for its
// most preferred candidate and the one with the most votes wins. Kafka
// breaks a tie by HashMap order; coordsim by the first member's preference
// (candidateProtocols' order), so that the choice is deterministic.
func (st *ClassicGroupState) selectProtocol() string {
	candidates := st.candidateProtocols()
	votes := make([]int, len(candidates))
	for i := range st.Members {
		for _, p := range st.Members[i].Protocols {
			if j := slices.Index(candidates, p.Name); j >= 0 {
				votes[j]++
				break
			}
		}
	}
	best := -1
	for j := range candidates {
		if best < 0 || votes[j] > votes[best] {
			best = j
		}
	}
	if best < 0 {
		return ""
	}
	return candidates[best]
}

// matches is ClassicGroupMember.matches: the same protocols, names and
// metadata, in the same order.
func (m *ClassicMember) matches(protocols []ClassicProtocol) bool {
	return slices.EqualFunc(m.Protocols, protocols, func(a, b ClassicProtocol) bool {
		return a.Name == b.Name && string(a.Metadata) == string(b.Metadata)
	})
}

// currentMembers is ClassicGroup.currentClassicGroupMembers: what the
// leader's JoinGroup response lists.
func (st *ClassicGroupState) currentMembers() []JoinGroupMember {
	out := make([]JoinGroupMember, 0, len(st.Members))
	for i := range st.Members {
		m := &st.Members[i]
		out = append(out, JoinGroupMember{MemberID: m.MemberID, InstanceID: m.InstanceID, Metadata: m.metadata(st.ProtocolName)})
	}
	return out
}

// groupMetadataRecord is GroupCoordinatorRecordHelpers.newGroupMetadataRecord
// over the working state, with each member's assignment.
func (st *ClassicGroupState) groupMetadataRecord() *GroupMetadata {
	r := &GroupMetadata{Group: st.Group, ProtocolType: st.ProtocolType, Generation: st.Generation, Protocol: st.ProtocolName,
		Leader: st.Leader, CurrentStateTimestampMs: st.CurrentStateTimestampMs}
	for i := range st.Members {
		m := &st.Members[i]
		r.Members = append(r.Members, GroupMetadataMember{MemberID: m.MemberID, InstanceID: m.InstanceID, ClientID: m.ClientID,
			ClientHost: m.ClientHost, RebalanceTimeoutMs: m.RebalanceTimeoutMs, SessionTimeoutMs: m.SessionTimeoutMs,
			Subscription: m.metadata(st.ProtocolName), Assignment: m.Assignment})
	}
	return r
}

func insertSorted(list []string, id string) []string {
	i, ok := slices.BinarySearch(list, id)
	if ok {
		return list
	}
	return slices.Insert(list, i, id)
}

func removeSorted(list []string, id string) []string {
	i, ok := slices.BinarySearch(list, id)
	if !ok {
		return list
	}
	return slices.Delete(list, i, i+1)
}
