package shard

import (
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
// expire-group-metadata sweep (kip1331.md §3.5): expire offsets, then
// tombstone empty groups with nothing left; share groups are skipped; with a
// plugin configured, a streams group whose stored description epoch is set
// keeps its group record until the cleanup cycle clears it (§2.4).
//
// Kafka visits every group. This sweep visits only groups that can change:
// those owning an offset whose expirable-at instant has passed (the offsets
// expiry index) and those already empty with nothing left (the deletable
// index). The result is the same; TestSweepMatchesFullScan holds it to that.
func (s *Shard) CleanupGroupMetadata(nowMs int64) Result[SweepResponse] {
	if s.cfg.Mutants.ExpireEarly {
		nowMs += s.cfg.OffsetsRetentionMs / 2
	}
	var candidates []string
	last := ""
	s.offsets.AscendExpirableKeys(nowMs, func(k offsets.Key) bool {
		if k.Group != last {
			candidates = append(candidates, k.Group)
			last = k.Group
		}
		return true
	})
	s.deletable.Ascend(func(id string) bool {
		candidates = append(candidates, id)
		return true
	})
	sortDedup(&candidates)
	return s.sweepGroups(nowMs, candidates)
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

func (s *Shard) sweepGroups(nowMs int64, groupIDs []string) Result[SweepResponse] {
	var res Result[SweepResponse]
	var keys []offsets.Key
	for _, id := range groupIDs {
		g := s.lookup(id)
		if g == nil || g.typ == Share { // Kafka: !group.shouldExpire()
			continue
		}
		res.Response.GroupsVisited++
		var allExpired bool
		keys, allExpired = s.offsets.CleanupExpiredOffsets(id, nowMs, g.isSubscribedToTopic, keys[:0])
		for _, k := range keys {
			res.Records = append(res.Records, &OffsetCommit{Group: k.Group, Topic: k.Topic, Partition: k.Partition, ProducerID: NoProducerID, Tombstone: true})
		}
		if len(keys) > 0 {
			res.Response.OffsetsExpired += len(keys)
			res.Response.ExpiredByGroup = append(res.Response.ExpiredByGroup, GroupCount{id, len(keys)})
		}
		if !allExpired || len(g.members) > 0 {
			continue
		}
		if s.cfg.TopologyPluginConfigured && g.typ == Streams && g.storedEpoch != EpochNone && !s.cfg.Mutants.SkipSweepDeferral {
			res.Response.GroupsDeferred = append(res.Response.GroupsDeferred, id)
			continue
		}
		res.Records = s.appendGroupTombstones(res.Records, g)
		res.Response.GroupsDeleted = append(res.Response.GroupsDeleted, id)
	}
	return res
}

func sortDedup(ids *[]string) {
	x := *ids
	if len(x) < 2 {
		return
	}
	slicesSort(x)
	j := 1
	for i := 1; i < len(x); i++ {
		if x[i] != x[j-1] {
			x[j] = x[i]
			j++
		}
	}
	*ids = x[:j]
}
