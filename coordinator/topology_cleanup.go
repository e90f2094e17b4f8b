package coordinator

import (
	"fmt"
	"slices"

	"github.com/coordsim/coordsim/shard"
)

// RunTopologyCleanupCycle is one run of the KIP-1331 cleanup cycle (Kafka's
// runOnce, docs/kip1331.md §2.3): it reports whether a cycle started. The broker
// timer calls it every offsets.retention.check.interval.ms; tests and the
// simulator may call it directly.
//
// The cycle runs only while the service is active and a plugin is
// configured. It is single flight: while a cycle is in flight a tick is
// dropped, logged and counted, and the flag is held until every read, plugin
// delete and write of the cycle has settled. Per hosted shard it reads the
// eligible groups from committed state, deletes their rows, and then:
//
//   - v1: clears the back-off of each group whose delete succeeded and writes
//     one conditional clear per shard (stored → -1 only if it still equals
//     the observed epoch);
//   - v2: first marks the still-eligible groups -2 (one write per shard),
//     deletes only those, then finalizes (still -2 → -1; advanced → -2).
//
// Failed deletes keep the stored epoch and the back-off and are retried next
// cycle; write failures are logged and swallowed; after Shutdown no further
// plugin call or write is issued.
func (c *Coordinator) RunTopologyCleanupCycle() (started bool) {
	m := c.topology
	if !c.active || !m.configured() || !m.running {
		return false
	}
	if m.cycleInFlight && !c.mutants.NoSingleFlight {
		m.ticksDropped++
		m.cycleSkipped.Record(c.nowMs())
		c.log.Warn("Topology-description cleanup cycle skipped: previous cycle is still in flight.")
		c.emit(TopologyEvent{Kind: EventTickDropped})
		return false
	}
	m.cycleInFlight = true
	m.cyclesRun++
	pending := 1 // held by the construction of the chain itself
	finished := false
	settle := func() {
		pending--
		if pending == 0 && !finished {
			finished = true
			m.cycleInFlight = false
			c.emit(TopologyEvent{Kind: EventCycleFinished})
		}
	}
	defer func() {
		if p := recover(); p != nil {
			// A synchronous failure while building the chain releases the
			// flag; the timer task logs it and stays scheduled.
			finished, m.cycleInFlight = true, false
			c.log.Error("Unexpected error running topology-description cleanup cycle.", "panic", fmt.Sprint(p))
			c.emit(TopologyEvent{Kind: EventCyclePanicked})
			started = false
		}
	}()
	now := c.nowMs()
	m.cycleRuns.Record(now)
	c.emit(TopologyEvent{Kind: EventCycleStarted})
	if c.hooks.beforeCleanupRead != nil {
		c.hooks.beforeCleanupRead()
	}
	reads := ReadAll(c, func(s *shard.Shard) ([]shard.GroupEpoch, error) {
		return s.ListStreamsGroupsNeedingTopologyCleanup(), nil
	})
	for _, r := range reads {
		switch {
		case r.Err != nil:
			c.log.Warn("Topology-description cleanup read failed for one partition.", "partition", r.Partition, "err", r.Err)
			c.emit(TopologyEvent{Kind: EventCycleReadFailed, Partition: r.Partition})
			continue
		case len(r.Value) == 0:
			continue
		case !m.running:
			continue
		}
		m.cycleEligible.RecordValue(float64(len(r.Value)), now)
		pending++
		// The fencing token is the load epoch the scan read at: the deletes
		// speak for this load of the partition, whatever happens later.
		token := c.fencingToken(r.Partition)
		if m.protocol.MarksBeforeDelete() {
			c.cleanupV2(r.Partition, r.Value, token, settle)
		} else {
			c.cleanupV1(r.Partition, r.Value, token, settle)
		}
	}
	settle()
	return true
}

func idsOf(ges []shard.GroupEpoch) []string {
	ids := make([]string, len(ges))
	for i, ge := range ges {
		ids[i] = ge.GroupID
	}
	return ids
}

