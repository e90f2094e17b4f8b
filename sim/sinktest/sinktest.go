// Package sinktest checks a user's connect.SinkTask in the simulator, as
// plugin/plugintest checks a topology store: it runs the task as a share
// sink (KIP-1302) and as a consumer-group sink under task kills, scaling up
// and down, retriable put() failures and a share-partition leader move, and
// reports whether every produced record reached the task's destination at
// least once, whether the worker called the task in Connect's order, and
// whether invariant 8 held.
//
// The task must write into a destination outside itself (a database, a
// map shared by every task instance) and the caller answers, through
// written, whether a record is there: a task whose PreCommit claims more
// than it flushed loses records when a task is killed, and only the
// destination can show it. sinktest must never be imported by anything but
// tests; it runs whole simulations and takes seconds.
package sinktest

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/coordsim/coordsim/connect"
	"github.com/coordsim/coordsim/sim"
	"github.com/coordsim/coordsim/sim/connectsim"
)

// batchRecords is the producer's batch size.
const batchRecords = 4

// Report is what Run found for one sink kind.
type Report struct {
	Kind                 string
	Produced, Unwritten  int64 // records produced, and those not in the destination
	Archived, Reported   int64
	Duplicates           int64
	TasksStarted, Killed int64
}

// Scenarios are the runs Run makes, by name; each is a share or consumer
// sink on a four-partition topic.
func scenarios(seed uint64) map[string]sim.Options {
	share := connector("share", true)
	share.Scale = []connectsim.ScaleStep{{At: 4 * time.Minute, Tasks: 6}, {At: 8 * time.Minute, Tasks: 2}}
	share.Kills = []connectsim.TaskKill{{At: 3 * time.Minute, Task: 0}, {At: 6 * time.Minute, Task: 4}}
	cons := connector("consumer", false)
	cons.Scale = []connectsim.ScaleStep{{At: 4 * time.Minute, Tasks: 4}, {At: 8 * time.Minute, Tasks: 1}}
	cons.Kills = []connectsim.TaskKill{{At: 3 * time.Minute, Task: 0}}
	out := map[string]sim.Options{}
	for name, c := range map[string]connectsim.Connector{"share": share, "consumer": cons} { // order-free: a map out
		o := sim.DefaultOptions()
		o.Seed, o.Duration = seed, 12*time.Minute
		o.Retention, o.CheckInterval = 10*time.Minute, 2*time.Minute
		o.Workload = sim.Workload{MembersMin: 1, MembersMax: 1, LifetimeMin: time.Minute, LifetimeMax: time.Minute, ArrivalWindow: 1, CommitInterval: time.Second}
		o.Faults = sim.Faults{}
		if name == "share" {
			o.Faults.ShareLeaderMovesPerHour = 10
		}
		o.Connect = &connectsim.Workload{
			Topics:    map[string]int32{"t": 4},
			Producers: []connectsim.Producer{{Topic: "t", RatePerSec: 40, BatchRecords: batchRecords}},
			// Locks shorter than the kills' redelivery bound keep runs short.
			RecordLockDuration: 15 * time.Second,
			Connectors:         []connectsim.Connector{c},
		}
		out[name] = o
	}
	return out
}

func connector(name string, share bool) connectsim.Connector {
	c := connectsim.Connector{
		Config:             map[string]string{"name": name, "topics": "t", "tasks.max": "2"},
		PutLatencyMin:      10 * time.Millisecond,
		PutLatencyMax:      2 * time.Second,
		PutRetriableProb:   0.02, // ignored by a user task: its own Put decides
		RestartFailedAfter: 10 * time.Second,
		FlushInterval:      20 * time.Second,
	}
	if share {
		c.Config["consumer.override.group.protocol"] = "share"
	}
	return c
}

// Run runs the user's task (newTask builds one per task started; written
// says whether a record reached the destination) in every scenario with
// seed and returns one Report per sink kind, sorted, and every problem
// found joined in err.
func Run(seed uint64, newTask func() connect.SinkTask, written func(connect.SinkRecord) bool) ([]Report, error) {
	var reports []Report
	var errs []error
	opts := scenarios(seed)
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range opts {
			if !yield(k) {
				return
			}
		}
	}) {
		o := opts[name]
		order := &orderCheck{}
		o.Connect.Connectors[0].NewTask = func() connect.SinkTask { return order.wrap(newTask()) }
		r, err := sim.Run(o, nil)
		if err != nil {
			return nil, fmt.Errorf("sinktest: %s: %w", name, err)
		}
		if r.Violation != nil {
			errs = append(errs, fmt.Errorf("%s sink: invariant %s violated: %s (seed %d)", name, r.Violation.Invariant, r.Violation.Detail, seed))
		}
		s := r.Connect[0]
		rep := Report{Kind: name, Produced: s.Produced, Archived: s.Archived, Reported: s.Reported, Duplicates: s.Duplicates,
			TasksStarted: s.TasksStarted, Killed: s.TasksKilled}
		for p := range int32(4) {
			for off := range producedOn(r, p) {
				if !written(connect.SinkRecord{Topic: "t", Partition: p, Offset: off}) {
					rep.Unwritten++
				}
			}
		}
		if s.Lost+s.Undelivered > 0 {
			errs = append(errs, fmt.Errorf("%s sink: %d records lost, %d undelivered by the worker", name, s.Lost, s.Undelivered))
		}
		if rep.Unwritten > rep.Archived+rep.Reported {
			errs = append(errs, fmt.Errorf("%s sink: %d of %d records never reached the destination, but only %d were archived or reported: at-least-once broken (does PreCommit claim more than was flushed?)",
				name, rep.Unwritten, rep.Produced, rep.Archived+rep.Reported))
		}
		for _, e := range order.errs {
			errs = append(errs, fmt.Errorf("%s sink: %w", name, e))
		}
		reports = append(reports, rep)
	}
	return reports, errors.Join(errs...)
}

