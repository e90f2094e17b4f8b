package invariants

// ShareInFlightCap is invariant 17-share-in-flight-cap.
const ShareInFlightCap = "17-share-in-flight-cap"

func shareInFlightCap() Invariant {
	return Invariant{
		Name:    ShareInFlightCap,
		Promise: "For Connect workloads, a share partition's in-flight window never exceeds share.partition.max.record.locks by a produced batch or more.",
		Rule:    "SharePartition's maxInFlightRecords (group.share.partition.max.record.locks): acquisition stops at the limit, soft by whole log batches.",
		Check:   "sim/invariants_share_cap.go: checker.checkShareInFlight, after every event",
		Mutants: []string{"ShareIgnoresMaxInFlight"},
	}
}
