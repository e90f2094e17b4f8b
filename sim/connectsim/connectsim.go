package connectsim

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/coordsim/coordsim/connect"
	"github.com/coordsim/coordsim/internal/mutant"
	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/shard"
	"github.com/coordsim/coordsim/share"
	"github.com/coordsim/coordsim/sharebroker"
)

type tp = sharebroker.TopicPartition

const (
	fetchIdle          = 200 * time.Millisecond // a fetch that returned nothing waits this long (ShareFetch MaxWaitMs)
	processingGap      = time.Millisecond       // between one batch's commit and the next poll
	retriableBackoff   = time.Second            // WorkerSinkTask's pause after RetriableException
	killRestartAfter   = time.Minute            // a task killed by the fault model comes back after this
	drainCheck         = 30 * time.Second       // how often the drain checks whether the sinks caught up
	squatWait          = time.Minute            // how long a connector waits for its existing_group to appear
	defaultIdleTimeout = 10 * time.Minute       // connections.max.idle.ms
	retryBackoff       = time.Second            // retry.backoff.ms: a call that found its coordinator moving
	heartbeatInterval  = 5 * time.Second        // group.consumer.heartbeat.interval.ms and group.share.heartbeat.interval.ms
)

// Sim is the Connect workload's state: the share broker, the connectors and
// their tasks, and what the delivery checks remember.
type Sim struct {
	eng     Engine
	startMs int64
	faults  Faults
	mutants mutant.Set
	wl      *Workload
	sb      *sharebroker.Broker
	sinks   []*sink
	pollEv  Timer
	dirty   bool
	lockMs  int64
	limit   int32
	parts   []tp // every data partition, sorted
	// holds tracks, per share-partition, who holds each offset and until
	// when, as the tasks saw it (invariant 8).
	holds map[share.Key]*holdTab
	// spso is the last SPSO seen per share-partition and the partition
	// object it was seen on (invariant 8: SPSO never moves back while one
	// object, one leadership, lives; a leader move or an eviction rebuilds
	// the object from the persister, which may hold an older start).
	spso map[share.Key]spsoMark
	// floor is, per share-partition, the highest SPSO seen right after an
	// initialisation by share.auto.offset.reset: offsets below it that were
	// never delivered were skipped by the reset, not lost.
	floor map[share.Key]int64
	// dlqWritten counts the records of the dead-letter writes the fault
	// hook let succeed (invariant 19).
	dlqWritten int64
	touched    map[share.Key]bool
	nextID     int32
	stopped    bool
	// produced counts the records written; samples and results are the
	// run's progress samples and the connectors' outcomes.
	produced int64
	samples  []SinkSample
	results  []SinkResult
}

// Faults are the Connect side's fault kinds; a zero rate or probability
// turns one off. ShareLeaderMovesPerHour moves a data partition's
// leadership (its share-partitions are rebuilt from the persister);
// SharePersistFailProb fails a share-state write; ShareDLQFailProb fails a
// dead-letter write; TaskKillsPerHour kills a random sink task hard inside
// put() (it restarts a minute later).
type Faults struct {
	ShareLeaderMovesPerHour float64
	SharePersistFailProb    float64
	ShareDLQFailProb        float64
	TaskKillsPerHour        float64
}

// spsoMark is the SPSO last seen on one share-partition object.
type spsoMark struct {
	sp   *share.SharePartition
	init bool
	spso int64
}

// holdTab is per share-partition, indexed by offset.
type holdTab struct {
	holder   []int32 // task id holding the offset; 0 none
	until    []int64 // lock deadline the holder was told
	orphaned []int64 // when its holder was killed (redelivery latency), 0 none
	// count is the delivery count of the offset's last acquisition from
	// the partition object sp: each acquisition from one object must count
	// higher (a rebuilt object restarts from the persisted counts).
	count []uint8
	sp    *share.SharePartition
}

func (h *holdTab) grow(off int64) {
	for int64(len(h.holder)) <= off {
		h.holder = append(h.holder, 0)
		h.until = append(h.until, 0)
		h.orphaned = append(h.orphaned, 0)
		h.count = append(h.count, 0)
	}
}

// sink is one connector.
type sink struct {
	spec      Connector
	cfg       connect.SinkConfig
	tasks     []*sinkTask // by task index; nil for a slot never started
	desired   int
	refused   error
	started   bool
	brokerDLQ bool
	recv      map[tp]*recvTab
	res       SinkResult
	kills     []TaskKill
	// lastDeliveryMs is when a task last acquired or read records: a sink
	// still delivering when the drain ends is slow, one that stopped for
	// longer than stuckAfter with records left is stuck.
	lastDeliveryMs int64
	// pendingRestarts counts killed or failed tasks that will come back.
	pendingRestarts int
	// resetting is set while an offset reset waits for the group to empty;
	// no task starts meanwhile. resetFloor is, per partition, the highest
	// start offset a reset set: records below it never put were skipped.
	resetting  bool
	resetFloor map[tp]int64
	// limit and lockMs are the share group's delivery-count limit and lock
	// duration in force (group_config_changes change them live); minLimit
	// is the lowest limit ever in force, below which a record may have been
	// archived.
	limit, minLimit int32
	lockMs          int64
	// tm accumulates the connector's sink-task metrics.
	tm taskMetrics
}

// recvTab is what the sink did with each offset of one partition.
type recvTab struct {
	recv     []uint8 // successful puts of the offset (saturating)
	maxCount []uint8 // highest delivery count seen (share sinks)
	flags    []uint8
}

const (
	flagSkipped  = 1 << iota // conversion failed and errors.tolerance=all skipped it
	flagRejected             // the sink acknowledged it REJECT
	flagAcked                // the broker accepted an ACCEPT for it
	flagDLQ                  // a dead-letter write of it was attempted (KIP-1191)
)

func (r *recvTab) grow(off int64) {
	for int64(len(r.recv)) <= off {
		r.recv = append(r.recv, 0)
		r.maxCount = append(r.maxCount, 0)
		r.flags = append(r.flags, 0)
	}
}

// sinkTask is one task: a share consumer or a consumer-group consumer.
type sinkTask struct {
	s        *sink
	idx      int
	id       int32 // unique across the run, for the holder tables
	member   string
	epoch    int32
	joined   bool
	alive    bool
	stopping bool
	failed   bool
	inPut    bool
	putEv    Timer
	killAt   int64 // kill inside the next put at or after this time; 0 none
	// restartAfterKill: the fault model's kills come back after a while.
	restartAfterKill bool

	assignment []tp
	// impl is the task's SinkTask (nil once stopped or killed); open are
	// the partitions it has open, sorted; reported are the records its
	// put() reported as errant (connect.ErrantRecordReporter).
	impl     connect.SinkTask
	open     []connect.TopicPartition
	reported []connect.SinkRecord
	// nextAssignment is an assignment a consumer task received inside
	// put(): Connect's consumer applies it in its next poll(), between
	// puts, so the task never sees a put for a partition it closed.
	nextAssignment    []tp
	hasNextAssignment bool
	// share sinks
	sessEpoch int32 // the next session epoch to send; 0 opens one
	held      []heldRange
	// ackedEarly is what the ShareSinkAckBeforePut mutant acknowledged
	// before put() ran.
	ackedEarly []heldRange
	// consumer sinks
	positions   map[tp]int64
	pausedUntil int64
	lastFlush   int64
	pending     []readRange // a batch put() threw RetriableException on
	// putRetries counts in-task retries of the current share batch
	// (connect.RetriablePutRetry).
	putRetries int
	// lookupFailed: the committed-offset lookup for new partitions failed;
	// the next poll retries it (those partitions are not read meanwhile).
	lookupFailed bool
}

// heldRange is a run of offsets a share task holds, and what it will ack.
type heldRange struct {
	tp    tp
	first int64
	last  int64
	acks  []share.AcknowledgeType // per offset; 0 means not decided yet
}

// readRange is a run of offsets a consumer task read.
type readRange struct {
	tp    tp
	first int64
	last  int64
}

