package txn

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/kerr"
)

// Ported from Kafka's TransactionCoordinatorTest and TransactionMetadataTest
// (transaction.version 2 paths, KIP-890 part 2): each test is named after
// the case it reproduces. Kafka's tests mock a metadata whose Prepare state
// has no pending transition; here a Prepare state is always completing (its
// markers are being written), so it answers CONCURRENT_TRANSACTIONS, as
// Kafka's pending transition does, where those mocks answer otherwise.

// tv2State is tid's metadata at producer 10, epoch, in state.
func tv2State(epoch int16, state State) Metadata {
	return Metadata{TransactionalID: tid, ProducerID: 10, PrevProducerID: 10, NextProducerID: NoProducerID,
		ProducerEpoch: epoch, LastProducerEpoch: epoch - 1, TimeoutMs: 1000, State: state,
		TxnStartTimestampMs: 0, TxnLastUpdateTimestampMs: 0, ClientTransactionVersion: TV2}
}

func TestEpochBumpOnEndTxn(t *testing.T) {
	// TransactionMetadataTest.testEpochBumpOnEndTxn, and the markers carry
	// the bumped epoch.
	c := newTestCoordinator(t)
	resp := initPid(t, c, 0)
	require.NoError(t, c.AddPartitions(1, tid, resp.ProducerID, resp.ProducerEpoch, []TopicPartition{tp1}, TV2))
	mk, out, err := c.EndTxn(2, tid, resp.ProducerID, resp.ProducerEpoch, true, TV2)
	require.NoError(t, err)
	assert.Equal(t, EndTxnResponse{ProducerID: resp.ProducerID, ProducerEpoch: resp.ProducerEpoch + 1}, out)
	assert.Equal(t, &Markers{TransactionalID: tid, ProducerID: resp.ProducerID, ProducerEpoch: resp.ProducerEpoch + 1,
		Commit: true, Partitions: []TopicPartition{tp1}}, mk)
	m, _ := c.Current(tid)
	assert.Equal(t, PrepareCommit, m.State)
	assert.Equal(t, resp.ProducerEpoch+1, m.ProducerEpoch)
	assert.Equal(t, resp.ProducerEpoch, m.LastProducerEpoch)
	assert.Equal(t, TV2, m.ClientTransactionVersion)
	st, err := c.CompleteTransaction(3, mk)
	require.NoError(t, err)
	assert.Equal(t, CompleteCommit, st)
	m, _ = c.Current(tid)
	assert.Equal(t, resp.ProducerEpoch+1, m.ProducerEpoch, "the completion keeps the bumped epoch")
}

func TestEndTxnV1DoesNotBumpTheEpoch(t *testing.T) {
	// The TV0/1 half of shouldAppendPrepareCommitToLogOnEndTxnWhenStatusIsOngoingAndResultIsCommit.
	c := newTestCoordinator(t)
	resp := initPid(t, c, 0)
	require.NoError(t, c.AddPartitions(1, tid, resp.ProducerID, resp.ProducerEpoch, []TopicPartition{tp1}, TV0))
	mk, out, err := c.EndTxn(2, tid, resp.ProducerID, resp.ProducerEpoch, true, TV0)
	require.NoError(t, err)
	assert.Equal(t, noEndTxnResponse, out)
	assert.Equal(t, resp.ProducerEpoch, mk.ProducerEpoch)
}

func TestShouldGenerateNewProducerIdIfEpochsExhaustedV2(t *testing.T) {
	c := newTestCoordinator(t)
	setState(c, tv2State(math.MaxInt16-1, Ongoing))
	mk, out, err := c.EndTxn(0, tid, 10, math.MaxInt16-1, true, TV2)
	require.NoError(t, err)
	assert.Equal(t, EndTxnResponse{ProducerID: 0, ProducerEpoch: 0}, out, "the next id, from the allocator")
	assert.Equal(t, int16(math.MaxInt16), mk.ProducerEpoch, "the markers carry the last epoch of the old id")
	m, _ := c.Current(tid)
	assert.Equal(t, [3]int64{10, 0, math.MaxInt16}, [3]int64{m.ProducerID, m.NextProducerID, int64(m.ProducerEpoch)})
	_, err = c.CompleteTransaction(1, mk)
	require.NoError(t, err)
	m, _ = c.Current(tid)
	assert.Equal(t, [4]int64{0, 10, 0, NoProducerID}, [4]int64{m.ProducerID, m.PrevProducerID, int64(m.ProducerEpoch), m.NextProducerID})
}

