package connectsim

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/coordsim/coordsim/connect"
	"github.com/coordsim/coordsim/share"
	"github.com/coordsim/coordsim/sharebroker"
	"github.com/coordsim/coordsim/sim/invariants"
)

// SinkResult is one connector's outcome.
type SinkResult struct {
	Name  string `json:"name"`
	Kind  string `json:"kind"` // "share" or "consumer"
	Group string `json:"group"`
	// Refused is the start-up validation error (a colliding group id), "" when it started.
	Refused  string   `json:"refused,omitempty"`
	Stripped []string `json:"stripped,omitempty"`

	TasksStarted int64 `json:"tasks_started"`
	TasksStopped int64 `json:"tasks_stopped"`
	TasksFailed  int64 `json:"tasks_failed"`
	TasksKilled  int64 `json:"tasks_killed"`

	// Produced is the number of records in the connector's topics.
	Produced int64 `json:"produced"`
	// Deliveries counts records handed to the task (share: acquired;
	// consumer: read), Redeliveries those with delivery count > 1.
	Deliveries   int64 `json:"deliveries"`
	Redeliveries int64 `json:"redeliveries"`
	// Received counts successful put()s per record, Unique the distinct
	// records; Duplicates = Received − Unique.
	Received   int64 `json:"received"`
	Unique     int64 `json:"unique"`
	Duplicates int64 `json:"duplicates"`
	// Archived are records the broker archived (rejected, or at the delivery
	// limit), DeadLettered those written to the KIP-1191 dead-letter topic.
	Archived     int64 `json:"archived"`
	DeadLettered int64 `json:"dead_lettered"`
	// Lost are records neither put nor legitimately archived or skipped; any
	// is an invariant-8 violation for a share sink. Undelivered are records
	// left unprocessed because no task was running at the end.
	Lost        int64 `json:"lost"`
	Undelivered int64 `json:"undelivered"`
	// LostAtLimit and LostRejected are archived records whose data reached
	// neither the sink nor a dead-letter queue: archived at the delivery
	// limit, or REJECTed (a fatal put() under KIP-1302's default), by a
	// share group without a KIP-1191 DLQ, and never put. Kafka's semantics
	// allow it, so it is no invariant violation, but it is data loss the
	// operator chose by configuration and the summary says so. They are part
	// of Archived; DeadLettered counts the archived records that were kept.
	LostAtLimit  int64 `json:"lost_at_limit"`
	LostRejected int64 `json:"lost_rejected"`
	// SkippedByReset are records legitimately skipped by
	// share.auto.offset.reset (latest or by_duration) or by an offset reset.
	SkippedByReset int64 `json:"skipped_by_reset,omitempty"`

	Acked           int64 `json:"acked"`
	AcksRefused     int64 `json:"acks_refused"`
	Renewals        int64 `json:"renewals"`
	ConvertFailures int64 `json:"convert_failures"`
	ConnectDLQ      int64 `json:"connect_dlq"`
	PutRetriable    int64 `json:"put_retriable"`
	PutFatal        int64 `json:"put_fatal"`
	// PutRetries are in-task retries of a batch (retriable_put: retry).
	PutRetries int64 `json:"put_retries,omitempty"`
	// Reported are records put() reported as errant (KIP-610's reporter).
	Reported int64 `json:"reported,omitempty"`
	// Metrics are Connect's sink-task metrics for the connector.
	Metrics SinkTaskMetrics `json:"task_metrics"`
	// Lifecycle counts the SinkTask calls the worker made.
	Lifecycle LifecycleCounts `json:"lifecycle"`

	// KilledInFlight are records a killed task held; KilledRedelivered
	// those delivered again. MaxKillUnlockMs is the longest a killed task's
	// lock still ran after the kill (when its records became available
	// again: at most the lock duration); MaxKillRedeliveryMs the longest
	// wait until a survivor acquired one (a survivor busy in put() fetches
	// only when it returns).
	KilledInFlight      int64 `json:"killed_in_flight"`
	KilledRedelivered   int64 `json:"killed_redelivered"`
	MaxKillUnlockMs     int64 `json:"max_kill_unlock_ms"`
	MaxKillRedeliveryMs int64 `json:"max_kill_redelivery_ms"`

	// Consumer-group sinks: rebalance pauses and offset commits.
	RebalancePauses   int64 `json:"rebalance_pauses"`
	RebalancePausedMs int64 `json:"rebalance_paused_ms"`
	Commits           int64 `json:"commits"`
	CommitsFailed     int64 `json:"commits_failed"`

	// ThroughputPerSec is Unique over the time from the first to the last
	// put that delivered a new record.
	ThroughputPerSec float64 `json:"throughput_per_sec"`
	firstMs, lastMs  int64
}