// resolveConnectors resolves every connector's configuration.
func resolveConnectors(c *Workload) ([]connect.SinkConfig, error) {
	out := make([]connect.SinkConfig, len(c.Connectors))
	seen := map[string]bool{}
	for i, k := range c.Connectors {
		cfg, err := connect.Resolve(connect.Props(k.Worker), connect.Props(k.Config))
		if err != nil {
			return nil, fmt.Errorf("sim: invalid connect.connectors[%d]: %w", i, err)
		}
		if seen[cfg.Name] {
			return nil, fmt.Errorf("sim: invalid connect.connectors[%d]: duplicate connector name %q", i, cfg.Name)
		}
		seen[cfg.Name] = true
		for _, t := range cfg.Topics {
			if c.Topics[t] == 0 {
				return nil, fmt.Errorf("sim: invalid connect.connectors[%d]: topic %q is not a data topic", i, t)
			}
		}
		if cfg.OnFatalPut, err = connect.ParseFatalPutPolicy(k.FatalPut); err != nil {
			return nil, fmt.Errorf("sim: invalid connect.connectors[%d].fatal_put: %w", i, err)
		}
		if cfg.OnRetriablePut, err = connect.ParseRetriablePutPolicy(k.RetriablePut); err != nil {
			return nil, fmt.Errorf("sim: invalid connect.connectors[%d].retriable_put: %w", i, err)
		}
		cfg.RetriablePutRetries = k.RetriablePutRetries
		out[i] = cfg
	}
	return out, nil
}

// New builds the share broker and the connectors of wl on eng; nothing is
// scheduled before Start. The workload's topics must join the
// coordinators' metadata image (the caller adds them).
func New(w Engine, wl *Workload, faults Faults, mutants mutant.Set) (*Sim, error) {
	cfgs, err := resolveConnectors(wl)
	if err != nil {
		return nil, err
	}
	cw := &Sim{eng: w, startMs: w.StartMs(), faults: faults, mutants: mutants, wl: wl, holds: map[share.Key]*holdTab{}, spso: map[share.Key]spsoMark{},
		floor: map[share.Key]int64{}, touched: map[share.Key]bool{}}
	pc := share.Config{MaxDeliveryCount: wl.DeliveryCountLimit, RecordLockDurationMs: wl.RecordLockDuration.Milliseconds(), MaxInFlightRecords: wl.MaxRecordLocks}
	cw.lockMs, cw.limit = pc.RecordLockDurationMs, pc.MaxDeliveryCount
	if cw.lockMs == 0 {
		cw.lockMs = 30_000
	}
	if cw.limit == 0 {
		cw.limit = share.DefaultMaxDeliveryCount
	}
	if cw.sb, err = sharebroker.New(sharebroker.Config{Defaults: pc, DLQWriteDelayMs: wl.DLQWriteDelay.Milliseconds(), Mutants: mutants}); err != nil {
		return nil, err
	}
	for _, name := range slices.Sorted(maps.Keys(wl.Topics)) {
		if err := cw.sb.CreateTopic(name, wl.Topics[name]); err != nil {
			return nil, err
		}
		for p := range wl.Topics[name] {
			cw.parts = append(cw.parts, tp{Topic: name, Partition: p})
		}
	}
	f := cw.faults
	cw.sb.SetPersistFault(func(share.Key) error {
		if !w.Healed() && f.SharePersistFailProb > 0 && w.Chance(f.SharePersistFailProb) {
			w.Mark("share-persist-failed")
			return kerr.CoordinatorNotAvailable
		}
		return nil
	})
	cw.sb.SetDLQFault(func(k share.Key, d share.DLQWrite) bool {
		// Every dead-letter write passes here: remember which offsets were
		// written (or attempted) for the end-of-run DLQ check.
		cw.dlqAttempt(k, d)
		if !w.Healed() && f.ShareDLQFailProb > 0 && w.Chance(f.ShareDLQFailProb) {
			w.Mark("share-dlq-write-failed")
			return true
		}
		cw.dlqWritten += d.LastOffset - d.FirstOffset + 1
		return false
	})
	for i, k := range wl.Connectors {
		s := &sink{spec: k, cfg: cfgs[i], recv: map[tp]*recvTab{}, kills: slices.Clone(k.Kills), resetFloor: map[tp]int64{},
			limit: cw.limit, minLimit: cw.limit, lockMs: cw.lockMs}
		if len(k.GroupConfigChanges) > 0 && s.cfg.Kind != connect.ShareSink {
			return nil, fmt.Errorf("sim: invalid connect.connectors[%d].group_config_changes: share group configs need a share sink", i)
		}
		s.res = SinkResult{Name: s.cfg.Name, Kind: s.cfg.Kind.String(), Group: s.cfg.GroupID, Stripped: s.cfg.Stripped}
		if k.BrokerDLQ != "" && s.cfg.Kind == connect.ShareSink {
			if err := cw.sb.CreateTopic(k.BrokerDLQ, 2); err != nil {
				return nil, err
			}
			s.brokerDLQ = true
		}
		cw.sinks = append(cw.sinks, s)
	}
	return cw, nil
}

// Start schedules the producers, connectors, scaling, kills, faults and
// progress samples of a workload that ends at workEnd. The sinks then
// drain until they caught up or until the returned drainEnd.
func (cw *Sim) Start(workEnd int64) (drainEnd int64) {
	drainEnd = workEnd + cw.wl.drain().Milliseconds()
	cw.start(workEnd, drainEnd)
	every := connectSampleEvery(time.Duration(workEnd-cw.startMs) * time.Millisecond)
	var sample func()
	sample = func() {
		cw.sample()
		if cw.eng.NowMs()+every.Milliseconds() <= drainEnd {
			cw.eng.After(every, sample)
		}
	}
	cw.eng.At(cw.startMs, sample)
	return drainEnd
}

// start schedules producers, connectors, scaling, kills and faults.
func (cw *Sim) start(workEnd, drainEnd int64) {
	w := cw.eng
	for i, p := range cw.wl.Producers {
		cw.startProducer(i, p, workEnd)
	}
	for _, s := range cw.sinks {
		ss := s
		if s.spec.ExistingGroup != "" {
			cw.squat(s, workEnd)
		}
		w.At(cw.startMs+s.spec.StartAt.Milliseconds(), func() { cw.startSink(ss) })
		cw.scheduleResets(ss)
		for _, st := range s.spec.Scale {
			n := st.Tasks
			w.At(cw.startMs+st.At.Milliseconds(), func() { cw.scale(ss, n) })
		}
		for _, k := range s.spec.Kills {
			kk := k
			w.At(cw.startMs+k.At.Milliseconds(), func() { cw.armKill(ss, kk.Task) })
		}
	}
	f := cw.faults
	w.Poisson(f.ShareLeaderMovesPerHour, workEnd, func() {
		cw.moveLeader(cw.parts[w.Rand().IntN(len(cw.parts))])
	})
	w.Poisson(f.TaskKillsPerHour, workEnd, func() {
		var live []*sinkTask
		for _, s := range cw.sinks {
			for _, t := range s.tasks {
				if t != nil && t.alive && !t.stopping && t.killAt == 0 {
					live = append(live, t)
				}
			}
		}
		if len(live) > 0 {
			t := live[w.Rand().IntN(len(live))]
			t.killAt, t.restartAfterKill = w.NowMs(), true
		}
	})
	// The drain: sinks keep running after the workload until every record
	// is processed (checked every drainCheck), at most until drainEnd.
	var check func()
	check = func() {
		if cw.stopped {
			return
		}
		if w.NowMs() >= drainEnd || cw.drained() {
			cw.stopAll()
			return
		}
		w.After(drainCheck, check)
	}
	w.At(workEnd, check)
}

