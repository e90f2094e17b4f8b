package connectsim

import (
	"errors"
	"maps"
	"slices"

	"github.com/coordsim/coordsim/connect"
)

// The worker side of the SinkTask SPI (connect.SinkTask): every task actor
// holds one implementation, the connector's NewTask or the built-in
// simulated sink, and calls it in Connect's order (see connect/task.go).

// errSimulatedFatal and errSimulatedRetriable are what the built-in sink's
// put() throws.
var (
	errSimulatedFatal     = errors.New("simulated fatal put() failure")
	errSimulatedRetriable = connect.Retriable(errors.New("simulated transient put() failure"))
)

// simulatedTask is the built-in sink: put() fails with the connector's
// PutFatalProb and PutRetriableProb, drawn from the run's seeded source.
type simulatedTask struct {
	cw *Sim
	s  *sink
}

func (b *simulatedTask) Initialize(connect.SinkTaskContext) {}
func (b *simulatedTask) Start(map[string]string) error      { return nil }
func (b *simulatedTask) Open([]connect.TopicPartition)      {}
func (b *simulatedTask) Close([]connect.TopicPartition)     {}
func (b *simulatedTask) Stop()                              {}

// Put draws one outcome for the whole batch.
func (b *simulatedTask) Put([]connect.SinkRecord) error {
	r := b.cw.eng.Rand().Float64()
	switch spec := &b.s.spec; {
	case r < spec.PutFatalProb:
		return errSimulatedFatal
	case r < spec.PutFatalProb+spec.PutRetriableProb:
		return errSimulatedRetriable
	}
	return nil
}

// PreCommit is Connect's default: everything put may be committed.
func (b *simulatedTask) PreCommit(cur map[connect.TopicPartition]int64) map[connect.TopicPartition]int64 {
	return cur
}

// taskContext is one task's SinkTaskContext and errant-record reporter.
type taskContext struct{ t *sinkTask }

func (c taskContext) ErrantRecordReporter() connect.ErrantRecordReporter { return c }
func (c taskContext) Assignment() []connect.TopicPartition               { return slices.Clone(c.t.open) }

// Report queues a record for the dead-letter decision made when put()
// returns (see applyReports); reports outside put() are ignored.
func (c taskContext) Report(r connect.SinkRecord, _ error) {
	if c.t.inPut {
		c.t.reported = append(c.t.reported, r)
	}
}

// newTaskImpl builds, initialises and starts t's SinkTask; false when
// Start failed (the task is failed).
func (cw *Sim) newTaskImpl(t *sinkTask) bool {
	s := t.s
	if s.spec.NewTask != nil {
		t.impl = s.spec.NewTask()
	}
	if t.impl == nil {
		t.impl = &simulatedTask{cw: cw, s: s}
	}
	t.impl.Initialize(taskContext{t})
	if err := t.impl.Start(maps.Clone(s.spec.Config)); err != nil {
		cw.failTask(t, "start() failed: "+err.Error())
		return false
	}
	if s.cfg.Kind == connect.ShareSink {
		// KIP-1302: open once at startup with every partition of the
		// subscribed topics; a share consumer has no rebalance listener.
		var all []tp
		for _, topic := range s.cfg.Topics {
			for p := range cw.wl.Topics[topic] {
				all = append(all, tp{Topic: topic, Partition: p})
			}
		}
		slices.SortFunc(all, compareTP)
		cw.openPartitions(t, all)
	}
	return true
}

func toConnectTPs(ps []tp) []connect.TopicPartition {
	out := make([]connect.TopicPartition, len(ps))
	for i, p := range ps {
		out[i] = connect.TopicPartition{Topic: p.Topic, Partition: p.Partition}
	}
	return out
}

// openPartitions calls Open and records the task's open partitions.
func (cw *Sim) openPartitions(t *sinkTask, ps []tp) {
	if len(ps) == 0 || t.impl == nil {
		return
	}
	cps := toConnectTPs(ps)
	t.open = append(t.open, cps...)
	slices.SortFunc(t.open, compareConnectTP)
	t.open = slices.Compact(t.open)
	t.impl.Open(cps)
	t.s.res.Lifecycle.Opens++
}

// closePartitions calls Close for ps.
func (cw *Sim) closePartitions(t *sinkTask, ps []tp) {
	cw.closeConnectTPs(t, toConnectTPs(ps))
}

func (cw *Sim) closeConnectTPs(t *sinkTask, cps []connect.TopicPartition) {
	if t.impl == nil || len(cps) == 0 {
		return
	}
	t.impl.Close(slices.Clone(cps))
	t.s.res.Lifecycle.Closes++
	t.open = slices.DeleteFunc(t.open, func(p connect.TopicPartition) bool { return slices.Contains(cps, p) })
}

// stopImpl closes every open partition, then stops the task: Connect closes
// before it stops (WorkerSinkTask.execute's closeAllPartitions, then
// close() → task.stop()).
func (cw *Sim) stopImpl(t *sinkTask) {
	if t.impl == nil {
		return
	}
	cw.closeConnectTPs(t, slices.Clone(t.open))
	t.impl.Stop()
	t.s.res.Lifecycle.Stops++
	t.impl = nil
}

