package sim

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/shard"
	"github.com/coordsim/coordsim/sim/invariants"
)

// InvRevocationBounded promises that a stalled revocation ends: the
// rebalance timeout fences a member that never acknowledges, so its
// partitions (tasks) can move on. Issue 27: nothing checked that a stalled
// revocation is eventually timed out.
const InvRevocationBounded = invariants.RevocationBounded

// revocationSlackMs is how long past its rebalance timeout a revoking
// member may stay: the timer's write may wait for a commit, fail and be
// retried 500 ms later, and the timer fires only when its broker polls.
const revocationSlackMs = 60_000

// revocation is a member the checker saw left revoking.
type revocation struct {
	p         int32
	epoch     int32
	sinceMs   int64 // the last write that left it revoking, or its shard's load
	timeoutMs int64
}

func (r revocation) deadlineMs() int64 { return r.sinceMs + r.timeoutMs + revocationSlackMs }

// noteRevocation records what one current-assignment record says about a
// member's revocation (25): revoking at epoch (re-)arms its deadline,
// anything else ends it.
func (c *checker) noteRevocation(latest *shard.Shard, group, member string, epoch int32, revoking bool) {
	k := memberKey{group, member}
	if !revoking || epoch < 0 {
		delete(c.revocations, k)
		return
	}
	timeoutMs := int64(-1)
	if d, ok := latest.DescribeGroup(group); ok {
		for _, m := range d.Members {
			if m.MemberID == member {
				timeoutMs = int64(m.RebalanceTimeoutMs)
			}
		}
	}
	if timeoutMs < 0 {
		return
	}
	if c.revocations == nil {
		c.revocations = map[memberKey]revocation{}
	}
	r := revocation{p: coordinator.PartitionFor(group, c.w.opts.Partitions), epoch: epoch, sinceMs: c.w.nowMs(), timeoutMs: timeoutMs}
	c.revocations[k] = r
	c.revocationDueMs = min(c.revocationDueMs, r.deadlineMs())
}

// revocationsReloaded restarts the deadlines of partition p's revoking
// members: a load re-arms their rebalance timers from now (onLoaded).
func (c *checker) revocationsReloaded(p int32) {
	for k, r := range c.revocations {
		if r.p == p {
			r.sinceMs = c.w.nowMs()
			c.revocations[k] = r
		}
	}
}

// checkRevocationBounded checks, once the earliest deadline has passed,
// every revoking member past its deadline (25): it must no longer be
// revoking at that epoch.
func (c *checker) checkRevocationBounded() {
	w := c.w
	now := w.nowMs()
	if len(c.revocations) == 0 || now < c.revocationDueMs {
		return
	}
	next := int64(math.MaxInt64)
	keys := slices.SortedFunc(maps.Keys(c.revocations), func(a, b memberKey) int {
		return cmp.Or(cmp.Compare(a.group, b.group), cmp.Compare(a.member, b.member))
	})
	for _, k := range keys {
		r := c.revocations[k]
		if now < r.deadlineMs() {
			next = min(next, r.deadlineMs())
			continue
		}
		b := w.owner[r.p]
		var latest *shard.Shard
		var err error
		if b >= 0 {
			latest, err = w.brokers[b].c.LatestShard(r.p)
		}
		if b < 0 || err != nil {
			next = min(next, now+1_000) // moving or loading: its load restarts the clock
			continue
		}
		delete(c.revocations, k)
		st, ok := latest.MemberState(k.group, k.member)
		epoch, _ := latest.MemberEpoch(k.group, k.member)
		if ok && st == shard.MemberUnrevokedPartitions && epoch == r.epoch {
			w.violate(InvRevocationBounded, fmt.Sprintf("member %s of %s is still revoking at epoch %d, %dms after it was asked to (rebalance timeout %dms)",
				k.member, k.group, epoch, now-r.sinceMs, r.timeoutMs))
			return
		}
		w.mark("revocation-ended-in-time")
	}
	c.revocationDueMs = next
}