// drained reports whether every running sink has processed every record of
// its topics: a share sink's SPSO reached the log end everywhere, a
// consumer sink put every record.
func (cw *Sim) drained() bool {
	for _, s := range cw.sinks {
		if !s.started || !s.running() {
			continue
		}
		for _, topic := range s.cfg.Topics {
			for p := range cw.wl.Topics[topic] {
				part := tp{Topic: topic, Partition: p}
				end, _ := cw.sb.EndOffset(part)
				if s.cfg.Kind == connect.ShareSink {
					sp, ok := cw.sb.Partition(share.Key{Group: s.cfg.GroupID, Topic: topic, Partition: p})
					if !ok || sp.StartOffset() < end || len(sp.PendingDLQ()) > 0 {
						return false
					}
					continue
				}
				if !s.consumedUpTo(part, end) {
					return false
				}
			}
		}
	}
	return true
}

// stuckAfter is how long a running sink may go without a delivery before
// the drain calls it stuck: two drain checks plus the longest legitimate
// pause (a put, a lock running out, a restart).
func (s *sink) stuckAfter(lockMs int64) int64 {
	return 2*drainCheck.Milliseconds() + s.spec.PutLatencyMax.Milliseconds() + lockMs +
		killRestartAfter.Milliseconds() + s.spec.RestartFailedAfter.Milliseconds() + retriableBackoff.Milliseconds()
}

// running reports whether any task of s is alive or will restart.
func (s *sink) running() bool {
	if s.pendingRestarts > 0 {
		return true
	}
	for _, t := range s.tasks {
		if t != nil && t.alive {
			return true
		}
	}
	return false
}

// consumedUpTo reports whether some live task's position on p reached end.
func (s *sink) consumedUpTo(p tp, end int64) bool {
	for _, t := range s.tasks {
		if t != nil && t.alive && t.positions[p] >= end {
			return true
		}
	}
	return end == 0
}

// squat creates the connector's group id as another type before it starts.
func (cw *Sim) squat(s *sink, workEnd int64) {
	typ := map[string]shard.GroupType{"consumer": shard.Consumer, "streams": shard.Streams, "share": shard.Share}[s.spec.ExistingGroup]
	topics := slices.Sorted(maps.Keys(cw.wl.Topics))
	cw.eng.Squat(s.cfg.GroupID, typ, topics[0], workEnd)
}

// --- producers ----------------------------------------------------------

func (cw *Sim) startProducer(i int, p Producer, workEnd int64) {
	w := cw.eng
	stop := workEnd
	if p.StopAt > 0 {
		stop = min(stop, cw.startMs+p.StopAt.Milliseconds())
	}
	begin := cw.startMs + p.StartAt.Milliseconds()
	// Batch k is due at begin + k·batch/rate, computed from k so that the
	// rate holds exactly however small the gap; batches due in the same
	// millisecond are produced in one event.
	due := func(k int64) int64 { return begin + int64(float64(k)*float64(p.BatchRecords)*1000/p.RatePerSec) }
	var k int64
	var produce func()
	produce = func() {
		for ; due(k) <= w.NowMs(); k++ {
			if w.NowMs() >= stop {
				return
			}
			t := tp{Topic: p.Topic, Partition: int32(k % int64(cw.wl.Topics[p.Topic]))}
			if _, err := cw.sb.Produce(w.NowMs(), t, p.BatchRecords); err != nil {
				w.Violate("connect-produce", fmt.Sprintf("producer %d: %v", i, err))
				return
			}
			cw.produced += int64(p.BatchRecords)
		}
		if at := due(k); at < stop {
			w.At(at, produce)
		}
	}
	w.At(begin, produce)
}

// --- connectors and tasks --------------------------------------------------

// startSink validates the group id against the cluster, sets the group
// configs, and starts tasks.max tasks.
func (cw *Sim) startSink(s *sink) {
	w := cw.eng
	coord, b := w.Coordinator(s.cfg.GroupID)
	if b < 0 {
		w.After(retryBackoff, func() { cw.startSink(s) })
		return
	}
	existing := connect.GroupType("")
	d := coord.DescribeGroups([]string{s.cfg.GroupID})[0]
	switch {
	case d.Err == nil:
		existing = connect.GroupType(strings.ToLower(d.Description.Type.String()))
	case kerr.As(d.Err) != kerr.GroupIDNotFound,
		// The squatter group of existing_group is still joining: wait for it.
		s.spec.ExistingGroup != "" && w.NowMs() < cw.startMs+s.spec.StartAt.Milliseconds()+squatWait.Milliseconds():
		w.After(retryBackoff, func() { cw.startSink(s) })
		return
	}
	if err := connect.ValidateGroup(s.cfg, existing); err != nil {
		s.refused = err
		s.res.Refused = err.Error()
		w.Mark("connect-group-collision-refused")
		w.Trace(TraceTask, s.cfg.GroupID, s.cfg.Name, "refused: "+err.Error(), 0)
		return
	}
	if existing == "" { // the connector's tasks create its group: count it with the workload's
		w.GroupCreated(map[bool]string{true: "share", false: "consumer"}[s.cfg.Kind == connect.ShareSink])
	}
	if s.cfg.Kind == connect.ShareSink {
		gc := sharebroker.GroupConfig{}
		if v, ok := s.cfg.GroupConfigs[connect.GroupConfigShareAutoOffsetReset]; ok {
			var err error
			if gc.AutoOffsetReset, gc.AutoOffsetResetDurationMs, err = connect.ParseShareAutoOffsetReset(v); err != nil {
				w.Violate("connect-config", fmt.Sprintf("%s: %v", s.cfg.Name, err))
				return
			}
		}
		if v, ok := s.cfg.GroupConfigs[connect.GroupConfigShareRecordLockDurationMs]; ok {
			// KIP-1302's share.acquisition.lock.timeout.ms, mapped by
			// connect.Resolve onto the group config the broker knows.
			ms, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				w.Violate("connect-config", fmt.Sprintf("%s: %v", s.cfg.Name, err))
				return
			}
			gc.RecordLockDurationMs, s.lockMs = ms, ms
		}
		if s.brokerDLQ {
			gc.DLQTopic = s.spec.BrokerDLQ
		}
		if err := cw.sb.SetGroupConfig(s.cfg.GroupID, gc); err != nil {
			w.Violate("connect-config", fmt.Sprintf("%s: %v", s.cfg.Name, err))
			return
		}
		cw.scheduleGroupConfigChanges(s)
	}
	s.started = true
	s.tm.startedMs = w.NowMs()
	w.Trace(TraceTask, s.cfg.GroupID, s.cfg.Name, fmt.Sprintf("start kind=%s tasks=%d", s.cfg.Kind, s.cfg.Tasks), 0)
	cw.scale(s, s.cfg.Tasks)
}

// scale sets the running task count: new tasks start, the highest-indexed
// ones stop gracefully.
func (cw *Sim) scale(s *sink, n int) {
	s.desired = n
	if !s.started || cw.stopped || s.resetting {
		return
	}
	cw.eng.Trace(TraceTask, s.cfg.GroupID, s.cfg.Name, fmt.Sprintf("scale tasks=%d", n), 0)
	for i := range max(n, len(s.tasks)) {
		var t *sinkTask
		if i < len(s.tasks) {
			t = s.tasks[i]
		}
		running := t != nil && t.alive && !t.stopping
		switch {
		case i < n && !running && (t == nil || !t.failed || t.stopping):
			cw.startTask(s, i)
		case i >= n && running:
			cw.stopTask(t)
		}
	}
}

func (cw *Sim) startTask(s *sink, i int) {
	if s.resetting {
		return // the reset's end starts the tasks
	}
	for len(s.tasks) <= i {
		s.tasks = append(s.tasks, nil)
	}
	cw.nextID++
	t := &sinkTask{s: s, idx: i, id: cw.nextID, alive: true, positions: map[tp]int64{}}
	t.member = fmt.Sprintf("%s-%d-%d", s.cfg.Name, i, t.id)
	s.tasks[i] = t
	s.res.TasksStarted++
	for j, k := range s.kills {
		if k.Task == i && k.At.Milliseconds()+cw.startMs <= cw.eng.NowMs() {
			t.killAt = cw.eng.NowMs()
			s.kills = slices.Delete(s.kills, j, j+1)
			break
		}
	}
	cw.eng.Trace(TraceTask, s.cfg.GroupID, t.member, "task-start", 0)
	// Connect starts the task before its consumer subscribes.
	if !cw.newTaskImpl(t) {
		return
	}
	cw.heartbeat(t, 0)
	cw.after(t, processingGap, cw.poll)
}

