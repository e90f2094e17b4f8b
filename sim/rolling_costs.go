package sim

import (
	"github.com/coordsim/coordsim/shard"
	"github.com/coordsim/coordsim/sim/consumption"
)

// What a rolling upgrade costs its applications' records (issue 24): every
// rolling-upgrade application is measured by package consumption, from
// what its clients hold after each event, the positions they commit and
// the commits the coordinator accepts. Measuring only reads the actors:
// it draws nothing, schedules nothing and traces nothing, so a run's trace
// is the same with it (the rolling-upgrade hash is pinned).
//
// Workload.RollingUpgradeBaseline runs the same applications on the consumer
// protocol from the start, never rolled: the all-KIP-848 run that
// CompareKIP848 measures a rolling upgrade against.

// rollingCosts is the measurement of a run with rolling-upgrade groups
// (nil without any).
type rollingCosts struct {
	t      *consumption.Tracker
	groups []*costGroup
	of     map[*simGroup]*costGroup
}

// costGroup is one measured application and what the tracker last saw
// each of its live members hold.
type costGroup struct {
	g     *simGroup
	idx   int
	endMs int64
	// seen are the members not yet known gone and empty, by their index
	// in g.members (the tracker's member key).
	seen    []seenMember
	members int // how many of g.members have been looked at
	done    bool
}

type seenMember struct {
	i    int
	held []shard.TopicPartitions
}

func newRollingCosts(w *world) *rollingCosts {
	if w.opts.Workload.RollingUpgradeGroups == 0 {
		return nil
	}
	return &rollingCosts{t: consumption.NewTracker(), of: map[*simGroup]*costGroup{}}
}

// add measures a rolling application from its birth to its last member's
// end: its death, or the workload's end where every group dies.
func (rc *rollingCosts) add(w *world, g *simGroup) {
	if rc == nil || g.rolling == nil {
		return
	}
	end := min(g.diesMs, startMs+w.opts.Duration.Milliseconds())
	cg := &costGroup{g: g, endMs: end, idx: rc.t.AddGroup(g.id, w.topics[g.topic], g.bornMs, end)}
	rc.groups = append(rc.groups, cg)
	rc.of[g] = cg
}

// afterEvent takes and releases what the live applications' members
// started or stopped holding in the event that just ran: a gone member
// holds nothing.
func (rc *rollingCosts) afterEvent(now int64) {
	if rc == nil {
		return
	}
	for _, cg := range rc.groups {
		if cg.done || now < cg.g.bornMs {
			continue
		}
		for ; cg.members < len(cg.g.members); cg.members++ {
			cg.seen = append(cg.seen, seenMember{i: cg.members})
		}
		keep := cg.seen[:0]
		for _, s := range cg.seen {
			m := cg.g.members[s.i]
			var held []shard.TopicPartitions
			if !m.gone {
				held = m.assigned
			}
			if !sameSlice(held, s.held) {
				rc.diff(cg, s.i, s.held, held, now)
				s.held = held
			}
			if !m.gone || len(s.held) > 0 {
				keep = append(keep, s)
			}
		}
		cg.seen = keep
		cg.done = now >= cg.endMs && len(cg.seen) == 0
	}
}

// diff releases what a member let go of and takes what it gained.
func (rc *rollingCosts) diff(cg *costGroup, who int, was, is []shard.TopicPartitions, now int64) {
	for _, tp := range minusPartitions(was, is) {
		if tp.Topic == cg.g.topic {
			for _, p := range tp.Partitions {
				rc.t.Release(cg.idx, p, who, now)
			}
		}
	}
	for _, tp := range minusPartitions(is, was) {
		if tp.Topic == cg.g.topic {
			for _, p := range tp.Partitions {
				rc.t.Take(cg.idx, p, who, now)
			}
		}
	}
}

// sameSlice reports whether a and b are the same slice value: the actors
// replace a member's holdings, never edit them in place.
func sameSlice(a, b []shard.TopicPartitions) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// memberIndex is the tracker's key of g's member with id, among those it
// measures (-1 for none).
func (rc *rollingCosts) memberIndex(cg *costGroup, id string) int {
	for _, s := range cg.seen {
		if cg.g.members[s.i].id == id {
			return s.i
		}
	}
	return -1
}

// stop: m starts revoking tps and reads them no more.
func (rc *rollingCosts) stop(m *simMember, tps []shard.TopicPartitions, now int64) {
	if rc == nil {
		return
	}
	cg := rc.of[m.g]
	if cg == nil {
		return
	}
	who := rc.memberIndex(cg, m.id)
	for _, tp := range tps {
		if tp.Topic == m.g.topic {
			for _, p := range tp.Partitions {
				rc.t.Stop(cg.idx, p, who, now)
			}
		}
	}
}

// commitSent notes the positions member commits for parts of g's topic;
// the returned commit applies them when the coordinator accepts them.
func (rc *rollingCosts) commitSent(g *simGroup, member string, parts []shard.OffsetCommitPartition, now int64) costCommit {
	if rc == nil {
		return costCommit{}
	}
	cg := rc.of[g]
	if cg == nil {
		return costCommit{}
	}
	who := rc.memberIndex(cg, member)
	c := costCommit{rc: rc, g: cg.idx, pos: map[int32]int64{}}
	for _, p := range parts {
		if pos, ok := rc.t.Position(cg.idx, p.Partition, who, now); ok {
			c.pos[p.Partition] = pos
		}
	}
	return c
}

// costCommit is a commit in flight: the position of each partition sent.
type costCommit struct {
	rc  *rollingCosts
	g   int
	pos map[int32]int64
}

// done applies the partitions the coordinator accepted.
func (c costCommit) done(r shard.OffsetCommitResponse, err error) {
	if c.rc == nil || err != nil {
		return
	}
	for _, t := range r.Topics {
		for _, p := range t.Partitions {
			if pos, ok := c.pos[p.Partition]; ok && p.Err == nil {
				c.rc.t.Commit(c.g, p.Partition, pos)
			}
		}
	}
}

// window opens (or closes) a group's roll.
func (rc *rollingCosts) window(g *simGroup, toClassic, open bool, now int64) {
	if rc == nil {
		return
	}
	cg := rc.of[g]
	if cg == nil {
		return
	}
	kind := consumption.Upgrade
	if toClassic {
		kind = consumption.Downgrade
	}
	if open {
		rc.t.OpenWindow(cg.idx, kind, now)
	} else {
		rc.t.CloseWindow(cg.idx, kind, now)
	}
}

// finish hands the log to the result; a run stopped early ends it at now.
func (rc *rollingCosts) finish(now int64) *consumption.Log {
	if rc == nil {
		return nil
	}
	return rc.t.Finish(now)
}
