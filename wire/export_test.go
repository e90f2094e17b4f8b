package wire

// Parked is the number of requests waiting for records, for tests that
// must know a Fetch is parked before they act.
func (cl *Cluster) Parked() int64 { return cl.parked.Load() }

// RetainNow runs one retention pass (time retention, compaction, the cap)
// at once, as the endpoint's loop does every second.
func (cl *Cluster) RetainNow() { cl.data.retainAll(cl.nowMs()) }
