package sim

import (
	"fmt"
	"math"
	"slices"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/shard"
	"github.com/coordsim/coordsim/sim/invariants"
	"github.com/coordsim/coordsim/sim/refmodel"
)

// Invariant names, as violations report them: the registry
// (sim/invariants, one file per invariant) defines each with its promise,
// the Kafka rule it guards and the mutants that must trip it.
const (
	InvNoTombstoneWhileStored = invariants.NoTombstoneWhileStored
	InvClearOnlyObserved      = invariants.ClearOnlyObservedEpoch
	InvDeleteOnlyEligible     = invariants.DeleteOnlyEligible
	InvSingleFlight           = invariants.SingleFlight
	InvOffsetRetention        = invariants.OffsetRetention
	InvLiveness               = invariants.Liveness
	InvNoDataLossV2           = invariants.NoPluginSideDataLoss
	InvReplay                 = invariants.ReplayEquality
	// Invariants 10–17 (sim/invariants_rules.go).
	InvReadsCommitted      = invariants.ReadsCommitted
	InvDeleteOnlyEmpty     = invariants.DeleteOnlyEmpty
	InvOffsetExpiryOnTime  = invariants.OffsetExpiryOnTime
	InvGroupExpiry         = invariants.GroupExpiryNothingLeft
	InvNoLiveMemberFenced  = invariants.NoLiveMemberFenced
	InvV1LeaksExplained    = invariants.V1LeaksExplained
	InvRouting             = invariants.Routing
	InvShareInFlightCapped = invariants.ShareInFlightCap
	// InvV1LossExplained ties each v1 loss the probe counts to a race event
	// of its group, as 15 ties leaked rows (issue 27: any loss under v1
	// counted as the accepted race, so a v1 cleanup bug was invisible).
	InvV1LossExplained = invariants.V1LossExplained
	// InvReferenceModel holds the committed shards to a model of the log
	// written apart from shard's replay (issue 27: 7 and 10 rebuild with
	// that replay, so a bug in it was in both copies).
	InvReferenceModel = invariants.ReferenceModel
)

// Invariants lists every invariant the checker enforces, in the registry's
// order; each has a mutant test that proves the checker catches it.
var Invariants = invariants.Names()

// checker holds the state the invariants need beyond the coordinators'.
type checker struct {
	w *world
	// observed is the stored epoch each cycle's scan saw, by group, set when
	// the cycle issues the delete (invariant 2).
	observed map[string]int32
	inCycle  []int // cycles in flight per broker (invariant 4)
	rules    ruleState
	maxBatch int64 // the largest produced batch, for invariant 17's slack
	// cycleOwned is, per broker with a cycle in flight, the partitions it
	// owned when that cycle started: a cycle keeps working on a partition
	// after it moved away (its deletes are in flight), so the data-loss
	// probe waits for it too, not only for the current owner's cycle.
	cycleOwned []map[int32]bool
	// timersPending are the partitions that loaded or rolled back since
	// the member-timers check last saw them, with what happened ("load",
	// "rollback"); timersQueue keeps them in order (21).
	timersPending map[int32]string
	timersQueue   []int32
	// delivery is the plugin call whose result is being handed to its
	// broker, nil between deliveries (23).
	delivery *pluginDelivery
	// revocations are the members left revoking, with when their rebalance
	// timeout must have fenced them; revocationDueMs is the earliest (25).
	revocations     map[memberKey]revocation
	revocationDueMs int64
	// v2Holes are the groups with an event of a hole Kafka's merged v2
	// keeps, with the event, under Options.V2KnownHoles
	// (sim/invariant_v2_holes.go).
	v2Holes map[string]string
	// upgradeForgot are, by group, the classic members the group's last
	// online upgrade converted with an empty assignment, until each client
	// next completes an assignment (invariant_owner_upgrade.go, 9).
	upgradeForgot map[string]map[string]bool
	// models are the partitions' reference models, fed every committed
	// record (26).
	models []*refmodel.Model
}

func newChecker(w *world) *checker {
	c := &checker{w: w, observed: map[string]int32{}, inCycle: make([]int, w.opts.Brokers), cycleOwned: make([]map[int32]bool, w.opts.Brokers),
		rules: newRuleState(), v2Holes: map[string]string{}, upgradeForgot: map[string]map[string]bool{}}
	c.rules.deleted = make([]map[int32][]string, w.opts.Brokers)
	c.revocationDueMs = math.MaxInt64
	c.models = make([]*refmodel.Model, w.opts.Partitions)
	for p := range c.models {
		c.models[p] = refmodel.New()
	}
	return c
}

