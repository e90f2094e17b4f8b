package wire_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/txn"
	"github.com/coordsim/coordsim/wire"
)

// Transaction version 2 (KIP-890 part 2) over the wire: raw requests for
// each rule, kgo for what a real producer does with them.

// requestLog records the (key, version) of every request a client writes,
// read from the frames on its connections.
type requestLog struct {
	mu       sync.Mutex
	versions map[int16]map[int16]bool
}

func newRequestLog() *requestLog { return &requestLog{versions: map[int16]map[int16]bool{}} }

// dial is a kgo Dialer that logs what goes out.
func (l *requestLog) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return &loggedConn{Conn: c, log: l}, nil
}

// sent returns the versions of key that were sent.
func (l *requestLog) sent(key int16) []int16 {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []int16
	for v := range l.versions[key] {
		out = append(out, v)
	}
	return out
}

type loggedConn struct {
	net.Conn
	log *requestLog
	buf []byte
}

// Write parses the request frames (size, key, version, ...) it carries,
// whatever the write boundaries.
func (c *loggedConn) Write(p []byte) (int, error) {
	c.buf = append(c.buf, p...)
	for len(c.buf) >= 8 {
		size := int(binary.BigEndian.Uint32(c.buf))
		if len(c.buf) < 4+size {
			break
		}
		key, version := int16(binary.BigEndian.Uint16(c.buf[4:])), int16(binary.BigEndian.Uint16(c.buf[6:]))
		c.log.mu.Lock()
		if c.log.versions[key] == nil {
			c.log.versions[key] = map[int16]bool{}
		}
		c.log.versions[key][version] = true
		c.log.mu.Unlock()
		c.buf = c.buf[4+size:]
	}
	return c.Conn.Write(p)
}

// Kafka's API keys the tests look for.
const (
	keyProduce            = 0
	keyAddPartitionsToTxn = 24
	keyAddOffsetsToTxn    = 25
	keyEndTxn             = 26
	keyTxnOffsetCommit    = 28
)

// TestKgoUsesTransactionVersion2 proves that kgo runs KIP-890 part 2
// against the endpoint's default transaction.version 2: it never sends
// AddPartitionsToTxn (its produces add their partitions), ends with EndTxn
// v5, and every commit and abort bumps the producer epoch; read_committed
// reads exactly the committed records. With transaction.version 1
// configured (the serve flag's escape hatch) kgo falls back to
// AddPartitionsToTxn and EndTxn v4, and the epoch stays.
func TestKgoUsesTransactionVersion2(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		tv         txn.TransactionVersion
		epochAfter int16 // after InitProducerId (0) and three ends
	}{
		{"tv2", txn.TV2, 3},
		{"tv1", txn.TV1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cl := startCluster(t, func(c *wire.Config) { c.Transactions.TransactionVersion = tc.tv })
			ctx := testContext(t)
			adm := newAdmin(t, cl)
			createTopic(t, ctx, adm, "out", 2)
			log := newRequestLog()
			p := newClient(t, cl, kgo.TransactionalID("kgo-"+tc.name), kgo.DefaultProduceTopic("out"), kgo.Dialer(log.dial))
			end := func(commit bool, values ...string) {
				require.NoError(t, p.BeginTransaction())
				for _, v := range values {
					require.NoError(t, p.ProduceSync(ctx, &kgo.Record{Value: []byte(v)}).FirstErr())
				}
				require.NoError(t, p.EndTransaction(ctx, kgo.TransactionEndTry(commit)))
			}
			end(true, "c1", "c2")
			end(false, "a1")
			end(true, "c3")
			assert.ElementsMatch(t, []string{"c1", "c2", "c3"}, readAll(t, ctx, cl, "out", 3, kgo.ReadCommitted()))

			described := describeTxn(t, ctx, adm, "kgo-"+tc.name)
			assert.Equal(t, tc.epochAfter, described.ProducerEpoch)
			if tc.tv == txn.TV2 {
				assert.Empty(t, log.sent(keyAddPartitionsToTxn), "produces add their partitions")
				assert.Equal(t, []int16{5}, log.sent(keyEndTxn))
				for _, v := range log.sent(keyProduce) {
					assert.GreaterOrEqual(t, v, int16(12))
				}
			} else {
				assert.NotEmpty(t, log.sent(keyAddPartitionsToTxn))
				for _, v := range log.sent(keyEndTxn) {
					assert.LessOrEqual(t, v, int16(4))
				}
			}
		})
	}
}

