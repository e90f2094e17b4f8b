package shard

import (
	"slices"
	"strings"

	"github.com/coordsim/coordsim/offsets"
)

// SweepResponse reports what one sweep did.
type SweepResponse struct {
	// OffsetsExpired counts offset tombstones; ExpiredByGroup is the same per
	// group, in group order (Kafka records the OffsetExpired sensor per group).
	OffsetsExpired int
	ExpiredByGroup []GroupCount
	// GroupsDeleted lists the groups tombstoned, in order.
	GroupsDeleted []string
	// GroupsDeferred lists streams groups whose tombstone waits for the
	// KIP-1331 cleanup cycle (plugin configured, stored epoch set).
	GroupsDeferred []string
	// GroupsVisited is how many groups the sweep examined.
	GroupsVisited int
}

// GroupCount is a group id and a number.
type GroupCount struct {
	GroupID string
	Count   int
}

// CleanupGroupMetadata is Kafka's cleanupGroupMetadata, the per-shard
// expire-group-metadata sweep (docs/kip1331.md §3.5): expire offsets, then
// tombstone empty groups with nothing left; share groups are skipped; with a
// plugin configured, a streams group whose stored description epoch is set
// keeps its group record until the cleanup cycle clears it (§2.4).
//
// Kafka visits every group and every offset. This sweep costs O(what
// expires): it takes the expired offsets straight from the expiry index,
// grouped by group, keeps those whose topic is not subscribed and that have
// no pending transactional offset, and decides "nothing left" by comparing
// their number with the group's offset count. It also visits the groups
// already empty with nothing left (the deletable index). The result is the
// same as the full scan's; the property tests hold it to that.
func (s *Shard) CleanupGroupMetadata(nowMs int64) Result[SweepResponse] {
	if s.cfg.Mutants.ExpireEarly {
		nowMs += s.cfg.OffsetsRetentionMs / 2
	}
	// All expired keys, then sorted by (group, topic, partition): each
	// group's keys form one run, in Kafka's tombstone order.
	var expired []offsets.Key
	s.offsets.AscendExpirableKeys(nowMs, func(k offsets.Key) bool {
		expired = append(expired, k)
		return true
	})
	expired = s.mutateExpired(nowMs, expired)
	slices.SortFunc(expired, compareKeys)
	var candidates []string
	for i, k := range expired {
		if i == 0 || expired[i-1].Group != k.Group {
			candidates = append(candidates, k.Group)
		}
	}
	s.deletable.Ascend(func(id string) bool {
		candidates = append(candidates, id)
		return true
	})
	// An Empty classic group's offsets expire together, counted from its
	// state timestamp: the commit-time index cannot list them.
	s.emptyClassic.Ascend(func(id string) bool {
		if base, ok := s.lookup(id).offsetExpiryBase(); ok && offsets.RetentionPassed(base, nowMs, s.cfg.OffsetsRetentionMs) {
			candidates = append(candidates, id)
		}
		return true
	})
	sortDedup(&candidates)
	next := 0 // start of the current group's run in expired
	res := s.sweepWith(nowMs, candidates, func(g *group, out []offsets.Key) ([]offsets.Key, bool) {
		for next < len(expired) && expired[next].Group < g.id {
			next++
		}
		if base, ok := g.offsetExpiryBase(); ok {
			for next < len(expired) && expired[next].Group == g.id {
				next++ // decided from the state timestamp instead
			}
			return s.offsets.CleanupExpiredOffsetsFrom(g.id, nowMs, base, g.keepsOffsetsOf, out)
		}
		openTxn := s.offsets.HasOpenTransaction(g.id) // only then can a partition be pending
		for ; next < len(expired) && expired[next].Group == g.id; next++ {
			k := expired[next]
			if (!g.keepsOffsetsOf(k.Topic) || s.cfg.Mutants.ExpireSubscribed) && (!openTxn || !s.offsets.HasPending(k) || s.cfg.Mutants.ExpirePendingTxnOffsets) {
				out = append(out, k)
			}
		}
		allExpired := len(out) == s.offsets.GroupOffsetCount(g.id) && (!openTxn || s.cfg.Mutants.NoOffsetsLeftIgnoresTxn)
		return out, allExpired
	})
	return res
}

func compareKeys(a, b offsets.Key) int {
	if c := strings.Compare(a.Group, b.Group); c != 0 {
		return c
	}
	if c := strings.Compare(a.Topic, b.Topic); c != 0 {
		return c
	}
	return int(a.Partition) - int(b.Partition)
}

// cleanupGroupMetadataFullScan is Kafka's algorithm as written: every group,
// every offset. Tests and benchmarks compare it with CleanupGroupMetadata.
func (s *Shard) cleanupGroupMetadataFullScan(nowMs int64) Result[SweepResponse] {
	var all []string
	s.groups.Ascend(func(g *group) bool {
		all = append(all, g.id)
		return true
	})
	return s.sweepGroups(nowMs, all)
}

// sweepGroups runs Kafka's sweep over groupIDs, walking each group's offsets
// with cleanupExpiredOffsets.
func (s *Shard) sweepGroups(nowMs int64, groupIDs []string) Result[SweepResponse] {
	return s.sweepWith(nowMs, groupIDs, func(g *group, out []offsets.Key) ([]offsets.Key, bool) {
		base, ok := g.offsetExpiryBase()
		if !ok {
			base = offsets.NoBase
		}
		return s.offsets.CleanupExpiredOffsetsFrom(g.id, nowMs, base, g.keepsOffsetsOf, out)
	})
}

// sweepWith runs the sweep over groupIDs; expire returns a group's offset
// tombstones and whether nothing would be left (Kafka's cleanupExpiredOffsets).
func (s *Shard) sweepWith(nowMs int64, groupIDs []string, expire func(g *group, out []offsets.Key) ([]offsets.Key, bool)) Result[SweepResponse] {
	var res Result[SweepResponse]
	var keys []offsets.Key
	var slab []OffsetCommit
	for _, id := range groupIDs {
		g := s.lookup(id)
		if g == nil || !groupKinds[g.typ].shouldExpire() {
			continue
		}
		res.Response.GroupsVisited++
		var allExpired bool
		keys, allExpired = expire(g, keys[:0])
		for _, k := range keys {
			if len(slab) == cap(slab) {
				slab = make([]OffsetCommit, 0, max(2*cap(slab), 16)) // one allocation for many tombstones
			}
			slab = append(slab, OffsetCommit{Group: k.Group, Topic: k.Topic, Partition: k.Partition, ProducerID: NoProducerID, Tombstone: true})
			res.Records = append(res.Records, &slab[len(slab)-1])
		}
		if len(keys) > 0 {
			res.Response.OffsetsExpired += len(keys)
			res.Response.ExpiredByGroup = append(res.Response.ExpiredByGroup, GroupCount{id, len(keys)})
		}
		if !allExpired || g.notEmpty() {
			continue
		}
		if s.cfg.TopologyPluginConfigured && groupKinds[g.typ].keepsDescriptionEpochs() && g.storedEpoch != EpochNone && !s.cfg.Mutants.SkipSweepDeferral {
			res.Response.GroupsDeferred = append(res.Response.GroupsDeferred, id)
			continue
		}
		res.Records = s.appendGroupTombstones(res.Records, g)
		res.Timers = appendGroupTimerCancels(res.Timers, g)
		res.Response.GroupsDeleted = append(res.Response.GroupsDeleted, id)
	}
	return res
}

func sortDedup(ids *[]string) {
	slices.Sort(*ids)
	*ids = slices.Compact(*ids)
}