// onWrite checks a write against the latest state it ran on, before its
// append: what the sweep expires and tombstones (1, 5, 12, 13), what the
// conditional clear clears (2), what DeleteGroups deletes (11) and whom a
// session timeout fences (14).
func (c *checker) onWrite(b int, p int32, op string, latest *shard.Shard, records []shard.Record) {
	w := c.w
	c.onWriteRules(op, latest, records)
	c.checkMemberEpochs(latest, records)
	c.checkCoordinatorFence(b, p, op)
	c.noteUpgrade(latest, records)
	switch op {
	case shard.SweepTimerKey:
		for _, r := range records {
			switch r := r.(type) {
			case *shard.StreamsGroupMetadata:
				if !r.Tombstone || !w.opts.Plugin {
					continue
				}
				if d, ok := latest.DescribeGroup(r.Group); ok && d.StoredDescriptionTopologyEpoch != shard.EpochNone {
					w.violate(InvNoTombstoneWhileStored, fmt.Sprintf("streams group %s tombstoned by expiry with stored epoch %d",
						r.Group, d.StoredDescriptionTopologyEpoch))
				}
			}
		}
	case "clear-stored-topology-epoch-batch", "finalize-stored-topology-epoch-after-delete-batch":
		for _, r := range records {
			sm, ok := r.(*shard.StreamsGroupMetadata)
			if !ok || sm.Tombstone || sm.StoredDescriptionTopologyEpoch != shard.EpochNone {
				continue
			}
			d, _ := latest.DescribeGroup(sm.Group)
			want, seen := c.observed[sm.Group]
			if op != "clear-stored-topology-epoch-batch" {
				want, seen = shard.EpochUncertain, true
			}
			if !seen || d.StoredDescriptionTopologyEpoch != want {
				w.violate(InvClearOnlyObserved, fmt.Sprintf("%s cleared group %s at stored epoch %d; the scan observed %d",
					op, sm.Group, d.StoredDescriptionTopologyEpoch, want))
			}
		}
	}
}

// subscribes reports whether group d subscribes to topic, so its offsets of
// topic must not expire (5, 12).
func subscribes(d shard.GroupDescription, topic string) bool {
	if d.Type == shard.Streams {
		if d.Topology == nil {
			return false
		}
		// The checker's own statement of Kafka's StreamsGroup
		// isSubscribedToTopic (issue 27: no product predicate in a check):
		// a subtopology reads its source and repartition source topics.
		for _, st := range d.Topology.Subtopologies {
			if slices.Contains(st.SourceTopics, topic) || slices.ContainsFunc(st.RepartitionSourceTopics, func(ti shard.TopicInfo) bool { return ti.Name == topic }) {
				return true
			}
		}
		return false
	}
	for _, m := range d.Members {
		if slices.Contains(m.SubscribedTopics, topic) {
			return true
		}
	}
	return false
}

