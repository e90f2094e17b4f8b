package coordinator

import (
	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/shard"
)

// The classic group protocol's operations and the routing of their late
// answers. The shard parks a JoinGroup or SyncGroup under a handle the
// coordinator picks (shard.JoinGroupRequest.Handle) and answers it later
// as a shard.Completion carried by whatever operation or timer releases
// it; the coordinator keeps each parked request's future by handle,
// per hosted shard, and completes it when that later result commits. A
// handle is the shard's load epoch and a counter, so a handle left in a
// replayed state by an earlier load never names a request of this one.
// Unloading a shard fails its parked requests with NOT_COORDINATOR, as the
// client must find the new coordinator.

// classicWaiter is one parked request's future.
type classicWaiter struct {
	join *Future[shard.JoinGroupResponse]
	sync *Future[shard.SyncGroupResponse]
}

// nextClassicHandle returns a fresh handle for a request on h.
func (h *hosted) nextClassicHandle() uint64 {
	h.classicHandles++
	return uint64(uint32(h.loadEpoch))<<32 | uint64(h.classicHandles)
}

// deliverCompletions completes the parked requests that cs answer.
// Completions for requests nobody waits for (an earlier load's, or one
// whose caller is gone) are dropped.
func (h *hosted) deliverCompletions(cs []shard.Completion) {
	for _, c := range cs {
		w, ok := h.classicWaiters[c.Handle]
		if !ok {
			continue
		}
		delete(h.classicWaiters, c.Handle)
		switch {
		case c.Join != nil && w.join != nil:
			w.join.complete(*c.Join, nil)
		case c.Sync != nil && w.sync != nil:
			w.sync.complete(*c.Sync, nil)
		}
	}
}

// failClassicWaiters fails every parked request of h with err.
func (h *hosted) failClassicWaiters(err error) {
	ws := h.classicWaiters
	h.classicWaiters = nil
	for _, handle := range sortedHandles(ws) {
		w := ws[handle]
		if w.join != nil {
			w.join.complete(shard.JoinGroupResponse{}, err)
		}
		if w.sync != nil {
			w.sync.complete(shard.SyncGroupResponse{}, err)
		}
	}
}

