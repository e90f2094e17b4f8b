package sim

import (
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/coordsim/coordsim/metrics"
	"github.com/coordsim/coordsim/shard"
)

const defaultMaxEvents = 50_000_000

// progressEvery is how many events pass between calls of Options.Progress.
const progressEvery = 1 << 15

// Run runs one simulation. traceOut, if not nil, receives every trace event
// as a line. The result's WallTime is left for the caller to fill.
//
// Options the store cannot honour are refused before anything runs (a
// *CapabilityError, see Preflight). When writing to traceOut fails, the
// simulation still runs to its end (writing stops at the first error) and
// Run returns its result together with an error wrapping ErrTrace and the
// write error: the trace is incomplete, the result is not.
func Run(opts Options, traceOut io.Writer) (*Result, error) {
	w, err := newWorld(opts, traceOut)
	if err != nil {
		return nil, err
	}
	w.run()
	if w.trace.err != nil {
		return w.res, fmt.Errorf("%w after %d events: %w", ErrTrace, w.trace.written, w.trace.err)
	}
	return w.res, nil
}

func (w *world) run() {
	o := w.opts
	workEnd := startMs + o.Duration.Milliseconds()
	// The liveness phase: after the faults heal and every member leaves,
	// groups must expire (retention), be cleaned (one cycle, at most one
	// more if a cycle was in flight) and be tombstoned (one more sweep).
	liveEnd := workEnd + o.Retention.Milliseconds() + 4*o.CheckInterval.Milliseconds() + (2 * time.Minute).Milliseconds()
	if w.cw != nil {
		// Sinks drain after the workload; their groups then expire like any other.
		drainEnd := w.cw.Start(workEnd)
		liveEnd += drainEnd - workEnd
	}

	w.spawnWorkload()
	w.startFaults(workEnd)
	w.eng.at(startMs+o.Workload.AdminInterval.Milliseconds(), func() { w.adminLoop(workEnd) })
	w.eng.at(workEnd, func() {
		w.heal()
		for _, g := range w.groups {
			w.death(g)
		}
	})
	var sample func()
	sample = func() {
		w.takeSample()
		if w.nowMs()+w.sampleEveryMs <= liveEnd {
			w.eng.after(time.Duration(w.sampleEveryMs)*time.Millisecond, sample)
		}
	}
	w.eng.at(startMs, sample)
	for i := range w.dirty {
		w.dirty[i] = true
	}
	w.schedulePolls()

	maxEvents := int64(o.MaxEvents)
	if maxEvents == 0 {
		maxEvents = defaultMaxEvents
	}
	nextMetricsMs := startMs + o.MetricsEvery.Milliseconds()
	for w.stopErr == nil {
		fn, ok := w.eng.next(liveEnd)
		if !ok {
			break
		}
		// Metrics samples are taken between events, when virtual time
		// passes a multiple of MetricsEvery: no event is scheduled for them.
		for o.MetricsEvery > 0 && w.nowMs() >= nextMetricsMs {
			w.sampleMetrics()
			nextMetricsMs += o.MetricsEvery.Milliseconds()
		}
		fn()
		w.res.Events++
		w.costs.afterEvent(w.nowMs())
		if w.cw != nil {
			w.cw.AfterEvent()
			w.check.checkShareInFlight()
		}
		w.check.checkMemberTimers()
		w.check.checkRevocationBounded()
		w.schedulePolls()
		if o.ReplayCheckEvery > 0 && w.res.Events%int64(o.ReplayCheckEvery) == 0 {
			w.check.checkReplay()
			w.check.checkReferenceModel()
		}
		if o.StopAt > 0 && w.eng.step >= o.StopAt {
			w.res.Stopped = true
			break
		}
		if o.Progress != nil && w.res.Events%progressEvery == 0 &&
			!o.Progress(w.eng.step, time.Duration(w.nowMs()-startMs)*time.Millisecond) {
			w.res.Stopped, w.res.Interrupted = true, true
			break
		}
		if w.res.Events >= maxEvents {
			w.violate("event-limit", "the run exceeded its event limit")
		}
	}
	if w.stopErr == nil && !w.res.Stopped {
		w.eng.nowMs = max(w.eng.nowMs, liveEnd)
		w.check.checkReplay()
		w.check.checkReferenceModel()
		w.check.probeDataLoss()
		w.check.checkLiveness()
		w.takeSample()
	}
	w.finish()
	if w.store != nil {
		if err := w.store.Close(); err != nil && w.stopErr == nil {
			w.res.Marks["store-close-failed"]++
		}
	}
}