func TestEndTxnWhenStatusIsCompleteCommitAndResultIsCommitInV2(t *testing.T) {
	for _, isRetry := range []bool{false, true} {
		c := newTestCoordinator(t)
		setState(c, tv2State(5, CompleteCommit))
		epoch := int16(5)
		if isRetry {
			epoch = 4
		}
		_, out, err := c.EndTxn(0, tid, 10, epoch, true, TV2)
		if isRetry {
			require.NoError(t, err)
			assert.Equal(t, EndTxnResponse{ProducerID: 10, ProducerEpoch: 5}, out, "the retry gets the bumped epoch again")
		} else {
			assert.ErrorIs(t, err, kerr.InvalidTxnState)
		}
	}
}

func TestShouldReturnOkOnEndTxnWhenStatusIsCompleteAbortAndResultIsAbortInV2(t *testing.T) {
	for _, isRetry := range []bool{false, true} {
		c := newTestCoordinator(t)
		setState(c, tv2State(5, CompleteAbort))
		epoch := int16(5)
		if isRetry {
			epoch = 4
		}
		before := len(c.Log(c.PartitionFor(tid)))
		mk, _, err := c.EndTxn(7, tid, 10, epoch, false, TV2)
		require.NoError(t, err)
		if isRetry {
			assert.Nil(t, mk)
			assert.Len(t, c.Log(c.PartitionFor(tid)), before, "a retry writes nothing")
			continue
		}
		m, _ := c.Current(tid)
		assert.Equal(t, PrepareAbort, m.State, "an abort with no partition")
		assert.Equal(t, int16(6), m.ProducerEpoch)
		assert.Equal(t, int64(7), m.TxnStartTimestampMs, "it starts now")
		assert.Empty(t, mk.Partitions)
	}
}

func TestEndTxnRequestWhenStatusIsCompleteCommitAndResultIsAbortInV2(t *testing.T) {
	for _, isRetry := range []bool{false, true} {
		c := newTestCoordinator(t)
		setState(c, tv2State(5, CompleteCommit))
		epoch := int16(5)
		if isRetry {
			epoch = 4
		}
		_, out, err := c.EndTxn(0, tid, 10, epoch, false, TV2)
		if isRetry {
			assert.ErrorIs(t, err, kerr.InvalidTxnState, "a retry of a commit cannot abort")
		} else {
			require.NoError(t, err, "an abort of the next, empty transaction")
			assert.Equal(t, int16(6), out.ProducerEpoch)
		}
	}
}

func TestShouldReturnInvalidTxnRequestOnEndTxnRequestWhenStatusIsCompleteAbortAndResultIsNotAbort(t *testing.T) {
	c := newTestCoordinator(t)
	setState(c, tv2State(5, CompleteAbort))
	_, _, err := c.EndTxn(0, tid, 10, 5, true, TV2)
	assert.ErrorIs(t, err, kerr.InvalidTxnState)
}

func TestShouldReturnInvalidTxnRequestOnEndTxnV2IfNotEndTxnV2Retry(t *testing.T) {
	c := newTestCoordinator(t)
	setState(c, tv2State(5, CompleteCommit))
	// The same epoch is not a retry but the next EndTxn, with nothing ongoing.
	_, _, err := c.EndTxn(0, tid, 10, 5, true, TV2)
	assert.ErrorIs(t, err, kerr.InvalidTxnState)
	// Completing: CONCURRENT_TRANSACTIONS (Kafka's mock, with no pending
	// transition, answers PRODUCER_FENCED).
	setState(c, tv2State(5, PrepareCommit))
	_, _, err = c.EndTxn(0, tid, 10, 5, true, TV2)
	assert.ErrorIs(t, err, kerr.ConcurrentTransactions)
}

