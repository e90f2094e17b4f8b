package wire_test

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/shard"
	"github.com/coordsim/coordsim/wire"
)

// TestTxnOffsetCommit reproduces Kafka's
// TxnOffsetCommitRequestTest.testTxnOffsetCommit(useNewProtocol = true):
// at every version, InitProducerId, AddOffsetsToTxn, TxnOffsetCommit and a
// committing EndTxn, after which the group's committed offset is the one
// the transaction wrote (the marker completed the pending offset), or the
// previous one when the commit was refused (an unknown member, a wrong
// generation).
func TestTxnOffsetCommit(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	ctx := testContext(t)
	createTopic(t, ctx, newAdmin(t, cl), "foo", 1)
	r := newRawCoordinators(t, cl)
	memberEpoch := r.joinConsumer("group", "m1", "foo")
	fooID := r.topicID("foo")
	fetched := func() string {
		_, rows := r.fetch("group", nil, -1, []int32{0})
		require.Len(t, rows, 1)
		return rows[0]
	}
	verify := func(version int16, member string, generation int32, offset int64, wantCode int16) {
		t.Helper()
		before := fetched()
		tx := r.initTxn("txn")
		require.Zero(t, r.addOffsets(tx, "group"))
		req := tx.stamp(txnCommit(version, "group", member, generation, map[string][]int32{"foo": {0}}, "foo"))
		req.Topics[0].Partitions[0].Offset = offset
		if version >= 6 {
			req.Topics[0].Topic, req.Topics[0].TopicID = "", fooID
		}
		resp := r.send("group", req).(*kmsg.TxnOffsetCommitResponse)
		require.Len(t, resp.Topics, 1)
		assert.Equal(t, wantCode, resp.Topics[0].Partitions[0].ErrorCode, "v%d member %q generation %d", version, member, generation)
		require.Zero(t, r.endTxn(tx, true))
		want := before
		if wantCode == 0 {
			want = fmt.Sprintf("foo-0=%d/0", offset)
		}
		assert.Eventually(t, func() bool { return fetched() == want }, 5*time.Second, 5*time.Millisecond,
			"v%d: the committed offset after EndTxn is %s (now %s)", version, want, fetched())
	}
	for v := int16(0); v <= 6; v++ {
		verify(v, "", -1, 100+int64(v), 0)
		if v >= 3 {
			verify(v, "m1", memberEpoch, 200+int64(v), 0)
			verify(v, "non-exist", memberEpoch, 300+int64(v), 25)
			verify(v, "m1", 100, 400+int64(v), 22)
		}
	}
}

// TestDelayedTxnOffsetCommitWithBumpedEpochIsRejected reproduces the
// transaction.version 1 half (v0-4) of Kafka's
// TxnOffsetCommitRequestTest.testDelayedTxnOffsetCommitWithBumpedEpochIsRejected:
// without the KIP-890 epoch bump on EndTxn, a commit in the next
// transaction at the same epoch is accepted. (Its v5+ half, where
// transaction.version 2 bumps the epoch and the commit is
// INVALID_PRODUCER_EPOCH, is TestTxnOffsetCommitV5AddsTheGroupAndRejectsABumpedEpoch.)
// An epoch older than the transaction's is refused.
func TestDelayedTxnOffsetCommitWithBumpedEpochIsRejected(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	ctx := testContext(t)
	createTopic(t, ctx, newAdmin(t, cl), "foo", 1)
	r := newRawCoordinators(t, cl)
	memberEpoch := r.joinConsumer("group", "m1", "foo")
	for v := int16(0); v <= 4; v++ {
		tx := r.initTxn("txn")
		require.Zero(t, r.addOffsets(tx, "group"))
		require.Zero(t, r.endTxn(tx, true))
		require.Zero(t, r.addOffsets(tx, "group"), "the next transaction at the same epoch")
		member, generation := "", int32(-1)
		if v >= 3 {
			member, generation = "m1", memberEpoch
		}
		req := tx.stamp(txnCommit(v, "group", member, generation, map[string][]int32{"foo": {0}}, "foo"))
		assert.Equal(t, []string{"foo:0=0"}, txnRows(r.send("group", req)), "v%d", v)
		stale := tx.stamp(txnCommit(v, "group", member, generation, map[string][]int32{"foo": {0}}, "foo"))
		stale.ProducerEpoch--
		if stale.ProducerEpoch >= 0 {
			assert.Equal(t, []string{"foo:0=47"}, txnRows(r.send("group", stale)), "v%d: an older epoch is INVALID_PRODUCER_EPOCH", v)
		}
		require.Zero(t, r.endTxn(tx, true))
	}
}