// describeTxn waits until id's transaction has completed and returns it.
func describeTxn(t *testing.T, ctx context.Context, adm *kadm.Client, id string) kadm.DescribedTransaction {
	t.Helper()
	var out kadm.DescribedTransaction
	require.Eventually(t, func() bool {
		d, err := adm.DescribeTransactions(ctx, id)
		if err != nil {
			return false
		}
		out = d[id]
		return out.State == "CompleteCommit" || out.State == "CompleteAbort" || out.State == "Empty"
	}, 10*time.Second, 10*time.Millisecond)
	return out
}

// rawTV2 drives one transactional id with raw TV2 requests.
type rawTV2 struct {
	t      *testing.T
	r      *rawCoordinators
	send   func(kmsg.Request) kmsg.Response
	leader net.Conn
	tx     rawTxn
}

func newRawTV2(t *testing.T, cl *wire.Cluster, id string) *rawTV2 {
	r := newRawCoordinators(t, cl)
	return &rawTV2{t: t, r: r, send: r.txnSender(id), leader: dial(t, cl.Addrs()[0]), tx: r.initTxn(id)}
}

// produce sends one transactional batch to foo-0 (broker 0 leads it) at
// Produce v12, which adds the partition to the transaction.
func (x *rawTV2) produce(epoch int16, seq int32) (int16, int64) {
	req := kmsg.NewPtrProduceRequest()
	req.Version, req.Acks, req.TimeoutMillis, req.TransactionID = 12, -1, 5000, &x.tx.id
	rt := kmsg.NewProduceRequestTopic()
	rt.Topic = "foo"
	rp := kmsg.NewProduceRequestTopicPartition()
	rp.Partition, rp.Records = 0, txnBatch(x.tx.producerID, epoch, seq)
	rt.Partitions = []kmsg.ProduceRequestTopicPartition{rp}
	req.Topics = []kmsg.ProduceRequestTopic{rt}
	p := roundTrip(x.t, x.leader, req).(*kmsg.ProduceResponse).Topics[0].Partitions[0]
	return p.ErrorCode, p.BaseOffset
}

// endTxn sends EndTxn v5 at epoch and returns the answer.
func (x *rawTV2) endTxn(epoch int16, commit bool) *kmsg.EndTxnResponse {
	et := kmsg.NewPtrEndTxnRequest()
	et.Version, et.TransactionalID, et.ProducerID, et.ProducerEpoch, et.Commit = 5, x.tx.id, x.tx.producerID, epoch, commit
	return x.send(et).(*kmsg.EndTxnResponse)
}

// endTxnWhenComplete is endTxn, retried while the previous transaction's
// markers are written (CONCURRENT_TRANSACTIONS), as a client retries.
func (x *rawTV2) endTxnWhenComplete(epoch int16, commit bool) *kmsg.EndTxnResponse {
	var resp *kmsg.EndTxnResponse
	require.Eventually(x.t, func() bool {
		resp = x.endTxn(epoch, commit)
		return resp.ErrorCode != 51
	}, 5*time.Second, 5*time.Millisecond)
	return resp
}

