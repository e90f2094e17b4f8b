package sim

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"time"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/plugin"
	"github.com/coordsim/coordsim/plugin/faultstore"
	"github.com/coordsim/coordsim/plugin/memstore"
	"github.com/coordsim/coordsim/shard"
	"github.com/coordsim/coordsim/sim/connectsim"
)

// broker is one simulated broker: a coordinator over the partitions it leads.
type broker struct {
	id   int32
	c    *coordinator.Coordinator
	poll *event // the one scheduled poll, nil when none
}

// switchStore is the topology store every broker sees: the fault-injecting
// store during the workload, the plain store once faults are healed.
type switchStore struct {
	cur          plugin.Store
	ignoreTokens bool // the StoreIgnoresFencingToken mutant
}

func (s *switchStore) SetTopology(ctx context.Context, g string, e int32, d *plugin.TopologyDescription) error {
	return s.cur.SetTopology(ctx, g, e, d)
}
func (s *switchStore) GetTopology(ctx context.Context, g string, e int32) (*plugin.TopologyDescription, error) {
	return s.cur.GetTopology(ctx, g, e)
}
func (s *switchStore) DeleteTopology(ctx context.Context, g string) error {
	return s.cur.DeleteTopology(ctx, g)
}
func (s *switchStore) Close() error { return nil } // brokers never shut down in a simulation

// The fenced calls (protocol v3) go to the current store's fenced methods;
// SupportsFencing tells plugin.AsFenced whether the store under test has
// them. With the StoreIgnoresFencingToken mutant the switch claims fencing
// but runs the plain calls: the store a fencing protocol cannot trust.
func (s *switchStore) SetTopologyFenced(ctx context.Context, g string, e int32, d *plugin.TopologyDescription, token int32) error {
	f, ok := plugin.AsFenced(s.cur)
	if !ok || s.ignoreTokens {
		return s.cur.SetTopology(ctx, g, e, d)
	}
	return f.SetTopologyFenced(ctx, g, e, d, token)
}
func (s *switchStore) DeleteTopologyFenced(ctx context.Context, g string, token int32) error {
	f, ok := plugin.AsFenced(s.cur)
	if !ok || s.ignoreTokens {
		return s.cur.DeleteTopology(ctx, g)
	}
	return f.DeleteTopologyFenced(ctx, g, token)
}
func (s *switchStore) SupportsFencing() bool {
	_, ok := plugin.AsFenced(s.cur)
	return ok || s.ignoreTokens
}

// world is one simulation: engine, brokers, shared logs, store, clients,
// faults and the invariant checker.
type world struct {
	opts    Options
	eng     *engine
	logs    *coordinator.Logs
	brokers []*broker
	owner   []int // partition → broker index; -1 while moving
	// topics is the metadata image every coordinator sees: the workload's
	// topics and the internal topics the coordinators asked to create
	// (streams_topology.go). pick is the workload's topics alone, sorted:
	// what groups subscribe to and commit on, never an internal topic.
	topics map[string]int32
	// rackCache is each topic's partition racks in the image and rackShift
	// how often the admin moved a topic's replicas (racks.go).
	rackCache map[string][][]string
	rackShift map[string]int
	pick      []string
	// image is topics (and racks) prepared once for every coordinator and
	// committed replica, each image from the last, so a shard re-derives
	// only the groups on the topics that changed (installTopicImage).
	image *shard.PreparedTopicImage

	store         plugin.Store  // the store under test (memstore unless Options.Store)
	lister        plugin.Lister // the store's rows, when it can list them
	faults        *faultstore.Store
	sw            *switchStore
	inFlight      int            // plugin calls not yet delivered
	groupInFlight map[string]int // the same, per group
	healed        bool

	groups []*simGroup
	dirty  []bool // brokers touched by the current event

	trace   *tracer
	check   *checker
	res     *Result
	stopErr *Violation
	// skipped are Options.SkipInvariants by name: their violations are
	// counted there instead of stopping the run.
	skipped  map[string]*SkippedInvariant
	marks    map[string]int64
	dataLoss map[string]bool // "group/epoch" already counted

	sampleEveryMs int64
	cw            *connectsim.Sim // nil without a Connect workload
	// cycleAt is the index in res.Series.Cycles of each broker's cycle in
	// flight, -1 when none.
	cycleAt []int
	// minValueIDs counts the ids hashing to Integer.MIN_VALUE handed out.
	minValueIDs int
	// costs measures the rolling-upgrade applications' pauses and
	// duplicates (rolling_costs.go; nil without any).
	costs *rollingCosts
	// joins counts join heartbeats: every fourth is described at once
	// (describeBack), by count rather than by a draw so the random stream,
	// and so every other choice of the run, stays as it was.
	joins int
}