// armKill kills task i inside its next put; a kill for a slot without a
// live task waits for the next task started there.
func (cw *Sim) armKill(s *sink, i int) {
	if i < len(s.tasks) && s.tasks[i] != nil && s.tasks[i].alive && s.tasks[i].killAt == 0 {
		s.tasks[i].killAt = cw.eng.NowMs()
		if j := slices.IndexFunc(s.kills, func(k TaskKill) bool { return k.Task == i }); j >= 0 {
			s.kills = slices.Delete(s.kills, j, j+1)
		}
	}
}

// restartLater brings a fault-killed task back after killRestartAfter.
func (cw *Sim) restartLater(t *sinkTask) {
	s, i := t.s, t.idx
	s.pendingRestarts++
	cw.eng.After(killRestartAfter, func() {
		s.pendingRestarts--
		if cw.stopped || i >= s.desired || s.tasks[i] != t {
			return
		}
		cw.startTask(s, i)
	})
}

// after runs fn for t later, unless t died meanwhile.
func (cw *Sim) after(t *sinkTask, d time.Duration, fn func(*sinkTask)) {
	cw.eng.After(d, func() {
		if t.alive {
			fn(t)
		}
	})
}

// heartbeat sends one group heartbeat of the task's kind at epoch.
func (cw *Sim) heartbeat(t *sinkTask, epoch int32) {
	w := cw.eng
	s := t.s
	c, b := w.Coordinator(s.cfg.GroupID)
	if b < 0 {
		if epoch >= 0 {
			cw.after(t, retryBackoff, func(t *sinkTask) { cw.heartbeat(t, t.epoch) })
		}
		return
	}
	w.Touch(b)
	onDone := func(memberEpoch int32, hasAssignment bool, assignment []shard.TopicPartitions, err error) {
		if epoch < 0 || !t.alive {
			return
		}
		if err != nil {
			w.Trace(TraceResponse, s.cfg.GroupID, t.member, kerr.Name(err), 0)
			switch kerr.As(err) {
			case kerr.FencedMemberEpoch, kerr.UnknownMemberID:
				w.Mark("sink-task-fenced-rejoin")
				t.epoch = 0
				cw.after(t, retryBackoff, func(t *sinkTask) { cw.heartbeat(t, 0) })
			case kerr.GroupIDNotFound, kerr.GroupMaxSizeReached, kerr.InvalidRequest:
				cw.failTask(t, "heartbeat: "+kerr.Name(err))
			default:
				cw.after(t, retryBackoff, func(t *sinkTask) { cw.heartbeat(t, t.epoch) })
			}
			return
		}
		t.joined, t.epoch = true, memberEpoch
		if hasAssignment {
			cw.assign(t, flatten(assignment))
		}
		cw.after(t, heartbeatInterval, func(t *sinkTask) { cw.heartbeat(t, t.epoch) })
	}
	switch s.cfg.Kind {
	case connect.ShareSink:
		req := shard.ShareGroupHeartbeatRequest{GroupID: s.cfg.GroupID, MemberID: t.member, MemberEpoch: epoch, ClientID: s.cfg.Name}
		if epoch == 0 {
			req.SubscribedTopicNames = s.cfg.Topics
		}
		c.ShareGroupHeartbeat(req).OnDone(func(r shard.ShareGroupHeartbeatResponse, err error) {
			onDone(r.MemberEpoch, r.HasAssignment, r.Assignment, err)
		})
	default:
		req := shard.ConsumerGroupHeartbeatRequest{RebalanceTimeoutMs: shard.RebalanceTimeoutNotSent, GroupID: s.cfg.GroupID, MemberID: t.member, MemberEpoch: epoch, ClientID: s.cfg.Name}
		if epoch == 0 {
			req.RebalanceTimeoutMs, req.SubscribedTopicNames = 300_000, s.cfg.Topics
		} else {
			// KIP-848: the owned partitions acknowledge a revocation (assign
			// has already dropped the revoked ones).
			req.TopicPartitions = unflatten(t.assignment)
		}
		c.ConsumerGroupHeartbeat(req).OnDone(func(r shard.ConsumerGroupHeartbeatResponse, err error) {
			onDone(r.MemberEpoch, r.HasAssignment, r.Assignment, err)
		})
	}
}

func flatten(a []shard.TopicPartitions) []tp {
	var out []tp
	for _, t := range a {
		for _, p := range t.Partitions {
			out = append(out, tp{Topic: t.Topic, Partition: p})
		}
	}
	slices.SortFunc(out, compareTP)
	return out
}

// unflatten groups sorted partitions by topic, never nil (an empty list is
// a sent field).
func unflatten(ps []tp) []shard.TopicPartitions {
	out := []shard.TopicPartitions{}
	for _, p := range ps {
		if n := len(out); n == 0 || out[n-1].Topic != p.Topic {
			out = append(out, shard.TopicPartitions{Topic: p.Topic})
		}
		out[len(out)-1].Partitions = append(out[len(out)-1].Partitions, p.Partition)
	}
	return out
}

func compareTP(a, b tp) int {
	if c := strings.Compare(a.Topic, b.Topic); c != 0 {
		return c
	}
	return int(a.Partition) - int(b.Partition)
}

// assign takes a new assignment. A consumer-group task commits what it
// processed of revoked partitions, looks up committed offsets of new ones
// and pauses for the rebalance; a share task only fetches from the new set.
func (cw *Sim) assign(t *sinkTask, next []tp) {
	s := t.s
	if s.cfg.Kind != connect.ShareSink && t.inPut {
		t.nextAssignment, t.hasNextAssignment = next, true
		return
	}
	if slices.Equal(next, t.assignment) {
		return
	}
	cw.eng.Trace(TraceTask, s.cfg.GroupID, t.member, fmt.Sprintf("assigned %d partitions", len(next)), 0)
	if s.cfg.Kind == connect.ShareSink {
		t.assignment = next
		return
	}
	var revoked []tp
	for _, p := range t.assignment {
		if _, ok := slices.BinarySearchFunc(next, p, compareTP); !ok {
			revoked = append(revoked, p)
		}
	}
	cw.commitPositions(t, revoked)
	cw.closePartitions(t, revoked)
	for _, p := range revoked {
		delete(t.positions, p)
	}
	var added []tp
	for _, p := range next {
		if _, ok := slices.BinarySearchFunc(t.assignment, p, compareTP); !ok {
			added = append(added, p)
		}
	}
	t.assignment = next
	cw.lookupPositions(t)
	cw.openPartitions(t, added)
	pause := s.spec.RebalancePause
	if pause == 0 {
		pause = defaultRebalance
	}
	t.pausedUntil = cw.eng.NowMs() + pause.Milliseconds()
	s.res.RebalancePauses++
	s.res.RebalancePausedMs += pause.Milliseconds()
}

