package shard

import "slices"

// What a load keeps of a classic group. Kafka keeps a classic rebalance in
// memory and writes GroupMetadata only when one completes (or the group
// empties), so a coordinator that loads the partition rebuilds each classic
// group from its last GroupMetadata record alone: Stable with the recorded
// members, each supporting the group's protocol only, or Empty. Members
// still joining, KIP-394 pending members, parked JoinGroup and SyncGroup
// requests and a rebalance in progress are gone, and a group that only ever
// lived in memory does not exist (one an offset commit made is the empty
// simple group). coordsim writes every classic change as its own
// ClassicGroupState record, so replay keeps all of it; OnLoaded then
// forgets, group by group, what Kafka's load never had
// (forgetClassicRebalances).
//
// The groups a load changed stay listed (ForgottenAtLoad) until a record
// rewrites them. A check that compares the shard with its log replayed
// forgets the same groups in its replay first (ForgetAsLoaded): those are
// the only places where the served state is not the log's replay.

// setFromMetadata installs what a GroupMetadata record gives: Kafka's
// ClassicGroup.fromRecord.
func (g *group) setFromMetadata(r *GroupMetadata) {
	g.protocolType, g.epoch, g.currentStateTimestampMs = r.ProtocolType, r.Generation, r.CurrentStateTimestampMs
	g.classic, g.classicLive = nil, false
	if len(r.Members) > 0 || r.ProtocolType != "" {
		g.classic = classicStateFromMetadata(r)
	}
}

// forgetClassicRebalances is the load's side of the rule above, over every
// classic group of the shard.
func (s *Shard) forgetClassicRebalances() {
	var ids []string
	s.groups.Ascend(func(g *group) bool {
		if g.typ == Classic && g.classicLive {
			ids = append(ids, g.id)
		}
		return true
	})
	s.ForgetAsLoaded(ids)
}

// ForgetAsLoaded forgets the in-memory state of the named classic groups as
// a load does: each is rebuilt from its last GroupMetadata record, made the
// empty simple group an offset commit left, or removed. A group already in
// its loaded form, or not classic, is left alone. The groups changed join
// ForgottenAtLoad. Checks call it on a replay of the log with a served
// shard's ForgottenAtLoad.
func (s *Shard) ForgetAsLoaded(ids []string) {
	for _, id := range ids {
		g := s.lookup(id)
		if g == nil || g.typ != Classic || !g.classicLive {
			continue
		}
		s.forgotten = insertSorted(slices.Clone(s.forgotten), id) // clones share the list
		switch {
		case g.lastMetadata != nil:
			s.mutableGroup(id).setFromMetadata(g.lastMetadata)
		case g.persisted:
			// The empty simple group an offset commit's replay creates.
			s.mutableGroup(id).setFromMetadata(&GroupMetadata{Group: id})
		default:
			s.removeGroup(id)
			continue
		}
		s.refresh(id)
	}
}

// ForgottenAtLoad lists, sorted, the classic groups the shard's load changed
// and no record has rewritten since (see ForgetAsLoaded). Read it, never
// modify it.
func (s *Shard) ForgottenAtLoad() []string { return s.forgotten }

// remembered takes a group off ForgottenAtLoad: a record rewrote it.
func (s *Shard) remembered(id string) {
	if _, ok := slices.BinarySearch(s.forgotten, id); ok {
		s.forgotten = removeSorted(slices.Clone(s.forgotten), id)
	}
}
