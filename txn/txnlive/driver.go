// Package txnlive runs a txn.Coordinator in real time: the transaction
// coordinator's counterpart of coordinator/live, on the same loop
// (internal/loop). The loop owns the coordinator; requests reach it through
// the driver's methods, the timed-out transaction sweep runs every
// transaction.abort.timed.out.transaction.cleanup.interval.ms on the loop's
// timer, and the markers of a completing transaction are written by a
// MarkerWriter on a goroutine of their own, whose success is delivered back
// to the loop as CompleteTransaction (Kafka's TransactionMarkerChannelManager).
// Expired transactional ids are removed every
// transaction.remove.expired.transaction.cleanup.interval.ms.
//
// What it must never do: touch the coordinator off the loop, or be used in a
// simulation (it reads a clock and starts goroutines).
package txnlive

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/coordsim/coordsim/internal/loop"
	"github.com/coordsim/coordsim/txn"
)

// MarkerRetryBackoff is the pause between two attempts at a transaction's
// markers (Kafka's marker channel retries on its own backoff too).
const MarkerRetryBackoff = 100 * time.Millisecond

// MarkerWriter writes a completing transaction's markers: a control batch on
// every data partition, and the completion of every group's pending
// transactional offsets. It returns nil once all are written; an error makes
// the driver try again after MarkerRetryBackoff, until it stops. Writing the
// same markers twice must be harmless (a retry after a partial failure).
type MarkerWriter interface {
	WriteMarkers(ctx context.Context, mk txn.Markers) error
}

// Driver runs one txn.Coordinator on a loop. Its methods are safe for
// concurrent use.
type Driver struct {
	loop   *loop.Loop
	c      *txn.Coordinator
	clock  clock.Clock
	log    *slog.Logger
	writer MarkerWriter
	// ctx bounds marker writes; cancelled when the loop shuts down.
	ctx    context.Context
	cancel context.CancelFunc

	// Owned by the loop.
	nextSweep time.Time
	// nextExpiry is when the expired transactional ids are next removed.
	nextExpiry time.Time
}

