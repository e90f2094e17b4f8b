package coordtest

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/plugin/faultstore"
	"github.com/coordsim/coordsim/plugin/memstore"
	"github.com/coordsim/coordsim/shard"
)

// RunScenarios runs every scenario file matching glob (for example
// "testdata/*.txt") as a subtest.
func RunScenarios(t *testing.T, glob string) {
	t.Helper()
	files, err := filepath.Glob(glob)
	if err != nil || len(files) == 0 {
		t.Fatalf("coordtest: no scenario files match %q (%v)", glob, err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) { RunScenario(t, f) })
	}
}

// RunScenario runs one scenario file in cockroachdb/datadriven format: prose
// and # comments, then commands with their expected output, regenerated with
// `go test -rewrite`. Every command prints what it got back, then the
// records it appended ("record pP@O ..."), or "ok" when it has nothing to
// print.
//
// The commands are the keys of the commands table (commands.go); each
// handler's doc comment is its usage, as in etcd raft's rafttest:
//
//   - the cluster (cmd_cluster.go): coordinator, topics, topic-racks,
//     streams-group-config, advance, unload, load, move, fail-next-append,
//     describe, groups, timers, metrics, check-replay;
//   - the group heartbeats (cmd_heartbeats.go): consumer-heartbeat,
//     share-heartbeat, streams-heartbeat;
//   - offsets and groups (cmd_offsets.go): commit, txn-commit, end-txn,
//     fetch, delete-offsets, partitions-deleted, alter-share-offsets,
//     delete-share-offsets, delete-groups;
//   - KIP-1331's topology descriptions, with coordinator plugin=memstore
//     (cmd_plugin.go): push, describe-streams, cleanup-cycle, plugin-fail,
//     executor, plugin-pending, plugin-run, plugin-rows, backoff;
//   - the classic protocol (classic.go): join, sync, classic-heartbeat,
//     leave.
//
// A command that waits on a write the scenario cannot complete (async
// commits, parked plugin calls, a JoinGroup waiting for the rebalance)
// prints "pending"; the command during which it completes prints
// "completed LABEL: outcome".
func RunScenario(t *testing.T, path string) {
	t.Helper()
	s := &scenario{}
	if err := s.reset(nil); err != nil {
		t.Fatal(err)
	}
	datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
		before := make([]int, len(s.brokers))
		for i, b := range s.brokers {
			before[i] = len(b.Records())
		}
		brokersBefore := s.brokers
		out, err := s.run(d)
		var b strings.Builder
		if err != nil {
			fmt.Fprintf(&b, "error: %v\n", err)
		} else if out != "" {
			b.WriteString(out)
			if !strings.HasSuffix(out, "\n") {
				b.WriteByte('\n')
			}
		}
		b.WriteString(s.reportCompleted())
		for i, br := range s.brokers {
			n := 0
			if len(brokersBefore) == len(s.brokers) && brokersBefore[i] == br {
				n = before[i] // else the command rebuilt the harness
			}
			for _, r := range br.RecordsSince(n) {
				if len(s.brokers) > 1 {
					fmt.Fprintf(&b, "record b%d p%d@%d %s\n", i, r.Partition, r.Offset, shard.Format(r.Record))
				} else {
					fmt.Fprintf(&b, "record p%d@%d %s\n", r.Partition, r.Offset, shard.Format(r.Record))
				}
			}
		}
		if b.Len() == 0 {
			return "ok\n"
		}
		return s.classic.name(b.String())
	})
}

// run looks the command up in the table and runs its handler.
func (s *scenario) run(d *datadriven.TestData) (string, error) {
	handle, ok := commands[d.Cmd]
	if !ok {
		return "", fmt.Errorf("unknown command %q", d.Cmd)
	}
	return handle(s, d)
}

type scenario struct {
	h *Harness // the broker commands go to: the owner after the last move
	// brokers are the cluster's brokers (one unless brokers=N): they share
	// the clock, the partition logs, the store and the executor.
	brokers []*Harness
	start   time.Time
	pending []pendingWrite
	// With plugin=memstore: the store, the fault wrapper the coordinator
	// sees, and (executor=manual) the executor that parks plugin calls.
	store  *memstore.Store
	faults *faultstore.Store
	exec   *ManualExecutor
	// image is the topic metadata image the last topics/topic-racks
	// command installed.
	image shard.TopicImage
	// classic names the classic members by alias (classic.go).
	classic classicIDs
}

// pendingWrite is a write issued with the async flag: the scenario does not
// wait for it, and reports its outcome when a later command completes it.
type pendingWrite struct {
	label string
	poll  func() (done bool, outcome string)
}

// reportCompleted prints, in issue order, the async writes that completed.
func (s *scenario) reportCompleted() string {
	var b strings.Builder
	kept := s.pending[:0]
	for _, w := range s.pending {
		if done, outcome := w.poll(); done {
			fmt.Fprintf(&b, "completed %s: %s\n", w.label, outcome)
			continue
		}
		kept = append(kept, w)
	}
	s.pending = kept
	return b.String()
}

// awaitOrPark returns a future's outcome when it is done; otherwise the
// scenario parks it and reports it when a later command completes it. It
// never advances time, so a parked plugin call cannot make it hang.
func awaitOrPark[T any](s *scenario, label string, f *coordinator.Future[T], describe func(T, error) string) string {
	if f.Done() {
		return describe(f.Result())
	}
	s.pending = append(s.pending, pendingWrite{label: label, poll: func() (bool, string) {
		v, err := f.Result()
		return f.Done(), describe(v, err)
	}})
	return "pending"
}

// setImage installs img on every broker.
func (s *scenario) setImage(img shard.TopicImage) error {
	for _, b := range s.brokers {
		if err := b.Coordinator.SetTopicImage(img); err != nil {
			return err
		}
	}
	s.image = img
	return nil
}

func (s *scenario) needPlugin() error {
	if s.faults == nil {
		return fmt.Errorf("this command needs coordinator plugin=memstore")
	}
	return nil
}