// SinkSample is one connector's progress at one instant, for the report.
type SinkSample struct {
	AtMs     int64
	Sink     string
	Kind     string
	Tasks    int
	Received int64
	Unique   int64
}

// The invariants the Connect simulator checks itself, from the registry
// (sim/invariants), which package sim lists with the others.
const (
	// InvSharePartitions is invariant 8: share-partitions keep their own
	// invariants and SPSO never moves back under one leadership, and the
	// sinks' delivery adds up when they stop.
	InvSharePartitions = invariants.SharePartitions
	// InvDLQConservation is invariant 19: the dead-letter topics hold
	// exactly the records of the dead-letter writes that succeeded.
	InvDLQConservation = invariants.DLQConservation
)

// AfterEvent runs invariant 8's per-event checks on the share-partitions
// the event touched: the partition's own invariants, and SPSO never moving
// back while one partition object (one leadership) lives. A new object (a
// leader move or an eviction rebuilt it from the persister) starts a new
// record, and for sinks not reading from the earliest offset it raises the
// partition's reset floor.
func (cw *Sim) AfterEvent() {
	if len(cw.touched) == 0 {
		return
	}
	for _, k := range slices.SortedFunc(maps.Keys(cw.touched), compareKey) {
		sp, ok := cw.sb.Partition(k)
		if !ok {
			continue
		}
		if err := sp.CheckInvariants(); err != nil {
			cw.eng.Violate(InvSharePartitions, fmt.Sprintf("%s: %v", keyString(k), err))
			return
		}
		if !sp.Initialized() {
			continue
		}
		cur := sp.StartOffset()
		prev := cw.spso[k]
		if prev.sp == sp && prev.init && cur < prev.spso {
			cw.eng.Violate(InvSharePartitions, fmt.Sprintf("%s: SPSO moved back from %d to %d under leader epoch %d", keyString(k), prev.spso, cur, sp.LeaderEpoch()))
			return
		}
		if prev.sp != sp || !prev.init {
			cw.floor[k] = max(cw.floor[k], cur)
		}
		cw.spso[k] = spsoMark{sp: sp, init: true, spso: cur}
	}
	clear(cw.touched)
}

// pollBroker expires locks and completes dead-letter writes due now.
func (cw *Sim) pollBroker() {
	n, err := cw.sb.Poll(cw.eng.NowMs())
	if err != nil {
		cw.eng.Violate(InvSharePartitions, fmt.Sprintf("share broker poll: %v", err))
		return
	}
	if n > 0 {
		cw.eng.Trace(TracePoll, "", "", "share", int64(n))
		for _, k := range cw.sb.Keys() {
			cw.touched[k] = true
		}
		if err := cw.sb.CheckInvariants(); err != nil {
			cw.eng.Violate(InvSharePartitions, err.Error())
		}
	}
	cw.dirty = true
}

// SchedulePoll arms the share broker's next poll when its deadline moved.
func (cw *Sim) SchedulePoll() {
	if !cw.dirty {
		return
	}
	cw.dirty = false
	next, ok := cw.sb.NextDeadline()
	if !ok {
		return
	}
	at := max(next, cw.eng.NowMs())
	if cw.pollEv != nil {
		if cw.pollEv.AtMs() <= at {
			return
		}
		cw.eng.Cancel(cw.pollEv)
	}
	cw.pollEv = cw.eng.At(at, func() {
		cw.pollEv = nil
		cw.pollBroker()
	})
}

