package shard

import (
	"github.com/coordsim/coordsim/kerr"
)

// KIP-1331 shard operations: the reads the cleanup cycle, DeleteGroups and
// the push path make, and the conditional writes of the stored and failed
// description epochs. The values are -1 (nothing stored), -2 (uncertain:
// protocol v2 only, PR #22777) and an epoch >= 0 (stored at that epoch).

// GroupEpoch is a group id and a stored description epoch.
type GroupEpoch struct {
	GroupID string
	Epoch   int32
}

// ListStreamsGroupsNeedingTopologyCleanup is Kafka's
// listStreamsGroupsNeedingTopologyCleanup (docs/kip1331.md §2.4): every streams
// group that is empty, has a stored description epoch (not -1), and has no
// offsets and no open transaction left, with the observed stored epoch, in
// group id order. It reads the eligibility index, so it costs O(eligible)
// rather than O(groups); Kafka scans every group.
func (s *Shard) ListStreamsGroupsNeedingTopologyCleanup() []GroupEpoch {
	var out []GroupEpoch
	s.eligible.Ascend(func(id string) bool {
		g := s.lookup(id)
		out = append(out, GroupEpoch{GroupID: id, Epoch: g.storedEpoch})
		return true
	})
	if s.cfg.Mutants.ListNonEmptyForCleanup {
		s.groups.Ascend(func(g *group) bool {
			if groupKinds[g.typ].keepsDescriptionEpochs() && len(g.members) > 0 && g.storedEpoch >= 0 {
				out = append(out, GroupEpoch{GroupID: g.id, Epoch: g.storedEpoch})
			}
			return true
		})
	}
	return out
}

// listStreamsGroupsNeedingTopologyCleanupFullScan is Kafka's algorithm: every
// group, filtered. Tests and the benchmark compare it with the indexed one.
func (s *Shard) listStreamsGroupsNeedingTopologyCleanupFullScan() []GroupEpoch {
	var out []GroupEpoch
	s.groups.Ascend(func(g *group) bool {
		if s.eligibleForCleanup(g) {
			out = append(out, GroupEpoch{GroupID: g.id, Epoch: g.storedEpoch})
		}
		return true
	})
	return out
}

func (s *Shard) eligibleForCleanup(g *group) bool {
	return g != nil && groupKinds[g.typ].keepsDescriptionEpochs() && len(g.members) == 0 && g.storedEpoch != EpochNone &&
		s.offsets.GroupHasNoOffsets(g.id)
}

// streamsMetadataWith returns the group's StreamsGroupMetadata record with
// the description epochs replaced: everything else is kept, as Kafka's
// conditional clear does.
func streamsMetadataWith(g *group, stored, failed int32) *StreamsGroupMetadata {
	return &StreamsGroupMetadata{
		Group: g.id, Epoch: g.epoch, MetadataHash: g.metadataHash, ValidatedTopologyEpoch: g.validatedTopologyEpoch,
		StoredDescriptionTopologyEpoch: stored, FailedDescriptionTopologyEpoch: failed,
		LastNumStandbyReplicas: g.lastNumStandbyReplicas,
	}
}

func (s *Shard) streamsGroup(id string) *group {
	g := s.lookup(id)
	if g == nil || g.typ != Streams {
		return nil
	}
	return g
}

// ClearStoredDescriptionTopologyEpochBatch is the v1 cycle's conditional
// clear (PR #22676's batch form): for each group still a streams group whose
// stored epoch equals the observed one, one metadata record with stored = -1.
// A missing group or a mismatch writes nothing, silently. The response lists
// the groups cleared.
func (s *Shard) ClearStoredDescriptionTopologyEpochBatch(observed []GroupEpoch) Result[[]string] {
	var res Result[[]string]
	for _, ge := range observed {
		g := s.streamsGroup(ge.GroupID)
		if g == nil || (g.storedEpoch != ge.Epoch && !s.cfg.Mutants.V1ClearIgnoresEpoch) || ge.Epoch == EpochNone || g.storedEpoch == EpochNone {
			continue
		}
		res.Records = append(res.Records, streamsMetadataWith(g, EpochNone, g.failedEpoch))
		res.Response = append(res.Response, g.id)
	}
	if s.cfg.Mutants.ClearUnobservedGroups && len(res.Records) > 0 {
		s.groups.Ascend(func(g *group) bool {
			if groupKinds[g.typ].keepsDescriptionEpochs() && g.storedEpoch >= 0 && !containsGroupID(observed, g.id) {
				res.Records = append(res.Records, streamsMetadataWith(g, EpochNone, g.failedEpoch))
			}
			return true
		})
	}
	return res
}

