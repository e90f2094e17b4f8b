package coordinator

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/metrics"
	"github.com/coordsim/coordsim/plugin"
	"github.com/coordsim/coordsim/shard"
)

// PluginResult is the outcome of one topology-store call.
type PluginResult struct {
	Description *plugin.TopologyDescription
	Err         error
}

// PluginExecutor decides when a topology-store call runs and when its
// outcome comes back (docs/design.md §Plugin calls and asynchrony). Execute must
// eventually call deliver exactly once, on the coordinator's goroutine: at
// once (InlineExecutor), at a later virtual time (the simulator), or from a
// live driver's loop after a goroutine ran the call.
type PluginExecutor interface {
	Execute(op plugin.Op, groupID string, call func(ctx context.Context) PluginResult, deliver func(PluginResult))
}

// InlineExecutor runs each call at once and delivers its outcome before
// Execute returns. With a Timeout, each call gets a context with that
// deadline (wall clock): a store that blocks past it is abandoned and the
// call fails as transient. Leave Timeout zero in simulations, which must not
// depend on wall time.
type InlineExecutor struct {
	Timeout time.Duration
}

// Execute runs call and delivers its result.
func (e InlineExecutor) Execute(_ plugin.Op, _ string, call func(context.Context) PluginResult, deliver func(PluginResult)) {
	if e.Timeout <= 0 {
		deliver(call(context.Background()))
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), e.Timeout)
	defer cancel()
	deliver(call(ctx))
}

// PluginOutcome classifies a setTopology result as Kafka's manager does.
type PluginOutcome uint8

// Set outcomes.
const (
	OutcomeSuccess PluginOutcome = iota
	OutcomePermanent
	OutcomeTransient
	// OutcomeInvalid is a store refusing the arguments; Kafka answers such a
	// push with INVALID_REQUEST and records no failed epoch.
	OutcomeInvalid
	// OutcomeFenced is a v3 store refusing a call whose token is older than
	// one it has seen: a newer coordinator owns the group's partition. The
	// push is answered NOT_COORDINATOR (the client finds the new owner) and
	// nothing is recorded.
	OutcomeFenced
)

func (o PluginOutcome) String() string {
	return [...]string{"SUCCESS", "PERMANENT", "TRANSIENT", "INVALID", "FENCED"}[o]
}

func classifySet(err error) PluginOutcome {
	switch {
	case err == nil:
		return OutcomeSuccess
	case errors.Is(err, plugin.ErrFenced):
		return OutcomeFenced
	case errors.Is(err, plugin.ErrInvalidArgument), errors.Is(err, plugin.ErrInvalidDescription):
		return OutcomeInvalid
	case plugin.Classify(err) == plugin.ClassPermanent:
		return OutcomePermanent
	}
	return OutcomeTransient
}

// DeleteFailedMessage is Kafka's fixed GROUP_DELETION_FAILED message; the
// plugin's own message is never forwarded.
const DeleteFailedMessage = "Topology description plugin failed to delete the topology."

// TopologyEventKind names a notable moment of the KIP-1331 engine.
type TopologyEventKind uint8

// Topology events, reported through Hooks.OnTopologyEvent.
const (
	EventCycleStarted TopologyEventKind = iota + 1
	EventCycleFinished
	EventTickDropped          // single flight dropped a tick
	EventCycleReadFailed      // one partition's eligibility read failed
	EventClearMismatch        // a conditional clear found a newer stored epoch
	EventClearWriteFailed     // a clear, mark or finalize write failed and was swallowed
	EventMarkSkipped          // v2: a scanned group was no longer eligible at mark time
	EventFinalizeReSolicit    // v2: a push landed during the delete; stored goes back to -2
	EventCycleAbortedShutdown // a cycle stopped its follow-up work because of shutdown
	EventCyclePanicked        // building a cycle panicked; the flag was released
	EventSolicited            // a heartbeat set TopologyDescriptionRequired
	EventDeleteIssued         // a deleteTopology call was issued (GroupID, Epoch = observed)
	EventDeleteDone           // a deleteTopology call succeeded
	EventPushInFlightKept     // v3: a delete found a push of the group in flight; the group stays -2 (hole 4)
)