// lookupPositions reads committed offsets for newly assigned partitions;
// without one a task starts at the log start (auto.offset.reset=earliest,
// Connect's default) or the log end (latest).
func (cw *Sim) lookupPositions(t *sinkTask) {
	var fresh []tp // assigned partitions without a position
	for _, p := range t.assignment {
		if _, ok := t.positions[p]; !ok {
			fresh = append(fresh, p)
		}
	}
	if len(fresh) == 0 {
		t.lookupFailed = false
		return
	}
	w := cw.eng
	byTopic := map[string][]int32{}
	for _, p := range fresh {
		byTopic[p.Topic] = append(byTopic[p.Topic], p.Partition)
	}
	var req []shard.TopicPartitions
	for _, name := range slices.Sorted(maps.Keys(byTopic)) {
		req = append(req, shard.TopicPartitions{Topic: name, Partitions: byTopic[name]})
	}
	committed := map[tp]int64{}
	coord, b := w.Coordinator(t.s.cfg.GroupID)
	if b < 0 {
		t.lookupFailed = true // the coordinator is moving: poll retries
		return
	}
	offs, err := coord.FetchOffsets(t.s.cfg.GroupID, req, false)
	if err != nil {
		t.lookupFailed = true
		w.Mark("sink-offset-fetch-retried")
		return
	}
	t.lookupFailed = false
	for _, o := range offs {
		if o.Offset >= 0 {
			committed[tp{Topic: o.Topic, Partition: o.Partition}] = o.Offset
		}
	}
	for _, p := range fresh {
		if off, ok := committed[p]; ok {
			t.positions[p] = off
			continue
		}
		// auto.offset.reset: latest, or earliest (Connect's default; none
		// and by_duration are not modelled for consumer sinks and read as
		// earliest).
		if strings.EqualFold(t.s.cfg.Consumer["auto.offset.reset"], "latest") {
			t.positions[p], _ = cw.sb.EndOffset(p)
		} else {
			t.positions[p], _ = cw.sb.LogStartOffset(p)
		}
	}
}

// commitPositions commits the task's positions of ps (all when nil).
func (cw *Sim) commitPositions(t *sinkTask, ps []tp) {
	w := cw.eng
	if ps == nil {
		ps = t.assignment
	}
	if len(ps) == 0 || !t.joined {
		return
	}
	coord, b := w.Coordinator(t.s.cfg.GroupID)
	if b < 0 {
		return
	}
	var topics []shard.OffsetCommitTopic
	committable := cw.preCommit(t, ps)
	for _, p := range ps {
		pos, ok := committable[p]
		if !ok {
			continue
		}
		if n := len(topics); n == 0 || topics[n-1].Topic != p.Topic {
			topics = append(topics, shard.OffsetCommitTopic{Topic: p.Topic})
		}
		topics[len(topics)-1].Partitions = append(topics[len(topics)-1].Partitions, shard.OffsetCommitPartition{Partition: p.Partition, Offset: pos, LeaderEpoch: -1})
	}
	if len(topics) == 0 {
		t.s.tm.skips++
		return
	}
	w.Touch(b)
	t.lastFlush = w.NowMs()
	s := t.s
	coord.CommitOffsets(shard.OffsetCommitRequest{GroupID: s.cfg.GroupID, MemberID: t.member, MemberEpoch: t.epoch, RetentionTimeMs: -1, Topics: topics}).
		OnDone(func(_ shard.OffsetCommitResponse, err error) {
			if err != nil {
				s.res.CommitsFailed++
				return
			}
			s.res.Commits++
			s.tm.commits++
		})
}

// poll is one iteration of the task's loop.
func (cw *Sim) poll(t *sinkTask) {
	if t.stopping {
		cw.finishStop(t)
		return
	}
	if cw.stopped {
		return
	}
	if t.s.cfg.Kind == connect.ShareSink {
		cw.sharePoll(t)
	} else {
		cw.consumerPoll(t)
	}
}

// --- share sink (WorkerShareSinkTask) ---------------------------------------

func (cw *Sim) sharePoll(t *sinkTask) {
	w, s := cw.eng, t.s
	if len(t.assignment) == 0 {
		cw.after(t, fetchIdle, cw.poll)
		return
	}
	// max.poll.records bounds the whole poll: each partition gets its share
	// (record_limit-like; batch_optimized may still overshoot by whole log
	// batches, as Kafka's does).
	perPartition := max(cw.maxPoll(s)/int32(len(t.assignment)), 1)
	req := sharebroker.FetchRequest{GroupID: s.cfg.GroupID, MemberID: t.member, SessionEpoch: t.sessEpoch,
		Partitions: t.assignment, MaxRecords: perPartition}
	resp, err := cw.sb.ShareFetch(w.NowMs(), req)
	cw.dirty = true
	for _, p := range t.assignment {
		cw.touched[share.Key{Group: s.cfg.GroupID, Topic: p.Topic, Partition: p.Partition}] = true
	}
	if err != nil {
		w.Trace(TraceFetch, s.cfg.GroupID, t.member, kerr.Name(err), 0)
		w.Mark("share-fetch-" + kerr.Name(err))
		t.sessEpoch = 0
		cw.after(t, retryBackoff, cw.poll)
		return
	}
	t.sessEpoch = sharebroker.NextSessionEpoch(t.sessEpoch)
	n := int64(0)
	for _, fp := range resp.Partitions {
		if fp.Err != nil {
			w.Mark("share-fetch-partition-" + kerr.Name(fp.Err))
			continue
		}
		for _, r := range fp.Records {
			cw.onAcquired(t, fp.TopicPartition, r, fp.LockDeadlineMs)
			t.held = append(t.held, heldRange{tp: fp.TopicPartition, first: r.FirstOffset, last: r.LastOffset,
				acks: make([]share.AcknowledgeType, r.LastOffset-r.FirstOffset+1)})
			n += r.LastOffset - r.FirstOffset + 1
		}
	}
	if n == 0 {
		cw.after(t, fetchIdle, cw.poll)
		return
	}
	w.Trace(TraceFetch, s.cfg.GroupID, t.member, "", n)
	cw.convertAndPut(t, n)
}

func (cw *Sim) maxPoll(s *sink) int32 {
	if s.spec.MaxPollRecords > 0 {
		return s.spec.MaxPollRecords
	}
	return defaultMaxPoll
}

// onAcquired checks invariant 8 on an acquisition and records the holder.
func (cw *Sim) onAcquired(t *sinkTask, p tp, r share.AcquiredRecords, deadlineMs int64) {
	w, s := cw.eng, t.s
	key := share.Key{Group: s.cfg.GroupID, Topic: p.Topic, Partition: p.Partition}
	h := cw.holds[key]
	if h == nil {
		h = &holdTab{}
		cw.holds[key] = h
	}
	if r.DeliveryCount < 1 || r.DeliveryCount > s.limit {
		w.Violate(InvSharePartitions, fmt.Sprintf("%s offsets %d-%d delivered with count %d (limit %d)", keyString(key), r.FirstOffset, r.LastOffset, r.DeliveryCount, s.limit))
		return
	}
	h.grow(r.LastOffset)
	if sp, _ := cw.sb.Partition(key); sp != h.sp {
		clear(h.count)
		h.sp = sp
	}
	rt := s.tab(p)
	rt.grow(r.LastOffset)
	now := w.NowMs()
	for o := r.FirstOffset; o <= r.LastOffset; o++ {
		if prev := h.holder[o]; prev != 0 && prev != t.id && h.until[o] > now {
			w.Violate(InvSharePartitions, fmt.Sprintf("%s offset %d acquired by %s while task %d holds its lock until %d", keyString(key), o, t.member, prev, h.until[o]))
			return
		}
		if c := uint8(r.DeliveryCount); c <= h.count[o] {
			w.Violate(InvSharePartitions, fmt.Sprintf("%s offset %d delivered with count %d after count %d", keyString(key), o, c, h.count[o]))
			return
		}
		h.count[o] = uint8(r.DeliveryCount)
		h.holder[o], h.until[o] = t.id, deadlineMs
		if h.orphaned[o] > 0 {
			lat := now - h.orphaned[o]
			s.res.KilledRedelivered++
			s.res.MaxKillRedeliveryMs = max(s.res.MaxKillRedeliveryMs, lat)
			h.orphaned[o] = 0
		}
		rt.maxCount[o] = max(rt.maxCount[o], uint8(r.DeliveryCount))
	}
	n := r.LastOffset - r.FirstOffset + 1
	s.res.Deliveries += n
	s.lastDeliveryMs = now
	if r.DeliveryCount > 1 {
		s.res.Redeliveries += n
	}
}

func (s *sink) tab(p tp) *recvTab {
	rt := s.recv[p]
	if rt == nil {
		rt = &recvTab{}
		s.recv[p] = rt
	}
	return rt
}

