package wire_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/coordsim/coordsim/wire"
)

// eosMember is one consume-transform-produce member: a kgo
// GroupTransactSession in a KIP-848 group (server-side assignor) that
// copies every record of "in" to "out" inside a transaction that also
// commits the group's offsets.
type eosMember struct {
	sess *kgo.GroupTransactSession
	// committed counts the transactions it committed.
	committed int
}

func newEOSMember(t *testing.T, cl *wire.Cluster, txnID string, opts ...kgo.Opt) *eosMember {
	t.Helper()
	sess, err := kgo.NewGroupTransactSession(append([]kgo.Opt{kgo.SeedBrokers(cl.Addrs()...),
		kgo.TransactionalID(txnID), kgo.TransactionTimeout(2 * time.Second),
		kgo.ConsumerGroup("eos"), kgo.ConsumeTopics("in"), kgo.ServerSideBalancer(),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.DefaultProduceTopic("out"),
		kgo.ClientID(txnID)}, opts...)...)
	require.NoError(t, err)
	return &eosMember{sess: sess}
}

// crashDialer dials real connections until crash, which closes every
// connection it made and refuses new ones: the client is cut off as by a
// process crash, sending no leave, no EndTxn, nothing.
type crashDialer struct {
	mu      sync.Mutex
	conns   []net.Conn
	crashed bool
}

func (d *crashDialer) dial(ctx context.Context, network, host string) (net.Conn, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.crashed {
		return nil, errors.New("test: the member crashed")
	}
	c, err := (&net.Dialer{}).DialContext(ctx, network, host)
	if err == nil {
		d.conns = append(d.conns, c)
	}
	return c, err
}

func (d *crashDialer) crash() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.crashed = true
	for _, c := range d.conns {
		c.Close()
	}
}

// step runs one poll-transform-commit round; it reports whether it copied
// anything. With crash set it stops after producing the copies, before the
// transaction ends: the member dies mid-transaction.
func (m *eosMember) step(ctx context.Context, crash bool) (bool, error) {
	fs := m.sess.PollFetches(ctx)
	if ctx.Err() != nil || fs.IsClientClosed() {
		return false, ctx.Err()
	}
	var recs []*kgo.Record
	fs.EachRecord(func(r *kgo.Record) { recs = append(recs, r) })
	if len(recs) == 0 {
		return false, nil
	}
	if err := m.sess.Begin(); err != nil {
		return false, err
	}
	for _, r := range recs {
		if err := m.sess.ProduceSync(ctx, &kgo.Record{Key: r.Key, Value: r.Value}).FirstErr(); err != nil {
			_, _ = m.sess.End(ctx, kgo.TryAbort)
			return false, nil // fenced or rebalanced: the records come again
		}
	}
	if crash {
		return true, nil
	}
	committed, err := m.sess.End(ctx, kgo.TryCommit)
	if committed {
		m.committed++
	}
	return true, err
}

// produceInput writes values [from, to) to "in", not transactionally.
func produceInput(t *testing.T, ctx context.Context, p *kgo.Client, from, to int) {
	t.Helper()
	for i := from; i < to; i++ {
		v := fmt.Sprintf("v%03d", i)
		require.NoError(t, p.ProduceSync(ctx, &kgo.Record{Topic: "in", Key: []byte(v), Value: []byte(v)}).FirstErr())
	}
}

