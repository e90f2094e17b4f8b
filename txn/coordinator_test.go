package txn

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/kerr"
)

// Ported from Kafka's TransactionCoordinatorTest and TransactionMetadataTest
// (transaction.version 0/1 paths): each test is named after the case it
// reproduces.

const tid = "known"

var tp1 = TopicPartition{Topic: "topic1", Partition: 0}

func newTestCoordinator(t *testing.T) *Coordinator {
	t.Helper()
	var next int64
	c, err := NewCoordinator(DefaultConfig(), func() int64 { next++; return next - 1 }, coordinator.PartitionFor)
	require.NoError(t, err)
	return c
}

func initPid(t *testing.T, c *Coordinator, now int64) InitProducerIDResponse {
	t.Helper()
	resp, mk, err := c.InitProducerID(now, InitProducerIDRequest{TransactionalID: tid, TimeoutMs: 1000,
		ExpectedProducerID: NoProducerID, ExpectedProducerEpoch: NoProducerEpoch})
	require.NoError(t, err)
	require.NoError(t, resp.Err)
	require.Nil(t, mk)
	return resp
}

// setState forces tid's metadata, as the Kafka tests mock the state manager.
func setState(c *Coordinator, m Metadata) {
	c.apply(c.PartitionFor(m.TransactionalID), []Record{record(m)})
}

func TestShouldReturnInvalidRequestWhenTransactionalIdIsEmpty(t *testing.T) {
	c := newTestCoordinator(t)
	_, _, err := c.InitProducerID(0, InitProducerIDRequest{TransactionalID: "", TimeoutMs: 1000, ExpectedProducerID: -1, ExpectedProducerEpoch: -1})
	assert.ErrorIs(t, err, kerr.InvalidRequest)
	assert.Empty(t, c.Log(0))
}

func TestShouldInitPidWithEpochZeroForNewTransactionalId(t *testing.T) {
	c := newTestCoordinator(t)
	resp := initPid(t, c, 0)
	assert.Equal(t, InitProducerIDResponse{ProducerID: 0, ProducerEpoch: 0}, resp)
	m, ok := c.Current(tid)
	require.True(t, ok)
	assert.Equal(t, Empty, m.State)
}

func TestShouldGenerateNewProducerIdIfNoStateAndProducerIdAndEpochProvided(t *testing.T) {
	c := newTestCoordinator(t)
	resp, _, err := c.InitProducerID(0, InitProducerIDRequest{TransactionalID: tid, TimeoutMs: 1000, ExpectedProducerID: 10, ExpectedProducerEpoch: 1})
	require.NoError(t, err)
	assert.Equal(t, InitProducerIDResponse{ProducerID: 0, ProducerEpoch: 0}, resp)
}

func TestShouldGenerateNewProducerIdIfEpochsExhausted(t *testing.T) {
	c := newTestCoordinator(t)
	c.newProducerID = func() int64 { return 11 }
	setState(c, Metadata{TransactionalID: tid, ProducerID: 10, PrevProducerID: -1, ProducerEpoch: math.MaxInt16 - 1,
		LastProducerEpoch: math.MaxInt16 - 2, TimeoutMs: 1000, State: Empty, TxnStartTimestampMs: -1})
	resp := initPid(t, c, 0)
	assert.Equal(t, InitProducerIDResponse{ProducerID: 11, ProducerEpoch: 0}, resp)
	m, _ := c.Current(tid)
	assert.Equal(t, int64(10), m.PrevProducerID)
}

func TestShouldRespondWithInvalidTransactionTimeout(t *testing.T) {
	// TransactionStateManager.validateTransactionTimeoutMs: 0 < timeout <= transaction.max.timeout.ms.
	c := newTestCoordinator(t)
	for _, ms := range []int32{0, -1, DefaultMaxTimeoutMs + 1} {
		_, _, err := c.InitProducerID(0, InitProducerIDRequest{TransactionalID: tid, TimeoutMs: ms, ExpectedProducerID: -1, ExpectedProducerEpoch: -1})
		assert.ErrorIs(t, err, kerr.InvalidTransactionTimeout, "timeout %d", ms)
	}
	_, _, err := c.InitProducerID(0, InitProducerIDRequest{TransactionalID: tid, TimeoutMs: DefaultMaxTimeoutMs, ExpectedProducerID: -1, ExpectedProducerEpoch: -1})
	assert.NoError(t, err)
}

