package sim

import (
	"fmt"
	"math"
	"reflect"
	"unicode/utf16"

	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/offsets"
	"github.com/coordsim/coordsim/plugin"
	"github.com/coordsim/coordsim/shard"
)

// Invariants 10–17 state rules that planted bugs once broke without the
// checker noticing (docs/mutants.md lists each bug and what catches it).
// They judge with the checker's own copy of each rule (expiry predicate,
// routing, the committed replica), never with the code under test.

// ruleState is what invariants 10–17 remember between events.
type ruleState struct {
	// heartbeatOK is, per member, its latest heartbeat the coordinator
	// accepted (14).
	heartbeatOK map[memberKey]heartbeatSeen
	// replicas are committed replicas of the partitions the workload read,
	// built from the committed log alone (10).
	replicas map[int32]*replica
	// setsInFlight and deletesInFlight count plugin calls per group;
	// raced lists the groups with an accepted v1 race event: a setTopology
	// that overlapped a delete of the same group, or that failed and may
	// have applied, or a push whose outcome the coordinator could not record
	// (the group was gone, or the write failed): v1 has no uncertain marker
	// to clean such a row up (15).
	setsInFlight    map[string]int
	deletesInFlight map[string]int
	raced           map[string]string
	// lossRaced lists the groups with a v1 event that can lose a row but
	// not leak one: a delete that failed and may have applied, a clear
	// that found a newer epoch, a clear write that failed (24).
	lossRaced map[string]string
	// adminDeleting counts the DeleteGroups calls in flight per group, and
	// adminRowDeleted the groups whose row one of them deleted (24).
	adminDeleting   map[string]int
	adminRowDeleted map[string]bool
	// deleted are, per broker, the groups whose delete its current cycle
	// issued, by partition: a failed clear write explains their loss (24).
	deleted []map[int32][]string
}

// memberKey names a member of a group (a map key that, unlike a joined
// string, costs no allocation per heartbeat).
type memberKey struct{ group, member string }

type replica struct {
	s       *shard.Shard
	applied int64
}

func newRuleState() ruleState {
	return ruleState{heartbeatOK: map[memberKey]heartbeatSeen{}, replicas: map[int32]*replica{},
		setsInFlight: map[string]int{}, deletesInFlight: map[string]int{}, raced: map[string]string{}, lossRaced: map[string]string{},
		adminDeleting: map[string]int{}, adminRowDeleted: map[string]bool{}}
}

// offsetExpired is the checker's own statement of Kafka's expiry predicate
// (OffsetMetadataManager.isExpired): a legacy expire timestamp wins, else
// now - commit timestamp >= retention; both inclusive.
func offsetExpired(v offsets.OffsetAndMetadata, nowMs, retentionMs int64) bool {
	return offsetExpiredFrom(v, v.CommitTimestampMs, nowMs, retentionMs)
}

// offsetExpiredFrom is offsetExpired counting the retention from base.
func offsetExpiredFrom(v offsets.OffsetAndMetadata, base, nowMs, retentionMs int64) bool {
	if v.ExpireTimestampMs >= 0 {
		return nowMs >= v.ExpireTimestampMs
	}
	return nowMs-base >= retentionMs
}

// expiryBase is the checker's statement of ClassicGroup.offsetExpirationCondition's
// base: an Empty classic group with a protocol type counts the retention
// from when it became Empty (its state timestamp, when it has one); every
// other group from each offset's commit time.
func expiryBase(d shard.GroupDescription, v offsets.OffsetAndMetadata) int64 {
	if d.Type == shard.Classic && d.State == shard.StateEmpty && d.ProtocolType != "" && d.CurrentStateTimestampMs >= 0 {
		return d.CurrentStateTimestampMs
	}
	return v.CommitTimestampMs
}