// TestPendingTxnOffsetsAbortedByEndTxnOrTimeout proves that pending
// transactional offsets never stay pending: an aborting EndTxn drops them,
// and so does the coordinator's transaction.timeout.ms sweep for a producer
// that committed offsets and went quiet; either way RequireStable fetches
// stop answering UNSTABLE_OFFSET_COMMIT and nothing is committed.
func TestPendingTxnOffsetsAbortedByEndTxnOrTimeout(t *testing.T) {
	t.Parallel()
	cl := startCluster(t, func(c *wire.Config) { c.Transactions.AbortTimedOutIntervalMs = 20 })
	ctx := testContext(t)
	createTopic(t, ctx, newAdmin(t, cl), "foo", 1)
	r := newRawCoordinators(t, cl)

	tx := r.initTxn("aborts")
	require.Zero(t, r.addOffsets(tx, "group"))
	assert.Equal(t, []string{"foo:0=0"}, txnRows(r.send("group", tx.stamp(txnCommit(3, "group", "", -1, map[string][]int32{"foo": {0}}, "foo")))))
	require.Equal(t, int16(88), r.stableCode("group"), "pending")
	require.Zero(t, r.endTxn(tx, false))
	assert.Eventually(t, func() bool { return r.stableCode("group") == 0 }, 5*time.Second, 5*time.Millisecond, "the abort marker dropped the pending offset")
	_, rows := r.fetch("group", nil, -1, []int32{0})
	assert.Equal(t, []string{"foo-0=-1/0"}, rows)

	// A producer with a 100 ms transaction timeout commits offsets and
	// never ends its transaction.
	send := r.txnSender("quiet")
	id := "quiet"
	ip := kmsg.NewPtrInitProducerIDRequest()
	ip.Version, ip.TransactionalID, ip.TransactionTimeoutMillis, ip.ProducerID, ip.ProducerEpoch = 4, &id, 100, -1, -1
	init := send(ip).(*kmsg.InitProducerIDResponse)
	require.Zero(t, init.ErrorCode)
	quiet := rawTxn{id: id, producerID: init.ProducerID, epoch: init.ProducerEpoch}
	require.Zero(t, r.addOffsets(quiet, "group"))
	assert.Equal(t, []string{"foo:0=0"}, txnRows(r.send("group", quiet.stamp(txnCommit(3, "group", "", -1, map[string][]int32{"foo": {0}}, "foo")))))
	require.Equal(t, int16(88), r.stableCode("group"), "pending")
	assert.Eventually(t, func() bool { return r.stableCode("group") == 0 }, 5*time.Second, 5*time.Millisecond, "the timeout aborted the transaction and its offsets")
	_, rows = r.fetch("group", nil, -1, []int32{0})
	assert.Equal(t, []string{"foo-0=-1/0"}, rows)
	assert.Equal(t, int16(90), r.endTxn(quiet, true), "the timed-out producer is fenced: PRODUCER_FENCED")
}

// TestTransactionalRequestsToAnotherBrokerAreNotCoordinator proves the
// routing clients follow: FindCoordinator key type 1 names the broker that
// leads the id's __transaction_state partition, and InitProducerId, EndTxn
// and AddOffsetsToTxn sent anywhere else answer NOT_COORDINATOR, changing
// nothing.
func TestTransactionalRequestsToAnotherBrokerAreNotCoordinator(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	r := newRawCoordinators(t, cl)
	c0 := dial(t, cl.Addrs()[0])
	fc := kmsg.NewPtrFindCoordinatorRequest()
	fc.Version, fc.CoordinatorType, fc.CoordinatorKeys = 4, 1, []string{"routed"}
	found := roundTrip(t, c0, fc).(*kmsg.FindCoordinatorResponse).Coordinators[0]
	require.Zero(t, found.ErrorCode)
	other := dial(t, cl.Addrs()[(found.NodeID+1)%3])
	id := "routed"
	ip := kmsg.NewPtrInitProducerIDRequest()
	ip.Version, ip.TransactionalID, ip.TransactionTimeoutMillis, ip.ProducerID, ip.ProducerEpoch = 4, &id, 1000, -1, -1
	assert.Equal(t, int16(16), roundTrip(t, other, ip).(*kmsg.InitProducerIDResponse).ErrorCode)
	et := kmsg.NewPtrEndTxnRequest()
	et.Version, et.TransactionalID = 4, id
	assert.Equal(t, int16(16), roundTrip(t, other, et).(*kmsg.EndTxnResponse).ErrorCode)
	ao := kmsg.NewPtrAddOffsetsToTxnRequest()
	ao.Version, ao.TransactionalID, ao.Group = 3, id, "g"
	assert.Equal(t, int16(16), roundTrip(t, other, ao).(*kmsg.AddOffsetsToTxnResponse).ErrorCode)
	// The coordinator itself never heard of the id.
	dt := kmsg.NewPtrDescribeTransactionsRequest()
	dt.TransactionalIDs = []string{id}
	st := r.txnSender(id)(dt).(*kmsg.DescribeTransactionsResponse).TransactionStates[0]
	assert.Equal(t, int16(105), st.ErrorCode, "TRANSACTIONAL_ID_NOT_FOUND")
}