// sample records every connector's progress.
func (cw *Sim) sample() {
	at := cw.eng.NowMs() - cw.startMs
	for _, s := range cw.sinks {
		n := 0
		for _, t := range s.tasks {
			if t != nil && t.alive {
				n++
			}
		}
		cw.samples = append(cw.samples, SinkSample{AtMs: at, Sink: s.cfg.Name, Kind: s.cfg.Kind.String(), Tasks: n, Received: s.res.Received, Unique: s.res.Unique})
	}
}

// sinkEnd is what checkDelivery needs from the moment the drain ends,
// before the tasks close their sessions: whether the sink was running, and
// per share-partition its SPSO and whether dead-letter writes were pending.
type sinkEnd struct {
	running    bool
	spso       map[tp]int64
	dlqPending bool
}

// snapshotEnd reads every sink's state before the drain's stop.
func (cw *Sim) snapshotEnd() []sinkEnd {
	out := make([]sinkEnd, len(cw.sinks))
	for i, s := range cw.sinks {
		e := sinkEnd{running: s.running(), spso: map[tp]int64{}}
		if s.cfg.Kind == connect.ShareSink {
			persisted := map[tp]int64{}
			for _, po := range cw.sb.ListShareGroupOffsets(s.cfg.GroupID) {
				persisted[po.TopicPartition] = po.StartOffset
			}
			for _, topic := range s.cfg.Topics {
				for p := range cw.wl.Topics[topic] {
					part := tp{Topic: topic, Partition: p}
					e.spso[part] = persisted[part] // 0 when never initialised
					sp, ok := cw.sb.Partition(share.Key{Group: s.cfg.GroupID, Topic: topic, Partition: p})
					if !ok {
						// Evicted: its dead-letter writes wait in the persisted
						// ARCHIVING records for the next leader object.
						e.dlqPending = true
						continue
					}
					if sp.Initialized() {
						e.spso[part] = sp.StartOffset()
					}
					e.dlqPending = e.dlqPending || len(sp.PendingDLQ()) > 0
				}
			}
		}
		out[i] = e
	}
	return out
}