// kafkaPartitionFor is the checker's own Utils.abs(groupId.hashCode()) %
// n: Java's String.hashCode over UTF-16 code units; Utils.abs maps
// Integer.MIN_VALUE to 0 where Math.abs would leave it negative.
func kafkaPartitionFor(groupID string, n int32) int32 {
	h := javaStringHash(groupID)
	switch {
	case h == math.MinInt32:
		h = 0
	case h < 0:
		h = -h
	}
	return h % n
}

// javaStringHash is Java's String.hashCode over the UTF-16 code units.
func javaStringHash(s string) int32 {
	var h int32
	for _, u := range utf16.Encode([]rune(s)) {
		h = 31*h + int32(u)
	}
	return h
}

// checkRouting holds the coordinators' routing of a group id to Kafka's (16).
func (c *checker) checkRouting(groupID string) {
	w := c.w
	want := kafkaPartitionFor(groupID, w.opts.Partitions)
	for _, b := range w.brokers {
		if got := b.c.PartitionFor(groupID); got != want {
			w.violate(InvRouting, fmt.Sprintf("broker %d routes %q to partition %d; Kafka's partitionFor gives %d", b.id, groupID, got, want))
			return
		}
	}
}

// onWriteRules checks a write against the latest state it ran on: the
// sweep expires exactly what is due (5, 12) and tombstones only groups with
// nothing left (13); DeleteGroups deletes only empty groups (11); a session
// timer removes only a member that stopped heartbeating (14).
func (c *checker) onWriteRules(op string, latest *shard.Shard, records []shard.Record) {
	switch op {
	case shard.SweepTimerKey:
		c.checkSweep(latest, records)
		c.checkPendingTxnKept(latest, records)
	case "delete-groups":
		for _, r := range records {
			if g, ok := groupTombstone(r); ok {
				if d, found := latest.DescribeGroup(g); found && len(d.Members) > 0 {
					c.w.violate(InvDeleteOnlyEmpty, fmt.Sprintf("DeleteGroups deleted %s group %s with %d members", d.Type, g, len(d.Members)))
				}
			}
		}
	}
	c.checkNoLiveMemberFenced(op, latest, records)
}

// checkSweep compares one sweep with the checker's own statement of what is
// due: every committed offset of a non-share group that is expired, whose
// topic no member subscribes to and whose group has no open transaction
// must be tombstoned, and nothing else (5, 12); a group is tombstoned only
// when it is empty, has no open transaction and every offset it had is
// tombstoned by this sweep (13).
func (c *checker) checkSweep(latest *shard.Shard, records []shard.Record) {
	w := c.w
	now, retention := w.nowMs(), w.opts.Retention.Milliseconds()
	tombstoned := map[offsets.Key]bool{}
	perGroup := map[string]int{}
	var groups []string
	for _, r := range records {
		if oc, ok := r.(*shard.OffsetCommit); ok && oc.Tombstone {
			tombstoned[offsets.Key{Group: oc.Group, Topic: oc.Topic, Partition: oc.Partition}] = true
			perGroup[oc.Group]++
		} else if g, ok := groupTombstone(r); ok {
			groups = append(groups, g)
		}
	}
	for _, g := range groups {
		d, _ := latest.DescribeGroup(g)
		switch {
		case latest.HasOpenTransaction(g):
			w.violate(InvGroupExpiry, fmt.Sprintf("the sweep tombstoned group %s with an open transaction", g))
		case len(d.Members) > 0:
			w.violate(InvGroupExpiry, fmt.Sprintf("the sweep tombstoned group %s with %d members", g, len(d.Members)))
		case latest.GroupOffsetCount(g) != perGroup[g]:
			w.violate(InvGroupExpiry, fmt.Sprintf("the sweep tombstoned group %s with %d of its %d offsets left", g,
				latest.GroupOffsetCount(g)-perGroup[g], latest.GroupOffsetCount(g)))
		}
	}
	latest.ListGroups(func(gl shard.GroupListing) bool {
		if gl.Type == shard.Share {
			return true
		}
		d, _ := latest.DescribeGroup(gl.GroupID)
		openTxn := latest.HasOpenTransaction(gl.GroupID)
		latest.AscendOffsets(gl.GroupID, func(k offsets.Key, v offsets.OffsetAndMetadata) bool {
			due := offsetExpiredFrom(v, expiryBase(d, v), now, retention)
			subscribed := len(d.Members) > 0 && subscribes(d, k.Topic)
			switch {
			case tombstoned[k] && !due:
				w.violate(InvOffsetRetention, fmt.Sprintf("%s/%s-%d expired before its deadline (committed at %d, expire timestamp %d, now %d)",
					k.Group, k.Topic, k.Partition, v.CommitTimestampMs, v.ExpireTimestampMs, now))
			case tombstoned[k] && subscribed:
				w.violate(InvOffsetRetention, fmt.Sprintf("%s/%s-%d expired while the %s group subscribes to it", k.Group, k.Topic, k.Partition, d.Type))
			case !tombstoned[k] && due && !subscribed && !openTxn:
				w.violate(InvOffsetExpiryOnTime, fmt.Sprintf("%s/%s-%d is due (committed at %d, expire timestamp %d, retention %d, now %d) but the sweep kept it",
					k.Group, k.Topic, k.Partition, v.CommitTimestampMs, v.ExpireTimestampMs, retention, now))
			case due && subscribed:
				w.mark("subscribed-offset-kept")
			case tombstoned[k] && v.ExpireTimestampMs >= 0 && now-v.CommitTimestampMs < retention:
				w.mark("expired-by-legacy-timestamp")
			case tombstoned[k] && offsets.ExpirableAtMs(v, retention) == now:
				w.mark("expired-at-deadline")
			}
			return w.stopErr == nil
		})
		return w.stopErr == nil
	})
}

