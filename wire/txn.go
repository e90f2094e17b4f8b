package wire

import (
	"context"
	"errors"
	"fmt"

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
// nil when the offsets may be written.
//
// An invalid group id is left to the group coordinator, which refuses it
// first (GroupCoordinatorService.commitTransactionalOffsets checks it
// before it verifies the transaction).
func (r *request) txnOffsetCommitErr(id string, producerID int64, epoch int16, group string) error {
	if shard.ValidateGroupID(group) != nil {
		return nil
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

// txnProduceCode verifies a transactional batch of producerID at epoch for
// one partition against its transaction (KIP-890 part 1, as Kafka 4.x
// verifies every transactional produce): 0 when the partition is in the
// ongoing transaction. A fenced producer gets INVALID_PRODUCER_EPOCH, any
// other failure INVALID_TXN_STATE.
func (r *request) txnProduceCode(id *string, producerID int64, epoch int16, topic string, partition int32) (int16, string) {
	if id == nil {
		return kerr.InvalidTxnState.Code, "a transactional batch needs the request's transactional id"
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

// errNotCoordinator is NOT_COORDINATOR's code.
var errNotCoordinator = kerr.NotCoordinator.Code
