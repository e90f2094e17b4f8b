package invariants

// GroupExpiryNothingLeft is invariant 13-group-expiry-nothing-left.
const GroupExpiryNothingLeft = "13-group-expiry-nothing-left"

func groupExpiryNothingLeft() Invariant {
	return Invariant{
		Name:    GroupExpiryNothingLeft,
		Promise: "The sweep tombstones a group only when it has no members, no open transaction, and every offset it had is expired by the same sweep.",
		Rule:    "GroupMetadataManager.cleanupGroupMetadata: a group is deleted only when cleanupExpiredOffsets left it no offsets and no pending transactional offsets, and it is empty.",
		Check:   "sim/invariants_rules.go: checker.checkSweep",
		Mutants: []string{"NoOffsetsLeftIgnoresTxn"},
	}
}