// convertAndPut converts the polled records (failures follow
// errors.tolerance) and calls put() with the rest.
func (cw *Sim) convertAndPut(t *sinkTask, n int64) {
	w, s := cw.eng, t.s
	if p := s.spec.ConvertFailProb; p > 0 {
		d, err := s.cfg.OnConvertFailure(s.brokerDLQ)
		if err != nil {
			w.Violate("connect-decision", err.Error())
			return
		}
		for i := range t.held {
			h := &t.held[i]
			for o := h.first; o <= h.last; o++ {
				if !w.Chance(p) {
					continue
				}
				s.res.ConvertFailures++
				if d.FailTask {
					cw.failTask(t, "conversion failed (errors.tolerance=none)")
					return
				}
				h.acks[o-h.first] = d.Ack
				s.tab(h.tp).flags[o] |= flagSkipped
				if d.ToConnectDLQ {
					s.res.ConnectDLQ++
				}
			}
		}
	}
	var onPut func(connect.PutOutcome)
	onPut = func(outcome connect.PutOutcome) {
		d, ok := cw.decidePut(t, outcome)
		if !ok || !cw.applyReports(t) {
			return
		}
		if d.RetrySameBatch {
			// RetriablePutRetry: keep the batch, renew its locks, put again.
			t.putRetries++
			s.res.PutRetries++
			if d.RenewLocks {
				s.res.Renewals++
				cw.commitSync(t, share.AckRenew)
			}
			cw.after(t, retriableBackoff, func(t *sinkTask) {
				if t.stopping {
					cw.finishStop(t)
					return
				}
				cw.put(t, n, shareRecords(t), onPut)
			})
			return
		}
		t.putRetries = 0
		for _, h := range t.ackedEarly { // the mutant acknowledged these already
			for o := h.first; o <= h.last; o++ {
				if s.tab(h.tp).flags[o]&flagSkipped == 0 && d.Ack == share.AckAccept {
					cw.received(s, h.tp, o)
				}
			}
		}
		t.ackedEarly = nil
		for i := range t.held {
			h := &t.held[i]
			for o := h.first; o <= h.last; o++ {
				if h.acks[o-h.first] != 0 {
					continue
				}
				h.acks[o-h.first] = d.Ack
				if d.Ack == share.AckAccept {
					cw.received(s, h.tp, o)
				}
			}
		}
		cw.commitSync(t, 0)
		cw.after(t, processingGap, cw.poll)
	}
	cw.put(t, n, shareRecords(t), onPut)
}

// dlqAttempt records a dead-letter write of [d.FirstOffset, d.LastOffset].
func (cw *Sim) dlqAttempt(k share.Key, d share.DLQWrite) {
	for _, s := range cw.sinks {
		if s.cfg.GroupID != k.Group {
			continue
		}
		rt := s.tab(tp{Topic: k.Topic, Partition: k.Partition})
		rt.grow(d.LastOffset)
		for o := d.FirstOffset; o <= d.LastOffset; o++ {
			rt.flags[o] |= flagDLQ
		}
	}
}

// decidePut maps a put() outcome to the task's decision (package connect),
// counting failures; a fatal outcome fails the task. It reports false when
// the task must not go on with the batch.
func (cw *Sim) decidePut(t *sinkTask, outcome connect.PutOutcome) (connect.Decision, bool) {
	s := t.s
	d, err := s.cfg.OnPutAttempt(outcome, t.putRetries)
	if err != nil {
		cw.eng.Violate("connect-decision", err.Error())
		return d, false
	}
	switch outcome {
	case connect.PutFatal:
		s.res.PutFatal++
	case connect.PutRetriable:
		s.res.PutRetriable++
	}
	if d.FailTask {
		cw.failTask(t, "put() threw a fatal exception")
		return d, false
	}
	return d, true
}

// received counts one successful put() of an offset.
func (cw *Sim) received(s *sink, p tp, o int64) {
	rt := s.tab(p)
	rt.grow(o)
	if rt.recv[o] == 0 {
		s.res.Unique++
		if s.res.firstMs == 0 {
			s.res.firstMs = cw.eng.NowMs()
		}
		s.res.lastMs = cw.eng.NowMs()
	}
	if rt.recv[o] < 255 {
		rt.recv[o]++
	}
	s.res.Received++
}

// put runs SinkTask.put() for n records: it takes a drawn latency, renews
// share locks while it runs long, and may be killed inside.
func (cw *Sim) put(t *sinkTask, n int64, recs []connect.SinkRecord, done func(connect.PutOutcome)) {
	w, s := cw.eng, t.s
	lat := w.Uniform(s.spec.PutLatencyMin, s.spec.PutLatencyMax) + time.Duration(n)*s.spec.PutPerRecord
	t.inPut = true
	s.tm.putTook(lat.Milliseconds())
	if cw.mutants.ShareSinkAckBeforePut && s.cfg.Kind == connect.ShareSink {
		t.ackedEarly = slices.Clone(t.held)
		for i := range t.held {
			h := &t.held[i]
			for o := h.first; o <= h.last; o++ {
				if h.acks[o-h.first] == 0 {
					h.acks[o-h.first] = share.AckAccept
				}
			}
		}
		cw.commitSync(t, 0)
	}
	if t.killAt > 0 && t.killAt <= w.NowMs() {
		cw.kill(t)
		return
	}
	if s.cfg.Kind == connect.ShareSink {
		cw.scheduleRenew(t, lat)
	}
	t.putEv = w.At(w.NowMs()+lat.Milliseconds(), func() {
		t.putEv = nil
		if !t.alive {
			t.inPut = false
			return
		}
		// The task's put() runs at the end of the drawn latency, still
		// inside the put (its reports count), and decides the outcome.
		outcome, _ := connect.CallPut(t.impl, recs)
		t.inPut = false
		if outcome != connect.PutOK {
			t.reported = nil
		}
		done(outcome)
	})
}

// scheduleRenew sends RENEW for the held records every half lock duration
// while a put runs (KIP-1222; share.renew.acknowledge.enable=true).
func (cw *Sim) scheduleRenew(t *sinkTask, lat time.Duration) {
	every := time.Duration(t.s.lockMs/2) * time.Millisecond
	if lat <= every {
		return
	}
	for at := every; at < lat; at += every {
		cw.after(t, at, func(t *sinkTask) {
			if t.inPut && len(t.held) > 0 {
				t.s.res.Renewals++
				cw.commitSync(t, share.AckRenew)
			}
		})
	}
}

// commitSync sends the decided acknowledgements of the held records (or a
// RENEW of all of them when renew is set) with ShareAcknowledge.
func (cw *Sim) commitSync(t *sinkTask, renew share.AcknowledgeType) {
	w, s := cw.eng, t.s
	if len(t.held) == 0 || t.sessEpoch == 0 {
		t.held = t.held[:0]
		return
	}
	if renew == 0 {
		cw.flushShare(t)
	}
	acks, ranges := buildAcks(t.held, renew)
	if len(acks) == 0 {
		if renew == 0 {
			s.tm.skips++
		}
		return
	}
	spso := cw.startOffsets(s, acks)
	res, err := cw.sb.ShareAcknowledge(w.NowMs(), sharebroker.AckRequest{GroupID: s.cfg.GroupID, MemberID: t.member, SessionEpoch: t.sessEpoch, Acks: acks})
	cw.dirty = true
	if err != nil {
		w.Trace(TraceAck, s.cfg.GroupID, t.member, kerr.Name(err), 0)
		t.sessEpoch = 0
		if renew == 0 {
			t.held = t.held[:0]
		}
		return
	}
	t.sessEpoch = sharebroker.NextSessionEpoch(t.sessEpoch)
	if renew == 0 {
		s.tm.commits++
	}
	cw.onAcked(t, res, ranges, spso, renew)
	if renew == 0 {
		t.held = t.held[:0]
	}
}

