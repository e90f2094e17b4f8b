// Package consumption measures what rebalances cost a consumer
// application's records, on virtual time: how long each partition had no
// member consuming it (pause time), and how many records were consumed
// twice (duplicates).
//
// The model is the one a Kafka consumer with committed offsets runs:
// records are produced to every partition at RecordsPerSecond; a member
// that holds a partition consumes it as its records arrive (a position is
// a virtual instant: the member has read everything produced before it);
// a member that takes a partition starts at the group's committed offset
// and catches up at once, so whatever someone had read past that offset is
// read a second time. A member stops consuming a partition when it starts
// to revoke it (Kafka's pending revocation: no more fetches, then the
// commit in onPartitionsRevoked), and a commit the coordinator accepts
// moves the committed offset to the position the member had when it sent
// it. A partition nobody ever committed restarts where the application
// first read it (auto.offset.reset=earliest on a topic it began with).
//
// Duplicates are counted where they happen: at the take that re-reads
// (Reread) and, while two members consume one partition at once (a zombie
// the coordinator has fenced and that has not heard yet), for every record
// each extra member reads (Overlap). Nothing here reads a clock or draws a
// number: the caller feeds it virtual times.
package consumption

import "slices"

// RecordsPerSecond is the production rate of every partition the model
// measures: durations of re-read production turn into records at it.
const RecordsPerSecond = 10

// Window kinds: a roll onto the consumer protocol and one back.
const (
	Upgrade   = "upgrade"
	Downgrade = "downgrade"
)

// Log is what a Tracker recorded: per group its life and windows, and the
// pieces of pause and duplication, each tied to its group by index.
type Log struct {
	Groups []Group
	// Pauses are spans of one partition with no member consuming it,
	// within its group's life.
	Pauses []Span
	// Rereads are takes that started behind what had been read already:
	// Ms of the partition's production read a second time, at AtMs.
	Rereads []Reread
	// Overlaps are spans in which Extra more than one member consumed a
	// partition at once.
	Overlaps []Span
}

// Group is one measured application: its id, when its life began and
// ended, its topic's partition count and its rolls.
type Group struct {
	ID         string
	BornMs     int64
	EndMs      int64
	Partitions int32
	Windows    []Window
}

// Window is one roll of a group: from its first restart to a minute after
// its last (the group settled), or the group's end.
type Window struct {
	Kind         string
	FromMs, ToMs int64
}

// Span is [FromMs, ToMs) of one partition of group Group; Extra is the
// number of members beyond the first (Overlaps), 1 for a pause.
type Span struct {
	Group        int
	FromMs, ToMs int64
	Extra        int
}

// Reread is a take at AtMs that read Ms of production again.
type Reread struct {
	Group int
	AtMs  int64
	Ms    int64
}

// Tracker builds a Log from takes, releases, stops and commits.
type Tracker struct {
	log    Log
	groups []groupState
}

type groupState struct {
	parts []partState
	open  map[string]int // window kind -> its index in Groups[g].Windows while open
}

type partState struct {
	holders   []holder
	committed int64 // the committed position; -1 for none
	first     int64 // where the application first read; -1 before it did
	maxPos    int64 // the furthest position anyone read
	// since is when the partition last changed: the start of the pause
	// while nobody consumes, of the overlap while several do.
	since int64
}

type holder struct {
	who       int
	stoppedAt int64 // -1 while consuming
}

// NewTracker returns an empty Tracker.
func NewTracker() *Tracker { return &Tracker{} }

// AddGroup starts measuring an application whose topic has partitions,
// alive from bornMs to endMs, and returns its index. Its partitions are
// paused until a member takes them.
func (t *Tracker) AddGroup(id string, partitions int32, bornMs, endMs int64) int {
	t.log.Groups = append(t.log.Groups, Group{ID: id, BornMs: bornMs, EndMs: endMs, Partitions: partitions})
	parts := make([]partState, partitions)
	for i := range parts {
		parts[i] = partState{committed: -1, first: -1, since: bornMs}
	}
	t.groups = append(t.groups, groupState{parts: parts, open: map[string]int{}})
	return len(t.groups) - 1
}

func (t *Tracker) part(g int, p int32) *partState {
	if g < 0 || g >= len(t.groups) || p < 0 || int(p) >= len(t.groups[g].parts) {
		return nil
	}
	return &t.groups[g].parts[p]
}

// consuming counts the holders still reading.
func (ps *partState) consuming() int {
	n := 0
	for _, h := range ps.holders {
		if h.stoppedAt < 0 {
			n++
		}
	}
	return n
}

// advance closes what ran until now: the overlap of several consuming
// holders, or the pause of none, and moves the read frontier. It runs
// before every change of the partition.
func (t *Tracker) advance(g int, ps *partState, nowMs int64) {
	switch n := ps.consuming(); {
	case n == 0:
		return // the pause goes on; it is closed by the take that ends it
	case n > 1 && nowMs > ps.since:
		t.log.Overlaps = append(t.log.Overlaps, Span{Group: g, FromMs: ps.since, ToMs: nowMs, Extra: n - 1})
	}
	ps.maxPos = max(ps.maxPos, nowMs)
	ps.since = nowMs
}

