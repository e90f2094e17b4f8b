package wire

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/coordinator/live"
	"github.com/coordsim/coordsim/internal/loop"
	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/shard"
	"github.com/coordsim/coordsim/txn"
	"github.com/coordsim/coordsim/txn/txnlive"
)

// The endpoint's transaction coordinator: one txn.Coordinator for every
// __transaction_state partition, run by a txnlive driver, whose partitions
// are led by broker p mod Brokers (they never move). A transactional
// request that reaches another broker is NOT_COORDINATOR, as Kafka answers
// it, so clients follow FindCoordinator. Its markers go to the data plane
// (control batches) and to the group coordinators (the pending
// transactional offsets), through markerWriter.

// startTransactions builds and starts the transaction coordinator. Producer
// ids come from the endpoint's one allocator, shared with idempotent
// producers.
func (cl *Cluster) startTransactions() error {
	c, err := txn.NewCoordinator(cl.cfg.Transactions, cl.producerIDs.generateProducerID, coordinator.PartitionFor)
	if err != nil {
		return fmt.Errorf("wire: %w", err)
	}
	d, err := txnlive.New(c, markerWriter{cl}, nil, cl.log)
	if err != nil {
		return fmt.Errorf("wire: %w", err)
	}
	if err := d.Start(cl.ctx); err != nil {
		return fmt.Errorf("wire: %w", err)
	}
	cl.txn = d
	return nil
}

// txnNode is the broker that leads the __transaction_state partition of a
// transactional id.
func (cl *Cluster) txnNode(id string) int32 {
	return cl.txn.PartitionFor(id) % int32(len(cl.brokers))
}

// notTxnCoordinator reports whether this broker is not the transaction
// coordinator of id.
func (r *request) notTxnCoordinator(id string) bool { return r.cl.txnNode(id) != r.b.node }

// txnErrCode is errCode for the transaction driver: a stopped loop or an
// abandoned call is COORDINATOR_NOT_AVAILABLE.
func txnErrCode(err error) (int16, *string) {
	if errors.Is(err, loop.ErrStopped) || errors.Is(err, loop.ErrNotStarted) {
		return kerr.CoordinatorNotAvailable.Code, nil
	}
	return errCode(err)
}

// fencedForVersion is KIP-588's compatibility rule: a client older than
// the version that introduced PRODUCER_FENCED gets INVALID_PRODUCER_EPOCH.
func fencedForVersion(code int16, version, fencedSince int16) int16 {
	if code == kerr.ProducerFenced.Code && version < fencedSince {
		return kerr.InvalidProducerEpoch.Code
	}
	return code
}

// markerWriter writes a completing transaction's markers for txnlive.
type markerWriter struct{ cl *Cluster }

// WriteMarkers appends a control batch to every data partition of the
// transaction, then completes the pending transactional offsets of every
// group through the broker that leads its __consumer_offsets partition now.
// A retry after a failed group write appends the data markers again; a
// second marker for a closed transaction changes nothing a reader sees.
// Retriable errors (a moving or loading partition) fail the attempt, so
// the driver retries; a group refused for good is skipped.
func (w markerWriter) WriteMarkers(ctx context.Context, mk txn.Markers) error {
	cl := w.cl
	for _, p := range mk.Partitions {
		cl.data.writeMarker(p.Topic, p.Partition, mk.ProducerID, mk.ProducerEpoch, mk.Commit)
	}
	for _, g := range mk.Groups {
		node, err := cl.CoordinatorFor(coordinator.PartitionFor(g, cl.cfg.Coordinator.NumPartitions))
		if err != nil {
			return err
		}
		_, err = live.Call(ctx, cl.brokers[node].driver, func(c *coordinator.Coordinator) *coordinator.Future[struct{}] {
			return c.EndTransaction(g, mk.ProducerID, mk.Commit)
		})
		if ke := kerr.As(err); ke != nil && !ke.Retriable {
			// A group the coordinator refuses for good (an over-long or
			// non-UTF-8 group id, which AddOffsetsToTxn does not check, as
			// Kafka's does not) holds no pending
			// offsets: retrying would wedge the transaction in its
			// Prepare state for ever. Kafka's marker channel likewise
			// gives up on a non-retriable error.
			cl.log.Warn("skipping a group's transaction marker", "group", g, "transactional_id", mk.TransactionalID, "err", err)
			continue
		}
		if err != nil {
			return fmt.Errorf("wire: completing the offsets of group %s: %w", g, err)
		}
	}
	return nil
}