func TestShouldRespondWithInvalidPidMappingOnAddPartitionsToTransactionWhenTransactionalIdNotPresent(t *testing.T) {
	c := newTestCoordinator(t)
	assert.ErrorIs(t, c.AddPartitions(0, tid, 0, 1, []TopicPartition{tp1}, TV0), kerr.InvalidProducerIDMapping)
}

func TestShouldRespondWithInvalidRequestAddPartitionsToTransactionWhenTransactionalIdIsEmpty(t *testing.T) {
	c := newTestCoordinator(t)
	assert.ErrorIs(t, c.AddPartitions(0, "", 0, 1, []TopicPartition{tp1}, TV0), kerr.InvalidRequest)
}

func TestShouldRespondWithInvalidPidMappingOnAddPartitionsWhenTransactionalIdHasDifferentPid(t *testing.T) {
	c := newTestCoordinator(t)
	initPid(t, c, 0)
	assert.ErrorIs(t, c.AddPartitions(0, tid, 99, 0, []TopicPartition{tp1}, TV0), kerr.InvalidProducerIDMapping)
}

func TestShouldRespondWithProducerFencedOnAddPartitionsWhenEpochsAreDifferent(t *testing.T) {
	c := newTestCoordinator(t)
	resp := initPid(t, c, 0)
	assert.ErrorIs(t, c.AddPartitions(0, tid, resp.ProducerID, resp.ProducerEpoch+1, []TopicPartition{tp1}, TV0), kerr.ProducerFenced)
}

func TestShouldRespondWithConcurrentTransactionOnAddPartitionsWhenStateIsPrepareCommitOrAbort(t *testing.T) {
	for _, st := range []State{PrepareCommit, PrepareAbort} {
		c := newTestCoordinator(t)
		setState(c, Metadata{TransactionalID: tid, ProducerID: 0, PrevProducerID: -1, ProducerEpoch: 0, LastProducerEpoch: -1,
			TimeoutMs: 1000, State: st, Partitions: []TopicPartition{tp1}})
		assert.ErrorIs(t, c.AddPartitions(0, tid, 0, 0, []TopicPartition{tp1}, TV0), kerr.ConcurrentTransactions, st.String())
	}
}

func TestShouldRespondWithSuccessOnAddPartitionsWhenStateIsOngoing(t *testing.T) {
	// The second add of the same partition writes nothing.
	c := newTestCoordinator(t)
	resp := initPid(t, c, 0)
	require.NoError(t, c.AddPartitions(5, tid, resp.ProducerID, resp.ProducerEpoch, []TopicPartition{tp1}, TV0))
	n := len(c.Log(c.PartitionFor(tid)))
	require.NoError(t, c.AddPartitions(9, tid, resp.ProducerID, resp.ProducerEpoch, []TopicPartition{tp1}, TV0))
	assert.Len(t, c.Log(c.PartitionFor(tid)), n)
	m, _ := c.Current(tid)
	assert.Equal(t, Ongoing, m.State)
	assert.Equal(t, int64(5), m.TxnStartTimestampMs)
	assert.Equal(t, []TopicPartition{tp1}, m.Partitions)
}

func TestShouldReturnOkOnEndTxnWhenStatusIsCompleteCommitAndResultIsCommit(t *testing.T) {
	c := newTestCoordinator(t)
	setState(c, Metadata{TransactionalID: tid, ProducerID: 0, ProducerEpoch: 1, TimeoutMs: 1000, State: CompleteCommit})
	mk, _, err := c.EndTxn(0, tid, 0, 1, true, TV0)
	assert.NoError(t, err)
	assert.Nil(t, mk)
}

func TestShouldReturnInvalidTxnRequestOnEndTxnRequestWhenStatusIsCompleteCommitAndResultIsNotCommit(t *testing.T) {
	c := newTestCoordinator(t)
	setState(c, Metadata{TransactionalID: tid, ProducerID: 0, ProducerEpoch: 1, TimeoutMs: 1000, State: CompleteCommit})
	_, _, err := c.EndTxn(0, tid, 0, 1, false, TV0)
	assert.ErrorIs(t, err, kerr.InvalidTxnState)
}

func TestShouldReturnOkOnEndTxnWhenStatusIsCompleteAbortAndResultIsAbort(t *testing.T) {
	c := newTestCoordinator(t)
	setState(c, Metadata{TransactionalID: tid, ProducerID: 0, ProducerEpoch: 1, TimeoutMs: 1000, State: CompleteAbort})
	_, _, err := c.EndTxn(0, tid, 0, 1, false, TV0)
	assert.NoError(t, err)
	_, _, err = c.EndTxn(0, tid, 0, 1, true, TV0)
	assert.ErrorIs(t, err, kerr.InvalidTxnState)
}