func compareConnectTP(a, b connect.TopicPartition) int {
	return compareTP(tp{Topic: a.Topic, Partition: a.Partition}, tp{Topic: b.Topic, Partition: b.Partition})
}

// shareRecords lists the held records put() receives: those not already
// decided (a skipped conversion failure is not in the batch).
func shareRecords(t *sinkTask) []connect.SinkRecord {
	var out []connect.SinkRecord
	for _, h := range t.held {
		for o := h.first; o <= h.last; o++ {
			if h.acks[o-h.first] == 0 {
				out = append(out, connect.SinkRecord{Topic: h.tp.Topic, Partition: h.tp.Partition, Offset: o, DeliveryCount: int32(t.s.tab(h.tp).maxCount[o])})
			}
		}
	}
	return out
}

// consumerRecords lists a consumer batch's records, skipped ones left out.
func consumerRecords(s *sink, batch []readRange) []connect.SinkRecord {
	var out []connect.SinkRecord
	for _, r := range batch {
		rt := s.tab(r.tp)
		rt.grow(r.last)
		for o := r.first; o <= r.last; o++ {
			if rt.flags[o]&flagSkipped == 0 {
				out = append(out, connect.SinkRecord{Topic: r.tp.Topic, Partition: r.tp.Partition, Offset: o})
			}
		}
	}
	return out
}

// applyReports turns the records put() reported as errant into their
// dead-letter decision: skipped (not written by the sink), to Connect's DLQ
// when configured, REJECTed to the broker's DLQ on a share sink whose group
// has one, else ACCEPTed. Under errors.tolerance=none the report fails the
// task (false).
func (cw *Sim) applyReports(t *sinkTask) bool {
	s := t.s
	reported := t.reported
	t.reported = nil
	if len(reported) == 0 {
		return true
	}
	d, err := s.cfg.OnConvertFailure(s.brokerDLQ)
	if err != nil {
		cw.eng.Violate("connect-decision", err.Error())
		return false
	}
	if d.FailTask {
		cw.failTask(t, "put() reported an errant record (errors.tolerance=none)")
		return false
	}
	for _, r := range reported {
		p := tp{Topic: r.Topic, Partition: r.Partition}
		rt := s.tab(p)
		if r.Offset < 0 || r.Offset >= int64(len(rt.flags)) {
			continue // not a record of this batch
		}
		if s.cfg.Kind == connect.ShareSink {
			h := heldAt(t, p, r.Offset)
			if h == nil || h.acks[r.Offset-h.first] != 0 {
				continue
			}
			h.acks[r.Offset-h.first] = d.Ack
		}
		rt.flags[r.Offset] |= flagSkipped
		s.res.Reported++
		if d.ToConnectDLQ {
			s.res.ConnectDLQ++
		}
	}
	return true
}

// heldAt returns the held range of t holding offset o of p, or nil.
func heldAt(t *sinkTask, p tp, o int64) *heldRange {
	for i := range t.held {
		if h := &t.held[i]; h.tp == p && o >= h.first && o <= h.last {
			return h
		}
	}
	return nil
}

// preCommit calls the task's PreCommit with its positions of ps and
// returns what may be committed: the answer, clamped to what was put.
func (cw *Sim) preCommit(t *sinkTask, ps []tp) map[tp]int64 {
	cur := make(map[connect.TopicPartition]int64, len(ps))
	for _, p := range ps {
		if pos, ok := t.positions[p]; ok {
			cur[connect.TopicPartition{Topic: p.Topic, Partition: p.Partition}] = pos
		}
	}
	out := make(map[tp]int64, len(cur))
	if t.impl == nil {
		for k, v := range cur {
			out[tp{Topic: k.Topic, Partition: k.Partition}] = v
		}
		return out
	}
	ret := t.impl.PreCommit(maps.Clone(cur))
	for k, v := range ret {
		if pos, ok := cur[k]; ok && v >= 0 {
			out[tp{Topic: k.Topic, Partition: k.Partition}] = min(v, pos)
		}
	}
	return out
}

// flushShare lets a share task flush before its acknowledgements are
// committed; the offsets it returns mean nothing to a share group.
func (cw *Sim) flushShare(t *sinkTask) {
	if t.impl == nil || len(t.held) == 0 {
		return
	}
	cur := map[connect.TopicPartition]int64{}
	for _, h := range t.held {
		k := connect.TopicPartition{Topic: h.tp.Topic, Partition: h.tp.Partition}
		cur[k] = max(cur[k], h.last+1)
	}
	t.impl.PreCommit(cur)
}

// LifecycleCounts count the SinkTask calls the worker made, for tests and
// the report.
type LifecycleCounts struct {
	Opens  int64 `json:"opens"`
	Closes int64 `json:"closes"`
	Stops  int64 `json:"stops"`
}
