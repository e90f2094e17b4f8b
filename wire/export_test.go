package wire

// Parked is the number of requests waiting for records, for tests that
// must know a Fetch is parked before they act.
func (cl *Cluster) Parked() int64 { return cl.parked.Load() }