// takeSample records the cluster's state for the report, from committed
// state, and probes for plugin-side data loss.
func (w *world) takeSample() {
	w.check.probeDataLoss()
	s := Sample{AtMs: w.nowMs() - startMs, Groups: map[string]int{}, StoredEpochs: map[string]int{}}
	for p := range w.opts.Partitions {
		b := w.owner[p]
		if b < 0 {
			continue
		}
		_ = w.brokers[b].c.ReadShard(p, func(sh *shard.Shard) {
			for _, t := range shard.GroupTypes {
				for _, st := range shard.GroupStates {
					if n := sh.GroupCount(t, st); n > 0 {
						s.Groups[t.String()+"/"+st.String()] += n
					}
				}
			}
			s.Offsets += sh.OffsetCount()
		})
	}
	for _, g := range w.groups {
		if g.typ != shard.Streams {
			continue
		}
		if stored, ok := w.committedStored(g.id); ok {
			switch {
			case stored == shard.EpochNone:
				s.StoredEpochs["none"]++
			case stored == shard.EpochUncertain:
				s.StoredEpochs["uncertain"]++
			default:
				s.StoredEpochs["stored"]++
			}
		}
	}
	if w.lister != nil {
		s.PluginRows = len(w.lister.List())
	}
	w.res.Series.Samples = append(w.res.Series.Samples, s)
}

// finish fills in the result's totals.
func (w *world) finish() {
	r := w.res
	r.VirtualTime = time.Duration(w.nowMs()-startMs) * time.Millisecond
	r.TraceHash = w.trace.sum()
	if w.cw != nil {
		r.Connect = w.cw.Finish()
		r.Series.Sinks = w.cw.Samples()
		r.Produced = w.cw.Produced()
		r.Metrics = append(r.Metrics, w.cw.MetricSamples()...)
	}
	r.Violation = w.stopErr
	r.Consumption = w.costs.finish(w.nowMs())
	if w.opts.InspectGroup != "" {
		r.Group = w.inspectGroup(w.opts.InspectGroup)
	}
	r.Marks = map[string]int64{}
	for _, name := range sortedMarks(w.marks) {
		r.Marks[name] = w.marks[name]
	}
	for p := range w.opts.Partitions {
		b := w.owner[p]
		if b < 0 {
			continue
		}
		_ = w.brokers[b].c.ReadShard(p, func(sh *shard.Shard) {
			sh.ListGroups(func(g shard.GroupListing) bool {
				r.GroupsFinal[g.Type.String()+"/"+g.State.String()]++
				return true
			})
		})
	}
	for _, b := range w.brokers {
		snap := b.c.MetricsSnapshot()
		r.Metrics = append(r.Metrics, tagBroker(b.id, snap)...)
		r.DeletesOK += int64(metricValue(snap, "streams-group-topology-description-delete-success-count"))
		r.DeletesFailed += int64(metricValue(snap, "streams-group-topology-description-delete-error-count"))
		r.OffsetExpired += int64(metricValue(snap, "offset-expiration-count"))
	}
	slices.SortFunc(r.Metrics, func(a, b metrics.Sample) int { return a.Name.Compare(b.Name) })
}

// tagBroker tags a broker's metric samples with the broker's id.
func tagBroker(id int32, snap []metrics.Sample) []metrics.Sample {
	var out []metrics.Sample
	for _, s := range snap {
		kv := []string{"broker", fmt.Sprint(id)}
		for _, t := range s.Name.Tags {
			kv = append(kv, t.Key, t.Value)
		}
		if name, err := metrics.NewMetricName(s.Name.Name, s.Name.Group, s.Name.Description, kv...); err == nil {
			out = append(out, metrics.Sample{Name: name, Kind: s.Kind, Value: s.Value})
		}
	}
	return out
}

// sampleMetrics appends every broker's metrics, measured now, to the
// result's time series (Options.MetricsEvery). Measuring reads the
// coordinators' metrics only; nothing reaches the simulation or its trace.
func (w *world) sampleMetrics() {
	var all []metrics.Sample
	for _, b := range w.brokers {
		all = append(all, tagBroker(b.id, b.c.MetricsSnapshot())...)
	}
	slices.SortFunc(all, func(a, b metrics.Sample) int { return a.Name.Compare(b.Name) })
	w.res.MetricsSeries = append(w.res.MetricsSeries, MetricsSample{AtMs: w.nowMs() - startMs, Samples: all})
}

func metricValue(samples []metrics.Sample, name string) float64 {
	for _, s := range samples {
		if s.Name.Name == name && len(s.Name.Tags) == 0 {
			return s.Value
		}
	}
	return 0
}
