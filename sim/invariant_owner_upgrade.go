package sim

import (
	"fmt"

	"github.com/coordsim/coordsim/shard"
)

// The online upgrade's Kafka hole (issue 24). Kafka 4.4 empties every
// classic member's assignment when a rebalance starts while the group is
// CompletingRebalance, or when the leader's SyncGroup write fails
// (resetAndPropagateAssignmentWithError). A cooperative client keeps
// consuming what its last SyncGroup gave it; the classic protocol stays
// safe because the leader's assignor reads the owned partitions of every
// JoinGroup. But ConsumerGroup.fromClassicGroup reads only the assignment
// ("the assigned partition can be empty if the member just joined and has
// never synced"), so an upgrade in that window converts those members
// owning nothing, and the consumer group hands their partitions to another
// member at once, while the classic clients still hold them, until each
// rejoins and syncs (and revokes). coordsim reproduces it
// (coordinator/coordtest/testdata/online_migration.txt, group h); the
// one-owner check counts such a take as the Kafka hole (mark
// upgrade-reset-hole and a trace line) instead of a violation.
//
// The excuse is exact: only a take from a member the committed consumer
// group converted with an empty classic assignment, until that client
// next completes an assignment or loses its partitions. A coordsim upgrade
// that drops an assignment the classic group had (the mutant
// UpgradeDropsAssignment) is still a violation.

// noteUpgrade looks at a write for an online upgrade (a classic group's
// GroupMetadata tombstone written with its consumer group): the classic
// members of the latest state the upgrade ran on whose assignment is
// empty are the ones it converts owning nothing. A later upgrade of the
// group replaces them; an upgrade whose append fails leaves them, and the
// excuse then asks the committed state whether the group is a consumer
// group.
func (c *checker) noteUpgrade(latest *shard.Shard, records []shard.Record) {
	for _, r := range records {
		gm, ok := r.(*shard.GroupMetadata)
		if !ok || !gm.Tombstone || !writesConsumerGroup(records, gm.Group) {
			continue
		}
		d, ok := latest.DescribeGroup(gm.Group)
		if !ok || d.Classic == nil {
			continue
		}
		forgot := map[string]bool{}
		for _, cm := range d.Classic.Members {
			if len(cm.Assignment) == 0 {
				forgot[cm.MemberID] = true
			}
		}
		c.upgradeForgot[gm.Group] = forgot
	}
}

// writesConsumerGroup reports whether records write group's consumer
// group metadata (not a tombstone).
func writesConsumerGroup(records []shard.Record, group string) bool {
	for _, r := range records {
		if cm, ok := r.(*shard.ConsumerGroupMetadata); ok && cm.Group == group && !cm.Tombstone {
			return true
		}
	}
	return false
}

// forgetUpgradeHole ends a member's excuse: its client completed an
// assignment the coordinator knows of (revoking what it lacks), or lost
// everything.
func (c *checker) forgetUpgradeHole(m *simMember) {
	delete(c.upgradeForgot[m.g.id], m.id)
}

// upgradeHoleExplains reports whether m's take of topic-p, which o still
// holds, is the upgrade's Kafka hole, and counts it.
func (c *checker) upgradeHoleExplains(m, o *simMember, topic string, p int32) bool {
	if !c.upgradeForgot[m.g.id][o.id] || !c.w.committedConsumerGroup(m.g.id) {
		return false
	}
	w := c.w
	w.mark("upgrade-reset-hole")
	w.tr(traceEvent{kind: tMark, broker: -1, group: m.g.id, member: m.id,
		detail: fmt.Sprintf("Kafka hole: took %s-%d, which %s still holds: the online upgrade converted it with the assignment Kafka's reset had emptied", topic, p, o.id)})
	return true
}

// committedConsumerGroup reports whether the committed state of the
// group's coordinator holds it as a consumer group; while the group's
// shard moves it is assumed to.
func (w *world) committedConsumerGroup(groupID string) bool {
	consumer := false
	if !w.readCommitted(groupID, func(s *shard.Shard) {
		typ, ok := s.GroupType(groupID)
		consumer = ok && typ == shard.Consumer
	}) {
		return true
	}
	return consumer
}
