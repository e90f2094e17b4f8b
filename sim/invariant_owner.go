package sim

import (
	"fmt"

	"github.com/coordsim/coordsim/shard"
	"github.com/coordsim/coordsim/sim/invariants"
)

// InvOneOwner is KIP-848's and KIP-1071's core guarantee, checked on the
// clients: no partition is ever held by two members of one consumer group,
// and no active task by two members of one streams group. A client holds a
// partition (task) from the response that gives it until it has revoked it
// (consumer_actor.go); a crashed client holds nothing, and a client the
// coordinator has already fenced (a zombie that has not heard yet) is not
// counted, since Kafka's guarantee is about members. Standby and warm-up
// tasks may have several holders and are not checked. One take is Kafka's
// own hole and counted as such, not as a violation: from a classic member
// an online upgrade converted with the assignment Kafka's reset had
// emptied (invariant_owner_upgrade.go).
const InvOneOwner = invariants.OneOwner

// checkOneOwner runs when member m takes partitions: a client's holdings
// only grow there, so checking each take checks the invariant after every
// event.
func (w *world) checkOneOwner(m *simMember, added []shard.TopicPartitions) {
	if len(added) == 0 {
		return
	}
	for _, o := range m.g.members {
		if o == m || o.gone || !w.isMember(m.g.id, o.id) {
			continue
		}
		for _, tp := range added {
			for _, p := range tp.Partitions {
				if holds(o.assigned, tp.Topic, p) {
					if w.check.upgradeHoleExplains(m, o, tp.Topic, p) {
						continue // Kafka's own (invariant_owner_upgrade.go)
					}
					w.violate(InvOneOwner, fmt.Sprintf("group %s: %s took %s-%d, which %s still holds",
						m.g.id, m.id, tp.Topic, p, o.id))
					return
				}
			}
		}
	}
}

// isMember reports whether the group's coordinator (its committed state)
// still has the member, as a member of a consumer or streams group or of
// a classic group; while the group's shard moves it is assumed to.
func (w *world) isMember(groupID, memberID string) bool {
	member := true
	w.readCommitted(groupID, func(s *shard.Shard) {
		member = s.HasMember(groupID, memberID) || isClassicMember(s, groupID, memberID)
	})
	return member
}

func isClassicMember(s *shard.Shard, groupID, memberID string) bool {
	d, ok := s.DescribeGroup(groupID)
	if !ok || d.Classic == nil {
		return false
	}
	for _, cm := range d.Classic.Members {
		if cm.MemberID == memberID {
			return true
		}
	}
	return false
}