// brokerExecutor runs a broker's plugin calls at a virtual time drawn from
// the fault model and delivers the outcome then.
type brokerExecutor struct {
	w *world
	b int
}

func (x brokerExecutor) Execute(op plugin.Op, groupID string, call func(context.Context) coordinator.PluginResult, deliver func(coordinator.PluginResult)) {
	w := x.w
	lat := w.pluginLatency(x.b, op, groupID)
	w.inFlight++
	w.groupInFlight[groupID]++
	w.check.onPluginCall(op, groupID)
	d := w.issued(x.b, op, groupID)
	w.tr(traceEvent{kind: tPluginCall, broker: int16(x.b), group: groupID, detail: fmt.Sprintf("%s lands in %s", op, lat)})
	w.eng.after(lat, func() {
		w.inFlight--
		if w.groupInFlight[groupID]--; w.groupInFlight[groupID] == 0 {
			delete(w.groupInFlight, groupID)
		}
		r := call(context.Background())
		w.check.onPluginDone(op, groupID, r.Err)
		w.check.onV2PluginLanded(d, r.Err)
		w.tr(traceEvent{kind: tPluginDone, broker: int16(x.b), group: groupID, detail: op.String() + " " + kerr.Name(r.Err)})
		w.check.delivering(d, func() { deliver(r) })
		w.touch(x.b)
	})
}

