package coordinator

import (
	"slices"

	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/plugin"
	"github.com/coordsim/coordsim/shard"
)

// maybeSetTopologyDescriptionRequired is Kafka's solicitation decoration
// (docs/kip1331.md §1.6), applied to a committed heartbeat response. Every gate
// must pass; the last one arms the back-off. A failure inside the decoration
// leaves the committed response as it was (no flag).
func (c *Coordinator) maybeSetTopologyDescriptionRequired(req shard.StreamsGroupHeartbeatRequest, r *shard.StreamsGroupHeartbeatResponse) {
	defer func() {
		if p := recover(); p != nil {
			r.TopologyDescriptionRequired = false
			c.log.Error("topology description solicitation failed; the heartbeat response is kept", "group", req.GroupID, "panic", p)
		}
	}()
	current := r.GroupTopologyEpoch
	switch {
	case req.Version < 1,
		!c.topology.configured(),
		req.MemberEpoch < 0,
		current < 0,
		r.StoredDescriptionTopologyEpoch == current,
		r.FailedDescriptionTopologyEpoch == current,
		slices.Contains(r.Status, shard.StatusStaleTopology),
		c.deleteInFlight(req.GroupID): // v3: asked again once the delete is finalized
		return
	}
	if c.hooks.beforeSolicit != nil {
		c.hooks.beforeSolicit()
	}
	if c.topology.backoff.ArmIfNotActive(req.GroupID, current, c.nowMs()) {
		r.TopologyDescriptionRequired = true
		c.emit(TopologyEvent{Kind: EventSolicited, Partition: c.PartitionFor(req.GroupID), GroupID: req.GroupID, Epoch: current})
	}
}

// StreamsGroupHeartbeat handles a KIP-1071 StreamsGroupHeartbeat, decorated
// with KIP-1331's TopologyDescriptionRequired when the gates pass.
func (c *Coordinator) StreamsGroupHeartbeat(req shard.StreamsGroupHeartbeatRequest) *Future[shard.StreamsGroupHeartbeatResponse] {
	inner := heartbeatWrite(c, "streams-group-heartbeat", shard.Streams, req.GroupID, req.MemberEpoch,
		func(p int32, s *shard.Shard, now int64) (shard.Result[shard.StreamsGroupHeartbeatResponse], error) {
			// The shard owns no timers: tell it whether the group's initial
			// rebalance delay is pending (Kafka's timer.isScheduled).
			r := req
			r.InitialRebalanceScheduled = c.timerScheduled(p, shard.StreamsInitialRebalanceKey(req.GroupID))
			// Nor does it keep soft state: the group's endpoint
			// information epoch and its shutdown request go in, and the
			// epoch comes back (streams_shutdown.go for the request).
			h, _ := c.shardFor(p)
			r.GroupEndpointInformationEpoch = h.endpointEpoch(req.GroupID)
			r.ShutdownRequestMemberID = c.shutdownRequester(p, req.GroupID)
			if h != nil {
				r.GroupTaskOffsets = h.taskOffsets.Group(req.GroupID)
			}
			res, err := s.StreamsGroupHeartbeat(now, r)
			if err != nil && res.Response.Configured {
				// Kafka configured the topology before it threw, and
				// keeps it: its runtime reverts nothing when a write
				// throws.
				h.setStreamsConfigured(req.GroupID, res.Response.ConfiguredTopology, false)
			}
			if err == nil {
				// Kafka sets it in the heartbeat, before the write, and
				// does not roll it back when the write fails.
				h.setEndpointEpoch(req.GroupID, res.Response.GroupEndpointInformationEpoch)
				// Timeline state, kept when a later write throws (Kafka's
				// runtime reverts nothing then). An append that fails
				// does not revert it either (the rollback restores the
				// shard, not this soft state); the initial rebalance
				// delay and describes read it. A leave sets none
				// (Configured).
				if res.Response.Configured {
					h.setStreamsConfigured(req.GroupID, res.Response.ConfiguredTopology, len(res.Records) > 0)
				}
				if h != nil {
					h.taskOffsets.Note(req.GroupID, req.MemberID, res.Response)
				}
			}
			c.noteShutdownRequest(p, r, res.Response, err)
			return res, err
		})
	out := &Future[shard.StreamsGroupHeartbeatResponse]{}
	inner.OnDone(func(r shard.StreamsGroupHeartbeatResponse, err error) {
		if err == nil {
			c.maybeSetTopologyDescriptionRequired(req, &r)
		}
		out.complete(r, err)
	})
	return out
}

