package txn

import (
	"regexp"
	"slices"
)

// ListFilter is ListTransactions' filters (v0-2); an empty filter keeps
// every transaction.
type ListFilter struct {
	// States keeps transactions in these states when ByState is set (an
	// empty set then keeps none: every state filter named an unknown state).
	States  []State
	ByState bool
	// Partitions keeps the transactional ids of these __transaction_state
	// partitions (nil: all); a broker lists the partitions it leads.
	Partitions []int32
	// ProducerIDs keeps transactions of these producer ids (none: all).
	ProducerIDs []int64
	// DurationMs, when >= 0, keeps transactions running for longer than it
	// (v1+).
	DurationMs int64
	// IDPattern, when set, keeps transactional ids it matches (v2+).
	IDPattern *regexp.Regexp
}

// Listed is one row of ListTransactions.
type Listed struct {
	TransactionalID string
	ProducerID      int64
	State           State
}

// List is TransactionStateManager.listTransactionStates: every
// transactional id the filter keeps, by partition and then id. Dead ids are
// never listed.
func (c *Coordinator) List(nowMs int64, f ListFilter) []Listed {
	var out []Listed
	for _, s := range c.shards {
		if f.Partitions != nil && !slices.Contains(f.Partitions, s.partition) {
			continue
		}
		for _, id := range s.IDs() {
			m := s.txns[id]
			switch {
			case m.State == Dead:
			case len(f.ProducerIDs) > 0 && !slices.Contains(f.ProducerIDs, m.ProducerID):
			case f.ByState && !slices.Contains(f.States, m.State):
			case f.DurationMs >= 0 && nowMs-m.TxnStartTimestampMs <= f.DurationMs:
			case f.IDPattern != nil && !f.IDPattern.MatchString(id):
			default:
				out = append(out, Listed{TransactionalID: id, ProducerID: m.ProducerID, State: m.State})
			}
		}
	}
	return out
}
