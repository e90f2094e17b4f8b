package sim

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/shard"
)

// TestSnapshotPlusTailEqualsReplayFromZero proves, over 12 seeds (3 with -short) under
// heavy faults (shard moves, failed appends, commit delays), that a log
// folded into snapshots (coordinator/snapshot.go) restores to the state a
// replay of the whole log from offset 0 gives: each seed runs twice, once
// with a snapshot every few records and once keeping every record, and at
// the end each partition's snapshot plus tail, its full replay and the
// live committed shard must have equal state dumps (shard.Snapshot). The
// two runs' traces must be the same too: snapshots change no event. During
// the run the replay invariant compares the live shards with snapshot plus
// tail every 500 events in the run with snapshots.
func TestSnapshotPlusTailEqualsReplayFromZero(t *testing.T) {
	t.Parallel() // seconds of simulation per seed
	seeds := 12
	if testing.Short() {
		seeds = 3
	}
	folded := 0
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		every := int64(8 + seed*7%57) // small, so a short run folds often
		t.Run(fmt.Sprintf("seed=%d/every=%d", seed, every), func(t *testing.T) {
			o := snapshotOptions(t, seed)
			a := runWithSnapshots(t, o, every)
			// The reference keeps every record; checking its replay every
			// 500 events would replay from offset 0 each time, and the
			// checks write nothing to the trace.
			o.ReplayCheckEvery = 0
			b := runWithSnapshots(t, o, 0)
			requireHeld(t, a, "with snapshots")
			requireHeld(t, b, "without")
			require.Equal(t, b.res.TraceHash, a.res.TraceHash, "snapshots changed the run")
			for p := range o.Partitions {
				la, lb := a.logs.Partition(p), b.logs.Partition(p)
				require.Equal(t, lb.HighWatermark(), la.HighWatermark(), "partition %d", p)
				require.Zero(t, lb.StartOffset(), "partition %d: a log without snapshots keeps offset 0", p)
				if la.StartOffset() > 0 {
					folded++
				}
				live, err := a.brokers[a.owner[p]].c.CommittedShard(p)
				require.NoError(t, err, "partition %d", p)
				prepare := func(s *shard.Shard) error { s.SetPreparedTopicImage(a.image); return nil }
				fromSnapshot, err := la.Restore(live.Config(), prepare)
				require.NoError(t, err, "partition %d: snapshot plus tail", p)
				fromZero, err := lb.Restore(live.Config(), prepare)
				require.NoError(t, err, "partition %d: offset 0", p)
				require.NoError(t, fromZero.Snapshot().Diff(fromSnapshot.Snapshot()), "partition %d: snapshot plus tail against offset 0", p)
				fromSnapshot.ForgetAsLoaded(live.ForgottenAtLoad()) // as the live shard's load did
				require.NoError(t, live.Snapshot().Diff(fromSnapshot.Snapshot()), "partition %d: live against snapshot plus tail", p)
			}
		})
	}
	require.Positive(t, folded, "no log was ever folded into a snapshot: the test proved nothing")
}

// snapshotOptions is the default scenario cut to two virtual hours on five
// partitions, so each partition's log is long, under heavy faults.
func snapshotOptions(t *testing.T, seed uint64) Options {
	o := DefaultOptions()
	o.Seed, o.Duration, o.Partitions = seed, 2*time.Hour, 5
	o.Workload.StreamsApps, o.Workload.ConsumerGroups, o.Workload.ShareGroups, o.Workload.SimpleGroups = 12, 12, 3, 12
	o.Workload.ArrivalWindow = 0.5
	f, err := PresetFaults(FaultsHeavy)
	require.NoError(t, err)
	o.Faults = f
	o.ReplayCheckEvery = 500
	return o
}

func runWithSnapshots(t *testing.T, o Options, every int64) *world {
	t.Helper()
	w, err := newWorld(o, nil)
	require.NoError(t, err)
	require.NoError(t, w.logs.SetSnapshotEvery(every))
	w.run()
	return w
}

func requireHeld(t *testing.T, w *world, run string) {
	t.Helper()
	if v := w.res.Violation; v != nil {
		t.Fatalf("%s: %s at step %d: %s", run, v.Invariant, v.Step, v.Detail)
	}
}