// stoppedByShutdown ends a cycle's chain for shard p once the service is
// shutting down: no further plugin call or write is issued.
func (c *Coordinator) stoppedByShutdown(p int32, settle func()) bool {
	if c.topology.running {
		return false
	}
	c.emit(TopologyEvent{Kind: EventCycleAbortedShutdown, Partition: p})
	settle()
	return true
}

// deleteRows issues the cycle's deleteTopology calls for groups (fenced with
// token under v3) and hands the failures to done, unless the service shut
// down meanwhile.
func (c *Coordinator) deleteRows(p int32, groups []shard.GroupEpoch, token int32, settle func(), done func(failed map[string]bool)) {
	tokens := make(map[string]int32, len(groups))
	for _, ge := range groups {
		tokens[ge.GroupID] = token
		c.emit(TopologyEvent{Kind: EventDeleteIssued, Partition: p, GroupID: ge.GroupID, Epoch: ge.Epoch})
	}
	c.invokeDeleteTopologies(idsOf(groups), tokens, func(failures []DeleteFailure) {
		if !c.stoppedByShutdown(p, settle) {
			done(failedSet(failures))
		}
	})
}

// cleanupV1 is PR #22622's chain for one shard: delete, then the
// conditional clear of the groups whose delete succeeded.
func (c *Coordinator) cleanupV1(p int32, eligible []shard.GroupEpoch, token int32, settle func()) {
	c.deleteRows(p, eligible, token, settle, func(failed map[string]bool) {
		var cleared []shard.GroupEpoch
		for _, ge := range eligible {
			if failed[ge.GroupID] && !c.mutants.V1FailedDeletesSucceed {
				continue // keep the stored epoch and the back-off; retry next cycle
			}
			c.topology.backoff.ClearGroup(ge.GroupID)
			cleared = append(cleared, ge)
		}
		if len(cleared) == 0 || c.mutants.V1SkipsClearAfterDelete {
			settle()
			return
		}
		f := write(c, "clear-stored-topology-epoch-batch", p, func(s *shard.Shard, _ int64) (shard.Result[[]string], error) {
			return s.ClearStoredDescriptionTopologyEpochBatch(cleared), nil
		})
		f.OnDone(func(done []string, err error) {
			if err != nil {
				c.swallowWriteError(p, cleared, err)
			} else {
				c.reportMismatches(p, cleared, done)
			}
			settle()
		})
	})
}

// cleanupV2 is PR #22777's chain for one shard: mark -2, delete the marked
// groups, finalize. Protocol v3 runs the same chain with fenced deletes; a
// fenced (refused) delete is a failed one: the group stays -2, or goes back
// to -2 if a push advanced it, on whichever coordinator now owns it.
func (c *Coordinator) cleanupV2(p int32, eligible []shard.GroupEpoch, token int32, settleShard func()) {
	// v3: from the mark until the finalize's outcome is known, the groups
	// are neither solicited nor accept a push (deleteGuard).
	end := c.beginDeleteEpisode(idsOf(eligible))
	settle := func() { end(); settleShard() }
	mark := fencedWrite(c, "mark-topology-uncertain-batch", p, token, func(s *shard.Shard, _ int64) (shard.Result[[]shard.GroupEpoch], error) {
		return s.MarkStoredDescriptionTopologyEpochUncertainBatch(eligible), nil
	})
	mark.OnDone(func(marked []shard.GroupEpoch, err error) {
		if err != nil {
			c.swallowWriteError(p, eligible, err)
			settle()
			return
		}
		if len(marked) < len(eligible) {
			for _, ge := range eligible {
				if !containsGroup(marked, ge.GroupID) {
					c.emit(TopologyEvent{Kind: EventMarkSkipped, Partition: p, GroupID: ge.GroupID, Epoch: ge.Epoch})
				}
			}
		}
		if c.stoppedByShutdown(p, settle) {
			return
		}
		if len(marked) == 0 {
			settle()
			return
		}
		c.deleteRows(p, marked, token, settle, func(failed map[string]bool) {
			var deleted, unknown []string
			for _, ge := range marked {
				// A push whose set completed meanwhile may have left a row,
				// and one still in flight may leave one after the delete
				// (v3, holes 3 and 4): its group stays -2, as after a
				// failed delete, so the sweep keeps it and a later cycle
				// deletes the row.
				if failed[ge.GroupID] || c.takeTouched(ge.GroupID) || c.pushPending(ge.GroupID) {
					unknown = append(unknown, ge.GroupID)
					continue
				}
				c.topology.backoff.ClearGroup(ge.GroupID)
				deleted = append(deleted, ge.GroupID)
			}
			c.finalizeAfterDelete(p, token, deleted, unknown, func(error) { settle() })
		})
	})
}

