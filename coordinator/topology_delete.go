package coordinator

import (
	"errors"
	"maps"
	"slices"

	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/plugin"
	"github.com/coordsim/coordsim/shard"
)

// DeleteGroups deletes groups across their shards, one "delete-groups" write
// per shard, answering in request order.
//
// With a topology plugin configured (docs/kip1331.md §2.7) a pre-delete read
// finds the empty streams groups whose stored description epoch is set; their
// rows are deleted first (v2 marks them -2 before), each attempted group's
// back-off is cleared, and a group whose delete failed answers
// GROUP_DELETION_FAILED with Kafka's fixed message and is not tombstoned. A
// failed pre-delete read holds back every group of its shard with the read's
// error. Under v2, a group whose row was deleted but that then survived the
// tombstone write (a member joined meanwhile) is finalized like the cycle's.
func (c *Coordinator) DeleteGroups(groupIDs []string) *Future[[]shard.DeleteGroupResult] {
	if !c.active {
		return completed[[]shard.DeleteGroupResult](nil, kerr.CoordinatorNotAvailable.WithMessage("the coordinator is not active"))
	}
	results := make([]shard.DeleteGroupResult, len(groupIDs))
	byPartition := map[int32][]int{}
	for i, id := range groupIDs {
		results[i].GroupID = id
		// "" is a group id here (GroupCoordinatorService.deleteGroups
		// refuses only null).
		if err := shard.ValidateGroupIDOrEmpty(id); err != nil {
			results[i].Err = err
			continue
		}
		p := c.PartitionFor(id)
		byPartition[p] = append(byPartition[p], i)
	}
	f := &Future[[]shard.DeleteGroupResult]{}
	end := func() {}
	finish := func() { end(); f.complete(results, nil) }
	if !c.topology.configured() {
		c.deleteGroupsWrite(groupIDs, results, byPartition, nil, finish)
		return f
	}
	// The pre-delete read, per shard, on committed state; under v3 each
	// group's delete carries the load epoch that read saw.
	withStored := map[int32][]shard.GroupEpoch{}
	tokens := map[string]int32{}
	for _, p := range slices.Sorted(maps.Keys(byPartition)) {
		idx := byPartition[p]
		ids := make([]string, len(idx))
		for j, i := range idx {
			ids[j] = groupIDs[i]
		}
		found, err := read(c, p, func(s *shard.Shard) ([]shard.GroupEpoch, error) {
			return s.StreamsGroupsWithStoredTopologyDescription(ids), nil
		})
		if err != nil {
			for _, i := range idx {
				results[i].Err = err
			}
			delete(byPartition, p)
			continue
		}
		if len(found) > 0 {
			withStored[p] = found
		}
		for _, ge := range found {
			tokens[ge.GroupID] = c.fencingToken(p)
		}
	}
	// v3: no push of these groups overlaps their deletes (deleteGuard).
	var guarded []string
	for _, p := range slices.Sorted(maps.Keys(withStored)) {
		guarded = append(guarded, idsOf(withStored[p])...)
	}
	end = c.beginDeleteEpisode(guarded)
	afterDelete := func(deleted, attempted map[string]bool, rowsDeleted map[string]int32) {
		c.deleteGroupsWrite(groupIDs, results, byPartition, rowsDeleted, func() {
			if c.topology.protocol.MarksBeforeDelete() {
				c.finalizeSurvivors(results, deleted, attempted, tokens, finish)
				return
			}
			finish()
		})
	}
	c.markForDelete(withStored, func(toDelete []shard.GroupEpoch, markErrs map[string]error) {
		// A group whose mark could not be written is held back with that
		// error: tombstoning it without deleting its row would leak the row.
		for p, idx := range byPartition {
			kept := idx[:0]
			for _, i := range idx {
				if err, failed := markErrs[groupIDs[i]]; failed {
					results[i].Err = err
					continue
				}
				kept = append(kept, i)
			}
			byPartition[p] = kept
		}
		ids := idsOf(toDelete)
		c.invokeDeleteTopologies(ids, tokens, func(failures []DeleteFailure) {
			failed := map[string]error{}
			for _, f := range failures {
				failed[f.GroupID] = f.Err
			}
			// v3 (hole 4): a push still in flight may write its row after
			// this delete; the group is kept at -2, as after a failed
			// delete, and a later cycle deletes what the set leaves.
			for _, ge := range toDelete {
				if _, ok := failed[ge.GroupID]; !ok && c.pushPending(ge.GroupID) {
					failed[ge.GroupID] = errPushInFlight
				}
			}
			deleted, attempted := map[string]bool{}, map[string]bool{}
			// The stored epoch a deleted group must still have at the
			// tombstone for the delete to have covered its row: the marker
			// under v2 and v3, the observed epoch under v1.
			rowsDeleted := map[string]int32{}
			for _, ge := range toDelete {
				attempted[ge.GroupID] = true
				c.topology.backoff.ClearGroup(ge.GroupID)
				if _, ok := failed[ge.GroupID]; !ok {
					deleted[ge.GroupID] = true
					rowsDeleted[ge.GroupID] = ge.Epoch
					if c.topology.protocol.MarksBeforeDelete() {
						rowsDeleted[ge.GroupID] = shard.EpochUncertain
					}
				}
			}
			// A group whose row could not be deleted keeps its record. A
			// fenced delete means another coordinator owns the group now:
			// NOT_COORDINATOR sends the admin client there.
			for p, idx := range byPartition {
				kept := idx[:0]
				for _, i := range idx {
					if err, ok := failed[groupIDs[i]]; ok {
						results[i].Err = kerr.GroupDeletionFailed.WithMessage(DeleteFailedMessage)
						switch {
						case errors.Is(err, errPushInFlight):
							results[i].Err = kerr.GroupDeletionFailed.WithMessage(shard.RowNotDeletedMessage)
						case errors.Is(err, plugin.ErrFenced):
							results[i].Err = kerr.NotCoordinator.WithMessage("the topology description store fenced the delete of group %s: a newer coordinator owns it", groupIDs[i])
						}
						continue
					}
					kept = append(kept, i)
				}
				byPartition[p] = kept
			}
			afterDelete(deleted, attempted, rowsDeleted)
		})
	})
	return f
}