func (k TopologyEventKind) String() string {
	names := [...]string{"", "cycle-started", "cycle-finished", "tick-dropped", "cycle-read-failed", "clear-mismatch",
		"clear-write-failed", "mark-skipped", "finalize-resolicit", "cycle-aborted-shutdown", "cycle-panicked",
		"solicited", "delete-issued", "delete-done", "push-in-flight-kept"}
	if int(k) < len(names) {
		return names[k]
	}
	return fmt.Sprintf("TopologyEventKind(%d)", uint8(k))
}

// TopologyEvent is one notable moment, for traces and coverage marks.
type TopologyEvent struct {
	Kind      TopologyEventKind
	Partition int32
	GroupID   string
	Epoch     int32
}

// topologyManager is Kafka's StreamsGroupTopologyDescriptionManager plus the
// cycle's scheduling harness: one per broker, in memory, never replayed.
type topologyManager struct {
	store    plugin.Store       // nil: no plugin configured
	fenced   plugin.FencedStore // non-nil under v3 with a fenced store: calls carry tokens
	exec     PluginExecutor
	backoff  *TopologyBackoff
	protocol CleanupProtocol
	guard    *deleteGuard // v3: keeps a group's pushes and deletes apart

	running       bool // the cleanup harness runs (false after shutdown)
	cycleInFlight bool
	cyclesRun     int64
	ticksDropped  int64

	cycleRuns     *metrics.Sensor
	cycleEligible *metrics.Sensor
	cycleSkipped  *metrics.Sensor
	deleteSuccess *metrics.Sensor
	deleteError   *metrics.Sensor
	setSuccess    *metrics.Sensor
	setError      *metrics.Sensor
	getSuccess    *metrics.Sensor
	getError      *metrics.Sensor
}

func newTopologyManager(c *Coordinator, store plugin.Store, exec PluginExecutor, rng *rand.Rand, protocol CleanupProtocol) *topologyManager {
	if exec == nil {
		exec = InlineExecutor{}
	}
	if rng == nil {
		rng = rand.New(rand.NewPCG(uint64(c.brokerID), 1331))
	}
	m := &topologyManager{store: store, exec: exec, backoff: newTopologyBackoff(rng), protocol: protocol, guard: newDeleteGuard()}
	if protocol.FencesPluginCalls() && store != nil {
		if f, ok := plugin.AsFenced(store); ok {
			m.fenced = f
		} else {
			// Logged once, here: the store was written for Kafka's SPI.
			c.log.Warn("Topology description plugin does not implement plugin.FencedStore: cleanup protocol v3 runs as v2, "+
				"and a deleteTopology from a partition's previous coordinator can still erase a description stored after a shard move.",
				"store", fmt.Sprintf("%T", store))
		}
	}
	const p = "streams-group-topology-description-"
	reg := c.metrics.reg
	// Names and descriptions as the KIP-1331 change registers them in
	// GroupCoordinatorMetrics; cleanup-cycle-skipped is coordsim's own.
	m.cycleRuns = mustMeter(reg, "StreamsGroupTopologyDescriptionCleanupCycleRuns", p+"cleanup-cycle",
		"The rate at which the topology-description cleanup cycle fires",
		"The total number of topology-description cleanup cycles that ran")
	m.cycleEligible = mustMeterOf(reg, "StreamsGroupTopologyDescriptionCleanupEligibleGroups", p+"cleanup-eligible", "streams groups identified as eligible for topology-description cleanup")
	m.cycleSkipped = mustMeterOf(reg, "StreamsGroupTopologyDescriptionCleanupCycleSkipped", p+"cleanup-cycle-skipped",
		"cleanup ticks dropped by single flight (coordsim only, not in Kafka)")
	m.deleteSuccess = mustMeterOf(reg, "StreamsGroupTopologyDescriptionDeleteSuccess", p+"delete-success", "successful plugin.deleteTopology calls (DeleteGroups and periodic cleanup combined)")
	m.deleteError = mustMeterOf(reg, "StreamsGroupTopologyDescriptionDeleteError", p+"delete-error", "failed plugin.deleteTopology calls (DeleteGroups and periodic cleanup combined)")
	m.setSuccess = mustMeterOf(reg, "StreamsGroupTopologyDescriptionSetSuccess", p+"set-success", "successful plugin.setTopology calls")
	m.setError = mustMeterOf(reg, "StreamsGroupTopologyDescriptionSetError", p+"set-error", "failed plugin.setTopology calls (any failure: permanent, transient, or otherwise)")
	m.getSuccess = mustMeter(reg, "StreamsGroupTopologyDescriptionGetSuccess", p+"get-success",
		"The rate of successful getTopology calls (a call returning null counts as success)",
		"The total number of successful plugin.getTopology calls (a call returning null counts as success)")
	m.getError = mustMeter(reg, "StreamsGroupTopologyDescriptionGetError", p+"get-error",
		"The rate of failed getTopology operations (plugin errors, SPI contract violations, or conversion failures)",
		"The total number of failed plugin.getTopology calls")
	return m
}

