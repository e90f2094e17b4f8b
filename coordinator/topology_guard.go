package coordinator

import (
	"errors"

	"github.com/coordsim/coordsim/kerr"
)

// errPushInFlight marks a DeleteGroups row delete whose group had a push in
// flight (v3, hole 4): the group is kept, as after a failed delete, and
// answers GROUP_DELETION_FAILED (retriable).
var errPushInFlight = errors.New("a push of the group is in flight")

// deleteGuard is protocol v3's rule that, within one load of a partition, no
// push of a group overlaps a delete of that group (docs/kip1331-v3.md,
// "A finalize whose write fails after its delete applied"). v2 lets a member
// push while the cycle's deleteTopology is in flight and relies on the
// finalize write to send the advanced stored epoch back to -2; when that
// write fails (an append error), the log keeps a stored epoch whose row the
// late delete erased, and nothing asks for the description again. v3 closes
// the window instead of repairing after it: from the mark until the
// finalize's outcome is known (a delete episode), the heartbeat does not
// solicit the group and a push is refused, so the stored epoch cannot
// advance past a delete it overlaps; a failed finalize then leaves -2, which
// is solicited and cleaned again. Across loads v3's fence refuses the stale
// delete. A push validated before the episode began, whose set completes
// after, does not record its epoch either: its row may be in the store or
// erased, so the group is left (or put back) at -2.
//
// In memory, per broker, never replayed: a reload ends every episode with the
// load (the new load's calls carry a higher fencing token).
type deleteGuard struct {
	seq     uint64            // episodes begun on this broker
	active  map[string]int    // group -> episodes in flight
	began   map[string]uint64 // group -> seq of its newest episode, while one or a push is in flight
	pushes  map[string]int    // group -> pushes validated whose outcome is not recorded yet
	touched map[string]bool   // group -> a push's set completed during an episode: the store may hold a row
}

func newDeleteGuard() *deleteGuard {
	return &deleteGuard{active: map[string]int{}, began: map[string]uint64{}, pushes: map[string]int{}, touched: map[string]bool{}}
}

// guardsDeletes reports whether the protocol keeps pushes and deletes of a
// group apart (v3 only: v2 keeps Kafka's behaviour as merged).
func (c *Coordinator) guardsDeletes() bool { return c.topology.protocol.GuardsDeletesAgainstPushes() }

// beginDeleteEpisode opens an episode for each group; the returned function
// closes them (call it exactly once, after the finalize's outcome is known).
func (c *Coordinator) beginDeleteEpisode(groupIDs []string) (end func()) {
	if !c.guardsDeletes() || len(groupIDs) == 0 {
		return func() {}
	}
	g := c.topology.guard
	for _, id := range groupIDs {
		g.seq++
		g.active[id]++
		g.began[id] = g.seq
	}
	return func() {
		for _, id := range groupIDs {
			g.active[id]--
			if g.active[id] > 0 {
				continue
			}
			delete(g.active, id)
			delete(g.touched, id)
			if g.pushes[id] == 0 {
				delete(g.began, id)
			}
		}
	}
}

// deleteInFlight reports whether a delete episode of the group is open.
func (c *Coordinator) deleteInFlight(groupID string) bool {
	return c.guardsDeletes() && c.topology.guard.active[groupID] > 0
}

// pushPending reports (and emits EventPushInFlightKept) whether a push of the group, validated on this broker,
// has not recorded its outcome yet (v3). Its set may still reach the store
// after any delete the coordinator makes now, so the group must not be
// finalized to -1 or tombstoned: it stays -2 and a later cycle deletes what
// the set leaves (docs/kip1331-v3.md, hole 4). Across loads the fence covers
// the same case: the later load's delete carries a higher token, which the
// store keeps, so the earlier load's late set is refused.
func (c *Coordinator) pushPending(groupID string) bool {
	if !c.guardsDeletes() || c.topology.guard.pushes[groupID] == 0 {
		return false
	}
	c.emit(TopologyEvent{Kind: EventPushInFlightKept, Partition: c.PartitionFor(groupID), GroupID: groupID})
	return true
}

// takeTouched reports, once, whether a push's set completed during the open
// episode of the group: its finalize must leave it at -2, not -1.
func (c *Coordinator) takeTouched(groupID string) bool {
	g := c.topology.guard
	t := g.touched[groupID]
	delete(g.touched, groupID)
	return t
}

// errDeleteInFlight is the answer to a push that would overlap a delete:
// Kafka's STREAMS_TOPOLOGY_DESCRIPTION_UPDATE_FAILED, on which a client
// drops the push and waits to be solicited again, which happens once the
// delete and its finalize are done.
func errDeleteInFlight(groupID string) error {
	return kerr.StreamsTopologyDescriptionUpdateFailed.WithMessage(
		"the topology description of group %s is being deleted; the coordinator will ask for it again", groupID)
}

// pushTicket is a push's registration with the guard, taken after its
// validation read.
type pushTicket struct {
	groupID string
	seq     uint64 // the guard's seq at validation
	live    bool
}

// admitPush registers a push of groupID, or refuses it while a delete
// episode of the group is open.
func (c *Coordinator) admitPush(groupID string) (pushTicket, error) {
	if !c.guardsDeletes() {
		return pushTicket{}, nil
	}
	if c.deleteInFlight(groupID) {
		return pushTicket{}, errDeleteInFlight(groupID)
	}
	g := c.topology.guard
	g.pushes[groupID]++
	return pushTicket{groupID: groupID, seq: g.seq, live: true}, nil
}

// overlapped reports whether an episode of the push's group began after the
// push was validated (so its set may have landed before or after that
// episode's delete).
func (c *Coordinator) overlapped(t pushTicket) bool {
	return t.live && c.topology.guard.began[t.groupID] > t.seq
}

// releasePush ends a push's registration.
func (c *Coordinator) releasePush(t pushTicket) {
	if !t.live {
		return
	}
	g := c.topology.guard
	g.pushes[t.groupID]--
	if g.pushes[t.groupID] > 0 {
		return
	}
	delete(g.pushes, t.groupID)
	if g.active[t.groupID] == 0 {
		delete(g.began, t.groupID)
	}
}