// markForDelete is v2's "mark -2 first" for DeleteGroups, one write per
// shard; under v1 it passes the groups through. done receives the groups
// whose rows may be deleted, and the error of each group whose mark write
// failed.
func (c *Coordinator) markForDelete(withStored map[int32][]shard.GroupEpoch, done func([]shard.GroupEpoch, map[string]error)) {
	var all []shard.GroupEpoch
	markErrs := map[string]error{}
	parts := slices.Sorted(maps.Keys(withStored))
	if !c.topology.protocol.MarksBeforeDelete() || len(parts) == 0 {
		for _, p := range parts {
			all = append(all, withStored[p]...)
		}
		done(all, markErrs)
		return
	}
	fanOut(withStored, func() { done(all, markErrs) }, func(p int32, observed []shard.GroupEpoch, finish func()) {
		w := write(c, "delete-groups-mark-topology-uncertain", p, func(s *shard.Shard, _ int64) (shard.Result[[]shard.GroupEpoch], error) {
			return s.MarkStoredDescriptionTopologyEpochUncertainForDelete(observed), nil
		})
		w.OnDone(func(marked []shard.GroupEpoch, err error) {
			if err != nil {
				c.log.Warn("marking groups uncertain before DeleteGroups failed; holding them back", "partition", p, "err", err)
				for _, ge := range observed {
					markErrs[ge.GroupID] = err
				}
			} else {
				all = append(all, marked...)
			}
			finish()
		})
	})
}

// finalizeSurvivors runs the v2 finalize on groups whose row was deleted but
// whose tombstone write did not happen, and on groups whose delete failed
// (its outcome is unknown: they go back to -2 if a push advanced them).
func (c *Coordinator) finalizeSurvivors(results []shard.DeleteGroupResult, deleted, attempted map[string]bool, tokens map[string]int32, done func()) {
	type batch struct {
		token            int32 // the load epoch of the pre-delete read of the partition
		deleted, unknown []string
	}
	byPartition := map[int32]*batch{}
	for _, r := range results {
		if r.Err == nil || !attempted[r.GroupID] {
			continue
		}
		p := c.PartitionFor(r.GroupID)
		if byPartition[p] == nil {
			byPartition[p] = &batch{token: tokens[r.GroupID]}
		}
		if deleted[r.GroupID] && !c.takeTouched(r.GroupID) {
			byPartition[p].deleted = append(byPartition[p].deleted, r.GroupID)
		} else {
			byPartition[p].unknown = append(byPartition[p].unknown, r.GroupID)
		}
	}
	fanOut(byPartition, done, func(p int32, b *batch, finish func()) {
		c.finalizeAfterDelete(p, b.token, b.deleted, b.unknown, func(error) { finish() })
	})
}
