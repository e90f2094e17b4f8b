package difftest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/stretchr/testify/require"
)

// startOracle builds (if needed) and starts the oracle, or skips the test
// loudly when Java or Maven is missing.
func startOracle(ctx context.Context, t *testing.T) *Oracle {
	t.Helper()
	jar, err := OracleJar(ctx, filepath.Join("..", ".."))
	if errors.Is(err, ErrNoJava) {
		t.Skip("SKIPPED, NOT RUN: the Kafka oracle needs java and mvn on PATH (" + err.Error() + ")")
	}
	require.NoError(t, err)
	o, err := StartOracle(ctx, jar)
	require.NoError(t, err)
	t.Cleanup(func() { _ = o.Close() })
	return o
}

// TestDifferential runs a short differential run against Kafka 4.4's own
// GroupCoordinatorShard, without and with a streams group, and fails on any
// divergence no entry of Known explains, printing each (reduced) with its
// sequence.
func TestDifferential(t *testing.T) {
	o := startOracle(context.Background(), t)
	for _, gen := range []GenConfig{{}, {Streams: true}} {
		t.Run(map[bool]string{false: "default", true: "streams"}[gen.Streams], func(t *testing.T) { differential(t, o, gen) })
	}
}

func differential(t *testing.T, o *Oracle, gen GenConfig) {
	seeds, ops := 20, 100
	if testing.Short() {
		seeds = 5
	}
	dir := t.TempDir()
	rep, err := Run(context.Background(), o, Options{Seeds: seeds, Ops: ops, FirstSeed: 1, ReproDir: dir, Gen: gen})
	require.NoError(t, err)
	t.Log(rep.Summary())
	for _, d := range rep.Unexplained() {
		t.Errorf("unexplained divergence:\n%s\nsequence:", d)
		for i, op := range d.Ops {
			t.Logf("  %d %s %s", i, op.Name(), EncodeOp(op))
		}
	}
	for _, p := range rep.Repros {
		b, _ := os.ReadFile(p)
		t.Logf("reproduction %s:\n%s", filepath.Base(p), b)
	}
}

// TestRepros replays every reproduction file under testdata/repro/: each is a
// divergence the runner found, reduced, with Kafka's answers as the
// expected output, so each is a regression test that needs no Java.
func TestRepros(t *testing.T) {
	datadriven.Walk(t, filepath.Join("testdata", "repro"), func(t *testing.T, path string) {
		replay := ReplayRepro(path)
		datadriven.RunTest(t, path, func(_ *testing.T, td *datadriven.TestData) string { return replay(td) })
	})
}

// TestClassicCoverage proves that a default run reaches the classic
// protocol on both sides alike: joins and syncs answered without error
// (completed rebalances), and groups upgraded and downgraded online.
func TestClassicCoverage(t *testing.T) {
	o := startOracle(context.Background(), t)
	rep, err := Run(context.Background(), o, Options{Seeds: 60, Ops: 200, FirstSeed: 1})
	require.NoError(t, err)
	t.Log(rep.Summary())
	for _, k := range []string{"joins", "joined", "syncs", "synced", "upgrades", "downgrades"} {
		require.Positive(t, rep.Classic[k], "classic %s", k)
	}
	require.Empty(t, rep.Unexplained())
}
