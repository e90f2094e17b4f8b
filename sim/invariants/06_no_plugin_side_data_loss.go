package invariants

// NoPluginSideDataLoss is invariant 6-no-plugin-side-data-loss.
const NoPluginSideDataLoss = "6-no-plugin-side-data-loss"

func noPluginSideDataLoss() Invariant {
	return Invariant{
		Name:    NoPluginSideDataLoss,
		Promise: "Under v2 and v3 the metadata never claims a stored description the store does not have; under v1 that is the accepted race of docs/kip1331.md §1.8, counted when 24-v1-loss-explained ties it to a race event; under v2 with v2_known_holes (the swarm's v2 draws) a loss is excused only when an event of the group ties it to hole 2 or 3 of docs/kip1331-v3.md.",
		Rule:    "KIP-1331: StreamsGroupDescribe serves the description at the epoch the group records as stored, so a group that records an epoch must find its row (v3 fences a delete from an older load with the load's fencing token).",
		Check:   "sim/invariants.go: checker.probeDataLoss, after every cleanup cycle, for groups with nothing in flight; v2's hole events in sim/invariant_v2_holes.go",
		Mutants: []string{"FinalizeKeepsAdvanced", "StoreIgnoresFencingToken", "StaleFencingToken"},
	}
}