// TestGroupTransactSessionExactlyOnceWithMemberKilledMidTransaction is the
// issue's acceptance test for exactly-once processing: a kgo
// consume-transform-produce pipeline (GroupTransactSession, a KIP-848
// group) loses a member, cut off as by a crash, after it produced copies
// inside an open transaction. The group fences it at its session timeout,
// the coordinator's sweep aborts its transaction at its
// transaction.timeout.ms, the survivors take its partitions over from the
// group's committed offsets, and in the end the output read with read_committed
// holds every input record exactly once and the group's committed offsets
// are the input's end offsets.
func TestGroupTransactSessionExactlyOnceWithMemberKilledMidTransaction(t *testing.T) {
	t.Parallel()
	const session, heartbeat = 1500 * time.Millisecond, 200 * time.Millisecond
	cl := startCluster(t, func(c *wire.Config) {
		c.Coordinator.ConsumerMinSessionTimeout, c.Coordinator.ConsumerSessionTimeout = session, session
		c.Coordinator.ConsumerMinHeartbeatInterval, c.Coordinator.ConsumerHeartbeatInterval = heartbeat, heartbeat
		c.Transactions.AbortTimedOutIntervalMs = 100
	})
	ctx := testContext(t)
	adm := newAdmin(t, cl)
	createTopic(t, ctx, adm, "in", 4)
	createTopic(t, ctx, adm, "out", 2)
	in := newClient(t, cl)
	const total = 150
	produceInput(t, ctx, in, 0, 50)

	// The victim commits one transaction, then dies in the middle of its
	// second: copies produced, offsets and end never sent.
	var cut crashDialer
	victim := newEOSMember(t, cl, "eos-victim", kgo.Dialer(cut.dial))
	for victim.committed == 0 {
		_, err := victim.step(ctx, false)
		require.NoError(t, err)
	}
	produceInput(t, ctx, in, 50, 100)
	for {
		copied, err := victim.step(ctx, true)
		require.NoError(t, err)
		if copied {
			break
		}
	}
	cut.crash() // gone without a word: no leave, its transaction open
	t.Cleanup(victim.sess.Close)

	// Two survivors finish the job while more input arrives; what they
	// send is logged.
	runCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	sent := newRequestLog()
	for i := range 2 {
		m := newEOSMember(t, cl, fmt.Sprintf("eos-%d", i), kgo.Dialer(sent.dial))
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer m.sess.Close()
			for runCtx.Err() == nil {
				if _, err := m.step(runCtx, false); err != nil && runCtx.Err() == nil {
					t.Logf("member %d: %v", i, err)
				}
			}
		}()
	}
	produceInput(t, ctx, in, 100, total)

	require.Len(t, readAll(t, ctx, cl, "out", total, kgo.ReadCommitted()), total, "the pipeline copied everything")
	stop()
	wg.Wait()
	// Anything committed after the count was reached would be a duplicate:
	// read the whole output again now that every member has stopped.
	settle, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	got := readAll(t, settle, cl, "out", total+1, kgo.ReadCommitted())
	seen := map[string]int{}
	for _, v := range got {
		seen[v]++
	}
	for i := range total {
		v := fmt.Sprintf("v%03d", i)
		assert.Equal(t, 1, seen[v], "%s in the committed output", v)
	}
	assert.Len(t, got, total, "no record twice, none extra")
	// The victim's copies are in the log, in an aborted transaction: a
	// read_uncommitted reader sees them again, so the test did kill a
	// member mid-transaction.
	all, cancelAll := context.WithTimeout(ctx, time.Second)
	defer cancelAll()
	assert.Greater(t, len(readAll(t, all, cl, "out", total+100, kgo.ReadUncommitted())), total)
	assertCommittedAtEnd(t, ctx, adm, "eos", "in", "after the pipeline")
	// The pipeline ran KIP-890 part 2 (transaction.version 2, the
	// default): its produces and offset commits added their partitions and
	// group themselves, and every end bumped the epoch.
	assert.Empty(t, sent.sent(keyAddPartitionsToTxn))
	assert.Empty(t, sent.sent(keyAddOffsetsToTxn))
	assert.Equal(t, []int16{5}, sent.sent(keyEndTxn))
	for _, v := range sent.sent(keyTxnOffsetCommit) {
		assert.GreaterOrEqual(t, v, int16(5), "TxnOffsetCommit v5+ adds the group")
	}
	assert.NotEmpty(t, sent.sent(keyTxnOffsetCommit))
}
