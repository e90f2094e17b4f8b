package sim

import "github.com/coordsim/coordsim/sim/connectsim"

// Sample is the state of the simulated cluster at one instant, taken every
// SampleInterval of virtual time; the report plots these.
type Sample struct {
	// AtMs is virtual milliseconds since the start.
	AtMs int64
	// Groups counts groups by "type/STATE" (for example "streams/EMPTY").
	Groups map[string]int
	// StoredEpochs counts streams groups by stored description epoch class:
	// "none" (-1), "uncertain" (-2), "stored" (>= 0).
	StoredEpochs map[string]int
	// Offsets is the number of committed offsets.
	Offsets int
	// PluginRows is the number of rows in the topology store.
	PluginRows int
}

// CycleRecord is one cleanup cycle's outcome, for the per-cycle plots.
type CycleRecord struct {
	AtMs          int64
	Broker        int32
	Eligible      int
	DeletesOK     int
	DeletesFailed int
}

// Series is everything the report plots.
type Series struct {
	Samples []Sample
	Cycles  []CycleRecord
	// Sinks is every connector's progress over time (Connect workloads).
	Sinks []connectsim.SinkSample
}