func containsGroupID(ges []GroupEpoch, id string) bool {
	for _, ge := range ges {
		if ge.GroupID == id {
			return true
		}
	}
	return false
}

// MarkStoredDescriptionTopologyEpochUncertainBatch is the v2 cycle's first
// write (PR #22777): it re-checks each group against the latest state and,
// for those still eligible with the observed stored epoch, commits stored =
// -2 before any plugin call. The response is the subset marked, which alone
// may be deleted.
func (s *Shard) MarkStoredDescriptionTopologyEpochUncertainBatch(observed []GroupEpoch) Result[[]GroupEpoch] {
	return s.markUncertain(observed, true)
}

// MarkStoredDescriptionTopologyEpochUncertainForDelete is the v2 DeleteGroups
// mark: like the cycle's, but offsets may remain (DeleteGroups removes them).
// Only groups still empty with the observed stored epoch are marked.
func (s *Shard) MarkStoredDescriptionTopologyEpochUncertainForDelete(observed []GroupEpoch) Result[[]GroupEpoch] {
	return s.markUncertain(observed, false)
}

func (s *Shard) markUncertain(observed []GroupEpoch, requireEligible bool) Result[[]GroupEpoch] {
	var res Result[[]GroupEpoch]
	for _, ge := range observed {
		g := s.streamsGroup(ge.GroupID)
		if g == nil || len(g.members) > 0 || g.storedEpoch != ge.Epoch || ge.Epoch == EpochNone {
			continue
		}
		if requireEligible && !s.eligibleForCleanup(g) {
			continue
		}
		if g.storedEpoch != EpochUncertain {
			res.Records = append(res.Records, streamsMetadataWith(g, EpochUncertain, g.failedEpoch))
		}
		res.Response = append(res.Response, ge)
	}
	return res
}

// FinalizeStoredDescriptionTopologyEpochAfterDeleteBatch is the v2 cycle's
// last write: a group still at -2 had its row deleted and goes to -1; a group
// whose stored epoch advanced (a push landed during the delete) goes back to
// -2, so its next heartbeat is solicited again and the row is rewritten.
func (s *Shard) FinalizeStoredDescriptionTopologyEpochAfterDeleteBatch(groupIDs []string) Result[[]GroupEpoch] {
	var res Result[[]GroupEpoch]
	for _, id := range groupIDs {
		g := s.streamsGroup(id)
		if g == nil {
			continue
		}
		switch {
		case g.storedEpoch == EpochUncertain && s.cfg.Mutants.FinalizeNeverClears:
		case g.storedEpoch >= 0 && s.cfg.Mutants.FinalizeKeepsAdvanced:
		case g.storedEpoch == EpochUncertain:
			res.Records = append(res.Records, streamsMetadataWith(g, EpochNone, g.failedEpoch))
			res.Response = append(res.Response, GroupEpoch{id, EpochNone})
		case g.storedEpoch >= 0:
			res.Records = append(res.Records, streamsMetadataWith(g, EpochUncertain, g.failedEpoch))
			res.Response = append(res.Response, GroupEpoch{id, EpochUncertain})
		}
	}
	return res
}

// ReSolicitStoredDescriptionTopologyEpochAfterFailedDeleteBatch is the v2
// answer to a deleteTopology whose outcome is unknown (it failed, perhaps
// after the store applied it): a group whose stored epoch advanced meanwhile
// (a push landed during the delete) goes back to -2, so its next heartbeat
// is solicited and the row is rewritten; -2 stays -2 (eligible again next
// cycle) and -1 stays -1. The response lists the groups sent back to -2.
func (s *Shard) ReSolicitStoredDescriptionTopologyEpochAfterFailedDeleteBatch(groupIDs []string) Result[[]GroupEpoch] {
	var res Result[[]GroupEpoch]
	for _, id := range groupIDs {
		g := s.streamsGroup(id)
		if g == nil || g.storedEpoch < 0 {
			continue
		}
		res.Records = append(res.Records, streamsMetadataWith(g, EpochUncertain, g.failedEpoch))
		res.Response = append(res.Response, GroupEpoch{id, EpochUncertain})
	}
	return res
}

// MarkStoredDescriptionTopologyEpochUncertain is the v2 push path's first
// write: before a setTopology that could leave a row behind, a group with
// nothing stored (-1) is marked -2 so a failed or lost set is still cleaned
// up. Any other value is left alone.
func (s *Shard) MarkStoredDescriptionTopologyEpochUncertain(groupID string) (Result[struct{}], error) {
	var res Result[struct{}]
	g := s.streamsGroup(groupID)
	if g == nil {
		return res, kerr.GroupIDNotFound.WithMessage("Streams group %s not found.", groupID)
	}
	if g.storedEpoch == EpochNone && !s.cfg.Mutants.V2PushSkipsMark {
		res.Records = []Record{streamsMetadataWith(g, EpochUncertain, g.failedEpoch)}
	}
	return res, nil
}

