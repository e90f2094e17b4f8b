package txn

import "fmt"

// TransactionVersion is Kafka's transaction.version feature level
// (TransactionVersion): the protocol a client runs a transaction with,
// and the level the cluster has finalized.
type TransactionVersion int16

// Kafka's levels.
const (
	// TV0 is the original protocol.
	TV0 TransactionVersion = 0
	// TV1 adds flexible __transaction_state records (KIP-890); the
	// protocol a client sees is TV0's.
	TV1 TransactionVersion = 1
	// TV2 is KIP-890 part 2: EndTxn bumps the producer epoch on every
	// commit and abort and returns it, a produce adds its partition to the
	// transaction, and TxnOffsetCommit its group.
	TV2 TransactionVersion = 2
	// LatestTransactionVersion is TransactionVersion.LATEST_PRODUCTION,
	// what a Kafka 4.x cluster finalizes by default.
	LatestTransactionVersion = TV2
)

// supportsEpochBump is TransactionVersion.supportsEpochBump.
func (v TransactionVersion) supportsEpochBump() bool { return v >= TV2 }

// Validate refuses a level Kafka does not know.
func (v TransactionVersion) Validate() error {
	if v < TV0 || v > LatestTransactionVersion {
		return fmt.Errorf("txn: transaction.version %d is outside [0, %d]", v, LatestTransactionVersion)
	}
	return nil
}

// EndTxnVersion is TransactionVersion.transactionVersionForEndTxn: EndTxn
// v5+ is a TV2 client's.
func EndTxnVersion(requestVersion int16) TransactionVersion {
	if requestVersion > 4 {
		return TV2
	}
	return TV0
}

// AddPartitionsVersion is
// TransactionVersion.transactionVersionForAddPartitionsToTxn:
// AddPartitionsToTxn v4+ comes from a broker that adds the partitions of
// a TV2 produce.
func AddPartitionsVersion(requestVersion int16) TransactionVersion {
	if requestVersion > 3 {
		return TV2
	}
	return TV0
}
