package txn

// Record is one __transaction_state record: a transactional id's whole
// metadata (Kafka's TransactionLogKey and TransactionLogValue). Every state
// change writes one, so the latest record of an id is its state.
type Record struct {
	TransactionalID string
	// Value is the metadata; nil is a tombstone: the id expired
	// (transactional.id.expiration.ms).
	Value *Metadata
}

// record builds the record that stores m.
func record(m Metadata) Record {
	v := m.clone()
	return Record{TransactionalID: m.TransactionalID, Value: &v}
}
