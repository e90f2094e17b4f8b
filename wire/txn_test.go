package wire_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/wire"
)

// readAll reads topic from the start until it has want records or the
// context ends, at the given isolation level, and returns the values.
func readAll(t *testing.T, ctx context.Context, cl *wire.Cluster, topic string, want int, level kgo.IsolationLevel) []string {
	t.Helper()
	c := newClient(t, cl, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchIsolationLevel(level))
	var out []string
	for len(out) < want {
		fs := c.PollFetches(ctx)
		if ctx.Err() != nil {
			break
		}
		fs.EachError(func(_ string, _ int32, err error) { t.Logf("fetch: %v", err) })
		fs.EachRecord(func(r *kgo.Record) { out = append(out, string(r.Value)) })
	}
	return out
}

// TestTransactionalProducerCommitAndAbort proves what a read_committed
// consumer relies on: the records of committed transactions are read, those
// of an aborted one are not (the aborted-transaction list), and a
// read_uncommitted consumer sees every record but never a control batch.
func TestTransactionalProducerCommitAndAbort(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	ctx := testContext(t)
	createTopic(t, ctx, newAdmin(t, cl), "out", 1)
	p := newClient(t, cl, kgo.TransactionalID("tp"), kgo.DefaultProduceTopic("out"))
	txn := func(commit bool, values ...string) {
		require.NoError(t, p.BeginTransaction())
		for _, v := range values {
			require.NoError(t, p.ProduceSync(ctx, &kgo.Record{Value: []byte(v)}).FirstErr())
		}
		require.NoError(t, p.EndTransaction(ctx, kgo.TransactionEndTry(commit)))
	}
	txn(true, "c1", "c2")
	txn(false, "a1", "a2")
	txn(true, "c3")
	committed := readAll(t, ctx, cl, "out", 3, kgo.ReadCommitted())
	assert.Equal(t, []string{"c1", "c2", "c3"}, committed)
	all := readAll(t, ctx, cl, "out", 5, kgo.ReadUncommitted())
	assert.Equal(t, []string{"c1", "c2", "a1", "a2", "c3"}, all)
}

// TestTransactionalProducerFencedByNewerOne proves zombie fencing: a second
// producer with the same transactional id fences the first, whose open
// transaction is aborted, and the first can no longer commit.
func TestTransactionalProducerFencedByNewerOne(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	ctx := testContext(t)
	createTopic(t, ctx, newAdmin(t, cl), "out", 2)
	old := newClient(t, cl, kgo.TransactionalID("f"), kgo.DefaultProduceTopic("out"))
	require.NoError(t, old.BeginTransaction())
	require.NoError(t, old.ProduceSync(ctx, &kgo.Record{Value: []byte("zombie")}).FirstErr())

	fresh := newClient(t, cl, kgo.TransactionalID("f"), kgo.DefaultProduceTopic("out"))
	require.NoError(t, fresh.BeginTransaction())
	require.NoError(t, fresh.ProduceSync(ctx, &kgo.Record{Value: []byte("fresh")}).FirstErr())
	require.NoError(t, fresh.EndTransaction(ctx, kgo.TryCommit))

	err := old.EndTransaction(ctx, kgo.TryCommit)
	require.Error(t, err, "the fenced producer cannot commit")
	assert.True(t, errors.Is(err, kerr.ProducerFenced) || errors.Is(err, kerr.InvalidProducerEpoch), "got %v", err)
	assert.Equal(t, []string{"fresh"}, readAll(t, ctx, cl, "out", 1, kgo.ReadCommitted()))
}