func TestShouldReturnConcurrentTxnRequestOnEndTxnRequestWhenStatusIsPrepareCommit(t *testing.T) {
	c := newTestCoordinator(t)
	setState(c, Metadata{TransactionalID: tid, ProducerID: 0, ProducerEpoch: 1, TimeoutMs: 1000, State: PrepareCommit})
	_, _, err := c.EndTxn(0, tid, 0, 1, true, TV0)
	assert.ErrorIs(t, err, kerr.ConcurrentTransactions)
	_, _, err = c.EndTxn(0, tid, 0, 1, false, TV0)
	assert.ErrorIs(t, err, kerr.InvalidTxnState, "ShouldReturnInvalidTxnRequestOnEndTxnRequestWhenStatusIsPrepareCommit and the result is abort")
}

func TestShouldReturnInvalidTxnRequestOnEndTxnRequestWhenStatusIsEmpty(t *testing.T) {
	c := newTestCoordinator(t)
	resp := initPid(t, c, 0)
	_, _, err := c.EndTxn(0, tid, resp.ProducerID, resp.ProducerEpoch, true, TV0)
	assert.ErrorIs(t, err, kerr.InvalidTxnState)
}

func TestShouldReturnInvalidEpochOnEndTxnWhenEpochIsLarger(t *testing.T) {
	c := newTestCoordinator(t)
	resp := initPid(t, c, 0)
	_, _, err := c.EndTxn(0, tid, resp.ProducerID, resp.ProducerEpoch+1, true, TV0)
	assert.ErrorIs(t, err, kerr.ProducerFenced)
	_, _, err = c.EndTxn(0, tid, resp.ProducerID+1, resp.ProducerEpoch, true, TV0)
	assert.ErrorIs(t, err, kerr.InvalidProducerIDMapping)
}

func TestShouldAppendPrepareCommitToLogOnEndTxnWhenStatusIsOngoingAndResultIsCommit(t *testing.T) {
	c := newTestCoordinator(t)
	resp := initPid(t, c, 0)
	require.NoError(t, c.AddPartitions(1, tid, resp.ProducerID, resp.ProducerEpoch, []TopicPartition{tp1}, TV0))
	require.NoError(t, c.AddOffsets(2, tid, resp.ProducerID, resp.ProducerEpoch, "g", 50, TV0))
	mk, _, err := c.EndTxn(3, tid, resp.ProducerID, resp.ProducerEpoch, true, TV0)
	require.NoError(t, err)
	require.NotNil(t, mk)
	assert.Equal(t, &Markers{TransactionalID: tid, ProducerID: resp.ProducerID, ProducerEpoch: resp.ProducerEpoch,
		Commit: true, Partitions: []TopicPartition{tp1}, Groups: []string{"g"}}, mk)
	m, _ := c.Current(tid)
	assert.Equal(t, PrepareCommit, m.State)
	// The markers are written: CompleteCommit, partitions cleared.
	st, err := c.CompleteTransaction(4, mk)
	require.NoError(t, err)
	assert.Equal(t, CompleteCommit, st)
	m, _ = c.Current(tid)
	assert.Empty(t, m.Partitions)
	assert.Empty(t, m.Groups)
}

func TestShouldRespondWithConcurrentTransactionsOnInitPidWhenInPrepareCommitState(t *testing.T) {
	for _, st := range []State{PrepareCommit, PrepareAbort} {
		c := newTestCoordinator(t)
		setState(c, Metadata{TransactionalID: tid, ProducerID: 0, ProducerEpoch: 1, TimeoutMs: 1000, State: st})
		_, _, err := c.InitProducerID(0, InitProducerIDRequest{TransactionalID: tid, TimeoutMs: 1000, ExpectedProducerID: -1, ExpectedProducerEpoch: -1})
		assert.ErrorIs(t, err, kerr.ConcurrentTransactions, st.String())
	}
}

