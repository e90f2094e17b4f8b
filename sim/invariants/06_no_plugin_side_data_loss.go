package invariants

// NoPluginSideDataLoss is invariant 6-no-plugin-side-data-loss.
const NoPluginSideDataLoss = "6-no-plugin-side-data-loss"

func noPluginSideDataLoss() Invariant {
	return Invariant{
		Name:    NoPluginSideDataLoss,
		Promise: "Under v2 and v3 the metadata never claims a stored description the store does not have; under v1 that is the accepted race of docs/kip1331.md §1.8, counted when 24-v1-loss-explained ties it to a race event.",
		Rule:    "KIP-1331: StreamsGroupDescribe serves the description at the epoch the group records as stored, so a group that records an epoch must find its row (v3 fences a delete from an older load with the load's fencing token).",
		Check:   "sim/invariants.go: checker.probeDataLoss, after every cleanup cycle, for groups with nothing in flight",
		Mutants: []string{"FinalizeKeepsAdvanced", "StoreIgnoresFencingToken", "StaleFencingToken"},
	}
}
