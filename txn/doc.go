// Package txn is Kafka's transaction coordinator (KIP-98, KIP-360, KIP-447)
// as a pure state machine: the counterpart of package shard for
// __transaction_state. It models TransactionCoordinator,
// TransactionStateManager and TransactionMetadata.
//
// A Shard is one __transaction_state partition. Its operations
// (InitProducerID, AddPartitions, EndTxn, CompleteTransaction,
// AbortTimedOut) read the shard and return a Result: the records to append,
// the response, and, when a transaction starts completing, the Markers to
// write. They never change the shard; Replay is the only mutator, and a
// shard rebuilt from its log equals the live one (property_test.go). A
// Coordinator holds every partition, routes a transactional id with the
// group coordinator's partitionFor (coordinator.PartitionFor, handed in as
// a PartitionFunc) over transaction.state.log.num.partitions, appends each result's records to the
// partition's log and replays them.
//
// Completing a transaction is two steps, as in Kafka: EndTxn (or a fence or
// a timeout) writes PrepareCommit or PrepareAbort and yields Markers; the
// caller writes a commit or abort marker to every data partition and
// completes the pending transactional offsets of every group (the group
// coordinator's EndTransaction), then calls CompleteTransaction, which writes
// CompleteCommit or CompleteAbort. In between, the transactional id answers
// CONCURRENT_TRANSACTIONS.
//
// transaction.version 2 (KIP-890 part 2) is modelled as Kafka 4.x runs it:
// each request carries its client's TransactionVersion (EndTxnVersion,
// AddPartitionsVersion), a TV2 EndTxn bumps the epoch on every commit and
// abort and answers the id and epoch to continue with, and the coordinator's
// own aborts (fences, timeouts) run at Config.TransactionVersion, the
// cluster's finalized level.
//
// What it does not model: two-phase commit
// (KIP-939), the Dead state (an expired id is tombstoned at once), coordinator epochs and partition
// emigration (every partition is always loaded), and the pending-state
// window of an append in flight (appends here commit at once, so only the
// Prepare states make a transactional id busy).
//
// What it must never do: read a clock (time arrives as an argument), start a
// goroutine, or let Go map order reach an output.
package txn