// TopologyDescriptionUpdateRequest is KIP-1331's
// StreamsGroupTopologyDescriptionUpdate (apiKey 93): a member pushing the
// full description of its topology at an epoch.
type TopologyDescriptionUpdateRequest struct {
	GroupID       string
	MemberID      string
	TopologyEpoch int32
	Description   *plugin.TopologyDescription
}

// StreamsGroupTopologyDescriptionUpdate handles a push (docs/kip1331.md §1.3–1.4):
// it validates against committed state, (v2) marks a group with nothing
// stored as uncertain, calls setTopology, and records the outcome: success
// writes the stored epoch and clears the epoch's back-off; a permanent
// failure writes the failed epoch and clears the back-off; a transient one
// arms or extends it. Any plugin failure answers
// STREAMS_TOPOLOGY_DESCRIPTION_UPDATE_FAILED.
func (c *Coordinator) StreamsGroupTopologyDescriptionUpdate(req TopologyDescriptionUpdateRequest) *Future[struct{}] {
	fail := func(err error) *Future[struct{}] { return completed(struct{}{}, err) }
	if !c.active {
		return fail(kerr.CoordinatorNotAvailable.WithMessage("the coordinator is not active"))
	}
	if !c.topology.configured() {
		return fail(kerr.UnsupportedVersion.WithMessage("no topology description plugin is configured"))
	}
	switch {
	case req.GroupID == "":
		return fail(kerr.InvalidRequest.WithMessage("GroupId can't be empty."))
	case req.MemberID == "":
		return fail(kerr.InvalidRequest.WithMessage("MemberId can't be empty."))
	case req.Description == nil:
		return fail(kerr.InvalidRequest.WithMessage("TopologyDescription can't be null."))
	}
	if err := shard.ValidateGroupID(req.GroupID); err != nil {
		return fail(kerr.InvalidRequest.WithMessage("GroupId is invalid: %v", err))
	}
	if err := plugin.CheckSetArgs(req.GroupID, req.TopologyEpoch, req.Description); err != nil {
		return fail(kerr.InvalidRequest.WithMessage("%v", err))
	}
	p := c.PartitionFor(req.GroupID)
	target, err := read(c, p, func(s *shard.Shard) (shard.TopologyDescriptionUpdateTarget, error) {
		return s.ValidateTopologyDescriptionUpdate(req.GroupID, req.MemberID, req.TopologyEpoch)
	})
	if err != nil {
		return fail(err)
	}
	token := c.fencingToken(p) // the load the validation read
	ticket, err := c.admitPush(req.GroupID)
	if err != nil {
		return fail(err)
	}
	out := &Future[struct{}]{}
	out.OnDone(func(struct{}, error) { c.releasePush(ticket) })
	d := req.Description.Clone()
	invoke := func() {
		c.invokeSet(req.GroupID, req.TopologyEpoch, d, token, func(outcome PluginOutcome, perr error) {
			if c.overlapped(ticket) && outcome != OutcomeInvalid && outcome != OutcomeFenced {
				c.recordOverlappedSet(req.GroupID, token, out)
				return
			}
			c.recordSetOutcome(req.GroupID, req.TopologyEpoch, token, outcome, perr, out)
		})
	}
	if c.topology.protocol.MarksBeforeDelete() && target.StoredDescriptionTopologyEpoch == shard.EpochNone {
		// v2: commit -2 first so a set that fails or is lost after touching
		// the store still leaves the group eligible for a defensive delete.
		mark := fencedWrite(c, "streams-group-mark-topology-uncertain", p, token, func(s *shard.Shard, _ int64) (shard.Result[struct{}], error) {
			return s.MarkStoredDescriptionTopologyEpochUncertain(req.GroupID)
		})
		mark.OnDone(func(_ struct{}, err error) {
			if err != nil {
				out.complete(struct{}{}, err)
				return
			}
			invoke()
		})
		return out
	}
	invoke()
	return out
}