// groupTombstone returns the group whose group record r tombstones.
func groupTombstone(r shard.Record) (string, bool) {
	switch r := r.(type) {
	case *shard.GroupMetadata:
		return r.Group, r.Tombstone
	case *shard.ConsumerGroupMetadata:
		return r.Group, r.Tombstone
	case *shard.StreamsGroupMetadata:
		return r.Group, r.Tombstone
	case *shard.ShareGroupMetadata:
		return r.Group, r.Tombstone
	}
	return "", false
}

// memberTombstone returns the member whose metadata record r tombstones.
func memberTombstone(r shard.Record) (group, member string, typ shard.GroupType, ok bool) {
	switch r := r.(type) {
	case *shard.ConsumerGroupMemberMetadata:
		return r.Group, r.MemberID, shard.Consumer, r.Tombstone
	case *shard.StreamsGroupMemberMetadata:
		return r.Group, r.MemberID, shard.Streams, r.Tombstone
	case *shard.ShareGroupMemberMetadata:
		return r.Group, r.MemberID, shard.Share, r.Tombstone
	}
	return "", "", 0, false
}

// checkRead compares an OffsetFetch the coordinator answered with the same
// fetch on a replica of partition p built from the committed log alone
// (10). A read that found uncommitted writes pending is marked: that is
// when an answer from the latest state would differ.
func (c *checker) checkRead(p int32, groupID string, got []shard.FetchedOffset, err error) {
	w := c.w
	rp, pending := c.committedReplica(p, err)
	if rp == nil {
		return
	}
	if pending {
		w.mark("read-with-uncommitted-writes")
	}
	want, wantErr := rp.s.FetchOffsets(groupID, nil, false)
	if kerr.Name(err) != kerr.Name(wantErr) || (len(want) > 0 || len(got) > 0) && !reflect.DeepEqual(want, got) {
		w.violate(InvReadsCommitted, fmt.Sprintf("OffsetFetch of %s answered %v (%s); the committed log says %v (%s)",
			groupID, got, kerr.Name(err), want, kerr.Name(wantErr)))
	}
}