func TestShouldAbortTransactionOnHandleInitPidWhenExistingTransactionInOngoingState(t *testing.T) {
	c := newTestCoordinator(t)
	first := initPid(t, c, 0)
	require.NoError(t, c.AddPartitions(1, tid, first.ProducerID, first.ProducerEpoch, []TopicPartition{tp1}, TV0))
	// A new producer with the same id: the ongoing transaction is fenced and
	// aborted, and the caller told to retry.
	resp, mk, err := c.InitProducerID(2, InitProducerIDRequest{TransactionalID: tid, TimeoutMs: 1000, ExpectedProducerID: -1, ExpectedProducerEpoch: -1})
	require.NoError(t, err)
	assert.ErrorIs(t, resp.Err, kerr.ConcurrentTransactions)
	require.NotNil(t, mk)
	assert.False(t, mk.Commit)
	assert.Equal(t, first.ProducerEpoch+1, mk.ProducerEpoch, "the abort is written at the fenced epoch")
	// The old producer is fenced at once.
	_, _, err = c.EndTxn(3, tid, first.ProducerID, first.ProducerEpoch, true, TV0)
	assert.ErrorIs(t, err, kerr.ProducerFenced)
	// While the markers are in flight the retry is told to wait.
	_, _, err = c.InitProducerID(3, InitProducerIDRequest{TransactionalID: tid, TimeoutMs: 1000, ExpectedProducerID: -1, ExpectedProducerEpoch: -1})
	assert.ErrorIs(t, err, kerr.ConcurrentTransactions)
	_, err = c.CompleteTransaction(4, mk)
	require.NoError(t, err)
	resp = initPid(t, c, 5)
	assert.Equal(t, InitProducerIDResponse{ProducerID: first.ProducerID, ProducerEpoch: first.ProducerEpoch + 2}, resp)
}

func TestShouldFenceProducerWithStaleExpectedEpoch(t *testing.T) {
	// KIP-360: a producer that names an epoch that is neither the current
	// nor the last one is fenced; a retry of the last bump is answered again.
	c := newTestCoordinator(t)
	first := initPid(t, c, 0)
	second := initPid(t, c, 1)
	bump := func(epoch int16) (InitProducerIDResponse, error) {
		resp, _, err := c.InitProducerID(2, InitProducerIDRequest{TransactionalID: tid, TimeoutMs: 1000,
			ExpectedProducerID: first.ProducerID, ExpectedProducerEpoch: epoch})
		return resp, err
	}
	third, err := bump(second.ProducerEpoch)
	require.NoError(t, err)
	assert.Equal(t, second.ProducerEpoch+1, third.ProducerEpoch)
	retry, err := bump(second.ProducerEpoch)
	require.NoError(t, err)
	assert.Equal(t, third, retry, "a retried bump gets the same epoch")
	_, err = bump(first.ProducerEpoch)
	assert.ErrorIs(t, err, kerr.ProducerFenced)
	_, _, err = c.InitProducerID(2, InitProducerIDRequest{TransactionalID: tid, TimeoutMs: 1000, ExpectedProducerID: 77, ExpectedProducerEpoch: third.ProducerEpoch})
	assert.ErrorIs(t, err, kerr.ProducerFenced, "another producer id, even at the current epoch")
}

func TestShouldAbortExpiredTransactionsInOngoingStateAndBumpEpoch(t *testing.T) {
	c := newTestCoordinator(t)
	resp := initPid(t, c, 0)
	require.NoError(t, c.AddPartitions(100, tid, resp.ProducerID, resp.ProducerEpoch, []TopicPartition{tp1}, TV0))
	assert.Empty(t, c.AbortTimedOut(1100), "not past the timeout yet")
	mks := c.AbortTimedOut(1101)
	require.Len(t, mks, 1)
	assert.Equal(t, &Markers{TransactionalID: tid, ProducerID: resp.ProducerID, ProducerEpoch: resp.ProducerEpoch + 1,
		Partitions: []TopicPartition{tp1}}, mks[0])
	m, _ := c.Current(tid)
	assert.Equal(t, PrepareAbort, m.State)
	assert.Empty(t, c.AbortTimedOut(5000), "a transaction already aborting is not aborted twice")
	// While the markers are written, any add is CONCURRENT_TRANSACTIONS
	// (Kafka's pending transition is checked first); then the timed-out
	// producer is fenced.
	assert.ErrorIs(t, c.AddPartitions(5000, tid, resp.ProducerID, resp.ProducerEpoch, []TopicPartition{tp1}, TV0), kerr.ConcurrentTransactions)
	_, err := c.CompleteTransaction(5001, mks[0])
	require.NoError(t, err)
	assert.ErrorIs(t, c.AddPartitions(5002, tid, resp.ProducerID, resp.ProducerEpoch, []TopicPartition{tp1}, TV0), kerr.ProducerFenced)
}

