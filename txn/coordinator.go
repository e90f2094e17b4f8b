package txn

import (
	"errors"
	"fmt"
)

// Defaults, Kafka's.
const (
	// DefaultNumPartitions is transaction.state.log.num.partitions.
	DefaultNumPartitions = 50
	// DefaultMaxTimeoutMs is transaction.max.timeout.ms (15 minutes).
	DefaultMaxTimeoutMs = 900_000
	// DefaultAbortTimedOutIntervalMs is
	// transaction.abort.timed.out.transaction.cleanup.interval.ms.
	DefaultAbortTimedOutIntervalMs = 10_000
	// DefaultIDExpirationMs is transactional.id.expiration.ms (7 days).
	DefaultIDExpirationMs = 7 * 24 * 60 * 60 * 1000
	// DefaultRemoveExpiredIntervalMs is
	// transaction.remove.expired.transaction.cleanup.interval.ms (1 hour).
	DefaultRemoveExpiredIntervalMs = 60 * 60 * 1000
)

// Config is the transaction coordinator's configuration.
type Config struct {
	// NumPartitions is transaction.state.log.num.partitions.
	NumPartitions int32
	// MaxTimeoutMs is transaction.max.timeout.ms.
	MaxTimeoutMs int32
	// AbortTimedOutIntervalMs is how often the caller should run
	// AbortTimedOut (transaction.abort.timed.out.transaction.cleanup.interval.ms).
	AbortTimedOutIntervalMs int64
	// IDExpirationMs is transactional.id.expiration.ms: an id with no
	// transaction in progress and no update for this long is removed.
	IDExpirationMs int64
	// RemoveExpiredIntervalMs is how often the caller should run
	// RemoveExpired
	// (transaction.remove.expired.transaction.cleanup.interval.ms).
	RemoveExpiredIntervalMs int64
	// TransactionVersion is the cluster's finalized transaction.version:
	// the protocol of the aborts the coordinator starts itself (a fence,
	// a timeout). A client's requests carry their own (EndTxnVersion,
	// AddPartitionsVersion). Kafka 4.x finalizes TV2.
	TransactionVersion TransactionVersion
}

// DefaultConfig returns Kafka's defaults.
func DefaultConfig() Config {
	return Config{NumPartitions: DefaultNumPartitions, MaxTimeoutMs: DefaultMaxTimeoutMs,
		AbortTimedOutIntervalMs: DefaultAbortTimedOutIntervalMs,
		IDExpirationMs:          DefaultIDExpirationMs, RemoveExpiredIntervalMs: DefaultRemoveExpiredIntervalMs,
		TransactionVersion: LatestTransactionVersion}
}

// Validate refuses a configuration Kafka would refuse at startup.
func (c Config) Validate() error {
	switch {
	case c.NumPartitions < 1:
		return fmt.Errorf("txn: transaction.state.log.num.partitions %d must be at least 1", c.NumPartitions)
	case c.MaxTimeoutMs < 1:
		return fmt.Errorf("txn: transaction.max.timeout.ms %d must be at least 1", c.MaxTimeoutMs)
	case c.AbortTimedOutIntervalMs < 1:
		return fmt.Errorf("txn: transaction.abort.timed.out.transaction.cleanup.interval.ms %d must be at least 1", c.AbortTimedOutIntervalMs)
	case c.IDExpirationMs < 1:
		return fmt.Errorf("txn: transactional.id.expiration.ms %d must be at least 1", c.IDExpirationMs)
	case c.RemoveExpiredIntervalMs < 1:
		return fmt.Errorf("txn: transaction.remove.expired.transaction.cleanup.interval.ms %d must be at least 1", c.RemoveExpiredIntervalMs)
	}
	return c.TransactionVersion.Validate()
}