// Take: member who starts holding partition p of group g at nowMs.
func (t *Tracker) Take(g int, p int32, who int, nowMs int64) {
	ps := t.part(g, p)
	if ps == nil || slices.ContainsFunc(ps.holders, func(h holder) bool { return h.who == who }) {
		return
	}
	t.advance(g, ps, nowMs)
	if ps.consuming() == 0 {
		t.closePause(g, ps, nowMs)
	}
	start := ps.committed
	if ps.first < 0 {
		ps.first, ps.maxPos = nowMs, nowMs
	}
	if start < 0 {
		start = ps.first
	}
	if again := ps.maxPos - start; again > 0 {
		t.log.Rereads = append(t.log.Rereads, Reread{Group: g, AtMs: nowMs, Ms: again})
	}
	ps.holders = append(ps.holders, holder{who: who, stoppedAt: -1})
	ps.maxPos = max(ps.maxPos, nowMs)
	ps.since = nowMs
}

// closePause records the pause that a consuming holder ends at nowMs,
// clipped to the group's life.
func (t *Tracker) closePause(g int, ps *partState, nowMs int64) {
	life := t.log.Groups[g]
	from, to := max(ps.since, life.BornMs), min(nowMs, life.EndMs)
	if to > from {
		t.log.Pauses = append(t.log.Pauses, Span{Group: g, FromMs: from, ToMs: to, Extra: 1})
	}
}

// Stop: member who stops consuming partition p at nowMs (it started to
// revoke it); it still holds it until Release.
func (t *Tracker) Stop(g int, p int32, who int, nowMs int64) {
	ps := t.part(g, p)
	if ps == nil {
		return
	}
	i := slices.IndexFunc(ps.holders, func(h holder) bool { return h.who == who })
	if i < 0 || ps.holders[i].stoppedAt >= 0 {
		return
	}
	t.advance(g, ps, nowMs)
	ps.holders[i].stoppedAt = nowMs
	if ps.consuming() == 0 {
		ps.since = nowMs
	}
}

// Release: member who no longer holds partition p at nowMs.
func (t *Tracker) Release(g int, p int32, who int, nowMs int64) {
	ps := t.part(g, p)
	if ps == nil {
		return
	}
	i := slices.IndexFunc(ps.holders, func(h holder) bool { return h.who == who })
	if i < 0 {
		return
	}
	t.advance(g, ps, nowMs)
	wasConsuming := ps.holders[i].stoppedAt < 0
	ps.holders = slices.Delete(ps.holders, i, i+1)
	if wasConsuming && ps.consuming() == 0 {
		ps.since = nowMs
	}
}

// Position is where member who has read partition p to at nowMs: what it
// commits. ok is false when it does not hold p.
func (t *Tracker) Position(g int, p int32, who int, nowMs int64) (pos int64, ok bool) {
	ps := t.part(g, p)
	if ps == nil {
		return 0, false
	}
	for _, h := range ps.holders {
		if h.who == who {
			if h.stoppedAt >= 0 {
				return h.stoppedAt, true
			}
			return nowMs, true
		}
	}
	return 0, false
}

// Commit: the coordinator accepted pos as partition p's committed offset.
// A later commit replaces an earlier one, even a smaller one, as Kafka's
// offsets do.
func (t *Tracker) Commit(g int, p int32, pos int64) {
	if ps := t.part(g, p); ps != nil {
		ps.committed = pos
	}
}

// OpenWindow starts a roll of kind for group g; a roll of that kind
// already open is left as it is.
func (t *Tracker) OpenWindow(g int, kind string, nowMs int64) {
	if g < 0 || g >= len(t.groups) {
		return
	}
	if _, ok := t.groups[g].open[kind]; ok {
		return
	}
	t.groups[g].open[kind] = len(t.log.Groups[g].Windows)
	t.log.Groups[g].Windows = append(t.log.Groups[g].Windows, Window{Kind: kind, FromMs: nowMs, ToMs: -1})
}

// CloseWindow ends group g's open roll of kind at nowMs.
func (t *Tracker) CloseWindow(g int, kind string, nowMs int64) {
	if g < 0 || g >= len(t.groups) {
		return
	}
	i, ok := t.groups[g].open[kind]
	if !ok {
		return
	}
	delete(t.groups[g].open, kind)
	t.log.Groups[g].Windows[i].ToMs = min(nowMs, t.log.Groups[g].EndMs)
}

// Finish closes what is still open at each group's end, or at nowMs for a
// run that stopped before it (a pause, an overlap, a roll the group did
// not live to finish), and returns the Log. The Tracker is done with.
func (t *Tracker) Finish(nowMs int64) *Log {
	for g := range t.groups {
		end := min(t.log.Groups[g].EndMs, nowMs)
		t.log.Groups[g].EndMs = max(end, t.log.Groups[g].BornMs)
		for i := range t.groups[g].parts {
			ps := &t.groups[g].parts[i]
			if ps.consuming() == 0 {
				t.closePause(g, ps, end)
			} else if end > ps.since {
				t.advance(g, ps, end)
			}
		}
		for i := range t.log.Groups[g].Windows {
			if w := &t.log.Groups[g].Windows[i]; w.ToMs < 0 {
				w.ToMs = max(end, w.FromMs)
			}
		}
	}
	return &t.log
}