// txnOffsetCommitErr checks a TxnOffsetCommit against its transaction, as
// Kafka's log does for the __consumer_offsets append (the producer's epoch:
// INVALID_PRODUCER_EPOCH) and KIP-890's verification does (the group's
// partition is in the ongoing transaction: INVALID_TXN_STATE); an unknown
// transactional id or another producer id is INVALID_PRODUCER_ID_MAPPING.
// From v5 (transaction.version 2) the group's partition is first added to
// the transaction, as AddOffsetsToTxn would have
// (txnOffsetCommitRequestVersionToTransactionSupportedOperation:
// ADD_PARTITION). nil when the offsets may be written.
//
// An invalid group id is left to the group coordinator, which refuses it
// first (GroupCoordinatorService.commitTransactionalOffsets checks it
// before it verifies the transaction).
func (r *request) txnOffsetCommitErr(id string, producerID int64, epoch int16, group string, version int16) error {
	if shard.ValidateGroupID(group) != nil {
		return nil
	}
	if version >= txnOffsetCommitAddPartitionVersion {
		err := r.addRetrying(func() error {
			return r.cl.txn.AddOffsets(r.ctx, id, producerID, epoch, group, r.cl.cfg.Coordinator.NumPartitions, txn.TV2)
		})
		switch {
		case errors.Is(err, kerr.ProducerFenced):
			return kerr.InvalidProducerEpoch
		case err != nil:
			if code, _ := txnErrCode(err); code == kerr.CoordinatorNotAvailable.Code {
				return kerr.CoordinatorNotAvailable
			}
			return err
		}
	}
	ms, oks, err := r.cl.txn.Current(r.ctx, []string{id})
	if err != nil {
		return kerr.CoordinatorNotAvailable
	}
	m := ms[0]
	switch {
	case !oks[0] || m.ProducerID != producerID:
		return kerr.InvalidProducerIDMapping
	case epoch < m.ProducerEpoch:
		return kerr.InvalidProducerEpoch
	case epoch > m.ProducerEpoch, m.State != txn.Ongoing,
		!m.Contains(txn.TopicPartition{Topic: txn.ConsumerOffsetsTopic, Partition: coordinator.PartitionFor(group, r.cl.cfg.Coordinator.NumPartitions)}):
		return kerr.InvalidTxnState
	}
	return nil
}

// Where a transactional request adds its partition to the transaction
// (KIP-890 part 2, transaction.version 2): Produce v12+ and TxnOffsetCommit
// v5+ (AddPartitionsToTxnManager's ADD_PARTITION operation). Below them
// a produce is only verified.
const (
	produceAddPartitionVersion         = 12
	txnOffsetCommitAddPartitionVersion = 5
)

// The broker's retry of an implicit add answered CONCURRENT_TRANSACTIONS
// (ReplicaManager.maybeRetryOnConcurrentTransactions): the previous
// transaction's markers are usually being written right after a TV2
// EndTxn, so the broker waits a little rather than fail the produce.
// Kafka's add.partitions.to.txn.retry.backoff.ms and
// add.partitions.to.txn.retry.backoff.max.ms.
const (
	addPartitionsRetryBackoff    = 20 * time.Millisecond
	addPartitionsRetryBackoffMax = 100 * time.Millisecond
)

