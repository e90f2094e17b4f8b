package plugin

// Entry is one stored row: a group and the topology epoch stored for it.
type Entry struct {
	GroupID       string
	TopologyEpoch int32
}

// Lister is an optional Store extension: List returns every stored row,
// sorted by group id. The simulator uses it to check that the store and the
// coordinator's metadata agree (no plugin-side data loss, no rows of groups
// that no longer exist); with a store that does not implement it, those two
// checks are skipped.
type Lister interface {
	List() []Entry
}