// recordOverlappedSet is v3's outcome of a set that overlapped a delete
// episode of its group (see deleteGuard): whether its row survived depends
// on the order in which the store applied the set and the delete, so no
// epoch is recorded. During the episode the group is flagged and its
// finalize leaves it at -2; after it, a group finalized to -1 goes back to
// -2. Either way the group is solicited again and cleaned if it stays idle.
func (c *Coordinator) recordOverlappedSet(groupID string, token int32, out *Future[struct{}]) {
	refused := errDeleteInFlight(groupID)
	if c.deleteInFlight(groupID) {
		c.topology.guard.touched[groupID] = true
		out.complete(struct{}{}, refused)
		return
	}
	f := fencedWrite(c, "streams-group-mark-topology-uncertain", c.PartitionFor(groupID), token, func(s *shard.Shard, _ int64) (shard.Result[struct{}], error) {
		return s.MarkStoredDescriptionTopologyEpochUncertain(groupID)
	})
	f.OnDone(func(_ struct{}, err error) {
		if err != nil {
			c.log.Warn("Failed to mark a group uncertain after a push overlapped its delete.", "group", groupID, "err", err)
		}
		out.complete(struct{}{}, refused)
	})
}

// recordSetOutcome records a set's outcome; under v3 only in the load the
// push was validated against (token), so a set that ran for an earlier load
// never claims a row a later load's cleanup may have deleted.
func (c *Coordinator) recordSetOutcome(groupID string, epoch, token int32, outcome PluginOutcome, perr error, out *Future[struct{}]) {
	b := c.topology.backoff
	failed := kerr.StreamsTopologyDescriptionUpdateFailed.WithMessage("%s", plugin.FailedMessage)
	switch outcome {
	case OutcomeInvalid:
		out.complete(struct{}{}, kerr.InvalidRequest.WithMessage("%v", perr))
	case OutcomeFenced:
		// A newer coordinator owns the group: record nothing here (this
		// broker's shard is gone or stale) and send the client there.
		out.complete(struct{}{}, kerr.NotCoordinator.WithMessage("the topology description store fenced the push of group %s: a newer coordinator owns it", groupID))
	case OutcomeTransient:
		b.ArmOrExtend(groupID, epoch, c.nowMs())
		out.complete(struct{}{}, failed)
	case OutcomeSuccess, OutcomePermanent:
		name := "streams-group-set-stored-topology-epoch"
		op := (*shard.Shard).SetStoredDescriptionTopologyEpoch
		if outcome == OutcomePermanent {
			name, op = "streams-group-set-failed-topology-epoch", (*shard.Shard).SetFailedDescriptionTopologyEpoch
		}
		f := fencedWrite(c, name, c.PartitionFor(groupID), token, func(s *shard.Shard, _ int64) (shard.Result[struct{}], error) {
			return op(s, groupID, epoch)
		})
		f.OnDone(func(_ struct{}, err error) {
			c.completeEpochWrite(groupID, epoch, err)
			if outcome == OutcomePermanent {
				out.complete(struct{}{}, failed)
				return
			}
			out.complete(struct{}{}, err)
		})
	}
}

// completeEpochWrite is Kafka's completeEpochWrite (PR #22616): after the
// bookkeeping write, clear the epoch's back-off on success; leave it alone
// when the shard moved or is loading; clear the group's entry when the group
// is gone; otherwise arm or extend it.
func (c *Coordinator) completeEpochWrite(groupID string, epoch int32, err error) {
	b := c.topology.backoff
	switch {
	case err == nil:
		b.Clear(groupID, epoch)
	case kerr.As(err) == kerr.NotCoordinator, kerr.As(err) == kerr.CoordinatorLoadInProgress, kerr.As(err) == kerr.CoordinatorNotAvailable:
	case kerr.As(err) == kerr.GroupIDNotFound:
		b.ClearGroup(groupID)
	default:
		b.ArmOrExtend(groupID, epoch, c.nowMs())
	}
}

