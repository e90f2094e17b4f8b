package txn

import (
	"math"
	"slices"
	"strings"
)

// State is a transaction's state (Kafka's TransactionState).
type State int8

// Kafka's transaction states, with Kafka's ids (TransactionState.id).
const (
	Empty State = iota
	Ongoing
	PrepareCommit
	PrepareAbort
	CompleteCommit
	CompleteAbort
	Dead
	PrepareEpochFence
)

var stateNames = [...]string{"Empty", "Ongoing", "PrepareCommit", "PrepareAbort", "CompleteCommit", "CompleteAbort", "Dead", "PrepareEpochFence"}

// String returns Kafka's state name (TransactionState.stateName), the
// string DescribeTransactions and ListTransactions carry.
func (s State) String() string {
	if int(s) < len(stateNames) && s >= 0 {
		return stateNames[s]
	}
	return "Unknown"
}

// ParseState returns the state named name (Kafka's
// TransactionState.fromName), or false.
func ParseState(name string) (State, bool) {
	for i, n := range stateNames {
		if n == name {
			return State(i), true
		}
	}
	return 0, false
}

// NoProducerEpoch is RecordBatch.NO_PRODUCER_EPOCH.
const NoProducerEpoch int16 = -1

// NoProducerID is RecordBatch.NO_PRODUCER_ID.
const NoProducerID int64 = -1

// isEpochExhausted is TransactionMetadata.isEpochExhausted: two epochs are
// kept back, one for the fence of an ongoing transaction and one for the
// bump that follows it.
func isEpochExhausted(epoch int16) bool { return epoch >= math.MaxInt16-1 }

// TopicPartition names one partition of a transaction.
type TopicPartition struct {
	Topic     string
	Partition int32
}

func comparePartitions(a, b TopicPartition) int {
	if c := strings.Compare(a.Topic, b.Topic); c != 0 {
		return c
	}
	return int(a.Partition) - int(b.Partition)
}

// Metadata is one transactional id's state, Kafka's TransactionMetadata as
// its log value (TransactionLogValue) carries it. Partitions and Groups are
// sorted and never shared between two Metadata values.
type Metadata struct {
	TransactionalID string
	ProducerID      int64
	// PrevProducerID is the producer id before the last rotation (KIP-360),
	// so that a retried InitProducerId of the old id is recognised.
	PrevProducerID int64
	ProducerEpoch  int16
	// NextProducerID is the producer id a TV2 EndTxn allocated because its
	// epoch bump exhausted the current one: the transaction's completion
	// moves to it at epoch 0 (NoProducerID otherwise).
	NextProducerID int64
	// LastProducerEpoch is the epoch before the last bump, so that a
	// retried bump is answered with the same epoch (KIP-360).
	LastProducerEpoch int16
	TimeoutMs         int32
	State             State
	// Partitions are the partitions in the transaction, the
	// __consumer_offsets partitions that AddOffsetsToTxn adds among them.
	Partitions []TopicPartition
	// Groups are the groups AddOffsetsToTxn added. Kafka's log keeps only
	// their __consumer_offsets partitions and completes every group of a
	// partition with pending offsets of the producer; the group coordinator
	// here completes one group at a time, so the state keeps the names.
	Groups                   []string
	TxnStartTimestampMs      int64
	TxnLastUpdateTimestampMs int64
	// ClientTransactionVersion is the protocol of the last transition's
	// client (the server's level for a fence or a timeout).
	ClientTransactionVersion TransactionVersion
}

// clone returns a copy that shares no slice with m.
func (m Metadata) clone() Metadata {
	m.Partitions = slices.Clone(m.Partitions)
	m.Groups = slices.Clone(m.Groups)
	return m
}

// Equal reports whether two metadata values are the same (property tests).
func (m Metadata) Equal(o Metadata) bool {
	return m.TransactionalID == o.TransactionalID && m.ProducerID == o.ProducerID &&
		m.PrevProducerID == o.PrevProducerID && m.NextProducerID == o.NextProducerID && m.ProducerEpoch == o.ProducerEpoch &&
		m.LastProducerEpoch == o.LastProducerEpoch && m.TimeoutMs == o.TimeoutMs &&
		m.State == o.State && slices.Equal(m.Partitions, o.Partitions) &&
		slices.Equal(m.Groups, o.Groups) && m.TxnStartTimestampMs == o.TxnStartTimestampMs &&
		m.TxnLastUpdateTimestampMs == o.TxnLastUpdateTimestampMs && m.ClientTransactionVersion == o.ClientTransactionVersion
}

// addPartitions returns ps merged into the sorted set in, without
// duplicates, as a new slice.
func addPartitions(in, ps []TopicPartition) []TopicPartition {
	out := slices.Clone(in)
	for _, p := range ps {
		if i, found := slices.BinarySearchFunc(out, p, comparePartitions); !found {
			out = slices.Insert(out, i, p)
		}
	}
	return out
}

// containsAll reports whether every partition of ps is in the sorted set in.
func containsAll(in, ps []TopicPartition) bool {
	for _, p := range ps {
		if _, found := slices.BinarySearchFunc(in, p, comparePartitions); !found {
			return false
		}
	}
	return true
}

// Contains reports whether the transaction holds partition p.
func (m Metadata) Contains(p TopicPartition) bool {
	_, found := slices.BinarySearchFunc(m.Partitions, p, comparePartitions)
	return found
}