func TestShouldReturnInvalidEpochOnEndTxnWhenEpochIsLargerV2(t *testing.T) {
	c := newTestCoordinator(t)
	setState(c, tv2State(5, Ongoing))
	_, _, err := c.EndTxn(0, tid, 10, 6, true, TV2)
	assert.ErrorIs(t, err, kerr.ProducerFenced)
	_, _, err = c.EndTxn(0, tid, 10, 4, true, TV2)
	assert.ErrorIs(t, err, kerr.ProducerFenced, "an older epoch is no retry while ongoing")
	_, _, err = c.EndTxn(0, tid, 11, 5, true, TV2)
	assert.ErrorIs(t, err, kerr.InvalidProducerIDMapping)
}

func TestShouldReturnOkOnEndTxnV2IfEndTxnV2RetryEpochOverflow(t *testing.T) {
	c := newTestCoordinator(t)
	prepared := tv2State(math.MaxInt16, PrepareCommit)
	prepared.NextProducerID, prepared.LastProducerEpoch = 20, math.MaxInt16-1
	setState(c, prepared)
	_, _, err := c.EndTxn(0, tid, 10, math.MaxInt16-1, true, TV2)
	assert.ErrorIs(t, err, kerr.ConcurrentTransactions, "still completing")
	_, err = c.CompleteTransaction(1, &Markers{TransactionalID: tid, ProducerID: 10, ProducerEpoch: math.MaxInt16})
	require.NoError(t, err)
	_, out, err := c.EndTxn(2, tid, 10, math.MaxInt16-1, true, TV2)
	require.NoError(t, err)
	assert.Equal(t, EndTxnResponse{ProducerID: 20, ProducerEpoch: 0}, out)
}

func TestShouldReturnConcurrentTxnOnAddPartitionsIfEndTxnV2EpochOverflowAndNotComplete(t *testing.T) {
	c := newTestCoordinator(t)
	prepared := tv2State(math.MaxInt16, PrepareCommit)
	prepared.NextProducerID = 20
	setState(c, prepared)
	assert.ErrorIs(t, c.AddPartitions(0, tid, 20, 0, []TopicPartition{tp1}, TV2), kerr.ConcurrentTransactions,
		"the producer already uses the next id")
	_, err := c.CompleteTransaction(1, &Markers{TransactionalID: tid, ProducerID: 10, ProducerEpoch: math.MaxInt16})
	require.NoError(t, err)
	require.NoError(t, c.AddPartitions(2, tid, 20, 0, []TopicPartition{tp1}, TV2))
}

func TestShouldNotCauseEpochOverflowWhenInitPidDuringOngoingTxnV2(t *testing.T) {
	c := newTestCoordinator(t)
	ongoing := tv2State(math.MaxInt16-1, Ongoing)
	ongoing.Partitions = []TopicPartition{tp1}
	setState(c, ongoing)
	resp, mk, err := c.InitProducerID(0, InitProducerIDRequest{TransactionalID: tid, TimeoutMs: 1000, ExpectedProducerID: NoProducerID, ExpectedProducerEpoch: NoProducerEpoch})
	require.NoError(t, err)
	assert.ErrorIs(t, resp.Err, kerr.ConcurrentTransactions)
	m, _ := c.Current(tid)
	assert.Equal(t, int16(math.MaxInt16), m.ProducerEpoch, "one bump, not two")
	assert.Equal(t, PrepareAbort, m.State)
	assert.Equal(t, int16(math.MaxInt16), mk.ProducerEpoch)
	// Once aborted, the retry rotates the producer id.
	_, err = c.CompleteTransaction(1, mk)
	require.NoError(t, err)
	resp, _, err = c.InitProducerID(2, InitProducerIDRequest{TransactionalID: tid, TimeoutMs: 1000, ExpectedProducerID: NoProducerID, ExpectedProducerEpoch: NoProducerEpoch})
	require.NoError(t, err)
	require.NoError(t, resp.Err)
	assert.Equal(t, InitProducerIDResponse{ProducerID: 0, ProducerEpoch: 0}, resp)
}

