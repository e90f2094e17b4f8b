package shard

import "github.com/coordsim/coordsim/offsets"

// The code paths of the planted bugs (package mutant) that need more than a
// changed condition. Nothing runs here unless a test sets a mutant.

// mutateExpired applies the expiry mutants (package mutant) to the sweep's
// expired keys; without one it returns them unchanged.
func (s *Shard) mutateExpired(nowMs int64, expired []offsets.Key) []offsets.Key {
	m := s.cfg.Mutants
	if !m.ExpireStrictlyAfter && !m.IgnoreLegacyExpireTimestamp {
		return expired
	}
	kept := expired[:0]
	for _, k := range expired {
		v, _ := s.offsets.Get(k)
		at := offsets.ExpirableAtMs(v, s.cfg.OffsetsRetentionMs)
		if m.IgnoreLegacyExpireTimestamp && v.ExpireTimestampMs >= 0 {
			v.ExpireTimestampMs = offsets.NoExpireTimestamp
			at = offsets.ExpirableAtMs(v, s.cfg.OffsetsRetentionMs)
		}
		if at > nowMs || (m.ExpireStrictlyAfter && at == nowMs) {
			continue
		}
		kept = append(kept, k)
	}
	return kept
}

// removeAllMembers is DeleteNonEmptyGroups' extra records: the members'
// removals, so that the group tombstones that follow replay.
func (s *Shard) removeAllMembers(records []Record, id string) []Record {
	g := s.lookup(id)
	if g == nil || len(g.members) == 0 {
		return records
	}
	v := s.newView(g, g.typ, id)
	for len(v.members) > 0 {
		v.removeMember(0)
	}
	return append(records, v.records...)
}

// mutateRebalanceTimer applies mutant.RebalanceTimerTooLate to a rebalance
// timer just armed: ten times its timeout instead of one.
func (s *Shard) mutateRebalanceTimer(nowMs int64, op TimerOp) TimerOp {
	if s.cfg.Mutants.RebalanceTimerTooLate && !op.Cancel {
		op.DeadlineMs = nowMs + 10*(op.DeadlineMs-nowMs)
	}
	return op
}

// mutateUpgradedMember applies mutant.UpgradeDropsAssignment to the i-th
// classic member an online upgrade converts: the first one's assignment
// is dropped, so the consumer group thinks its partitions free while the
// client still holds them.
func (s *Shard) mutateUpgradedMember(i int, m *member) {
	if s.cfg.Mutants.UpgradeDropsAssignment && i == 0 {
		m.assigned, m.target = nil, nil
	}
}

// mutateMarker applies mutant.ReplayCommitsAbortedTxn to a replayed end
// transaction marker: an abort commits.
func (s *Shard) mutateMarker(commit bool) bool {
	return commit || s.cfg.Mutants.ReplayCommitsAbortedTxn
}