// Coordinator is every __transaction_state partition of a cluster: each
// shard with its log. Every operation appends its records to the log of the
// id's partition and replays them on the shard, so the shard is always the
// replay of its log. It is not safe for concurrent use.
type Coordinator struct {
	cfg           Config
	limits        Limits
	shards        []*Shard
	logs          [][]Record
	newProducerID func() int64
	partitionFor  PartitionFunc
}

// PartitionFunc routes an id to one of numPartitions partitions: the group
// coordinator's coordinator.PartitionFor (Kafka's partitionFor, which
// TransactionStateManager shares). It is passed in rather than imported so
// that this package stays below the coordinator in the import map.
type PartitionFunc func(id string, numPartitions int32) int32

// NewCoordinator returns a coordinator with empty logs. newProducerID
// allocates producer ids (Kafka's ProducerIdManager); the caller shares it
// with the idempotent producers' allocation so no two producers get the same
// id. partitionFor is coordinator.PartitionFor.
func NewCoordinator(cfg Config, newProducerID func() int64, partitionFor PartitionFunc) (*Coordinator, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if newProducerID == nil || partitionFor == nil {
		return nil, errors.New("txn: no producer id allocator or no partitionFor")
	}
	c := &Coordinator{cfg: cfg, limits: Limits{MaxTimeoutMs: cfg.MaxTimeoutMs, TransactionVersion: cfg.TransactionVersion},
		shards: make([]*Shard, cfg.NumPartitions), logs: make([][]Record, cfg.NumPartitions),
		newProducerID: newProducerID, partitionFor: partitionFor}
	for p := range c.shards {
		c.shards[p] = NewShard(int32(p))
	}
	return c, nil
}

// Config returns the configuration.
func (c *Coordinator) Config() Config { return c.cfg }

// PartitionFor is the __transaction_state partition of a transactional id:
// the group coordinator's partitionFor over this topic's partition count,
// as TransactionStateManager.partitionFor is.
func (c *Coordinator) PartitionFor(id string) int32 {
	return c.partitionFor(id, c.cfg.NumPartitions)
}

func (c *Coordinator) shardOf(id string) *Shard { return c.shards[c.PartitionFor(id)] }

// apply appends records to the log of partition p and replays them.
func (c *Coordinator) apply(p int32, records []Record) {
	if len(records) == 0 {
		return
	}
	c.logs[p] = append(c.logs[p], records...)
	c.shards[p].Replay(records)
}

// Log returns partition p's log (tests, inspection); the caller must not
// change it.
func (c *Coordinator) Log(p int32) []Record { return c.logs[p] }

// Shard returns partition p's shard (tests, inspection).
func (c *Coordinator) Shard(p int32) *Shard { return c.shards[p] }

// InitProducerID handles InitProducerId with a transactional id. The
// markers are non-nil when it began aborting a fenced transaction.
func (c *Coordinator) InitProducerID(nowMs int64, req InitProducerIDRequest) (InitProducerIDResponse, *Markers, error) {
	s := c.shardOf(req.TransactionalID)
	res, err := s.InitProducerID(nowMs, c.limits, req, c.newProducerID)
	if err != nil {
		return InitProducerIDResponse{ProducerID: NoProducerID, ProducerEpoch: NoProducerEpoch}, nil, err
	}
	c.apply(s.partition, res.Records)
	return res.Response, res.Markers, nil
}

// AddPartitions handles AddPartitionsToTxn for one transaction: a
// client's (tv TV0) or a broker's for a TV2 produce (tv TV2).
func (c *Coordinator) AddPartitions(nowMs int64, id string, producerID int64, epoch int16, ps []TopicPartition, tv TransactionVersion) error {
	return c.add(nowMs, id, producerID, epoch, ps, "", tv)
}