func TestFenceProducerNotAllowedIfItWouldOverflow(t *testing.T) {
	// TransactionMetadataTest.testFenceProducerNotAllowedIfItWouldOverflow.
	_, err := prepareFence(Metadata{ProducerEpoch: math.MaxInt16})
	assert.ErrorIs(t, err, kerr.InvalidProducerEpoch)
}

func TestVerifyPartitionsAnswersInvalidTxnStateForPartitionsNotAdded(t *testing.T) {
	c := newTestCoordinator(t)
	resp := initPid(t, c, 0)
	require.NoError(t, c.AddPartitions(1, tid, resp.ProducerID, resp.ProducerEpoch, []TopicPartition{tp1}, TV0))
	errs, err := c.VerifyPartitions(tid, resp.ProducerID, resp.ProducerEpoch, []TopicPartition{tp1, {Topic: "other", Partition: 0}})
	require.NoError(t, err)
	assert.NoError(t, errs[0])
	assert.ErrorIs(t, errs[1], kerr.InvalidTxnState)
}

func TestListTransactionsFilters(t *testing.T) {
	// TransactionStateManagerTest.testListTransactionsFiltering, in short.
	c := newTestCoordinator(t)
	for i, id := range []string{"a", "b", "c"} {
		_, _, err := c.InitProducerID(0, InitProducerIDRequest{TransactionalID: id, TimeoutMs: 1000, ExpectedProducerID: -1, ExpectedProducerEpoch: -1})
		require.NoError(t, err)
		if i > 0 {
			m, _ := c.Current(id)
			require.NoError(t, c.AddPartitions(int64(i*10), id, m.ProducerID, m.ProducerEpoch, []TopicPartition{tp1}, TV0))
		}
	}
	ids := func(ls []Listed) (out []string) {
		for _, l := range ls {
			out = append(out, l.TransactionalID)
		}
		return out
	}
	assert.ElementsMatch(t, []string{"a", "b", "c"}, ids(c.List(100, ListFilter{DurationMs: -1})))
	assert.ElementsMatch(t, []string{"b", "c"}, ids(c.List(100, ListFilter{DurationMs: -1, States: []State{Ongoing}, ByState: true})))
	assert.ElementsMatch(t, []string{"a", "b"}, ids(c.List(100, ListFilter{DurationMs: 85})), "c started at 20, 80 ms ago")
	assert.Empty(t, c.List(100, ListFilter{DurationMs: -1, ByState: true}), "only unknown state names: nothing")
	m, _ := c.Current("c")
	assert.Equal(t, []string{"c"}, ids(c.List(100, ListFilter{DurationMs: -1, ProducerIDs: []int64{m.ProducerID}})))
}

func TestRemoveExpiredTransactionalIds(t *testing.T) {
	// TransactionStateManagerTest.shouldRemoveCompleteCommitExpiredTransactionalIds
	// and ...ShouldNotRemoveOngoingTransactionalIds, in short: only an id
	// with no transaction in progress and transactional.id.expiration.ms
	// of quiet is removed, with a tombstone, and comes back as a new
	// producer id.
	c := newTestCoordinator(t)
	exp := c.cfg.IDExpirationMs
	first := initPid(t, c, 0)
	_, _, err := c.InitProducerID(0, InitProducerIDRequest{TransactionalID: "busy", TimeoutMs: DefaultMaxTimeoutMs, ExpectedProducerID: -1, ExpectedProducerEpoch: -1})
	require.NoError(t, err)
	busy, _ := c.Current("busy")
	require.NoError(t, c.AddPartitions(0, "busy", busy.ProducerID, busy.ProducerEpoch, []TopicPartition{tp1}, TV0))
	assert.Empty(t, c.RemoveExpired(exp-1), "not quiet long enough")
	assert.Equal(t, []string{tid}, c.RemoveExpired(exp), "the ongoing transaction's id stays")
	_, ok := c.Current(tid)
	assert.False(t, ok)
	last := c.Log(c.PartitionFor(tid))
	assert.Nil(t, last[len(last)-1].Value, "a tombstone")
	again := initPid(t, c, exp+1)
	assert.NotEqual(t, first.ProducerID, again.ProducerID)
	assert.Equal(t, int16(0), again.ProducerEpoch)
}