// finalizeAfterDelete is v2's last write for one shard: groups whose row
// was deleted are finalized (still -2 → -1; advanced → -2), and groups
// whose delete failed, which may still have been applied by the store (a
// transient error after the write), go back to -2 if a push advanced their
// stored epoch meanwhile: a failed delete is not proof that the row
// survived, so the group must be asked for its description again. With
// nothing to write, done runs at once.
func (c *Coordinator) finalizeAfterDelete(p, token int32, deleted, unknown []string, done func(error)) {
	if len(deleted) == 0 && len(unknown) == 0 {
		done(nil)
		return
	}
	fin := fencedWrite(c, "finalize-stored-topology-epoch-after-delete-batch", p, token, func(s *shard.Shard, _ int64) (shard.Result[[]shard.GroupEpoch], error) {
		res := s.FinalizeStoredDescriptionTopologyEpochAfterDeleteBatch(deleted)
		again := s.ReSolicitStoredDescriptionTopologyEpochAfterFailedDeleteBatch(unknown)
		res.Records = append(res.Records, again.Records...)
		res.Response = append(res.Response, again.Response...)
		return res, nil
	})
	fin.OnDone(func(res []shard.GroupEpoch, err error) {
		if err != nil {
			for _, id := range append(slices.Clone(deleted), unknown...) {
				c.log.Warn("Failed to finalize StoredDescriptionTopologyEpoch for group; the next cleanup cycle will retry.",
					"group", id, "partition", p, "err", err)
			}
			c.emit(TopologyEvent{Kind: EventClearWriteFailed, Partition: p})
		}
		for _, ge := range res {
			if ge.Epoch == shard.EpochUncertain {
				c.emit(TopologyEvent{Kind: EventFinalizeReSolicit, Partition: p, GroupID: ge.GroupID})
			}
		}
		done(err)
	})
}

func containsGroup(ges []shard.GroupEpoch, id string) bool {
	for _, ge := range ges {
		if ge.GroupID == id {
			return true
		}
	}
	return false
}

func (c *Coordinator) swallowWriteError(p int32, groups []shard.GroupEpoch, err error) {
	for _, ge := range groups {
		c.log.Warn("Failed to clear StoredDescriptionTopologyEpoch for group; the next cleanup cycle will retry.",
			"group", ge.GroupID, "partition", p, "err", err)
	}
	c.emit(TopologyEvent{Kind: EventClearWriteFailed, Partition: p})
}

// reportMismatches emits an event for each conditional clear that found the
// stored epoch changed since the scan (the v1 race's fingerprint).
func (c *Coordinator) reportMismatches(p int32, requested []shard.GroupEpoch, cleared []string) {
	for _, ge := range requested {
		found := false
		for _, id := range cleared {
			if id == ge.GroupID {
				found = true
				break
			}
		}
		if !found {
			c.emit(TopologyEvent{Kind: EventClearMismatch, Partition: p, GroupID: ge.GroupID, Epoch: ge.Epoch})
		}
	}
}