// storedRank orders stored epochs for the forward-only rule: -2 and -1 are
// below every real epoch.
func storedRank(e int32) int64 {
	if e < 0 {
		return -1
	}
	return int64(e)
}

// SetStoredDescriptionTopologyEpoch records a successful setTopology at
// epoch. The stored epoch only moves forward (PR #22616): a slow push that
// lands after a newer one changes nothing.
func (s *Shard) SetStoredDescriptionTopologyEpoch(groupID string, epoch int32) (Result[struct{}], error) {
	var res Result[struct{}]
	if epoch < 0 {
		return res, kerr.InvalidRequest.WithMessage("stored description epoch %d is negative", epoch)
	}
	g := s.streamsGroup(groupID)
	if g == nil {
		return res, kerr.GroupIDNotFound.WithMessage("Streams group %s not found.", groupID)
	}
	if storedRank(epoch) > storedRank(g.storedEpoch) {
		res.Records = []Record{streamsMetadataWith(g, epoch, g.failedEpoch)}
	}
	return res, nil
}

// SetFailedDescriptionTopologyEpoch records a permanent setTopology failure
// at epoch; it only moves forward.
func (s *Shard) SetFailedDescriptionTopologyEpoch(groupID string, epoch int32) (Result[struct{}], error) {
	var res Result[struct{}]
	if epoch < 0 {
		return res, kerr.InvalidRequest.WithMessage("failed description epoch %d is negative", epoch)
	}
	g := s.streamsGroup(groupID)
	if g == nil {
		return res, kerr.GroupIDNotFound.WithMessage("Streams group %s not found.", groupID)
	}
	if epoch > g.failedEpoch {
		res.Records = []Record{streamsMetadataWith(g, g.storedEpoch, epoch)}
	}
	return res, nil
}

// StreamsGroupsWithStoredTopologyDescription is DeleteGroups' pre-delete read
// (docs/kip1331.md §2.7): of the listed ids, the streams groups that are empty
// (so the delete can proceed) and whose stored epoch is not -1.
func (s *Shard) StreamsGroupsWithStoredTopologyDescription(groupIDs []string) []GroupEpoch {
	var out []GroupEpoch
	for _, id := range groupIDs {
		g := s.streamsGroup(id)
		if g == nil || len(g.members) > 0 || g.storedEpoch == EpochNone {
			continue
		}
		out = append(out, GroupEpoch{id, g.storedEpoch})
	}
	return out
}

// TopologyDescriptionUpdateTarget is what the push path needs to know about a
// group, read from committed state.
type TopologyDescriptionUpdateTarget struct {
	CurrentTopologyEpoch           int32
	StoredDescriptionTopologyEpoch int32
	FailedDescriptionTopologyEpoch int32
}

// ValidateTopologyDescriptionUpdate checks a StreamsGroupTopologyDescriptionUpdate
// against the group (docs/kip1331.md §1.4): unknown group GROUP_ID_NOT_FOUND,
// unknown member UNKNOWN_MEMBER_ID, an epoch other than the group's current
// topology epoch INVALID_REQUEST.
func (s *Shard) ValidateTopologyDescriptionUpdate(groupID, memberID string, topologyEpoch int32) (TopologyDescriptionUpdateTarget, error) {
	var t TopologyDescriptionUpdateTarget
	g := s.lookup(groupID)
	if g == nil {
		return t, kerr.GroupIDNotFound.WithMessage("Streams group %s not found.", groupID)
	}
	if g.typ != Streams {
		return t, notTypeErr(groupID, Streams)
	}
	if g.members[memberID] == nil {
		return t, memberUnknown(memberID, groupID) // StreamsGroup.getMemberOrThrow
	}
	if g.topology == nil || g.topology.Epoch != topologyEpoch {
		current := int32(-1)
		if g.topology != nil {
			current = g.topology.Epoch
		}
		return t, kerr.InvalidRequest.WithMessage("topology epoch %d is not the group's current epoch %d", topologyEpoch, current)
	}
	return TopologyDescriptionUpdateTarget{g.topology.Epoch, g.storedEpoch, g.failedEpoch}, nil
}

// StreamsTopologyState is what describe needs: the group's current topology
// epoch (-1 without a topology) and its stored description epoch.
func (s *Shard) StreamsTopologyState(groupID string) (current, stored int32, ok bool) {
	g := s.streamsGroup(groupID)
	if g == nil {
		return 0, 0, false
	}
	current = -1
	if g.topology != nil {
		current = g.topology.Epoch
	}
	return current, g.storedEpoch, true
}