// checkDescribe compares a describe the coordinator answered (api names
// it: DescribeGroups, ConsumerGroupDescribe, ShareGroupDescribe or
// StreamsGroupDescribe) with the group as the committed replica of
// partition p describes it (10). StreamsGroupDescribe answers
// GROUP_ID_NOT_FOUND for a group of another type too.
func (c *checker) checkDescribe(p int32, api, groupID string, got shard.GroupDescription, err error) {
	w := c.w
	rp, pending := c.committedReplica(p, err)
	if rp == nil {
		return
	}
	if pending {
		w.mark("describe-with-uncommitted-writes")
	}
	want, found := rp.s.DescribeGroup(groupID)
	var wantErr error
	if !found || api == "StreamsGroupDescribe" && want.Type != shard.Streams {
		wantErr, want = kerr.GroupIDNotFound, shard.GroupDescription{}
	}
	if kerr.Name(err) != kerr.Name(wantErr) {
		w.violate(InvReadsCommitted, fmt.Sprintf("%s of %s answered %s; the committed log says %s", api, groupID, kerr.Name(err), kerr.Name(wantErr)))
		return
	}
	if err == nil && !reflect.DeepEqual(want, got) {
		w.violate(InvReadsCommitted, fmt.Sprintf("%s of %s answered %s; the committed log says %s", api, groupID, describeBrief(got), describeBrief(want)))
	}
}

// describeBrief is the part of a description a violation prints.
func describeBrief(d shard.GroupDescription) string {
	members := make([]string, len(d.Members))
	for i, m := range d.Members {
		members[i] = fmt.Sprintf("%s@%d", m.MemberID, m.MemberEpoch)
	}
	return fmt.Sprintf("{%s %s epoch=%d assignment-epoch=%d stored=%d members=%v}", d.Type, d.State, d.Epoch, d.AssignmentEpoch, d.StoredDescriptionTopologyEpoch, members)
}

// committedReplica brings the checker's replica of partition p up to the
// committed log and returns it, or nil when the read it checks was refused
// for the partition's state (it moves, loads, or its broker is down) or the
// replica failed (a violation). pending says the log held uncommitted
// writes: then an answer from the latest state would differ, and the
// caller marks it.
func (c *checker) committedReplica(p int32, readErr error) (rp *replica, pending bool) {
	w := c.w
	if e := kerr.As(readErr); e == kerr.CoordinatorLoadInProgress || e == kerr.NotCoordinator || e == kerr.CoordinatorNotAvailable {
		return nil, false
	}
	log := w.logs.Partition(p)
	pending = log.HighWatermark() < log.EndOffset()
	rp = c.rules.replicas[p]
	if rp != nil && rp.applied < log.StartOffset() {
		// The log folded records the replica has not seen into its
		// snapshot: start again from the snapshot.
		rp = nil
	}
	if rp == nil {
		cfg := shard.DefaultConfig()
		if s, e := w.brokers[0].c.LatestShard(p); e == nil {
			cfg = s.Config()
		} else if b := w.owner[p]; b >= 0 {
			if s, e := w.brokers[b].c.LatestShard(p); e == nil {
				cfg = s.Config()
			}
		}
		// A correct replay: a mutant must not hide in both; a mutant in
		// replay itself stays, as a real bug there would (see InReplay).
		cfg.Mutants = cfg.Mutants.InReplay()
		s, e := log.Restore(cfg, func(s *shard.Shard) error {
			s.SetPreparedTopicImage(w.image) // the image the coordinators hold
			return nil
		})
		if e != nil {
			w.violate(InvReadsCommitted, fmt.Sprintf("building the committed replica of partition %d: %v", p, e))
			return nil, false
		}
		rp = &replica{s: s, applied: log.HighWatermark()}
		c.rules.replicas[p] = rp
	}
	start, committed := log.StartOffset(), log.Committed()
	if err := rp.s.ReplayAll(rp.applied, committed[rp.applied-start:]); err != nil {
		w.violate(InvReadsCommitted, fmt.Sprintf("replaying partition %d's committed log: %v", p, err))
		return nil, false
	}
	rp.applied = log.HighWatermark()
	// The classic rebalances the serving shard's load forgot, as Kafka's
	// load does, the replica forgets too (shard/classic_load.go).
	if b := w.owner[p]; b >= 0 {
		_ = w.brokers[b].c.ReadShard(p, func(s *shard.Shard) { rp.s.ForgetAsLoaded(s.ForgottenAtLoad()) })
	}
	return rp, pending
}