// producedOn ranges over partition p's offsets. The producer writes
// batches of batchRecords round-robin from partition 0, so partition p
// holds batches/4 batches, one more when p < batches%4.
func producedOn(r *sim.Result, p int32) func(func(int64) bool) {
	batches := r.Connect[0].Produced / batchRecords
	n := batches / 4
	if int64(p) < batches%4 {
		n++
	}
	return func(yield func(int64) bool) {
		for o := range n * batchRecords {
			if !yield(o) {
				return
			}
		}
	}
}

// CheckAtLeastOnce runs Run with seeds 1..3 and fails t on any problem.
func CheckAtLeastOnce(t testing.TB, newTask func() connect.SinkTask, written func(connect.SinkRecord) bool) {
	t.Helper()
	for seed := uint64(1); seed <= 3; seed++ {
		reps, err := Run(seed, newTask, written)
		for _, r := range reps {
			t.Logf("seed %d %s sink: produced %d, unwritten %d, archived %d, reported %d, duplicates %d, tasks %d (killed %d)",
				seed, r.Kind, r.Produced, r.Unwritten, r.Archived, r.Reported, r.Duplicates, r.TasksStarted, r.Killed)
		}
		if err != nil {
			t.Errorf("seed %d: %v", seed, err)
		}
	}
}

// orderCheck wraps every task instance and checks Connect's call order:
// Initialize, Start, then Open before the first Put of a partition, Close
// only of open partitions, Stop last and nothing after it.
type orderCheck struct{ errs []error }

func (o *orderCheck) wrap(t connect.SinkTask) connect.SinkTask { return &ordered{SinkTask: t, o: o} }

type ordered struct {
	connect.SinkTask
	o                          *orderCheck
	initialized, started, done bool
	open                       []connect.TopicPartition
}

func (w *ordered) fail(format string, args ...any) {
	if len(w.o.errs) < 10 {
		w.o.errs = append(w.o.errs, fmt.Errorf("call order: "+format, args...))
	}
}

func (w *ordered) Initialize(ctx connect.SinkTaskContext) {
	if w.initialized || w.done {
		w.fail("Initialize called twice or after Stop")
	}
	w.initialized = true
	w.SinkTask.Initialize(ctx)
}

func (w *ordered) Start(props map[string]string) error {
	if !w.initialized || w.started {
		w.fail("Start before Initialize, or twice")
	}
	w.started = true
	return w.SinkTask.Start(props)
}

func (w *ordered) Open(ps []connect.TopicPartition) {
	if !w.started || w.done {
		w.fail("Open outside Start..Stop")
	}
	for _, p := range ps {
		if slices.Contains(w.open, p) {
			w.fail("Open of %v already open", p)
		}
		w.open = append(w.open, p)
	}
	w.SinkTask.Open(ps)
}

func (w *ordered) Put(recs []connect.SinkRecord) error {
	if !w.started || w.done {
		w.fail("Put outside Start..Stop")
	}
	for _, r := range recs {
		if !slices.Contains(w.open, connect.TopicPartition{Topic: r.Topic, Partition: r.Partition}) {
			w.fail("Put of %s-%d@%d before Open of its partition", r.Topic, r.Partition, r.Offset)
			break
		}
	}
	return w.SinkTask.Put(recs)
}

func (w *ordered) Close(ps []connect.TopicPartition) {
	for _, p := range ps {
		i := slices.Index(w.open, p)
		if i < 0 {
			w.fail("Close of %v not open", p)
			continue
		}
		w.open = slices.Delete(w.open, i, i+1)
	}
	w.SinkTask.Close(ps)
}

func (w *ordered) Stop() {
	if w.done {
		w.fail("Stop twice")
	}
	if len(w.open) > 0 {
		w.fail("Stop with %d partitions still open: Connect closes before it stops", len(w.open))
	}
	w.done = true
	w.SinkTask.Stop()
}