// checkDelivery runs when the sinks stop: every record of a running share
// sink's topics ends acknowledged or archived, none is lost, and what the
// dead-letter queue holds matches what was archived (invariant 8).
func (cw *Sim) checkDelivery(final []sinkEnd) {
	w := cw.eng
	for i, s := range cw.sinks {
		if !s.started {
			continue
		}
		end := final[i]
		var archived, notDeadLettered int64
		isShare := s.cfg.Kind == connect.ShareSink
		for _, topic := range s.cfg.Topics {
			for p := range cw.wl.Topics[topic] {
				part := tp{Topic: topic, Partition: p}
				logEnd, _ := cw.sb.EndOffset(part)
				s.res.Produced += logEnd
				rt := s.tab(part)
				rt.grow(logEnd)
				c := cw.classify(s, part, rt, logEnd, end.spso[part])
				archived += c.archived
				notDeadLettered += c.notDeadLettered
				s.res.Undelivered += c.undelivered
				s.res.Lost += c.lost
				s.res.SkippedByReset += c.skipped
				s.res.LostAtLimit += c.lostAtLimit
				s.res.LostRejected += c.lostRejected
				if sum := c.done + c.lost + c.undelivered + c.archived + c.skipped; sum != logEnd {
					w.Violate(InvSharePartitions, fmt.Sprintf("sink %s %s-%d: %d offsets classified, %d produced", s.cfg.Name, topic, p, sum, logEnd))
				}
			}
		}
		s.res.Archived = archived
		s.res.Duplicates = s.res.Received - s.res.Unique
		if s.res.lastMs > s.res.firstMs {
			s.res.ThroughputPerSec = float64(s.res.Unique) / (float64(s.res.lastMs-s.res.firstMs) / 1000)
		}
		if !isShare {
			continue
		}
		if s.brokerDLQ {
			s.res.DeadLettered = cw.sb.DLQRecords(s.spec.BrokerDLQ)
		}
		if s.res.Lost > 0 {
			w.Violate(InvSharePartitions, fmt.Sprintf("sink %s lost %d records: terminal at the broker, or acknowledged, without a successful put, a skip or a legitimate archive", s.cfg.Name, s.res.Lost))
		}
		switch {
		case end.running && s.res.Undelivered > 0 && w.NowMs()-s.lastDeliveryMs > s.stuckAfter(max(cw.lockMs, s.lockMs)):
			w.Violate(InvSharePartitions, fmt.Sprintf("sink %s: %d records neither acknowledged nor archived, and nothing delivered for %s", s.cfg.Name, s.res.Undelivered,
				time.Duration(w.NowMs()-s.lastDeliveryMs)*time.Millisecond))
		case s.res.Undelivered > 0 && end.running:
			w.Mark("connect-drain-ended-with-backlog")
		case s.res.Undelivered > 0:
			w.Mark("connect-drain-ended-without-running-tasks")
		}
		if s.res.DeadLettered > archived {
			w.Violate(InvSharePartitions, fmt.Sprintf("sink %s: %d dead-lettered records but only %d archived", s.cfg.Name, s.res.DeadLettered, archived))
		}
		if s.brokerDLQ && notDeadLettered > 0 {
			w.Violate(InvSharePartitions, fmt.Sprintf("sink %s: %d archived records never went to the dead-letter queue (no write attempted, none pending)", s.cfg.Name, notDeadLettered))
		}
		if s.brokerDLQ && cw.faults.ShareDLQFailProb == 0 && !end.dlqPending && s.res.DeadLettered != archived {
			w.Violate(InvSharePartitions, fmt.Sprintf("sink %s: %d archived records but %d in the dead-letter queue", s.cfg.Name, archived, s.res.DeadLettered))
		}
	}
}

// classified counts one partition's offsets for checkDelivery. Every
// offset falls in exactly one of done, lost, undelivered, archived and
// skipped (the conservation checkDelivery asserts); lostAtLimit and
// lostRejected split the archived ones whose data nobody kept, and
// notDeadLettered the archived ones a DLQ should hold but does not.
type classified struct {
	done, lost, undelivered, archived, skipped int64
	lostAtLimit, lostRejected, notDeadLettered int64
}

// archivedOffset counts one archived offset, and as lost data when no
// dead-letter queue kept it and it was never put (or skipped on purpose).
func (c *classified) archivedOffset(brokerDLQ, put bool, f uint8) {
	c.archived++
	switch {
	case brokerDLQ || put:
	case f&flagRejected != 0:
		c.lostRejected++
	default:
		c.lostAtLimit++
	}
}