// TopologyDescriptionStatus is StreamsGroupDescribeResponse's
// TopologyDescriptionStatus (docs/kip1331.md §1.5).
type TopologyDescriptionStatus int8

// Describe statuses.
const (
	StatusNotRequested TopologyDescriptionStatus = 0
	StatusNotStored    TopologyDescriptionStatus = 1
	StatusError        TopologyDescriptionStatus = 2
	StatusAvailable    TopologyDescriptionStatus = 3
)

func (s TopologyDescriptionStatus) String() string {
	switch s {
	case StatusNotRequested:
		return "NOT_REQUESTED"
	case StatusNotStored:
		return "NOT_STORED"
	case StatusError:
		return "ERROR"
	case StatusAvailable:
		return "AVAILABLE"
	}
	return "UNKNOWN"
}

// StreamsGroupDescription is one row of DescribeStreamsGroups. The
// description is set if and only if the status is AVAILABLE.
type StreamsGroupDescription struct {
	GroupID                   string
	Group                     shard.GroupDescription
	Err                       error
	TopologyDescriptionStatus TopologyDescriptionStatus
	TopologyDescription       *plugin.TopologyDescription
	// Topology is the group's topology as StreamsGroupDescribe shows it
	// (shard.DescribedStreamsTopology: configured when ready, sorted).
	Topology *shard.Topology
}

// DescribeStreamsGroups is StreamsGroupDescribe v1 (docs/kip1331.md §1.5): rows in
// request order, each with the group or its error; with
// includeTopologyDescription the topology-description status, calling
// getTopology only for a group whose stored epoch equals its current
// topology epoch.
func (c *Coordinator) DescribeStreamsGroups(groupIDs []string, includeTopologyDescription bool) *Future[[]StreamsGroupDescription] {
	rows := make([]StreamsGroupDescription, len(groupIDs))
	out := &Future[[]StreamsGroupDescription]{}
	remaining := 1
	finish := func() {
		remaining--
		if remaining == 0 {
			out.complete(rows, nil)
		}
	}
	for i, id := range groupIDs {
		row := &rows[i]
		row.GroupID = id
		p, err := c.routeGroup(id)
		if err == nil {
			row.Group, err = readDescribe(c, p, func(s *shard.Shard) (shard.GroupDescription, error) {
				d, ok := s.DescribeGroup(id)
				switch {
				case !ok:
					return d, kerr.GroupIDNotFound.WithMessage("Group %s not found.", id)
				case d.Type != shard.Streams:
					return d, kerr.GroupIDNotFound.WithMessage("Group %s is not a streams group.", id)
				}
				h, _ := c.shardFor(p)
				row.Topology = s.DescribedStreamsTopology(id, h.committedConfiguredTopology(id))
				if h != nil {
					h.taskOffsets.Fill(id, d.Members)
				}
				return d, nil
			})
		}
		row.Err = err
		switch {
		case err != nil, !includeTopologyDescription:
			continue // rules 1 and 2: NOT_REQUESTED, the plugin is not called
		case !c.topology.configured():
			row.TopologyDescriptionStatus = StatusNotStored
			continue
		}
		g := row.Group
		if g.Topology == nil || g.StoredDescriptionTopologyEpoch < 0 || g.StoredDescriptionTopologyEpoch != g.Topology.Epoch {
			row.TopologyDescriptionStatus = StatusNotStored
			continue
		}
		remaining++
		c.invokeGet(id, g.Topology.Epoch, func(d *plugin.TopologyDescription, err error) {
			switch {
			case err != nil:
				row.TopologyDescriptionStatus = StatusError
			case d == nil:
				c.log.Warn("topology description is not stored although the stored epoch says it is", "group", id, "epoch", g.Topology.Epoch)
				row.TopologyDescriptionStatus = StatusNotStored
			default:
				row.TopologyDescriptionStatus, row.TopologyDescription = StatusAvailable, d
			}
			finish()
		})
	}
	finish()
	return out
}