// AddOffsets handles AddOffsetsToTxn (tv TV0), or the implicit add of a
// TV2 TxnOffsetCommit (tv TV2): the group's __consumer_offsets partition
// (routed over groupPartitions, offsets.topic.num.partitions) joins the
// transaction.
func (c *Coordinator) AddOffsets(nowMs int64, id string, producerID int64, epoch int16, group string, groupPartitions int32, tv TransactionVersion) error {
	p := TopicPartition{Topic: ConsumerOffsetsTopic, Partition: c.partitionFor(group, groupPartitions)}
	return c.add(nowMs, id, producerID, epoch, []TopicPartition{p}, group, tv)
}

func (c *Coordinator) add(nowMs int64, id string, producerID int64, epoch int16, ps []TopicPartition, group string, tv TransactionVersion) error {
	s := c.shardOf(id)
	res, err := s.AddPartitions(nowMs, id, producerID, epoch, ps, group, tv)
	if err != nil {
		return err
	}
	c.apply(s.partition, res.Records)
	return nil
}

// VerifyPartitions answers the verify-only path of AddPartitionsToTxn.
func (c *Coordinator) VerifyPartitions(id string, producerID int64, epoch int16, ps []TopicPartition) ([]error, error) {
	return c.shardOf(id).VerifyPartitions(id, producerID, epoch, ps)
}

// EndTxn handles EndTxn from a client at protocol tv (EndTxnVersion);
// the markers are non-nil when the transaction began completing. The
// response is the producer id and epoch a TV2 producer continues with.
func (c *Coordinator) EndTxn(nowMs int64, id string, producerID int64, epoch int16, commit bool, tv TransactionVersion) (*Markers, EndTxnResponse, error) {
	s := c.shardOf(id)
	res, err := s.EndTxn(nowMs, id, producerID, epoch, commit, tv, c.newProducerID)
	if err != nil {
		return nil, noEndTxnResponse, err
	}
	c.apply(s.partition, res.Records)
	return res.Markers, res.Response, nil
}

// CompleteTransaction records that mk's markers are written.
func (c *Coordinator) CompleteTransaction(nowMs int64, mk *Markers) (State, error) {
	s := c.shardOf(mk.TransactionalID)
	res, err := s.CompleteTransaction(nowMs, mk.TransactionalID, mk.ProducerID, mk.ProducerEpoch)
	if err != nil {
		return 0, err
	}
	c.apply(s.partition, res.Records)
	return res.Response, nil
}

// AbortTimedOut fences and aborts every transaction that has outlived its
// timeout at nowMs, in partition then id order, and returns their markers.
func (c *Coordinator) AbortTimedOut(nowMs int64) []*Markers {
	var out []*Markers
	for _, s := range c.shards {
		for _, id := range s.TimedOut(nowMs) {
			res, err := s.AbortTimedOut(nowMs, c.limits, id)
			if err != nil || res.Markers == nil {
				continue // an exhausted epoch cannot be fenced; Kafka logs and skips it too
			}
			c.apply(s.partition, res.Records)
			out = append(out, res.Markers)
		}
	}
	return out
}

// RemoveExpired is TransactionStateManager.removeExpiredTransactionalIds:
// every id with no transaction in progress (Empty, CompleteCommit,
// CompleteAbort) whose last update is transactional.id.expiration.ms old
// at nowMs gets a tombstone and is gone; its next InitProducerId starts
// over with a new producer id. It returns the ids removed, in partition
// then id order.
func (c *Coordinator) RemoveExpired(nowMs int64) []string {
	var out []string
	for _, s := range c.shards {
		var tombstones []Record
		for _, id := range s.IDs() {
			m := s.txns[id]
			switch m.State {
			case Empty, CompleteCommit, CompleteAbort:
				if m.TxnLastUpdateTimestampMs <= nowMs-c.cfg.IDExpirationMs {
					tombstones = append(tombstones, Record{TransactionalID: id})
					out = append(out, id)
				}
			}
		}
		c.apply(s.partition, tombstones)
	}
	return out
}

// Current returns id's metadata.
func (c *Coordinator) Current(id string) (Metadata, bool) { return c.shardOf(id).Get(id) }
