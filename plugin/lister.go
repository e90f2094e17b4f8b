package plugin

// Entry is one stored row: a group and the topology epoch stored for it.
type Entry struct {
	GroupID       string
	TopologyEpoch int32
}

// Lister is an optional Store extension: List returns every stored row,
// sorted by group id. The simulator uses it to check that the store and the
// coordinator's metadata agree (no plugin-side data loss, no rows of groups
// that no longer exist); a store that does not implement it is refused
// before a simulation runs, unless the run allows those checks to be
// skipped (sim.Options.AllowUnchecked, `--allow-unchecked`), which the
// result then records.
type Lister interface {
	List() []Entry
}
