package sim

import (
	"fmt"

	"github.com/coordsim/coordsim/offsets"
	"github.com/coordsim/coordsim/shard"
	"github.com/coordsim/coordsim/sim/connectsim"
	"github.com/coordsim/coordsim/sim/invariants"
)

// Invariants 19 and 20 (issue 27) guard protocol rules whose violation once
// passed the checker: each states its promise and the Kafka rule behind it.
const (
	// InvDLQConservation promises that the dead-letter topics hold exactly
	// the records of the dead-letter writes that succeeded: none dropped,
	// none invented. KIP-1191: a record archived by a share group with
	// errors.deadletterqueue.topic.name set is written to that topic, and
	// only a failed write leaves it archived without a copy. Invariant 8
	// only bounds the DLQ from above, and its equality holds only without
	// DLQ faults; this one is exact under faults too.
	InvDLQConservation = connectsim.InvDLQConservation
	// InvPendingTxnOffsetsKept promises that the sweep never expires an
	// offset whose partition has a pending transactional offset (a
	// TxnOffsetCommit not yet committed or aborted). Kafka's
	// OffsetMetadataManager.cleanupExpiredOffsets skips such partitions
	// (hasPendingTransactionalOffsets), since the transaction's commit
	// marker would otherwise revive an offset the group already lost.
	InvPendingTxnOffsetsKept = invariants.PendingTxnOffsetsKept
)

// checkPendingTxnKept holds one sweep's offset tombstones to the rule that
// a partition with a pending transactional offset keeps its offset (20).
// It reads which partitions are pending from the latest shard, the state
// the sweep decided on (state, not a predicate of the code under test: an
// independent model of pending offsets is issue 27's item 2).
func (c *checker) checkPendingTxnKept(latest *shard.Shard, records []shard.Record) {
	for _, r := range records {
		oc, ok := r.(*shard.OffsetCommit)
		if !ok || !oc.Tombstone {
			continue
		}
		if latest.HasPendingOffset(offsets.Key{Group: oc.Group, Topic: oc.Topic, Partition: oc.Partition}) {
			c.w.violate(InvPendingTxnOffsetsKept, fmt.Sprintf("the sweep expired %s/%s-%d while a transactional offset for it is pending",
				oc.Group, oc.Topic, oc.Partition))
			return
		}
	}
}