// describe is the transaction's state and partitions.
func (x *rawTV2) describe() (string, int16, []int32) {
	dt := kmsg.NewPtrDescribeTransactionsRequest()
	dt.TransactionalIDs = []string{x.tx.id}
	st := x.send(dt).(*kmsg.DescribeTransactionsResponse).TransactionStates[0]
	var ps []int32
	for _, tp := range st.Topics {
		ps = append(ps, tp.Partitions...)
	}
	return st.State, st.ProducerEpoch, ps
}

// TestEndTxnV5BumpsTheEpoch reproduces KIP-890 part 2's rules over raw
// requests (TransactionCoordinator.endTransaction for a TV2 client): a
// Produce v12 batch adds its partition and starts the transaction; EndTxn
// v5 commits it, bumps the epoch and answers the new one; a retry of that
// EndTxn at the old epoch is answered the same once complete; a second
// commit at the new epoch, with nothing ongoing, is INVALID_TXN_STATE; a
// late batch of the committed transaction at the old epoch is
// INVALID_PRODUCER_EPOCH and is not appended; an abort of a transaction
// with no partition succeeds and bumps the epoch again; an EndTxn at a
// future epoch is PRODUCER_FENCED.
func TestEndTxnV5BumpsTheEpoch(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	ctx := testContext(t)
	createTopic(t, ctx, newAdmin(t, cl), "foo", 1)
	x := newRawTV2(t, cl, "tv2-raw")
	e := x.tx.epoch

	code, base := x.produce(e, 0)
	require.Zero(t, code, "the produce adds foo-0 to the transaction")
	assert.Equal(t, int64(0), base)
	state, _, ps := x.describe()
	assert.Equal(t, "Ongoing", state)
	assert.Equal(t, []int32{0}, ps)

	resp := x.endTxn(e, true)
	require.Zero(t, resp.ErrorCode)
	assert.Equal(t, x.tx.producerID, resp.ProducerID)
	assert.Equal(t, e+1, resp.ProducerEpoch, "the commit bumps the epoch")

	retry := x.endTxnWhenComplete(e, true)
	assert.Zero(t, retry.ErrorCode, "a retry of the commit")
	assert.Equal(t, [2]int64{x.tx.producerID, int64(e + 1)}, [2]int64{retry.ProducerID, int64(retry.ProducerEpoch)})
	state, epoch, _ := x.describe()
	assert.Equal(t, "CompleteCommit", state)
	assert.Equal(t, e+1, epoch)
	assert.Equal(t, int16(48), x.endTxn(e+1, true).ErrorCode, "nothing ongoing to commit: INVALID_TXN_STATE")
	assert.Equal(t, int16(48), x.endTxn(e, false).ErrorCode, "a retry that asks the other way: INVALID_TXN_STATE")
	assert.Equal(t, int16(90), x.endTxn(e+5, true).ErrorCode, "a future epoch: PRODUCER_FENCED")

	code, _ = x.produce(e, 1)
	assert.Equal(t, int16(47), code, "a late batch of the committed transaction: INVALID_PRODUCER_EPOCH")
	code, base = x.produce(e+1, 0)
	require.Zero(t, code, "the next transaction at the new epoch")
	assert.Equal(t, int64(2), base, "after the first batch and its commit marker; the late batch was not appended")

	abort := x.endTxn(e+1, false)
	require.Zero(t, abort.ErrorCode)
	assert.Equal(t, e+2, abort.ProducerEpoch)
	empty := x.endTxnWhenComplete(e+2, false)
	require.Zero(t, empty.ErrorCode, "an abort with no partition")
	assert.Equal(t, e+3, empty.ProducerEpoch)

	got := readAll(t, ctx, cl, "foo", 1, kgo.ReadCommitted())
	assert.Equal(t, []string{"v"}, got, "only the committed batch is read")
}