// onTopologyEvent checks single flight (4) and that a delete is issued only
// for a group eligible in committed state (3).
func (c *checker) onTopologyEvent(b int, ev coordinator.TopologyEvent) {
	w := c.w
	switch ev.Kind {
	case coordinator.EventCycleStarted:
		if c.inCycle[b] > 0 {
			w.violate(InvSingleFlight, fmt.Sprintf("broker %d started a cycle while %d were in flight", b, c.inCycle[b]))
		}
		c.inCycle[b]++
		c.cycleOwned[b] = map[int32]bool{}
		for _, p := range w.partitionsOf(b) {
			c.cycleOwned[b][p] = true
		}
	case coordinator.EventCycleFinished, coordinator.EventCyclePanicked:
		if c.inCycle[b] > 0 {
			c.inCycle[b]--
		}
		c.rules.deleted[b] = nil
		c.probeDataLoss()
	case coordinator.EventClearMismatch:
		c.lossRaced(ev.GroupID, "the conditional clear found a newer stored epoch: a push landed during the delete")
	case coordinator.EventClearWriteFailed:
		for _, g := range c.rules.deleted[b][ev.Partition] {
			c.lossRaced(g, "the clear after its delete failed: the stored epoch outlives the row")
			c.v2Hole(g, "hole 3: a finalize write failed after the cycle issued the group's delete")
		}
	case coordinator.EventDeleteIssued:
		c.observed[ev.GroupID] = ev.Epoch
		if c.rules.deleted[b] == nil {
			c.rules.deleted[b] = map[int32][]string{}
		}
		c.rules.deleted[b][ev.Partition] = append(c.rules.deleted[b][ev.Partition], ev.GroupID)
		s, err := w.brokers[b].c.CommittedShard(ev.Partition)
		if err != nil {
			w.violate(InvDeleteOnlyEligible, fmt.Sprintf("delete of %s issued by broker %d for partition %d it cannot read: %v", ev.GroupID, b, ev.Partition, err))
			return
		}
		d, ok := s.DescribeGroup(ev.GroupID)
		// Under v2 the delete follows the committed -2 mark, which re-checked
		// eligibility; a member may join (and commit) between the mark and
		// the delete, which the finalize answers by soliciting it again. So
		// v2 only requires a streams group whose stored epoch is set.
		eligible := d.Type == shard.Streams && d.StoredDescriptionTopologyEpoch != shard.EpochNone
		if !w.opts.Protocol.MarksBeforeDelete() {
			eligible = eligible && len(d.Members) == 0 && s.GroupOffsetCount(ev.GroupID) == 0 && !s.HasOpenTransaction(ev.GroupID)
		}
		switch {
		case !ok:
			w.violate(InvDeleteOnlyEligible, fmt.Sprintf("delete issued for %s, which does not exist", ev.GroupID))
		case !eligible:
			w.violate(InvDeleteOnlyEligible, fmt.Sprintf("delete issued for %s: type %s, %d members, stored %d, %d offsets, open txn %v",
				ev.GroupID, d.Type, len(d.Members), d.StoredDescriptionTopologyEpoch, s.GroupOffsetCount(ev.GroupID), s.HasOpenTransaction(ev.GroupID)))
		}
	}
}

// settled reports whether nothing in flight can still change what the store
// or the metadata says about a group: no plugin call for it from any broker
// (the current owner or any earlier owner of its partition), no DeleteGroups
// of it (between its deleteTopology and its tombstone's commit the row is
// gone while the committed metadata still names it), and no cleanup
// cycle on the broker that owns it or on a broker that owned it when its
// cycle started (a cycle's writes settle before it ends). Then the store and
// the metadata must agree.
func (c *checker) settled(groupID string) bool {
	w := c.w
	if w.groupInFlight[groupID] > 0 || c.rules.adminDeleting[groupID] > 0 {
		return false
	}
	b := w.route(groupID)
	if b < 0 || c.inCycle[b] > 0 {
		return false
	}
	p := coordinator.PartitionFor(groupID, w.opts.Partitions)
	for other, n := range c.inCycle {
		if n > 0 && c.cycleOwned[other][p] {
			return false
		}
	}
	return true
}

// probeDataLoss looks for a streams group whose metadata says its
// description is stored (epoch >= 0) while the store holds no row at that
// epoch or later. Under v1 that is the accepted race (counted once per
// group and epoch); under v2 it is a violation.
func (c *checker) probeDataLoss() {
	w := c.w
	if w.lister == nil {
		return
	}
	rows := map[string]int32{}
	for _, e := range w.lister.List() {
		rows[e.GroupID] = e.TopologyEpoch
	}
	for _, g := range w.groups {
		if g.typ != shard.Streams || !c.settled(g.id) {
			continue
		}
		stored, ok := w.committedStored(g.id)
		if !ok || stored < 0 {
			continue
		}
		if row, has := rows[g.id]; has && row >= stored {
			continue
		}
		key := fmt.Sprintf("%s/%d", g.id, stored)
		if w.dataLoss[key] {
			continue
		}
		w.dataLoss[key] = true
		if w.opts.Protocol.AcceptsDataLossRace() {
			if !c.explainedLoss(g.id) {
				w.violate(InvV1LossExplained, fmt.Sprintf("group %s: stored epoch %d but the store has no row, and no race event of the group explains it", g.id, stored))
				continue
			}
			w.res.AcceptedDataLoss++
			w.res.DataLoss = append(w.res.DataLoss, DataLossEvent{AtMs: w.nowMs() - startMs, Group: g.id, StoredEpoch: stored})
			w.mark("v1-race")
			w.tr(traceEvent{kind: tMark, broker: -1, group: g.id, detail: fmt.Sprintf("accepted plugin-side data loss at stored epoch %d", stored)})
			continue
		}
		if c.v2HoleExplains(g.id, fmt.Sprintf("stored epoch %d but the store has no row", stored)) {
			continue
		}
		w.violate(InvNoDataLossV2, fmt.Sprintf("group %s: stored epoch %d but the store has no row", g.id, stored))
	}
}

