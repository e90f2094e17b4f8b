package sim

import (
	"fmt"
	"slices"
	"strings"

	"github.com/coordsim/coordsim/shard"
)

// Invariant 14, no live member fenced: a member the client keeps alive is
// never removed by its session timer. It covers the KIP-848 members of
// consumer, streams and share groups (the session timer tombstones the
// member record) and the classic members: a classic group's member, whose
// heartbeat timer (Kafka's "heartbeat-<group>-<member>") removes it from
// the group, and a classic member of a consumer group after an online
// upgrade, whose session timer runs at the session timeout its JoinGroup
// asked for.

// heartbeatSeen is a member's latest heartbeat the coordinator accepted:
// when the client sent it (the coordinator handled it then or later, so
// its timer runs at least timeout from there) and, for a classic member,
// the session timeout its JoinGroup asked for (0: the group type's
// configured session timeout).
type heartbeatSeen struct {
	sentMs    int64
	timeoutMs int64
}

// onHeartbeatAccepted records that the coordinator accepted a KIP-848
// heartbeat the member sent at sentMs: its session timer runs from there.
func (c *checker) onHeartbeatAccepted(group, member string, sentMs int64) {
	c.heartbeatAccepted(group, member, heartbeatSeen{sentMs: sentMs})
}

// onClassicHeartbeatAccepted records that the coordinator accepted a
// classic member's JoinGroup, SyncGroup or Heartbeat sent at sentMs, with
// the session timeout the member joined with: each restarts its session
// (rescheduleClassicGroupMemberHeartbeat; for a classic member of a consumer
// group, scheduleConsumerGroupSessionTimeout with that timeout).
func (c *checker) onClassicHeartbeatAccepted(group, member string, sentMs, sessionTimeoutMs int64) {
	c.heartbeatAccepted(group, member, heartbeatSeen{sentMs: sentMs, timeoutMs: sessionTimeoutMs})
}

func (c *checker) heartbeatAccepted(group, member string, hb heartbeatSeen) {
	k := memberKey{group, member}
	if hb.sentMs > c.rules.heartbeatOK[k].sentMs {
		c.rules.heartbeatOK[k] = hb
	}
}

// checkNoLiveMemberFenced checks the members a write removes by a session
// timer: the session-timeout tombstones of KIP-848 members (classic
// members of consumer groups among them; not the ones an online downgrade
// moves to the classic group) and the member a classic group's heartbeat
// timer removed (14).
func (c *checker) checkNoLiveMemberFenced(op string, latest *shard.Shard, records []shard.Record) {
	switch {
	case op == "session-timeout":
		cfg := latest.Config()
		for _, r := range records {
			g, m, typ, ok := memberTombstone(r)
			if !ok || convertedToClassic(records, g, m) {
				continue
			}
			timeout := int64(cfg.ConsumerSessionTimeoutMs)
			switch typ {
			case shard.Streams:
				timeout = int64(cfg.StreamsSessionTimeoutMs)
			case shard.Share:
				timeout = int64(cfg.ShareSessionTimeoutMs)
			}
			c.checkFencedMember(g, m, timeout)
		}
	case strings.HasPrefix(op, "heartbeat-"):
		for _, r := range records {
			if st, ok := r.(*shard.ClassicGroupState); ok {
				if m, removed := classicHeartbeatExpired(op, st); removed {
					c.w.mark("classic-heartbeat-expired")
					c.checkFencedMember(st.Group, m, int64(latest.Config().ConsumerSessionTimeoutMs))
				}
			}
		}
	}
}

// convertedToClassic reports whether member m of consumer group g lives on
// in the classic group the same write turns g into: the online downgrade
// tombstones every member of the consumer group (convertToClassicGroup),
// and those left, the classic members, move to the classic group.
func convertedToClassic(records []shard.Record, g, m string) bool {
	for _, r := range records {
		if st, ok := r.(*shard.ClassicGroupState); ok && st.Group == g &&
			slices.ContainsFunc(st.Members, func(cm shard.ClassicMember) bool { return cm.MemberID == m }) {
			return true
		}
	}
	return false
}

// classicHeartbeatExpired returns the member whose heartbeat timer op is,
// when the group state st the timer wrote no longer holds it.
func classicHeartbeatExpired(op string, st *shard.ClassicGroupState) (string, bool) {
	m, ok := strings.CutPrefix(op, "heartbeat-"+st.Group+"-")
	if !ok || shard.ClassicHeartbeatKey(st.Group, m) != op {
		return "", false
	}
	held := slices.ContainsFunc(st.Members, func(cm shard.ClassicMember) bool { return cm.MemberID == m })
	return m, !held && !slices.Contains(st.PendingMembers, m)
}

// checkFencedMember reports member m of group g, removed by its session
// timer now, if the coordinator accepted a heartbeat of it within its
// session timeout (defaultTimeoutMs unless its JoinGroup asked for one).
func (c *checker) checkFencedMember(g, m string, defaultTimeoutMs int64) {
	hb, seen := c.rules.heartbeatOK[memberKey{g, m}]
	if !seen {
		return
	}
	timeout := defaultTimeoutMs
	if hb.timeoutMs > 0 {
		timeout = hb.timeoutMs
	}
	if c.w.nowMs()-hb.sentMs < timeout {
		c.w.violate(InvNoLiveMemberFenced, fmt.Sprintf("member %s of %s fenced %dms after a heartbeat the coordinator accepted (session timeout %dms)",
			m, g, c.w.nowMs()-hb.sentMs, timeout))
	}
}