// TestTxnOffsetCommitV5AddsTheGroupAndRejectsABumpedEpoch is the
// transaction.version 2 half (v5+) of Kafka's
// TxnOffsetCommitRequestTest.testDelayedTxnOffsetCommitWithBumpedEpochIsRejected:
// a TxnOffsetCommit v5 adds the group to the transaction by itself (no
// AddOffsetsToTxn), the commit's EndTxn v5 bumps the epoch, and a delayed
// commit at the old epoch is INVALID_PRODUCER_EPOCH and stays unwritten.
func TestTxnOffsetCommitV5AddsTheGroupAndRejectsABumpedEpoch(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	ctx := testContext(t)
	createTopic(t, ctx, newAdmin(t, cl), "foo", 1)
	x := newRawTV2(t, cl, "tv2-offsets")
	r := x.r
	memberEpoch := r.joinConsumer("group", "m1", "foo")
	for v := int16(5); v <= 5; v++ { // v6 names topics by id
		req := x.tx.stamp(txnCommit(v, "group", "m1", memberEpoch, map[string][]int32{"foo": {0}}, "foo"))
		assert.Equal(t, []string{"foo:0=0"}, txnRows(r.send("group", req)), "v%d adds the group itself", v)
		state, _, ps := x.describe()
		assert.Equal(t, "Ongoing", state)
		assert.Len(t, ps, 1, "the group's __consumer_offsets partition")
		resp := x.endTxn(x.tx.epoch, true)
		require.Zero(t, resp.ErrorCode)
		delayed := x.tx.stamp(txnCommit(v, "group", "m1", memberEpoch, map[string][]int32{"foo": {0}}, "foo"))
		var rows []string
		require.Eventually(t, func() bool {
			rows = txnRows(r.send("group", delayed))
			return rows[0] != "foo:0=51"
		}, 5*time.Second, 5*time.Millisecond)
		assert.Equal(t, []string{"foo:0=47"}, rows, "v%d: a delayed commit at the old epoch", v)
		x.tx.epoch = resp.ProducerEpoch
	}
	assert.Zero(t, r.stableCode("group"), "nothing is left pending")
}

// TestKgoTransactionVersion2ProducersLoseNothing proves that no
// acknowledged record is lost or duplicated under KIP-890 part 2 with
// several producers at once: three kgo transactional producers each run
// twenty transactions over four partitions (every fourth aborted, its
// epoch bumped like a commit's), and a read_committed consumer reads
// every committed record exactly once and no aborted one.
func TestKgoTransactionVersion2ProducersLoseNothing(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	ctx := testContext(t)
	createTopic(t, ctx, newAdmin(t, cl), "many", 4)
	const producers, txns, perTxn = 3, 20, 5
	var mu sync.Mutex
	committed := map[string]bool{}
	var wg sync.WaitGroup
	for p := range producers {
		c := newClient(t, cl, kgo.TransactionalID(fmt.Sprintf("many-%d", p)), kgo.DefaultProduceTopic("many"))
		wg.Go(func() {
			for n := range txns {
				if !assert.NoError(t, c.BeginTransaction()) {
					return
				}
				var values []string
				for i := range perTxn {
					v := fmt.Sprintf("p%d-t%d-r%d", p, n, i)
					values = append(values, v)
					c.Produce(ctx, &kgo.Record{Value: []byte(v)}, func(_ *kgo.Record, err error) {
						assert.NoError(t, err)
					})
				}
				commit := n%4 != 3
				if !assert.NoError(t, c.Flush(ctx)) || !assert.NoError(t, c.EndTransaction(ctx, kgo.TransactionEndTry(commit))) {
					return
				}
				if commit {
					mu.Lock()
					for _, v := range values {
						committed[v] = true
					}
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	want := len(committed)
	require.Equal(t, producers*txns*3/4*perTxn, want)
	got := readAll(t, ctx, cl, "many", want, kgo.ReadCommitted())
	seen := map[string]int{}
	for _, v := range got {
		seen[v]++
	}
	for v := range committed {
		assert.Equal(t, 1, seen[v], "committed %s read once", v)
	}
	assert.Len(t, got, want, "no aborted or duplicated record")
}