// onPluginCall and onPluginDone follow the plugin calls of each group to
// attribute v1's leaked rows to an accepted race event (15).
func (c *checker) onPluginCall(op plugin.Op, groupID string) {
	r := &c.rules
	switch op {
	case plugin.OpSet:
		if r.deletesInFlight[groupID] > 0 {
			c.raced(groupID, "setTopology issued while a delete of the group was in flight")
		}
		r.setsInFlight[groupID]++
	case plugin.OpDelete:
		if r.setsInFlight[groupID] > 0 {
			c.raced(groupID, "delete issued while a setTopology of the group was in flight")
		}
		r.deletesInFlight[groupID]++
		if r.adminDeleting[groupID] > 0 {
			r.adminRowDeleted[groupID] = true
		}
	}
}

func (c *checker) onPluginDone(op plugin.Op, groupID string, err error) {
	r := &c.rules
	switch op {
	case plugin.OpSet:
		if r.setsInFlight[groupID]--; r.setsInFlight[groupID] <= 0 {
			delete(r.setsInFlight, groupID)
		}
		if err != nil {
			c.raced(groupID, "setTopology failed and may have applied")
		}
	case plugin.OpDelete:
		if err != nil {
			c.lossRaced(groupID, "deleteTopology failed and may have applied")
		}
		if r.deletesInFlight[groupID]--; r.deletesInFlight[groupID] <= 0 {
			delete(r.deletesInFlight, groupID)
		}
	}
}

func (c *checker) raced(groupID, why string) {
	if _, seen := c.rules.raced[groupID]; !seen && c.w.opts.Protocol.AcceptsDataLossRace() {
		c.rules.raced[groupID] = why
		c.w.mark("v1-race-event")
	}
}

// adminDeleteStarted and adminDeleteDone follow the admin's DeleteGroups
// of a group: one that issued a deleteTopology and then failed (its
// tombstone did not land: the partition moved, the append failed, a member
// joined) leaves the group with a stored epoch whose row is gone, which v1
// accepts (24).
func (c *checker) adminDeleteStarted(groupID string) { c.rules.adminDeleting[groupID]++ }

func (c *checker) adminDeleteDone(groupID string, err error) {
	r := &c.rules
	if r.adminDeleting[groupID]--; r.adminDeleting[groupID] > 0 {
		return
	}
	delete(r.adminDeleting, groupID)
	if r.adminRowDeleted[groupID] && err != nil {
		c.lossRaced(groupID, "DeleteGroups deleted the row, then failed: "+err.Error())
	}
	delete(r.adminRowDeleted, groupID)
}

// lossRaced records a v1 event that explains a lost row of groupID (24).
func (c *checker) lossRaced(groupID, why string) {
	if _, seen := c.rules.lossRaced[groupID]; !seen && c.w.opts.Protocol.AcceptsDataLossRace() {
		c.rules.lossRaced[groupID] = why
		c.w.mark("v1-loss-event")
	}
}

// explainedLoss reports whether a v1 lost row of groupID has an accepted
// race event behind it (24): any event that explains a leak, or one that
// can only lose a row.
func (c *checker) explainedLoss(groupID string) bool {
	_, ok := c.rules.lossRaced[groupID]
	return ok || c.explained(groupID)
}

// explained reports whether a v1 leaked row of groupID has an accepted
// race event behind it (15).
func (c *checker) explained(groupID string) bool {
	_, ok := c.rules.raced[groupID]
	return ok
}