// buildAcks turns held ranges into per-partition ack batches, one batch per
// run of equal types, ascending. It returns, per partition, the offsets it
// acknowledged with their types, for the invariant checks.
func buildAcks(held []heldRange, renew share.AcknowledgeType) ([]sharebroker.PartitionAcks, map[tp][]share.AckBatch) {
	by := map[tp][]share.AckBatch{}
	for _, h := range held {
		for o := h.first; o <= h.last; o++ {
			typ := h.acks[o-h.first]
			if renew != 0 {
				typ = renew
			}
			if typ == 0 {
				continue
			}
			bs := by[h.tp]
			if n := len(bs); n > 0 && bs[n-1].LastOffset == o-1 && bs[n-1].Type == typ {
				bs[n-1].LastOffset = o
			} else {
				bs = append(bs, share.AckBatch{FirstOffset: o, LastOffset: o, Type: typ})
			}
			by[h.tp] = bs
		}
	}
	keys := slices.SortedFunc(maps.Keys(by), compareTP)
	out := make([]sharebroker.PartitionAcks, 0, len(keys))
	for _, k := range keys {
		bs := by[k]
		slices.SortFunc(bs, func(a, b share.AckBatch) int { return int(a.FirstOffset - b.FirstOffset) })
		out = append(out, sharebroker.PartitionAcks{TopicPartition: k, Batches: bs})
	}
	return out, by
}

// startOffsets returns each acknowledged partition's SPSO before the
// acknowledgement: offsets below it are terminal, and an acknowledgement of
// them is a no-op the broker answers without error (a zombie task's late
// ACCEPT of records another task already finished).
func (cw *Sim) startOffsets(s *sink, acks []sharebroker.PartitionAcks) map[tp]int64 {
	out := make(map[tp]int64, len(acks))
	for _, a := range acks {
		if sp, ok := cw.sb.Partition(share.Key{Group: s.cfg.GroupID, Topic: a.Topic, Partition: a.Partition}); ok {
			out[a.TopicPartition] = sp.StartOffset()
		}
	}
	return out
}

// onAcked checks invariant 8 on the broker's answer: an acknowledgement
// the broker applied must come from the holder of every offset in it.
func (cw *Sim) onAcked(t *sinkTask, res []sharebroker.AckResult, ranges map[tp][]share.AckBatch, spso map[tp]int64, renew share.AcknowledgeType) {
	w, s := cw.eng, t.s
	now := w.NowMs()
	for _, r := range res {
		key := share.Key{Group: s.cfg.GroupID, Topic: r.Topic, Partition: r.Partition}
		cw.touched[key] = true
		n := int64(0)
		for _, b := range ranges[r.TopicPartition] {
			n += b.LastOffset - b.FirstOffset + 1
		}
		if r.Err != nil {
			s.res.AcksRefused += n
			w.Mark("share-ack-refused-" + kerr.Name(r.Err))
			continue
		}
		h := cw.holds[key]
		rt := s.tab(r.TopicPartition)
		for _, b := range ranges[r.TopicPartition] {
			s.res.Metrics.countAcks(b.Type, b.LastOffset-b.FirstOffset+1)
			for o := b.FirstOffset; o <= b.LastOffset; o++ {
				if start, ok := spso[r.TopicPartition]; !ok || o < start {
					w.Mark("share-ack-below-spso-ignored")
					continue
				}
				if h == nil || o >= int64(len(h.holder)) || h.holder[o] != t.id {
					w.Violate(InvSharePartitions, fmt.Sprintf("%s offset %d: %s acknowledgement from %s accepted, but it does not hold the record", keyString(key), o, b.Type, t.member))
					return
				}
				if h.until[o] <= now {
					w.Violate(InvSharePartitions, fmt.Sprintf("%s offset %d: %s acknowledgement from %s accepted after its lock expired at %d", keyString(key), o, b.Type, t.member, h.until[o]-cw.startMs))
					return
				}
				switch b.Type {
				case share.AckRenew:
					h.until[o] = now + s.lockMs
				default:
					h.holder[o], h.until[o] = 0, 0
				}
				switch b.Type {
				case share.AckAccept:
					rt.flags[o] |= flagAcked
				case share.AckReject:
					rt.flags[o] |= flagRejected
				}
			}
		}
		if renew == 0 {
			s.res.Acked += n
		}
	}
}

// closeShare ends the task's share session (FINAL epoch): pending acks are
// sent, the rest of its records are released at once.
func (cw *Sim) closeShare(t *sinkTask) {
	w, s := cw.eng, t.s
	if t.sessEpoch == 0 {
		// No usable session epoch: end whatever session the broker still
		// holds for the member, as a closed connection does.
		if cw.sb.DropConnection(w.NowMs(), s.cfg.GroupID, t.member) == nil {
			cw.dirty = true
		}
		cw.releaseHolder(t)
		cw.touchGroup(s.cfg.GroupID)
		t.held = t.held[:0]
		return
	}
	acks, ranges := buildAcks(t.held, 0)
	spso := cw.startOffsets(s, acks)
	res, err := cw.sb.ShareAcknowledge(w.NowMs(), sharebroker.AckRequest{GroupID: s.cfg.GroupID, MemberID: t.member, SessionEpoch: -1, Acks: acks})
	cw.dirty = true
	if err == nil {
		cw.onAcked(t, res, ranges, spso, 0)
	} else {
		w.Mark("share-close-" + kerr.Name(err))
	}
	cw.releaseHolder(t)
	t.held, t.sessEpoch = t.held[:0], 0
	cw.touchGroup(s.cfg.GroupID)
}

// releaseHolder forgets every offset t holds (its session closed).
func (cw *Sim) releaseHolder(t *sinkTask) {
	for k, h := range cw.holds { // order-free: each table is cleared on its own
		if k.Group != t.s.cfg.GroupID {
			continue
		}
		for o, id := range h.holder {
			if id == t.id {
				h.holder[o], h.until[o] = 0, 0
			}
		}
	}
}

func keyString(k share.Key) string { return fmt.Sprintf("%s/%s-%d", k.Group, k.Topic, k.Partition) }

func compareKey(a, b share.Key) int {
	if c := strings.Compare(a.Group, b.Group); c != 0 {
		return c
	}
	return compareTP(tp{Topic: a.Topic, Partition: a.Partition}, tp{Topic: b.Topic, Partition: b.Partition})
}

// --- consumer-group sink (WorkerSinkTask) -------------------------------------