// txnBatch is a one-record v2 batch of producer pid at epoch, sequence
// seq, with the transactional attribute.
func txnBatch(pid int64, epoch int16, seq int32) []byte {
	rec := kmsg.Record{Value: []byte("v")}
	rec.Length = int32(len(rec.AppendTo(nil)) - 1)
	b := kmsg.RecordBatch{Magic: 2, Attributes: 0x10, ProducerID: pid, ProducerEpoch: epoch, FirstSequence: seq,
		NumRecords: 1, FirstTimestamp: 1, MaxTimestamp: 1, Records: rec.AppendTo(nil)}
	raw := b.AppendTo(nil)
	binary.BigEndian.PutUint32(raw[8:], uint32(len(raw)-12))
	binary.BigEndian.PutUint32(raw[17:], crc32.Checksum(raw[21:], crc32.MakeTable(crc32.Castagnoli)))
	return raw
}

// TestTransactionalProduceIsVerified proves Kafka 4.x's produce
// verification (KIP-890 part 1): a transactional batch for a partition not
// added to the producer's ongoing transaction is INVALID_TXN_STATE, one
// from a fenced epoch INVALID_PRODUCER_EPOCH, and neither is appended; once
// the partition is added, the batch is.
func TestTransactionalProduceIsVerified(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	ctx := testContext(t)
	createTopic(t, ctx, newAdmin(t, cl), "foo", 1)
	r := newRawCoordinators(t, cl)
	r.initTxn("verified")
	tx := r.initTxn("verified") // epoch 1: epoch 0 is now a fenced producer's
	require.Equal(t, int16(1), tx.epoch)
	leader := dial(t, cl.Addrs()[0]) // broker 0 leads foo-0
	produce := func(epoch int16, seq int32) (int16, int64) {
		req := kmsg.NewPtrProduceRequest()
		req.Version, req.Acks, req.TimeoutMillis, req.TransactionID = 9, -1, 5000, &tx.id
		rt := kmsg.NewProduceRequestTopic()
		rt.Topic = "foo"
		rp := kmsg.NewProduceRequestTopicPartition()
		rp.Partition, rp.Records = 0, txnBatch(tx.producerID, epoch, seq)
		rt.Partitions = []kmsg.ProduceRequestTopicPartition{rp}
		req.Topics = []kmsg.ProduceRequestTopic{rt}
		p := roundTrip(t, leader, req).(*kmsg.ProduceResponse).Topics[0].Partitions[0]
		return p.ErrorCode, p.BaseOffset
	}
	code, _ := produce(tx.epoch, 0)
	assert.Equal(t, int16(48), code, "not added: INVALID_TXN_STATE")

	send := r.txnSender(tx.id)
	ap := kmsg.NewPtrAddPartitionsToTxnRequest()
	ap.Version, ap.TransactionalID, ap.ProducerID, ap.ProducerEpoch = 3, tx.id, tx.producerID, tx.epoch
	ap.Topics = []kmsg.AddPartitionsToTxnRequestTopic{{Topic: "foo", Partitions: []int32{0}}}
	require.Zero(t, send(ap).(*kmsg.AddPartitionsToTxnResponse).Topics[0].Partitions[0].ErrorCode)
	code, base := produce(tx.epoch, 0)
	assert.Equal(t, int16(0), code)
	assert.Equal(t, int64(0), base, "nothing was appended before")
	code, _ = produce(tx.epoch-1, 0)
	assert.Equal(t, int16(47), code, "an older epoch: INVALID_PRODUCER_EPOCH")
}

// TestInvalidGroupInTransactionDoesNotWedgeIt proves that a transaction
// whose AddOffsetsToTxn named a group id the group coordinator refuses for
// good (one over its length limit, which Kafka's AddOffsetsToTxn does not
// check) still completes: its markers skip that group instead of retrying
// for ever, so the next InitProducerId succeeds.
func TestInvalidGroupInTransactionDoesNotWedgeIt(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	r := newRawCoordinators(t, cl)
	tx := r.initTxn("bad-group")
	require.Zero(t, r.addOffsets(tx, strings.Repeat("g", shard.GroupIDMaxBytes+1)))
	require.Zero(t, r.endTxn(tx, true))
	next := r.initTxn("bad-group") // retried while CONCURRENT_TRANSACTIONS; fails the test if wedged
	assert.Equal(t, tx.epoch+1, next.epoch)
}