func newWorld(opts Options, traceOut io.Writer) (*world, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	w := &world{
		opts: opts, eng: newEngine(opts.Seed), marks: map[string]int64{}, dataLoss: map[string]bool{}, groupInFlight: map[string]int{},
		res: &Result{Seed: opts.Seed, Scenario: opts.Scenario, Protocol: string(opts.Protocol),
			GroupsCreated: map[string]int{}, GroupsFinal: map[string]int{}},
		sampleEveryMs: max(opts.Duration.Milliseconds()/400, 60_000),
	}
	w.skipInvariants()
	w.trace = newTracer(opts.TraceTail, traceOut)
	w.topics = opts.Workload.Topics
	if w.topics == nil {
		w.topics = map[string]int32{"orders": 6, "payments": 3, "clicks": 12, "events": 8}
	}
	var err error
	if w.logs, err = coordinator.NewLogs(opts.Partitions); err != nil {
		return nil, err
	}
	if opts.Connect != nil {
		topics := maps.Clone(w.topics)
		for _, name := range sortedTopicNames(opts.Connect.Topics) {
			n := opts.Connect.Topics[name]
			if m, ok := topics[name]; ok && m != n && opts.Workload.Topics != nil {
				return nil, fmt.Errorf("sim: topic %q has %d partitions in the workload and %d in connect", name, m, n)
			}
			topics[name] = n
		}
		w.topics = topics
		if w.cw, err = connectsim.New(connectEngine{w}, opts.Connect, opts.Faults.connect(), opts.Mutants); err != nil {
			return nil, err
		}
	}
	w.pick = sortedTopicNames(w.topics)
	w.costs = newRollingCosts(w)
	w.check = newChecker(w)
	var off map[string]string
	if opts.Plugin {
		if opts.Store != nil {
			if w.store, err = opts.Store(); err != nil {
				return nil, fmt.Errorf("sim: building the topology store: %w", err)
			}
		} else {
			w.store = memstore.New()
		}
		w.lister, _ = w.store.(plugin.Lister)
		if off, err = w.refuseWeaker(); err != nil {
			return nil, err
		}
		fopts := append([]faultstore.Option{faultstore.WithRand(w.eng.rng)}, faultStoreOptions(opts.Faults)...)
		if w.faults, err = faultstore.New(w.store, fopts...); err != nil {
			return nil, err
		}
		w.sw = &switchStore{cur: w.faults, ignoreTokens: opts.Mutants.StoreIgnoresFencingToken}
	}
	cfg := coordinator.DefaultConfig()
	cfg.NumPartitions = opts.Partitions
	cfg.OffsetsRetention = opts.Retention
	cfg.OffsetsRetentionCheckInterval = opts.CheckInterval
	cfg.TopologyCleanupProtocol = opts.Protocol
	opts.Faults.configure(&cfg)
	// Rolling topology upgrades need the opt-in that is ahead of Kafka:
	// Kafka refuses a higher topology epoch ("Topology updates are not
	// supported yet.").
	cfg.StreamsTopologyUpdates = opts.Workload.TopologyUpgradeProb > 0
	w.owner = make([]int, opts.Partitions)
	w.dirty = make([]bool, opts.Brokers)
	w.cycleAt = make([]int, opts.Brokers)
	for i := range w.cycleAt {
		w.cycleAt[i] = -1
	}
	for i := range opts.Brokers {
		b := &broker{id: int32(i)}
		copts := coordinator.Options{
			BrokerID: int32(i), Clock: w.eng, Logs: w.logs,
			PluginExecutor: brokerExecutor{w: w, b: i},
			Rand:           w.eng.rng,
			Hooks:          w.hooks(i),
			Mutants:        opts.Mutants,
		}
		if w.sw != nil {
			copts.TopologyPlugin = w.sw
		}
		if b.c, err = coordinator.New(cfg, copts); err != nil {
			return nil, err
		}
		if err := b.c.Startup(); err != nil {
			return nil, err
		}
		if w.image == nil {
			if w.image, err = shard.PrepareTopicImage(w.topicImage()); err != nil {
				return nil, err
			}
		}
		b.c.SetPreparedTopicImage(w.image)
		w.brokers = append(w.brokers, b)
	}
	w.res.Checks = w.checks(off)
	for p := range opts.Partitions {
		bi := int(p) % opts.Brokers
		w.owner[p] = bi
		if err := w.brokers[bi].c.LoadShard(p); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// hooks wires a broker's coordinator to the fault model and the checker.
func (w *world) hooks(b int) coordinator.Hooks {
	return coordinator.Hooks{
		BeforeAppend: func(p int32, _ []shard.Record) error {
			err := w.appendFault(p)
			if err != nil {
				w.check.timersDue(p, "rollback") // the append fails: the shard rolls back
			}
			return err
		},
		CommitDelay: func(int32) time.Duration { return w.commitDelay() },
		OnWrite: func(p int32, op string, latest *shard.Shard, records []shard.Record) {
			w.traceWrite(b, p, op, latest, records)
			w.check.onWrite(b, p, op, latest, records)
		},
		OnTopologyEvent: func(ev coordinator.TopologyEvent) { w.onTopologyEvent(b, ev) },
		OnCommit:        func(p int32, first int64, records []shard.Record) { w.check.foldCommitted(p, first, records) },
	}
}

func (w *world) nowMs() int64 { return w.eng.nowMs }

// tr traces a broker-side event (callers set broker; -1 for none).
func (w *world) tr(ev traceEvent) {
	ev.step, ev.atMs = w.eng.step, w.eng.nowMs
	w.trace.add(ev)
}

// client traces a client-side event.
func (w *world) client(kind traceKind, group, member, detail string) {
	w.tr(traceEvent{kind: kind, broker: -1, group: group, member: member, detail: detail})
}

func (w *world) mark(name string) { w.marks[name]++ }

// touch records that broker b was called into, so its next deadline is
// re-read after the current event.
func (w *world) touch(b int) { w.dirty[b] = true }

// readCommitted runs read on the committed state of groupID's partition at
// the broker that owns it, and reports whether one does (false while the
// partition moves). A partition still loading there is not read: the
// caller's defaults stand for both.
func (w *world) readCommitted(groupID string, read func(s *shard.Shard)) (owned bool) {
	p := coordinator.PartitionFor(groupID, w.opts.Partitions)
	b := w.owner[p]
	if b < 0 {
		return false
	}
	_ = w.brokers[b].c.ReadShard(p, read)
	return true
}

// route returns the broker owning the group's partition, or -1 while the
// partition moves.
func (w *world) route(groupID string) int {
	return w.owner[coordinator.PartitionFor(groupID, w.opts.Partitions)]
}

// schedulePolls arms a poll event at each dirty broker's next deadline.
func (w *world) schedulePolls() {
	if w.cw != nil {
		w.cw.SchedulePoll()
	}
	for i, d := range w.dirty {
		if !d {
			continue
		}
		w.dirty[i] = false
		b := w.brokers[i]
		next, ok := b.c.NextDeadline()
		if !ok {
			continue
		}
		at := max(next.UnixMilli(), w.nowMs())
		if b.poll != nil {
			if b.poll.atMs <= at {
				continue // the scheduled poll comes first; it re-arms after
			}
			w.eng.cancel(b.poll)
		}
		bi := i
		b.poll = w.eng.at(at, func() {
			b.poll = nil
			if n := b.c.Poll(); n > 0 {
				w.tr(traceEvent{kind: tPoll, broker: int16(bi), n: int64(n)})
			}
			w.touch(bi)
		})
	}
}

// moveShard moves partition p to another broker: unload now, load on the
// target (which takes LoadDelay), as a leader change does.
func (w *world) moveShard(p int32, why string) {
	from := w.owner[p]
	if from < 0 || len(w.brokers) < 2 {
		return
	}
	w.moveShardTo(p, (from+1+w.eng.rng.IntN(len(w.brokers)-1))%len(w.brokers), why)
}

// moveShardTo moves partition p from its owner to broker to (a leader
// change: unload, then load on to after the load delay).
func (w *world) moveShardTo(p int32, to int, why string) {
	from := w.owner[p]
	if from < 0 || from == to {
		return
	}
	if err := w.brokers[from].c.UnloadShard(p); err != nil {
		return
	}
	w.owner[p] = to
	w.check.timersDue(p, "load")
	if err := w.brokers[to].c.LoadShard(p); err != nil {
		w.violate("shard-move", fmt.Sprintf("loading partition %d on broker %d failed: %v", p, to, err))
		return
	}
	w.res.ShardMoves++
	if _, _, inFlight := w.brokers[from].c.CleanupStats(); inFlight {
		w.mark("move-during-cycle")
	}
	w.tr(traceEvent{kind: tMove, broker: int16(from), detail: fmt.Sprintf("p%d -> broker %d (%s)", p, to, why)})
	w.tr(traceEvent{kind: tUnload, broker: int16(from), detail: fmt.Sprintf("p%d", p)})
	w.tr(traceEvent{kind: tLoad, broker: int16(to), detail: fmt.Sprintf("p%d, ready in %s", p, w.opts.Faults.LoadDelay)})
	w.touch(from)
	w.touch(to)
}

// poisson runs fn at exponentially distributed gaps, ratePerHour on
// average, until endMs or until the faults heal: the fault model's random
// moves, leader moves and kills.
func (w *world) poisson(ratePerHour float64, endMs int64, fn func()) {
	if ratePerHour <= 0 {
		return
	}
	var next func()
	next = func() {
		if w.healed {
			return
		}
		fn()
		w.afterExp(ratePerHour, endMs, next)
	}
	w.afterExp(ratePerHour, endMs, next)
}

// afterExp schedules fn after an exponentially distributed gap, unless
// that falls at or after endMs.
func (w *world) afterExp(ratePerHour float64, endMs int64, fn func()) {
	gapMs := int64(w.eng.rng.ExpFloat64() / ratePerHour * float64(time.Hour/time.Millisecond))
	if w.nowMs()+gapMs < endMs {
		w.eng.at(w.nowMs()+gapMs, fn)
	}
}

func (w *world) onTopologyEvent(b int, ev coordinator.TopologyEvent) {
	w.check.onTopologyEvent(b, ev)
	switch ev.Kind {
	case coordinator.EventCycleStarted:
		w.res.Cycles++
		w.cycleAt[b] = len(w.res.Series.Cycles)
		w.res.Series.Cycles = append(w.res.Series.Cycles, CycleRecord{AtMs: w.nowMs() - startMs, Broker: int32(b)})
		w.tr(traceEvent{kind: tCycle, broker: int16(b), detail: "started"})
		w.cycleStartedFaults(b)
	case coordinator.EventCycleFinished, coordinator.EventCyclePanicked:
		if i := w.cycleAt[b]; i >= 0 {
			c := &w.res.Series.Cycles[i]
			c.DeletesFailed = max(c.Eligible-c.DeletesOK, 0)
			w.cycleAt[b] = -1
		}
		w.tr(traceEvent{kind: tCycle, broker: int16(b), detail: "finished"})
	case coordinator.EventDeleteDone:
		if i := w.cycleAt[b]; i >= 0 {
			w.res.Series.Cycles[i].DeletesOK++
		}
	case coordinator.EventTickDropped:
		w.res.TicksDropped++
		w.mark("tick-dropped")
	case coordinator.EventClearMismatch:
		w.mark("clear-mismatch")
	case coordinator.EventFinalizeReSolicit:
		w.mark("finalize-resolicit")
	case coordinator.EventPushInFlightKept:
		w.mark("push-in-flight-kept")
	case coordinator.EventMarkSkipped:
		w.mark("mark-skipped")
	case coordinator.EventCycleReadFailed:
		w.mark("cycle-read-failed")
	case coordinator.EventClearWriteFailed:
		w.mark("clear-write-failed")
	case coordinator.EventCycleAbortedShutdown:
		w.mark("cycle-aborted")
	case coordinator.EventDeleteIssued:
		w.res.Eligible++
		if i := w.cycleAt[b]; i >= 0 {
			w.res.Series.Cycles[i].Eligible++
		}
		w.tr(traceEvent{kind: tDelete, broker: int16(b), group: ev.GroupID, detail: fmt.Sprintf("issued observed=%d", ev.Epoch)})
	case coordinator.EventSolicited:
		w.mark("solicited")
	}
}

func (w *world) partitionsOf(b int) []int32 {
	var ps []int32
	for p, o := range w.owner {
		if o == b {
			ps = append(ps, int32(p))
		}
	}
	return ps
}

// heal switches every fault off: the liveness phase starts from here.
func (w *world) heal() {
	w.healed = true
	if w.sw != nil {
		w.sw.cur = w.store
	}
	w.tr(traceEvent{kind: tHeal, broker: -1})
}

func (w *world) violate(invariant, detail string) {
	if w.stopErr != nil {
		return
	}
	if sk := w.skipped[invariant]; sk != nil {
		// Skipped for bisecting: counted, not traced, the run goes on.
		if sk.Violations++; sk.First == nil {
			sk.First = &Violation{Invariant: invariant, Step: w.eng.step, AtMs: w.nowMs() - startMs, Detail: detail}
		}
		return
	}
	w.stopErr = &Violation{Invariant: invariant, Step: w.eng.step, AtMs: w.nowMs() - startMs, Detail: detail}
	w.tr(traceEvent{kind: tViolation, broker: -1, detail: invariant + ": " + detail})
	w.stopErr.Trace = w.trace.tail()
	w.stopErr.Focus = w.trace.focus(detail, len(w.stopErr.Trace))
}

// sortedMarks returns mark names in order (for stable output).
func sortedMarks(m map[string]int64) []string { return slices.Sorted(maps.Keys(m)) }