func TestShouldHandleTimeoutAtEpochOverflowBoundaryCorrectlyTV2(t *testing.T) {
	c := newTestCoordinator(t)
	ongoing := tv2State(math.MaxInt16-1, Ongoing)
	ongoing.Partitions, ongoing.LastProducerEpoch = []TopicPartition{tp1}, NoProducerEpoch
	setState(c, ongoing)
	mks := c.AbortTimedOut(1001)
	require.Len(t, mks, 1)
	assert.Equal(t, int16(math.MaxInt16), mks[0].ProducerEpoch, "a single bump to Short.MaxValue")
	m, _ := c.Current(tid)
	assert.Equal(t, int16(math.MaxInt16), m.ProducerEpoch)
	assert.Equal(t, int16(math.MaxInt16-1), m.LastProducerEpoch, "TV2's abort records the epoch it bumped")
}

func TestFenceAtTransactionVersion1KeepsTheFencedEpoch(t *testing.T) {
	// shouldAbortExpiredTransactionsInOngoingStateAndBumpEpoch with the
	// cluster at transaction.version 1: the fence bumps the epoch and
	// forgets the previous one.
	var next int64
	cfg := DefaultConfig()
	cfg.TransactionVersion = TV1
	c, err := NewCoordinator(cfg, func() int64 { next++; return next - 1 }, func(string, int32) int32 { return 0 })
	require.NoError(t, err)
	resp := initPid(t, c, 0)
	require.NoError(t, c.AddPartitions(100, tid, resp.ProducerID, resp.ProducerEpoch, []TopicPartition{tp1}, TV0))
	mks := c.AbortTimedOut(1101)
	require.Len(t, mks, 1)
	assert.Equal(t, resp.ProducerEpoch+1, mks[0].ProducerEpoch)
	m, _ := c.Current(tid)
	assert.Equal(t, NoProducerEpoch, m.LastProducerEpoch)
	assert.Equal(t, TV1, m.ClientTransactionVersion, "the coordinator's own abort runs at the cluster's level")
}

func TestConfigRefusesAnUnknownTransactionVersion(t *testing.T) {
	cfg := DefaultConfig()
	assert.Equal(t, TV2, cfg.TransactionVersion, "Kafka 4.x finalizes TV2")
	cfg.TransactionVersion = 3
	assert.Error(t, cfg.Validate())
}

func TestInitProducerIdWhileAnEndTxnV2RotationCompletes(t *testing.T) {
	// A producer that got the next id from a TV2 EndTxn and re-initialises
	// (KIP-360, naming that id) before the markers are written waits with
	// CONCURRENT_TRANSACTIONS, as Kafka's pending transition answers, rather
	// than being fenced for an id the coordinator has not moved to yet.
	c := newTestCoordinator(t)
	prepared := tv2State(math.MaxInt16, PrepareCommit)
	prepared.NextProducerID = 20
	setState(c, prepared)
	req := InitProducerIDRequest{TransactionalID: tid, TimeoutMs: 1000, ExpectedProducerID: 20, ExpectedProducerEpoch: 0}
	_, _, err := c.InitProducerID(0, req)
	assert.ErrorIs(t, err, kerr.ConcurrentTransactions)
	_, err = c.CompleteTransaction(1, &Markers{TransactionalID: tid, ProducerID: 10, ProducerEpoch: math.MaxInt16})
	require.NoError(t, err)
	resp, _, err := c.InitProducerID(2, req)
	require.NoError(t, err)
	assert.Equal(t, InitProducerIDResponse{ProducerID: 20, ProducerEpoch: 1}, resp)
}