// classify sorts a partition's offsets [0, logEnd) using what the tasks saw
// and the broker's SPSO when the drain ended (every offset below it is
// terminal at the broker):
//   - skipped: below the reset floor and never put (share.auto.offset.reset
//     skipped it; a start offset resolved but not yet persisted is resolved
//     again by a rebuilt partition, possibly further on);
//   - archived: REJECTed, or delivered at the delivery limit and never accepted;
//   - lost: acknowledged without a successful put(), or terminal without a
//     put, a conversion skip or an archive;
//   - undelivered: still pending at the broker (share), or never put (consumer).
func (cw *Sim) classify(s *sink, p tp, rt *recvTab, logEnd, spso int64) classified {
	var c classified
	limit := uint8(s.minLimit)
	key := share.Key{Group: s.cfg.GroupID, Topic: p.Topic, Partition: p.Partition}
	floor := s.resetFloor[p] // an operator's offset reset
	if s.cfg.GroupConfigs[connect.GroupConfigShareAutoOffsetReset] != "earliest" {
		floor = max(floor, cw.floor[key])
	}
	sp, cached := cw.sb.Partition(key)
	// pendingDLQ: an ARCHIVING record is waiting for its dead-letter write.
	pendingDLQ := func(o int64) bool {
		if !cached {
			return true // evicted: the write waits in the persisted state
		}
		r, ok := sp.Record(o)
		return ok && r.State == share.Archiving
	}
	for o := int64(0); o < logEnd; o++ {
		f, put := rt.flags[o], rt.recv[o] > 0 || rt.flags[o]&flagSkipped != 0
		if s.cfg.Kind != connect.ShareSink {
			if !put {
				c.undelivered++
			} else {
				c.done++
			}
			continue
		}
		if o >= spso && cached {
			// At or past SPSO the live partition knows the state.
			if r, ok := sp.Record(o); ok {
				switch {
				case f&flagAcked != 0 && !put:
					c.lost++
				case r.State == share.Archived || r.State == share.Archiving:
					c.archivedOffset(s.brokerDLQ, put, f)
					if s.brokerDLQ && r.State == share.Archived && f&flagDLQ == 0 {
						c.notDeadLettered++
					}
				case r.State == share.Available || r.State == share.Acquired:
					c.undelivered++
				default:
					c.done++
				}
				continue
			}
		}
		switch {
		case o < floor && !put:
			c.skipped++
		case f&flagRejected != 0 || (rt.maxCount[o] >= limit && f&flagAcked == 0):
			c.archivedOffset(s.brokerDLQ, put, f)
			if s.brokerDLQ && f&flagDLQ == 0 && o < spso && !pendingDLQ(o) {
				c.notDeadLettered++
			}
		case f&flagAcked != 0 && !put:
			c.lost++ // ACCEPTed without a put
		case f&flagAcked != 0 || (o < spso && put):
			c.done++ // acknowledged, or put and since terminal at the broker
		case o < spso:
			c.lost++ // terminal at the broker without ever being put
		default:
			c.undelivered++
		}
	}
	return c
}

// Finish closes the connectors' metrics and returns their outcomes, in
// workload order, once the run has ended.
func (cw *Sim) Finish() []SinkResult {
	for _, s := range cw.sinks {
		s.finishMetrics(cw.eng.NowMs())
		cw.results = append(cw.results, s.res)
	}
	return cw.results
}

// Samples is every connector's progress over the run, one sample per
// connector every sample period (the report's sink charts).
func (cw *Sim) Samples() []SinkSample { return cw.samples }

// Produced counts the records the producers wrote.
func (cw *Sim) Produced() int64 { return cw.produced }

// ShareBroker is the partition leaders' side of the share groups, for the
// checks the engine runs over every share-partition.
func (cw *Sim) ShareBroker() *sharebroker.Broker { return cw.sb }

// connectSampleEvery is the report's sampling period for sink progress.
func connectSampleEvery(d time.Duration) time.Duration {
	return max(d/200, time.Second)
}

// checkDLQConservation compares, when the sinks stop, the records in the
// broker-side dead-letter topics with the records of every dead-letter
// write the simulator's fault hook let succeed (19). The hook sees every
// completion before the broker appends, so the two are equal at any event
// boundary; checking once at the end suffices to catch a lost append.
func (cw *Sim) checkDLQConservation() {
	var topics []string
	for _, s := range cw.sinks {
		if s.brokerDLQ {
			topics = append(topics, s.spec.BrokerDLQ)
		}
	}
	slices.Sort(topics)
	var inTopics int64
	for _, t := range slices.Compact(topics) {
		inTopics += cw.sb.DLQRecords(t)
	}
	if inTopics != cw.dlqWritten {
		cw.eng.Violate(InvDLQConservation, fmt.Sprintf("dead-letter topics hold %d records; successful dead-letter writes carried %d",
			inTopics, cw.dlqWritten))
	}
}
