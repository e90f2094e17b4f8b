package coordinator

import (
	"fmt"

	"github.com/google/btree"
)

// The due index keeps every hosted shard's earliest deadline (a load, a
// commit or a timer; hosted.nextDeadline) in one ordered set, so
// NextDeadline and Poll read the earliest in O(1) instead of scanning every
// hosted shard after each event. A shard's entry is refreshed whenever what
// its deadline derives from changes: its timer queue reports every change
// (TimerQueue.changed), and the code that changes its pending commits or
// its status calls reindexDue. Ties go to the lower partition, as the scan
// did.

// lessDue orders hosted shards by their indexed deadline, then partition.
func lessDue(a, b *hosted) bool {
	if a.dueAtMs != b.dueAtMs {
		return a.dueAtMs < b.dueAtMs
	}
	return a.partition < b.partition
}

func newDueIndex() *btree.BTreeG[*hosted] { return btree.NewG(8, lessDue) }

// reindexDue brings h's entry in the due index up to date: h's current
// earliest deadline, or no entry when it has none (or is no longer hosted).
func (c *Coordinator) reindexDue(h *hosted) {
	at, ok := h.nextDeadline()
	if ok && c.shards[h.partition] != h {
		ok = false // unloaded: its work is gone with it
	}
	if h.dueIndexed && ok && at == h.dueAtMs {
		return
	}
	if h.dueIndexed {
		c.due.Delete(h)
		h.dueIndexed = false
	}
	if ok {
		h.dueAtMs, h.dueIndexed = at, true
		c.due.ReplaceOrInsert(h)
	}
}

// watchTimers makes h's timer queue keep h's due entry current.
func (c *Coordinator) watchTimers(h *hosted) {
	h.timers.changed = func() { c.reindexDue(h) }
}

// earliestDue is the hosted shard with the earliest deadline, or nil.
func (c *Coordinator) earliestDue() *hosted {
	if c.verifyDue {
		c.checkDueIndex()
	}
	h, ok := c.due.Min()
	if !ok {
		return nil
	}
	return h
}

// checkDueIndex panics unless the due index holds exactly what a scan of
// every hosted shard gives. Config-independent and slow: for tests
// (Options.VerifyDueIndex).
func (c *Coordinator) checkDueIndex() {
	n := 0
	for p, h := range c.shards { // order-free: a count and per-shard checks
		at, ok := h.nextDeadline()
		switch {
		case ok != h.dueIndexed:
			panic(fmt.Sprintf("coordinator: due index: partition %d has a deadline %v, indexed %v", p, ok, h.dueIndexed))
		case ok && at != h.dueAtMs:
			panic(fmt.Sprintf("coordinator: due index: partition %d is due at %d, indexed at %d", p, at, h.dueAtMs))
		case ok:
			if _, found := c.due.Get(h); !found {
				panic(fmt.Sprintf("coordinator: due index: partition %d is missing", p))
			}
			n++
		}
	}
	if n != c.due.Len() {
		panic(fmt.Sprintf("coordinator: due index holds %d shards, %d are due", c.due.Len(), n))
	}
}