func (cw *Sim) consumerPoll(t *sinkTask) {
	w, s := cw.eng, t.s
	now := w.NowMs()
	if now < t.pausedUntil {
		cw.after(t, time.Duration(t.pausedUntil-now)*time.Millisecond, cw.poll)
		return
	}
	if t.hasNextAssignment {
		next := t.nextAssignment
		t.nextAssignment, t.hasNextAssignment = nil, false
		cw.assign(t, next)
		// A batch to retry keeps only the partitions still assigned.
		t.pending = slices.DeleteFunc(t.pending, func(r readRange) bool {
			_, ok := slices.BinarySearchFunc(t.assignment, r.tp, compareTP)
			return !ok
		})
		if len(t.pending) == 0 {
			t.pending = nil
		}
		if now < t.pausedUntil {
			cw.after(t, time.Duration(t.pausedUntil-now)*time.Millisecond, cw.poll)
			return
		}
	}
	if t.lookupFailed {
		cw.lookupPositions(t)
	}
	flush := s.spec.FlushInterval
	if flush == 0 {
		flush = defaultFlush
	}
	if now-t.lastFlush >= flush.Milliseconds() {
		cw.commitPositions(t, nil)
	}
	batch := t.pending
	if batch == nil {
		budget := int64(cw.maxPoll(s))
		for _, p := range t.assignment {
			if budget == 0 {
				break
			}
			pos, ok := t.positions[p]
			end, _ := cw.sb.EndOffset(p)
			if !ok || pos >= end {
				continue
			}
			last := min(end-1, pos+budget-1)
			batch = append(batch, readRange{tp: p, first: pos, last: last})
			budget -= last - pos + 1
		}
	}
	if len(batch) == 0 {
		cw.after(t, fetchIdle, cw.poll)
		return
	}
	n := int64(0)
	for _, r := range batch {
		n += r.last - r.first + 1
	}
	w.Trace(TraceFetch, s.cfg.GroupID, t.member, "", n)
	if t.pending == nil && s.spec.ConvertFailProb > 0 {
		d, err := s.cfg.OnConvertFailure(false)
		if err != nil {
			w.Violate("connect-decision", err.Error())
			return
		}
		for _, r := range batch {
			for o := r.first; o <= r.last; o++ {
				if w.Chance(s.spec.ConvertFailProb) {
					s.res.ConvertFailures++
					if d.FailTask {
						cw.failTask(t, "conversion failed (errors.tolerance=none)")
						return
					}
					rt := s.tab(r.tp)
					rt.grow(o)
					rt.flags[o] |= flagSkipped
				}
			}
		}
	}
	s.res.Deliveries += n
	if t.pending == nil {
		s.tm.read += n // a batch put again is not read again
	}
	s.lastDeliveryMs = w.NowMs()
	cw.put(t, n, consumerRecords(s, batch), func(outcome connect.PutOutcome) {
		d, ok := cw.decidePut(t, outcome)
		if !ok || !cw.applyReports(t) {
			return
		}
		if d.RetrySameBatch {
			t.pending = batch
			t.pausedUntil = w.NowMs() + retriableBackoff.Milliseconds()
			cw.after(t, processingGap, cw.poll)
			return
		}
		t.pending = nil
		for _, r := range batch {
			rt := s.tab(r.tp)
			rt.grow(r.last)
			for o := r.first; o <= r.last; o++ {
				if rt.flags[o]&flagSkipped == 0 {
					cw.received(s, r.tp, o)
				}
			}
			if pos, ok := t.positions[r.tp]; ok && pos == r.first {
				t.positions[r.tp] = r.last + 1
			}
		}
		cw.after(t, processingGap, cw.poll)
	})
}

// --- lifecycle ------------------------------------------------------------------

// stopTask stops a task gracefully: at once when idle, after its put
// otherwise.
func (cw *Sim) stopTask(t *sinkTask) {
	t.stopping = true
	if !t.inPut {
		cw.finishStop(t)
	}
}

func (cw *Sim) finishStop(t *sinkTask) {
	if !t.alive {
		return
	}
	s := t.s
	if s.cfg.Kind == connect.ShareSink {
		// Connect's order: close the partitions, stop the task, then close
		// the consumer (the FINAL acknowledgement commits what was decided
		// and releases the rest).
		cw.flushShare(t)
		cw.stopImpl(t)
		cw.closeShare(t)
	} else {
		cw.commitPositions(t, nil) // preCommit, then commit
		cw.stopImpl(t)
	}
	cw.heartbeat(t, -1)
	t.alive = false
	s.res.TasksStopped++
	cw.eng.Trace(TraceTask, s.cfg.GroupID, t.member, "task-stop", 0)
}

// failTask is a task failure: the consumer closes (a share consumer
// releases what it holds), the task leaves the group and stays FAILED
// unless RestartFailedAfter is set.
func (cw *Sim) failTask(t *sinkTask, why string) {
	s := t.s
	if t.putEv != nil {
		cw.eng.Cancel(t.putEv)
		t.putEv = nil
	}
	t.inPut = false
	t.reported = nil
	cw.stopImpl(t) // a failed task is closed and stopped like a stopped one
	if s.cfg.Kind == connect.ShareSink {
		cw.closeShare(t)
	}
	cw.heartbeat(t, -1)
	t.alive, t.failed = false, true
	s.res.TasksFailed++
	cw.eng.Mark("sink-task-failed")
	cw.eng.Trace(TraceTask, s.cfg.GroupID, t.member, "task-failed: "+why, 0)
	if d := s.spec.RestartFailedAfter; d > 0 {
		i := t.idx
		s.pendingRestarts++
		cw.eng.After(d, func() {
			s.pendingRestarts--
			if !cw.stopped && i < s.desired && s.tasks[i] == t {
				cw.startTask(s, i)
			}
		})
	}
}

// kill kills a task hard inside put(): no close, no leave. Its share
// records come back when their locks expire; its group membership ends at
// the session timeout.
func (cw *Sim) kill(t *sinkTask) {
	s := t.s
	t.alive, t.inPut = false, false
	t.impl, t.reported = nil, nil // a crashed worker calls nothing more
	s.res.TasksKilled++
	cw.eng.Mark("sink-task-killed-mid-put")
	cw.eng.Trace(TraceCrash, s.cfg.GroupID, t.member, "killed inside put()", 0)
	now := cw.eng.NowMs()
	for _, h := range t.held {
		key := share.Key{Group: s.cfg.GroupID, Topic: h.tp.Topic, Partition: h.tp.Partition}
		ht := cw.holds[key]
		for o := h.first; o <= h.last; o++ {
			if ht != nil && ht.holder[o] == t.id {
				ht.orphaned[o] = now
				s.res.KilledInFlight++
				s.res.MaxKillUnlockMs = max(s.res.MaxKillUnlockMs, ht.until[o]-now)
			}
		}
	}
	t.held = nil
	if t.restartAfterKill {
		cw.restartLater(t)
	}
	if s.cfg.Kind == connect.ShareSink {
		// A crashed host's connection is closed by the broker after
		// connections.max.idle.ms; the share session goes with it
		// (§1.11), releasing anything its locks still hold.
		member, group := t.member, s.cfg.GroupID
		cw.eng.After(cw.idleTimeout(), func() {
			if err := cw.sb.DropConnection(cw.eng.NowMs(), group, member); err == nil {
				cw.eng.Mark("share-connection-dropped")
				cw.dirty = true
				cw.touchGroup(group)
			}
		})
	}
}

// idleTimeout is connections.max.idle.ms.
func (cw *Sim) idleTimeout() time.Duration {
	if cw.wl.ConnectionIdleTimeout > 0 {
		return cw.wl.ConnectionIdleTimeout
	}
	return defaultIdleTimeout
}

// touchGroup marks every share-partition of group for the per-event checks
// (closing a group's last session evicts all of them).
func (cw *Sim) touchGroup(group string) {
	for _, k := range cw.sb.Keys() {
		if k.Group == group {
			cw.touched[k] = true
		}
	}
	for k := range cw.spso { // order-free: AfterEvent sorts what it checks
		if k.Group == group {
			cw.touched[k] = true
		}
	}
}

// stopAll stops every task at the end of the drain.
func (cw *Sim) stopAll() {
	// The check reads the instant the drain ends, before the tasks close:
	// closing sends decided acknowledgements and releases the rest, and the
	// group's last session closing evicts its share-partitions.
	cw.checkDelivery(cw.snapshotEnd())
	cw.checkDLQConservation()
	for _, s := range cw.sinks {
		for _, t := range s.tasks {
			if t != nil && t.alive {
				t.stopping = true
				if t.putEv != nil {
					cw.eng.Cancel(t.putEv)
					t.putEv, t.inPut = nil, false
				}
				cw.finishStop(t)
			}
		}
	}
	cw.stopped = true
}

// moveLeader moves a data partition's leadership (share fault).
func (cw *Sim) moveLeader(p tp) {
	w := cw.eng
	if err := cw.sb.MoveLeader(w.NowMs(), p); err != nil {
		w.Violate(InvSharePartitions, fmt.Sprintf("leader move of %s-%d failed: %v", p.Topic, p.Partition, err))
		return
	}
	w.Mark("share-leader-move")
	w.Trace(TraceMove, "", "", fmt.Sprintf("leader %s-%d", p.Topic, p.Partition), 0)
	cw.dirty = true
	for k, h := range cw.holds { // order-free: each table is cleared on its own
		if k.Topic != p.Topic || k.Partition != p.Partition {
			continue
		}
		clear(h.holder)
		clear(h.until)
		cw.touched[k] = true
	}
}
