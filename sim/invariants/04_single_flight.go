package invariants

// SingleFlight is invariant 4-single-flight.
const SingleFlight = "4-single-flight"

func singleFlight() Invariant {
	return Invariant{
		Name:    SingleFlight,
		Promise: "At most one cleanup cycle per broker is in flight.",
		Rule:    "KIP-1331: the cleanup cycle is single-flight; a tick that finds one running is dropped.",
		Check:   "sim/invariants.go: checker.onTopologyEvent, on EventCycleStarted",
		Mutants: []string{"NoSingleFlight"},
	}
}