func sortedHandles(ws map[uint64]classicWaiter) []uint64 {
	out := make([]uint64, 0, len(ws))
	for k := range ws {
		out = append(out, k)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func (h *hosted) park(handle uint64, w classicWaiter) {
	if h.classicWaiters == nil {
		h.classicWaiters = map[uint64]classicWaiter{}
	}
	h.classicWaiters[handle] = w
}

// classicDone settles a classic write at commit: its own future (or, when
// the answer is Pending, parks it) and then the completions it releases.
type classicDone[R any] struct {
	h           *hosted
	handle      uint64
	f           *Future[R]
	pending     bool
	park        func(uint64)
	completions []shard.Completion
}

func (d *classicDone[R]) settle(err error) {
	if err != nil {
		d.f.settle(err)
		return
	}
	if d.pending {
		d.park(d.handle)
	} else {
		d.f.settle(nil)
	}
	d.h.deliverCompletions(d.completions)
}

// classicWrite runs a classic operation on partition p's latest state
// under a fresh handle. An answer that is pending parks the future as
// waiter(f) until a later commit completes it; an operation whose answers
// are never pending passes a nil waiter.
func classicWrite[R any](c *Coordinator, name string, p int32, op func(s *shard.Shard, now int64, handle uint64) (shard.Result[R], error),
	pending func(R) bool, waiter func(*Future[R]) classicWaiter) *Future[R] {
	var zero R
	h, err := c.shardFor(p)
	if err != nil {
		return completed(zero, err)
	}
	handle := h.nextClassicHandle()
	res, err := op(h.latest, c.nowMs(), handle)
	if err != nil {
		return completed(zero, err)
	}
	f := &Future[R]{staged: res.Response}
	d := &classicDone[R]{h: h, handle: handle, f: f, pending: pending(res.Response), completions: res.Completions,
		park: func(handle uint64) { h.park(handle, waiter(f)) }}
	c.appendRecords(h, name, res.Records, res.Timers, d)
	return f
}

// JoinGroup handles a classic JoinGroup. The future completes when the
// shard answers: at once for errors and MEMBER_ID_REQUIRED, at the end of
// the join phase otherwise (Kafka's delayed join). req.Handle is set here.
func (c *Coordinator) JoinGroup(req shard.JoinGroupRequest) *Future[shard.JoinGroupResponse] {
	// GroupCoordinatorService.joinGroup answers INVALID_GROUP_ID with the
	// request's member id.
	invalid := func(err error) shard.JoinGroupResponse {
		return shard.JoinGroupResponse{MemberID: req.MemberID, Err: err}
	}
	return routedClassic(c, req.GroupID, invalid, func(p int32) *Future[shard.JoinGroupResponse] {
		return classicWrite(c, "classic-group-join", p,
			func(s *shard.Shard, now int64, handle uint64) (shard.Result[shard.JoinGroupResponse], error) {
				req.Handle = handle
				return s.JoinGroup(now, req)
			},
			func(r shard.JoinGroupResponse) bool { return r.Pending },
			func(f *Future[shard.JoinGroupResponse]) classicWaiter { return classicWaiter{join: f} })
	})
}

// SyncGroup handles a classic SyncGroup; a follower's future completes
// when the leader's assignment is committed.
func (c *Coordinator) SyncGroup(req shard.SyncGroupRequest) *Future[shard.SyncGroupResponse] {
	invalid := func(err error) shard.SyncGroupResponse { return shard.SyncGroupResponse{Err: err} }
	return routedClassic(c, req.GroupID, invalid, func(p int32) *Future[shard.SyncGroupResponse] {
		return classicWrite(c, "classic-group-sync", p,
			func(s *shard.Shard, now int64, handle uint64) (shard.Result[shard.SyncGroupResponse], error) {
				req.Handle = handle
				return s.SyncGroup(now, req)
			},
			func(r shard.SyncGroupResponse) bool { return r.Pending },
			func(f *Future[shard.SyncGroupResponse]) classicWaiter { return classicWaiter{sync: f} })
	})
}

// routedClassic is routed for JoinGroup and SyncGroup, which Kafka's
// GroupCoordinatorService validates before routing: a bad group id is
// answered in the response (invalid(err), INVALID_GROUP_ID), not as the
// request's error.
func routedClassic[R any](c *Coordinator, groupID string, invalid func(error) R, fn func(p int32) *Future[R]) *Future[R] {
	if !c.active {
		var zero R
		return completed(zero, kerr.CoordinatorNotAvailable.WithMessage("the coordinator is not active"))
	}
	if err := shard.ValidateGroupID(groupID); err != nil {
		return completed(invalid(err), nil)
	}
	return routed(c, groupID, fn)
}

// Heartbeat handles a classic Heartbeat.
func (c *Coordinator) Heartbeat(req shard.HeartbeatRequest) *Future[struct{}] {
	return routed(c, req.GroupID, func(p int32) *Future[struct{}] {
		h, err := c.shardFor(p)
		if err != nil {
			return completed(struct{}{}, err)
		}
		res, err := h.latest.Heartbeat(c.nowMs(), req)
		// A heartbeat writes nothing; its timer restarts even when it
		// answers REBALANCE_IN_PROGRESS.
		c.applyTimers(h, res.Timers)
		if err == nil {
			err = res.Response.Err
		}
		if err != nil {
			return completed(struct{}{}, err)
		}
		f := &Future[struct{}]{}
		c.await(h, h.log.EndOffset(), f)
		return f
	})
}

// LeaveGroup handles a classic LeaveGroup.
func (c *Coordinator) LeaveGroup(req shard.LeaveGroupRequest) *Future[shard.LeaveGroupResponse] {
	return routed(c, req.GroupID, func(p int32) *Future[shard.LeaveGroupResponse] {
		return classicWrite(c, "classic-group-leave", p,
			func(s *shard.Shard, now int64, _ uint64) (shard.Result[shard.LeaveGroupResponse], error) {
				return s.LeaveGroup(now, req)
			},
			func(shard.LeaveGroupResponse) bool { return false }, nil)
	})
}

// AbandonClassicRequest forgets a parked request whose caller stopped
// waiting (its client disconnected). The group keeps the member parked, as
// Kafka's does; its answer, when it comes, is dropped.
func (c *Coordinator) AbandonClassicRequest(groupID string, handle uint64) {
	p, err := c.routeGroup(groupID)
	if err != nil {
		return
	}
	if h := c.shards[p]; h != nil {
		delete(h.classicWaiters, handle)
	}
}