func (m *topologyManager) configured() bool { return m.store != nil }

// IsTopologyPluginConfigured reports whether a topology-store plugin is set.
func (c *Coordinator) IsTopologyPluginConfigured() bool { return c.topology.configured() }

// TopologyBackoff exposes the broker's solicitation back-off for inspection.
func (c *Coordinator) TopologyBackoff() *TopologyBackoff { return c.topology.backoff }

// CleanupProtocol is the protocol the cleanup cycle was configured with.
func (c *Coordinator) CleanupProtocol() CleanupProtocol { return c.topology.protocol }

// PluginCallsFenced reports whether plugin sets and deletes carry fencing
// tokens: protocol v3 with a plugin.FencedStore.
func (c *Coordinator) PluginCallsFenced() bool { return c.topology.fenced != nil }

// fencingToken is the epoch at which this coordinator loaded partition p
// (-1 when p is not hosted): under v3 the token of p's plugin calls and the
// guard of the writes that follow them (see fencedWrite). Callers capture it
// when they read p, so the token speaks for the load whose state they saw.
func (c *Coordinator) fencingToken(p int32) int32 {
	h := c.shards[p]
	if h == nil {
		return -1
	}
	return h.loadEpoch
}

// pluginToken is the token a fenced plugin call carries for a load epoch.
func (c *Coordinator) pluginToken(loadEpoch int32) int32 {
	if c.mutants.StaleFencingToken {
		return min(loadEpoch, 1) // the epoch of the partition's first load, for ever
	}
	return loadEpoch
}

// fencedWrite is write for a KIP-1331 write that follows a read (and often
// a plugin call) made at load epoch token. Under v3 it is refused with
// NOT_COORDINATOR when p is no longer hosted at that load: a cycle or a push
// that began under an earlier load of p, on this broker, must not apply its
// conclusions to a later load, which may have seen pushes and deletes the
// earlier one never did (a v2 finalize landing there turns a re-solicited -2
// into -1 while the store holds a row). v1 and v2 write as Kafka does.
func fencedWrite[R any](c *Coordinator, name string, p int32, token int32, op func(s *shard.Shard, nowMs int64) (shard.Result[R], error)) *Future[R] {
	if c.topology.protocol.RefusesStaleLoadWrites() && !c.mutants.SkipCoordinatorFence {
		if h := c.shards[p]; h != nil && h.loadEpoch != token {
			var zero R
			return completed(zero, kerr.NotCoordinator.WithMessage("partition %d was reloaded at epoch %d since the read at epoch %d", p, h.loadEpoch, token))
		}
	}
	return write(c, name, p, op)
}

// CleanupStats reports how many cleanup cycles ran and how many ticks single
// flight dropped, and whether a cycle is in flight now.
func (c *Coordinator) CleanupStats() (cyclesRun, ticksDropped int64, inFlight bool) {
	return c.topology.cyclesRun, c.topology.ticksDropped, c.topology.cycleInFlight
}

func (c *Coordinator) emit(ev TopologyEvent) {
	if c.hooks.OnTopologyEvent != nil {
		c.hooks.OnTopologyEvent(ev)
	}
}

