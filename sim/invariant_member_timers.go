package sim

import (
	"fmt"
	"slices"

	"github.com/coordsim/coordsim/shard"
	"github.com/coordsim/coordsim/sim/invariants"
)

// InvMemberTimers promises that a shard that loads or rolls back leaves
// no member without the timer that would fence it: a member without its
// session timer is never fenced when its client dies, and one still
// revoking without its rebalance timer may hold its partitions forever.
// Issue 27: a group type's members losing their timers on a shard load
// was caught by nothing, although most seeds move shards.
const InvMemberTimers = invariants.MemberTimers

// timersDue queues partition p for the member-timers check: its shard
// starts loading or was rolled back. The check runs after the event, once
// the partition's owner serves it.
func (c *checker) timersDue(p int32, why string) {
	if c.timersPending == nil {
		c.timersPending = map[int32]string{}
	}
	if _, queued := c.timersPending[p]; !queued {
		c.timersQueue = append(c.timersQueue, p)
	}
	c.timersPending[p] = why
}

// checkMemberTimers checks every queued partition whose owner now serves
// it (21): each member of the latest state has its session timer (a
// classic member its heartbeat timer), and each consumer or streams member
// still revoking its rebalance timer. A partition still loading stays
// queued.
func (c *checker) checkMemberTimers() {
	if len(c.timersQueue) == 0 {
		return
	}
	w := c.w
	waiting := c.timersQueue[:0]
	for _, p := range c.timersQueue {
		b := w.owner[p]
		if b < 0 {
			waiting = append(waiting, p)
			continue
		}
		latest, err := w.brokers[b].c.LatestShard(p)
		if err != nil {
			waiting = append(waiting, p) // loading
			continue
		}
		why := c.timersPending[p]
		delete(c.timersPending, p)
		if why == "load" {
			c.revocationsReloaded(p)
			if len(latest.ForgottenAtLoad()) > 0 {
				// The load rebuilt a classic group from its last GroupMetadata, as
				// Kafka's does (shard/classic_load.go).
				w.mark("classic-rebuilt-at-load")
			}
		}
		w.mark("member-timers-checked-after-" + why)
		if missing := missingTimer(latest, w.brokers[b].c.TimerKeys(p)); missing != "" {
			w.violate(InvMemberTimers, fmt.Sprintf("partition %d on broker %d after a %s: %s", p, b, why, missing))
		}
	}
	c.timersQueue = waiting
}

// missingTimer names the first member of s without the timer it needs
// among keys (sorted), or "". A classic member parked in JoinGroup or
// SyncGroup (ClassicMember.HasSatisfiedHeartbeat) may have none: its
// heartbeat expiring while it is parked does nothing and arms nothing
// (Kafka's expireClassicGroupMemberHeartbeat), and the group's join or
// sync timer is what answers it and re-arms its heartbeat
// (completeClassicGroupJoin, propagateAssignment). Issue 27's seeds 18, 29
// and 171: a crashed leader's expiry failed its append, and the followers
// parked in SyncGroup, whose timers were due at the same instant, expired
// right after the rollback; the retried expiry 500 ms later answers them.
func missingTimer(s *shard.Shard, keys []string) string {
	has := func(key string) bool {
		_, found := slices.BinarySearch(keys, key)
		return found
	}
	missing := ""
	s.ListGroups(func(gl shard.GroupListing) bool {
		d, _ := s.DescribeGroup(gl.GroupID)
		if d.Type == shard.Classic {
			if d.Classic == nil {
				return true
			}
			for _, m := range d.Classic.Members {
				key := shard.ClassicHeartbeatKey(gl.GroupID, m.MemberID)
				if has(key) {
					continue
				}
				if !m.HasSatisfiedHeartbeat() {
					missing = fmt.Sprintf("classic member %s of %s has no heartbeat timer (%s)", m.MemberID, gl.GroupID, key)
					return false
				}
				// Parked, its heartbeat's expiry was a no-op that armed
				// nothing, in Kafka too; the phase's timer answers it.
				if phase := classicPhaseTimer(d.Classic); phase == "" || !has(phase) {
					missing = fmt.Sprintf("classic member %s of %s is parked in the %s state with no heartbeat timer (%s) and no join or sync timer (%s) to answer it",
						m.MemberID, gl.GroupID, d.Classic.State, key, phase)
					return false
				}
			}
			return true
		}
		for _, m := range d.Members {
			if key := shard.SessionTimeoutKey(gl.GroupID, m.MemberID); !has(key) {
				missing = fmt.Sprintf("%s member %s of %s has no session timer (%s)", d.Type, m.MemberID, gl.GroupID, key)
				return false
			}
			revoking := (d.Type == shard.Consumer || d.Type == shard.Streams) && m.State == shard.MemberUnrevokedPartitions
			if key := shard.RebalanceTimeoutKey(gl.GroupID, m.MemberID); revoking && !has(key) {
				missing = fmt.Sprintf("%s member %s of %s is revoking at epoch %d and has no rebalance timer (%s)", d.Type, m.MemberID, gl.GroupID, m.MemberEpoch, key)
				return false
			}
		}
		return true
	})
	return missing
}

// classicPhaseTimer is the key of the timer that ends the phase a classic
// group's parked requests wait in: the join timer while it prepares a
// rebalance, the pending-sync timer while it waits for SyncGroups; "" in
// any other state, where no request stays parked.
func classicPhaseTimer(st *shard.ClassicGroupState) string {
	switch st.State {
	case shard.StatePreparingRebalance:
		return shard.ClassicJoinKey(st.Group)
	case shard.StateCompletingRebalance:
		return shard.ClassicSyncKey(st.Group)
	}
	return ""
}