// committedStored reads a streams group's stored epoch from its owner's
// committed state.
func (w *world) committedStored(groupID string) (int32, bool) {
	var stored int32
	found := false
	w.readCommitted(groupID, func(s *shard.Shard) {
		if _, st, ok := s.StreamsTopologyState(groupID); ok {
			stored, found = st, true
		}
	})
	return stored, found
}

// checkReplay rebuilds every active shard from its committed log and
// compares it with the committed state its broker serves (7).
func (c *checker) checkReplay() {
	w := c.w
	w.eachServedShard(func(p int32, b int, live *shard.Shard) bool {
		// Rebuild with a correct replay: a mutant must not hide in both.
		// A mutant in replay itself stays, as a real bug there would: only
		// the reference model (26) can see it.
		cfg := live.Config()
		cfg.Mutants = cfg.Mutants.InReplay()
		// The log's snapshot plus its committed tail; a broker with a
		// mutant planted in its shards keeps no snapshot, so this replays
		// the whole log then (coordinator/snapshot.go).
		rebuilt, err := w.logs.Partition(p).Restore(cfg, func(s *shard.Shard) error {
			return s.SetTopicImage(live.TopicImage())
		})
		if err == nil {
			// What the live shard's load forgot of its classic groups, as
			// Kafka's load does, the rebuild forgets too
			// (shard/classic_load.go): the one place they may differ.
			rebuilt.ForgetAsLoaded(live.ForgottenAtLoad())
			err = live.Snapshot().Diff(rebuilt.Snapshot())
		}
		if err != nil {
			w.violate(InvReplay, fmt.Sprintf("partition %d on broker %d: %v", p, b, err))
			return false
		}
		return true
	})
}

// eachServedShard calls fn with every partition whose owner serves its
// committed shard (one loading is skipped), its owner and that shard, until
// fn returns false.
func (w *world) eachServedShard(fn func(p int32, b int, live *shard.Shard) bool) {
	for p := range w.opts.Partitions {
		b := w.owner[p]
		if b < 0 {
			continue
		}
		live, err := w.brokers[b].c.CommittedShard(p)
		if err != nil {
			continue // loading
		}
		if !fn(p, b, live) {
			return
		}
	}
}

// checkLiveness runs at the end, after the faults healed and the workload
// stopped: every group that can expire is gone, and the store holds no row
// of a group that no longer exists (6).
func (c *checker) checkLiveness() {
	w := c.w
	live := map[string]bool{}
	for p := range w.opts.Partitions {
		b := w.owner[p]
		if b < 0 {
			w.violate(InvLiveness, fmt.Sprintf("partition %d never finished moving", p))
			return
		}
		s, err := w.brokers[b].c.CommittedShard(p)
		if err != nil {
			w.violate(InvLiveness, fmt.Sprintf("partition %d unavailable at the end: %v", p, err))
			return
		}
		var stuck []string
		s.ListGroups(func(g shard.GroupListing) bool {
			live[g.GroupID] = true
			if g.Type != shard.Share {
				stuck = append(stuck, fmt.Sprintf("%s (%s %s)", g.GroupID, g.Type, g.State))
			}
			return len(stuck) < 5
		})
		if len(stuck) > 0 {
			w.violate(InvLiveness, fmt.Sprintf("groups still alive after the liveness phase: %v", stuck))
			return
		}
	}
	if w.lister == nil {
		return
	}
	for _, e := range w.lister.List() {
		if live[e.GroupID] {
			continue
		}
		if w.opts.Protocol.AcceptsDataLossRace() {
			if !c.explained(e.GroupID) {
				w.violate(InvV1LeaksExplained, fmt.Sprintf("the store still holds a row of %s, which no longer exists, and no accepted race event explains it", e.GroupID))
				return
			}
			w.res.LeakedRows++
			w.mark("v1-leaked-row")
			continue
		}
		if c.v2HoleExplains(e.GroupID, "the store still holds a row of a group that no longer exists") {
			continue
		}
		w.violate(InvLiveness, fmt.Sprintf("the store still holds a row of %s, which no longer exists", e.GroupID))
		return
	}
}