// New builds a driver around c; nothing runs until Start. clk nil is the
// wall clock; logger nil discards.
func New(c *txn.Coordinator, writer MarkerWriter, clk clock.Clock, logger *slog.Logger) (*Driver, error) {
	if c == nil || writer == nil {
		return nil, errors.New("txnlive: a coordinator and a marker writer are required")
	}
	if clk == nil {
		clk = clock.New()
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	d := &Driver{c: c, clock: clk, log: logger.With("component", "txnlive"), writer: writer, ctx: ctx, cancel: cancel}
	d.loop = loop.New(core{d}, clk, d.log)
	return d, nil
}

// Start starts the loop; it runs until Stop or the end of ctx.
func (d *Driver) Start(ctx context.Context) error {
	return d.loop.Start(ctx, func() error {
		now := d.clock.Now()
		d.nextSweep = now.Add(d.sweepInterval())
		d.nextExpiry = now.Add(ms(d.c.Config().RemoveExpiredIntervalMs))
		return nil
	}, d.cancel)
}

// Stop stops the loop; markers still being written are abandoned (their
// transactions stay in PrepareCommit or PrepareAbort).
func (d *Driver) Stop() { d.loop.Stop() }

func (d *Driver) sweepInterval() time.Duration { return ms(d.c.Config().AbortTimedOutIntervalMs) }

func ms(n int64) time.Duration { return time.Duration(n) * time.Millisecond }

func (d *Driver) nowMs() int64 { return d.clock.Now().UnixMilli() }

// core is the loop's view of the driver.
type core struct{ d *Driver }

// Poll runs the timed-out transaction sweep and the removal of expired
// transactional ids when they are due.
func (c core) Poll() int {
	d := c.d
	now := d.clock.Now()
	n := 0
	if !now.Before(d.nextSweep) {
		mks := d.c.AbortTimedOut(now.UnixMilli())
		for _, mk := range mks {
			d.log.Info("aborting a timed-out transaction", "transactional_id", mk.TransactionalID, "producer_id", mk.ProducerID)
			d.send(mk)
		}
		d.nextSweep = now.Add(d.sweepInterval())
		n += 1 + len(mks)
	}
	if !now.Before(d.nextExpiry) {
		if ids := d.c.RemoveExpired(now.UnixMilli()); len(ids) > 0 {
			d.log.Info("removed expired transactional ids", "count", len(ids))
		}
		d.nextExpiry = now.Add(ms(d.c.Config().RemoveExpiredIntervalMs))
		n++
	}
	return n
}

func (c core) NextDeadline() (time.Time, bool) {
	if c.d.nextExpiry.Before(c.d.nextSweep) {
		return c.d.nextExpiry, true
	}
	return c.d.nextSweep, true
}

// send writes mk's markers off the loop, retrying until they are written or
// the driver stops, then completes the transaction on the loop.
func (d *Driver) send(mk *txn.Markers) {
	if mk == nil {
		return
	}
	m := *mk
	d.loop.Go(func() func() {
		for {
			err := d.writer.WriteMarkers(d.ctx, m)
			if err == nil {
				break
			}
			if d.ctx.Err() != nil {
				return func() {} // stopping: the transaction stays prepared
			}
			d.log.Warn("writing transaction markers failed; retrying", "transactional_id", m.TransactionalID, "err", err)
			select {
			case <-d.clock.After(MarkerRetryBackoff):
			case <-d.ctx.Done():
				return func() {} // stopping: the transaction stays prepared
			}
		}
		return func() {
			if _, err := d.c.CompleteTransaction(d.nowMs(), &m); err != nil {
				d.log.Error("completing a transaction failed", "transactional_id", m.TransactionalID, "err", err)
			}
		}
	})
}

// run runs fn on the loop and returns its error or the loop's.
func (d *Driver) run(ctx context.Context, fn func() error) error {
	var err error
	if doErr := d.loop.Do(ctx, func() { err = fn() }); doErr != nil {
		return doErr
	}
	return err
}

// InitProducerID handles InitProducerId with a transactional id.
func (d *Driver) InitProducerID(ctx context.Context, req txn.InitProducerIDRequest) (txn.InitProducerIDResponse, error) {
	var resp txn.InitProducerIDResponse
	err := d.run(ctx, func() error {
		r, mk, err := d.c.InitProducerID(d.nowMs(), req)
		resp = r
		d.send(mk)
		return err
	})
	return resp, err
}

// AddPartitions handles AddPartitionsToTxn for one transaction, at the
// protocol tv of its client (txn.AddPartitionsVersion).
func (d *Driver) AddPartitions(ctx context.Context, id string, producerID int64, epoch int16, ps []txn.TopicPartition, tv txn.TransactionVersion) error {
	return d.run(ctx, func() error { return d.c.AddPartitions(d.nowMs(), id, producerID, epoch, ps, tv) })
}

// VerifyPartitions answers AddPartitionsToTxn's verify-only path.
func (d *Driver) VerifyPartitions(ctx context.Context, id string, producerID int64, epoch int16, ps []txn.TopicPartition) ([]error, error) {
	var out []error
	err := d.run(ctx, func() error {
		var err error
		out, err = d.c.VerifyPartitions(id, producerID, epoch, ps)
		return err
	})
	return out, err
}

// AddOffsets handles AddOffsetsToTxn (tv TV0) or a TV2 TxnOffsetCommit's
// implicit add (tv TV2).
func (d *Driver) AddOffsets(ctx context.Context, id string, producerID int64, epoch int16, group string, groupPartitions int32, tv txn.TransactionVersion) error {
	return d.run(ctx, func() error { return d.c.AddOffsets(d.nowMs(), id, producerID, epoch, group, groupPartitions, tv) })
}

// EndTxn handles EndTxn at the client's protocol tv (txn.EndTxnVersion);
// it returns once PrepareCommit or PrepareAbort is written, as Kafka
// answers, and the markers follow. The response is the producer id and
// epoch a TV2 producer continues with.
func (d *Driver) EndTxn(ctx context.Context, id string, producerID int64, epoch int16, commit bool, tv txn.TransactionVersion) (txn.EndTxnResponse, error) {
	resp := txn.EndTxnResponse{ProducerID: txn.NoProducerID, ProducerEpoch: txn.NoProducerEpoch}
	err := d.run(ctx, func() error {
		mk, r, err := d.c.EndTxn(d.nowMs(), id, producerID, epoch, commit, tv)
		resp = r
		d.send(mk)
		return err
	})
	return resp, err
}

// Current returns the metadata of each id (ok false for an unknown one).
func (d *Driver) Current(ctx context.Context, ids []string) ([]txn.Metadata, []bool, error) {
	ms, oks := make([]txn.Metadata, len(ids)), make([]bool, len(ids))
	err := d.run(ctx, func() error {
		for i, id := range ids {
			ms[i], oks[i] = d.c.Current(id)
		}
		return nil
	})
	return ms, oks, err
}

// List handles ListTransactions.
func (d *Driver) List(ctx context.Context, f txn.ListFilter) ([]txn.Listed, error) {
	var out []txn.Listed
	err := d.run(ctx, func() error { out = d.c.List(d.nowMs(), f); return nil })
	return out, err
}

// PartitionFor is the __transaction_state partition of id (safe off the
// loop: it reads only the configuration).
func (d *Driver) PartitionFor(id string) int32 { return d.c.PartitionFor(id) }

// Config returns the coordinator's configuration.
func (d *Driver) Config() txn.Config { return d.c.Config() }