// invokeSet runs setTopology through the executor and the safe-call layer
// (fenced with token under v3); done receives Kafka's outcome classification.
func (c *Coordinator) invokeSet(groupID string, epoch int32, d *plugin.TopologyDescription, token int32, done func(PluginOutcome, error)) {
	m := c.topology
	m.exec.Execute(plugin.OpSet, groupID, func(ctx context.Context) PluginResult {
		if m.fenced != nil {
			return PluginResult{Err: plugin.SafeSetFenced(ctx, m.fenced, groupID, epoch, d, c.pluginToken(token))}
		}
		return PluginResult{Err: plugin.SafeSet(ctx, m.store, groupID, epoch, d)}
	}, func(r PluginResult) {
		outcome := classifySet(r.Err)
		if outcome == OutcomeSuccess {
			m.setSuccess.Record(c.nowMs())
		} else {
			m.setError.Record(c.nowMs())
		}
		done(outcome, r.Err)
	})
}

// invokeGet runs getTopology; a nil description with a nil error is "not stored".
func (c *Coordinator) invokeGet(groupID string, epoch int32, done func(*plugin.TopologyDescription, error)) {
	m := c.topology
	m.exec.Execute(plugin.OpGet, groupID, func(ctx context.Context) PluginResult {
		d, err := plugin.SafeGet(ctx, m.store, groupID, epoch)
		return PluginResult{Description: d, Err: err}
	}, func(r PluginResult) {
		if r.Err != nil {
			m.getError.Record(c.nowMs())
		} else {
			m.getSuccess.Record(c.nowMs())
		}
		done(r.Description, r.Err)
	})
}

// DeleteFailure is one group whose deleteTopology failed.
type DeleteFailure struct {
	GroupID string
	Err     error // the plugin's error (callers answer with GROUP_DELETION_FAILED)
}

// invokeDeleteTopologies is Kafka's invokeDeleteTopologies: one call per
// group, all in flight together (under v3 each fenced with the token of its
// group's partition, from tokens); done receives the failures only, in group
// order. No plugin or no groups gives no failures at once.
func (c *Coordinator) invokeDeleteTopologies(groupIDs []string, tokens map[string]int32, done func([]DeleteFailure)) {
	m := c.topology
	if !m.configured() || len(groupIDs) == 0 {
		done(nil)
		return
	}
	ids := slices.Clone(groupIDs)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	var failures []DeleteFailure
	remaining := len(ids)
	for _, id := range ids {
		token := tokens[id]
		m.exec.Execute(plugin.OpDelete, id, func(ctx context.Context) PluginResult {
			if m.fenced != nil {
				return PluginResult{Err: plugin.SafeDeleteFenced(ctx, m.fenced, id, c.pluginToken(token))}
			}
			return PluginResult{Err: plugin.SafeDelete(ctx, m.store, id)}
		}, func(r PluginResult) {
			if r.Err != nil {
				m.deleteError.Record(c.nowMs())
				failures = append(failures, DeleteFailure{GroupID: id, Err: r.Err})
			} else {
				m.deleteSuccess.Record(c.nowMs())
				c.emit(TopologyEvent{Kind: EventDeleteDone, GroupID: id})
			}
			remaining--
			if remaining == 0 {
				slices.SortFunc(failures, func(a, b DeleteFailure) int { return compareStrings(a.GroupID, b.GroupID) })
				done(failures)
			}
		})
	}
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func failedSet(failures []DeleteFailure) map[string]bool {
	out := make(map[string]bool, len(failures))
	for _, f := range failures {
		out[f.GroupID] = true
	}
	return out
}

// fanOut calls each for every partition of m, in partition order, and done
// once every each has called its finish (at once when m is empty): the shape
// of an operation that writes to several shards and answers when all have.
func fanOut[V any](m map[int32]V, done func(), each func(p int32, v V, finish func())) {
	parts := slices.Sorted(maps.Keys(m))
	if len(parts) == 0 {
		done()
		return
	}
	finish := countdown(len(parts), done)
	for _, p := range parts {
		each(p, m[p], finish)
	}
}

// countdown returns a function that calls done on its n-th call: the join
// of n operations that complete in any order. n must be at least 1.
func countdown(n int, done func()) func() {
	return func() {
		n--
		if n == 0 {
			done()
		}
	}
}
