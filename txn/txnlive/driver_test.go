package txnlive

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/txn"
)

// fakeWriter records markers; it fails the first failures calls.
type fakeWriter struct {
	mu       sync.Mutex
	written  []txn.Markers
	failures int
}

func (w *fakeWriter) WriteMarkers(_ context.Context, mk txn.Markers) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.failures > 0 {
		w.failures--
		return errors.New("partition unavailable")
	}
	w.written = append(w.written, mk)
	return nil
}

func (w *fakeWriter) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.written)
}

func start(t *testing.T, w MarkerWriter, clk clock.Clock) *Driver {
	t.Helper()
	var next int64
	c, err := txn.NewCoordinator(txn.DefaultConfig(), func() int64 { next++; return next }, coordinator.PartitionFor)
	require.NoError(t, err)
	d, err := New(c, w, clk, nil)
	require.NoError(t, err)
	require.NoError(t, d.Start(context.Background()))
	t.Cleanup(d.Stop)
	return d
}

func state(t *testing.T, d *Driver, id string) txn.State {
	ms, _, err := d.Current(context.Background(), []string{id})
	require.NoError(t, err)
	return ms[0].State
}

// TestCommitCompletesOnceMarkersAreWritten proves the two steps of a
// commit: EndTxn answers at PrepareCommit, the markers are written off the
// loop (retried after a failure), and only then is the transaction
// CompleteCommit; meanwhile a new transaction is told CONCURRENT_TRANSACTIONS.
func TestCommitCompletesOnceMarkersAreWritten(t *testing.T) {
	ctx := context.Background()
	clk := clock.NewMock()
	clk.Set(time.Unix(1000, 0))
	w := &fakeWriter{failures: 1}
	d := start(t, w, clk)
	resp, err := d.InitProducerID(ctx, txn.InitProducerIDRequest{TransactionalID: "t", TimeoutMs: 60000, ExpectedProducerID: -1, ExpectedProducerEpoch: -1})
	require.NoError(t, err)
	tp := []txn.TopicPartition{{Topic: "out", Partition: 0}}
	require.NoError(t, d.AddPartitions(ctx, "t", resp.ProducerID, resp.ProducerEpoch, tp, txn.TV0))
	_, err = d.EndTxn(ctx, "t", resp.ProducerID, resp.ProducerEpoch, true, txn.TV0)
	require.NoError(t, err)
	assert.ErrorIs(t, d.AddPartitions(ctx, "t", resp.ProducerID, resp.ProducerEpoch, tp, txn.TV0), kerr.ConcurrentTransactions)
	// The first attempt failed; the retry waits for the backoff on the mock clock.
	require.Eventually(t, func() bool { clk.Add(MarkerRetryBackoff); return w.count() == 1 }, 5*time.Second, time.Millisecond)
	require.Eventually(t, func() bool { return state(t, d, "t") == txn.CompleteCommit }, 5*time.Second, time.Millisecond)
	assert.Equal(t, tp, w.written[0].Partitions)
	assert.True(t, w.written[0].Commit)
}

// TestTimedOutTransactionIsAbortedBySweep proves transaction.timeout.ms: the
// sweep on the loop's timer fences and aborts an ongoing transaction.
func TestTimedOutTransactionIsAbortedBySweep(t *testing.T) {
	ctx := context.Background()
	clk := clock.NewMock()
	clk.Set(time.Unix(1000, 0))
	w := &fakeWriter{}
	d := start(t, w, clk)
	resp, err := d.InitProducerID(ctx, txn.InitProducerIDRequest{TransactionalID: "t", TimeoutMs: 1000, ExpectedProducerID: -1, ExpectedProducerEpoch: -1})
	require.NoError(t, err)
	require.NoError(t, d.AddPartitions(ctx, "t", resp.ProducerID, resp.ProducerEpoch, []txn.TopicPartition{{Topic: "out", Partition: 0}}, txn.TV0))
	clk.Add(txn.DefaultAbortTimedOutIntervalMs * time.Millisecond)
	require.Eventually(t, func() bool { return state(t, d, "t") == txn.CompleteAbort }, 5*time.Second, time.Millisecond)
	require.Equal(t, 1, w.count())
	assert.False(t, w.written[0].Commit)
	assert.Equal(t, resp.ProducerEpoch+1, w.written[0].ProducerEpoch)
	_, err = d.EndTxn(ctx, "t", resp.ProducerID, resp.ProducerEpoch, true, txn.TV0)
	assert.ErrorIs(t, err, kerr.ProducerFenced)
}
