package txn

import (
	"maps"
	"slices"
)

// Shard is one __transaction_state partition: the metadata of every
// transactional id it owns. Replay is its only mutator.
type Shard struct {
	partition int32
	txns      map[string]Metadata
}

// NewShard returns the empty shard of partition p.
func NewShard(p int32) *Shard { return &Shard{partition: p, txns: make(map[string]Metadata)} }

// Partition is the shard's __transaction_state partition.
func (s *Shard) Partition() int32 { return s.partition }

// Replay applies records in order: the latest record of an id is its state,
// a tombstone removes it.
func (s *Shard) Replay(records []Record) {
	for _, r := range records {
		if r.Value == nil {
			delete(s.txns, r.TransactionalID)
			continue
		}
		s.txns[r.TransactionalID] = r.Value.clone()
	}
}

// Get returns a copy of id's metadata.
func (s *Shard) Get(id string) (Metadata, bool) {
	m, ok := s.txns[id]
	if !ok {
		return Metadata{}, false
	}
	return m.clone(), true
}

// IDs returns the shard's transactional ids, sorted.
func (s *Shard) IDs() []string { return slices.Sorted(maps.Keys(s.txns)) }

// Equal reports whether two shards hold the same state (property tests).
func (s *Shard) Equal(o *Shard) bool {
	if s.partition != o.partition || len(s.txns) != len(o.txns) {
		return false
	}
	for id, m := range s.txns {
		om, ok := o.txns[id]
		if !ok || !m.Equal(om) {
			return false
		}
	}
	return true
}