// addRetrying runs add, again after addPartitionsRetryBackoff while it
// answers CONCURRENT_TRANSACTIONS, for up to addPartitionsRetryBackoffMax;
// then the last answer stands.
func (r *request) addRetrying(add func() error) error {
	deadline := time.Now().Add(addPartitionsRetryBackoffMax)
	for {
		err := add()
		if !errors.Is(err, kerr.ConcurrentTransactions) || !time.Now().Add(addPartitionsRetryBackoff).Before(deadline) {
			return err
		}
		select {
		case <-r.ctx.Done():
			return err
		case <-time.After(addPartitionsRetryBackoff):
		}
	}
}

// txnProduceCode checks a transactional batch of producerID at epoch for
// one partition against its transaction: 0 when it may be appended. Below
// Produce v12 the partition must already be in the ongoing transaction
// (KIP-890 part 1's verification, as Kafka 4.x verifies every
// transactional produce); from v12 the produce adds it (txnProduceAddCode).
// A fenced producer gets INVALID_PRODUCER_EPOCH, any other failure of the
// verification INVALID_TXN_STATE.
func (r *request) txnProduceCode(id *string, producerID int64, epoch int16, topic string, partition int32, version int16) (int16, string) {
	if id == nil {
		return kerr.InvalidTxnState.Code, "a transactional batch needs the request's transactional id"
	}
	if version >= produceAddPartitionVersion {
		return r.txnProduceAddCode(*id, producerID, epoch, topic, partition)
	}
	errs, err := r.cl.txn.VerifyPartitions(r.ctx, *id, producerID, epoch, []txn.TopicPartition{{Topic: topic, Partition: partition}})
	switch {
	case errors.Is(err, kerr.ProducerFenced):
		return kerr.InvalidProducerEpoch.Code, ""
	case err != nil:
		code, _ := txnErrCode(err)
		if code == kerr.CoordinatorNotAvailable.Code {
			return code, ""
		}
		return kerr.InvalidTxnState.Code, ""
	case errs[0] != nil:
		return kerr.InvalidTxnState.Code, fmt.Sprintf("partition %s-%d is not in transaction %s", topic, partition, *id)
	}
	return 0, ""
}

// txnProduceAddCode adds a TV2 produce's partition to its transaction,
// starting the transaction if none is ongoing, as the broker does through
// AddPartitionsToTxn v4+ (not VerifyOnly), and maps the coordinator's
// answer as ReplicaManager and AddPartitionsToTxnManager do:
// PRODUCER_FENCED is INVALID_PRODUCER_EPOCH, INVALID_TXN_STATE says the
// partition was not added, an unavailable coordinator is
// NOT_ENOUGH_REPLICAS (which clients retry without a metadata refresh),
// and CONCURRENT_TRANSACTIONS, after the broker's own retries, stands. A
// partition that already holds the producer's open transaction at this
// epoch asks nothing, as UnifiedLog.maybeStartTransactionVerification
// skips it: only a transaction's first batch on a partition costs a call.
func (r *request) txnProduceAddCode(id string, producerID int64, epoch int16, topic string, partition int32) (int16, string) {
	if r.cl.data.hasOngoingTransaction(topic, partition, producerID, epoch) {
		return 0, ""
	}
	err := r.addRetrying(func() error {
		return r.cl.txn.AddPartitions(r.ctx, id, producerID, epoch, []txn.TopicPartition{{Topic: topic, Partition: partition}}, txn.TV2)
	})
	code, _ := txnErrCode(err)
	switch code {
	case 0:
		return 0, ""
	case kerr.ProducerFenced.Code:
		return kerr.InvalidProducerEpoch.Code, ""
	case kerr.InvalidTxnState.Code:
		return code, "Partition was not added to the transaction"
	}
	for _, unavailable := range []*kerr.Error{kerr.CoordinatorNotAvailable, kerr.NotCoordinator, kerr.CoordinatorLoadInProgress} {
		if code == unavailable.Code {
			return kerr.NotEnoughReplicas.Code, "Unable to verify the partition has been added to the transaction. Underlying error: " + unavailable.Name
		}
	}
	return code, ""
}

// errNotCoordinator is NOT_COORDINATOR's code.
var errNotCoordinator = kerr.NotCoordinator.Code
