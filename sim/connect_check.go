package sim

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/coordsim/coordsim/connect"
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

	Acked           int64 `json:"acked"`
	AcksRefused     int64 `json:"acks_refused"`
	Renewals        int64 `json:"renewals"`
	ConvertFailures int64 `json:"convert_failures"`
	ConnectDLQ      int64 `json:"connect_dlq"`
	PutRetriable    int64 `json:"put_retriable"`
	PutFatal        int64 `json:"put_fatal"`

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

// InvSharePartitions is DESIGN.md's invariant 8.
const InvSharePartitions = "8-share-partitions"

// afterEvent runs invariant 8's per-event checks on the share-partitions
// the event touched: the partition's own invariants, and SPSO never moving
// back while one partition object (one leadership) lives.
func (cw *connectWorld) afterEvent() {
	if len(cw.touched) == 0 {
		return
	}
	for _, k := range slices.SortedFunc(maps.Keys(cw.touched), compareKey) {
		sp, ok := cw.sb.Partition(k)
		if !ok {
			delete(cw.spso, k)
			continue
		}
		if err := sp.CheckInvariants(); err != nil {
			cw.w.violate(InvSharePartitions, fmt.Sprintf("%s: %v", keyString(k), err))
			return
		}
		if !sp.Initialized() {
			continue
		}
		cur := [2]int64{int64(sp.LeaderEpoch()), sp.StartOffset()}
		if prev, seen := cw.spso[k]; seen && prev[0] == cur[0] && cur[1] < prev[1] {
			cw.w.violate(InvSharePartitions, fmt.Sprintf("%s: SPSO moved back from %d to %d under leader epoch %d", keyString(k), prev[1], cur[1], cur[0]))
			return
		}
		cw.spso[k] = cur
	}
	clear(cw.touched)
}

// pollBroker expires locks and completes dead-letter writes due now.
func (cw *connectWorld) pollBroker() {
	n, err := cw.sb.Poll(cw.w.nowMs())
	if err != nil {
		cw.w.violate(InvSharePartitions, fmt.Sprintf("share broker poll: %v", err))
		return
	}
	if n > 0 {
		cw.w.tr(traceEvent{kind: tPoll, broker: -1, detail: "share", n: int64(n)})
		for _, k := range cw.sb.Keys() {
			cw.touched[k] = true
		}
		if err := cw.sb.CheckInvariants(); err != nil {
			cw.w.violate(InvSharePartitions, err.Error())
		}
	}
	cw.dirty = true
}

// schedulePoll arms the share broker's next poll when its deadline moved.
func (cw *connectWorld) schedulePoll() {
	if !cw.dirty {
		return
	}
	cw.dirty = false
	next, ok := cw.sb.NextDeadline()
	if !ok {
		return
	}
	at := max(next, cw.w.nowMs())
	if cw.pollEv != nil {
		if cw.pollEv.atMs <= at {
			return
		}
		cw.w.eng.cancel(cw.pollEv)
	}
	cw.pollEv = cw.w.eng.at(at, func() {
		cw.pollEv = nil
		cw.pollBroker()
	})
}

// sample records every connector's progress.
func (cw *connectWorld) sample() {
	at := cw.w.nowMs() - startMs
	for _, s := range cw.sinks {
		n := 0
		for _, t := range s.tasks {
			if t != nil && t.alive {
				n++
			}
		}
		cw.w.res.Series.Sinks = append(cw.w.res.Series.Sinks, SinkSample{AtMs: at, Sink: s.cfg.Name, Kind: s.cfg.Kind.String(), Tasks: n, Received: s.res.Received, Unique: s.res.Unique})
	}
}

// checkDelivery runs when the sinks stop: every record of a running share
// sink's topics ends acknowledged or archived, none is lost, and what the
// dead-letter queue holds matches what was archived (invariant 8).
func (cw *connectWorld) checkDelivery() {
	w := cw.w
	for _, s := range cw.sinks {
		if !s.started {
			continue
		}
		running := false
		for _, t := range s.tasks {
			running = running || (t != nil && !t.failed && t.s.desired > t.idx)
		}
		var archived int64
		isShare := s.cfg.Kind == connect.ShareSink
		for _, topic := range s.cfg.Topics {
			for p := range cw.wl.Topics[topic] {
				part := tp{Topic: topic, Partition: p}
				end, _ := cw.sb.EndOffset(part)
				s.res.Produced += end
				rt := s.tab(part)
				rt.grow(end)
				lost, undelivered, arch := cw.classify(s, rt, end)
				archived += arch
				s.res.Undelivered += undelivered
				s.res.Lost += lost
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
		switch {
		case s.res.Lost > 0:
			w.violate(InvSharePartitions, fmt.Sprintf("sink %s lost %d records: never put, skipped or archived", s.cfg.Name, s.res.Lost))
		case running && s.res.Undelivered > 0 && s.progress == 0:
			w.violate(InvSharePartitions, fmt.Sprintf("sink %s: %d records neither acknowledged nor archived, and none delivered in the last %s of the drain", s.cfg.Name, s.res.Undelivered, drainCheck))
		case s.res.Undelivered > 0:
			w.mark("connect-drain-ended-with-backlog")
		case s.res.DeadLettered > archived:
			w.violate(InvSharePartitions, fmt.Sprintf("sink %s: %d dead-lettered records but only %d archived", s.cfg.Name, s.res.DeadLettered, archived))
		case s.brokerDLQ && w.opts.Faults.ShareDLQFailProb == 0 && s.res.DeadLettered != archived:
			w.violate(InvSharePartitions, fmt.Sprintf("sink %s: %d archived records but %d in the dead-letter queue", s.cfg.Name, archived, s.res.DeadLettered))
		}
	}
}

// classify sorts a partition's offsets [0, end): lost (never put, skipped
// or archived by a rule), undelivered (still pending at the broker, or
// never consumed by a consumer sink) and archived.
func (cw *connectWorld) classify(s *sink, rt *recvTab, end int64) (lost, undelivered, archived int64) {
	isShare := s.cfg.Kind == connect.ShareSink
	from := int64(0)
	if isShare && s.cfg.GroupConfigs[connect.GroupConfigShareAutoOffsetReset] != "earliest" {
		// latest: offsets before the first delivery were never meant to be read.
		from = end
		for o := int64(0); o < end; o++ {
			if rt.maxCount[o] > 0 {
				from = o
				break
			}
		}
	}
	limit := uint8(cw.limit)
	for o := from; o < end; o++ {
		f := rt.flags[o]
		switch {
		case !isShare:
			if rt.recv[o] == 0 && f&flagSkipped == 0 {
				undelivered++
			}
		case f&flagRejected != 0 || (rt.maxCount[o] >= limit && f&flagAcked == 0):
			archived++
		case f&flagAcked != 0:
			if rt.recv[o] == 0 && f&flagSkipped == 0 {
				lost++ // ACCEPTed without a put
			}
		default:
			undelivered++
		}
	}
	return lost, undelivered, archived
}

// finishConnect copies the connectors' results into the run's result.
func (cw *connectWorld) finish() {
	for _, s := range cw.sinks {
		cw.w.res.Connect = append(cw.w.res.Connect, s.res)
	}
}

// connectSampleEvery is the report's sampling period for sink progress.
func connectSampleEvery(d time.Duration) time.Duration {
	return max(d/200, time.Second)
}