// TestTransactionTimeoutAborts proves transaction.timeout.ms: a producer
// that opens a transaction and goes quiet has it aborted by the
// coordinator's sweep, its records are never read committed, and its late
// commit fails.
func TestTransactionTimeoutAborts(t *testing.T) {
	t.Parallel()
	cl := startCluster(t, func(c *wire.Config) { c.Transactions.AbortTimedOutIntervalMs = 50 })
	ctx := testContext(t)
	adm := newAdmin(t, cl)
	createTopic(t, ctx, adm, "out", 1)
	p := newClient(t, cl, kgo.TransactionalID("slow"), kgo.DefaultProduceTopic("out"), kgo.TransactionTimeout(300*time.Millisecond))
	require.NoError(t, p.BeginTransaction())
	require.NoError(t, p.ProduceSync(ctx, &kgo.Record{Value: []byte("late")}).FirstErr())
	require.Eventually(t, func() bool {
		d, err := adm.DescribeTransactions(ctx, "slow")
		if err != nil {
			return false
		}
		s, ok := d["slow"]
		return ok && s.State == "CompleteAbort"
	}, 10*time.Second, 20*time.Millisecond, "the sweep aborts the transaction")
	assert.Error(t, p.EndTransaction(ctx, kgo.TryCommit), "the timed-out producer was fenced")

	// A committed transaction after it is read; the aborted record is not.
	q := newClient(t, cl, kgo.TransactionalID("next"), kgo.DefaultProduceTopic("out"))
	require.NoError(t, q.BeginTransaction())
	require.NoError(t, q.ProduceSync(ctx, &kgo.Record{Value: []byte("ok")}).FirstErr())
	require.NoError(t, q.EndTransaction(ctx, kgo.TryCommit))
	assert.Equal(t, []string{"ok"}, readAll(t, ctx, cl, "out", 1, kgo.ReadCommitted()))

	listed, err := adm.ListTransactions(ctx, nil, []string{"CompleteAbort"})
	require.NoError(t, err)
	assert.Equal(t, []string{"slow"}, listed.TransactionalIDs())
}

// TestListOffsetsReadCommittedStopsAtLastStableOffset proves that a
// read_committed client resetting to the end (ListOffsets latest with
// IsolationLevel 1) lands on the last stable offset, not past an open
// transaction's records, and on the high watermark once it commits.
func TestListOffsetsReadCommittedStopsAtLastStableOffset(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	ctx := testContext(t)
	createTopic(t, ctx, newAdmin(t, cl), "out", 1)
	plain := newClient(t, cl, kgo.DefaultProduceTopic("out"))
	require.NoError(t, plain.ProduceSync(ctx, &kgo.Record{Value: []byte("before")}).FirstErr())
	p := newClient(t, cl, kgo.TransactionalID("lso"), kgo.DefaultProduceTopic("out"))
	require.NoError(t, p.BeginTransaction())
	require.NoError(t, p.ProduceSync(ctx, &kgo.Record{Value: []byte("open")}).FirstErr())

	latest := func(level int8) int64 {
		req := kmsg.NewPtrListOffsetsRequest()
		req.Version, req.ReplicaID, req.IsolationLevel = 7, -1, level
		rt := kmsg.NewListOffsetsRequestTopic()
		rt.Topic = "out"
		rp := kmsg.NewListOffsetsRequestTopicPartition()
		rp.Partition, rp.Timestamp, rp.CurrentLeaderEpoch = 0, -1, -1
		rt.Partitions = []kmsg.ListOffsetsRequestTopicPartition{rp}
		req.Topics = []kmsg.ListOffsetsRequestTopic{rt}
		resp, err := req.RequestWith(ctx, plain)
		require.NoError(t, err)
		require.Zero(t, resp.Topics[0].Partitions[0].ErrorCode)
		return resp.Topics[0].Partitions[0].Offset
	}
	assert.Equal(t, int64(1), latest(1), "read_committed: the open transaction's first offset")
	assert.Equal(t, int64(2), latest(0), "read_uncommitted: the high watermark")
	require.NoError(t, p.EndTransaction(ctx, kgo.TryCommit))
	assert.Eventually(t, func() bool { return latest(1) == 3 }, 5*time.Second, 5*time.Millisecond, "after the commit marker, the high watermark")
}
