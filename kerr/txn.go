package kerr

// The transaction coordinator's errors (KIP-98, KIP-360, KIP-447, KIP-588),
// kept apart from the group coordinator's list above. Codes are Kafka's.
var (
	InvalidProducerEpoch         = &Error{"INVALID_PRODUCER_EPOCH", 47, false}
	InvalidTxnState              = &Error{"INVALID_TXN_STATE", 48, false}
	InvalidProducerIDMapping     = &Error{"INVALID_PRODUCER_ID_MAPPING", 49, false}
	InvalidTransactionTimeout    = &Error{"INVALID_TRANSACTION_TIMEOUT", 50, false}
	ConcurrentTransactions       = &Error{"CONCURRENT_TRANSACTIONS", 51, true}
	TransactionCoordinatorFenced = &Error{"TRANSACTION_COORDINATOR_FENCED", 52, false}
	OperationNotAttempted        = &Error{"OPERATION_NOT_ATTEMPTED", 55, false}
	ProducerFenced               = &Error{"PRODUCER_FENCED", 90, false}
	TransactionalIDNotFound      = &Error{"TRANSACTIONAL_ID_NOT_FOUND", 105, false}
)
