package offsets

import "strings"

// pairEntry owns one interned (group, topic) symbol. refs counts the committed
// and pending offsets that point at it; the entry goes with the last of them,
// so names of deleted groups do not accumulate over a long simulation.
type pairEntry struct {
	group string
	topic string
	sym   *pairSymbol
	refs  int
}

func lessPairEntry(a, b pairEntry) bool {
	if a.group != b.group {
		return a.group < b.group
	}
	return a.topic < b.topic
}

// groupEntry holds a group's interned name and its counters, so the per-group
// queries (GroupOffsetCount, HasOpenTransaction) are one O(log groups) lookup.
type groupEntry struct {
	name      string
	committed int // committed offsets of the group
	pending   int // pending transactional offsets of the group
	pairs     int // live pair symbols of the group
}

func lessGroupEntry(a, b groupEntry) bool { return a.name < b.name }

// topicEntry holds a topic's interned name, so a topic shared by many groups
// is stored once. refs counts the live pair symbols using it.
type topicEntry struct {
	name string
	refs int
}

func lessTopicEntry(a, b topicEntry) bool { return a.name < b.name }

// symbolTable interns group and topic names. Its trees are cloned with the
// Store; the symbols themselves are immutable and shared by both copies.
type symbolTable struct {
	pairs  *btreeG[pairEntry]
	groups *btreeG[groupEntry]
	topics *btreeG[topicEntry]
	// last caches the most recently interned symbol: commits arrive in bursts
	// for one group and topic, and a hit skips the pairs lookup. It is either
	// nil or a live symbol of this table.
	last *pairSymbol
}

func newSymbolTable(degree int) symbolTable {
	return symbolTable{
		pairs:  newBtree(degree, lessPairEntry),
		groups: newBtree(degree, lessGroupEntry),
		topics: newBtree(degree, lessTopicEntry),
	}
}

func (t *symbolTable) clone() symbolTable {
	return symbolTable{
		pairs:  t.pairs.Clone(),
		groups: t.groups.Clone(),
		topics: t.topics.Clone(),
		last:   t.last,
	}
}

// lookup returns the live symbol of (group, topic). It never writes, so reads
// of a Store stay free of side effects.
func (t *symbolTable) lookup(group, topic string) (*pairSymbol, bool) {
	if l := t.last; l != nil && l.group == group && l.topic == topic {
		return l, true
	}
	e, ok := t.pairs.Get(pairEntry{group: group, topic: topic})
	return e.sym, ok
}

// intern returns the symbol of (group, topic), creating it with no
// references when absent; the caller retains it for the item it inserts.
func (t *symbolTable) intern(group, topic string) *pairSymbol {
	sym, ok := t.lookup(group, topic)
	if !ok {
		sym = t.create(group, topic)
	}
	t.last = sym
	return sym
}

func (t *symbolTable) create(group, topic string) *pairSymbol {
	g, ok := t.groups.Get(groupEntry{name: group})
	if !ok {
		// Copy the name once: the caller's string may point into a large
		// record buffer that must not stay reachable through the store.
		g = groupEntry{name: strings.Clone(group)}
	}
	g.pairs++
	t.groups.ReplaceOrInsert(g)

	tp, ok := t.topics.Get(topicEntry{name: topic})
	if !ok {
		tp = topicEntry{name: strings.Clone(topic)}
	}
	tp.refs++
	t.topics.ReplaceOrInsert(tp)

	sym := &pairSymbol{group: g.name, topic: tp.name}
	t.pairs.ReplaceOrInsert(pairEntry{group: sym.group, topic: sym.topic, sym: sym})
	return sym
}

func (t *symbolTable) retain(sym *pairSymbol, n int) {
	e, ok := t.pairs.Get(pairEntry{group: sym.group, topic: sym.topic})
	invariant(ok && e.sym == sym, "retain of a symbol that is not live")
	e.refs += n
	t.pairs.ReplaceOrInsert(e)
}

// release drops n references to sym and forgets the symbol (and its group and
// topic names when unused) with the last one.
func (t *symbolTable) release(sym *pairSymbol, n int) {
	probe := pairEntry{group: sym.group, topic: sym.topic}
	e, ok := t.pairs.Get(probe)
	invariant(ok && e.sym == sym, "release of a symbol that is not live")
	e.refs -= n
	invariant(e.refs >= 0, "symbol released more often than retained")
	if e.refs > 0 {
		t.pairs.ReplaceOrInsert(e)
		return
	}
	t.pairs.Delete(probe)
	if t.last == sym {
		t.last = nil
	}

	g, ok := t.groups.Get(groupEntry{name: sym.group})
	invariant(ok, "symbol of an unknown group")
	g.pairs--
	if g.pairs == 0 {
		invariant(g.committed == 0 && g.pending == 0, "group without symbols still counts offsets")
		t.groups.Delete(g)
	} else {
		t.groups.ReplaceOrInsert(g)
	}

	tp, ok := t.topics.Get(topicEntry{name: sym.topic})
	invariant(ok, "symbol of an unknown topic")
	tp.refs--
	if tp.refs == 0 {
		t.topics.Delete(tp)
	} else {
		t.topics.ReplaceOrInsert(tp)
	}
}

// adjustGroup moves the offset counters of a group that has a live symbol.
func (t *symbolTable) adjustGroup(group string, committedDelta, pendingDelta int) {
	if committedDelta == 0 && pendingDelta == 0 {
		return
	}
	g, ok := t.groups.Get(groupEntry{name: group})
	invariant(ok, "counter update of an unknown group")
	g.committed += committedDelta
	g.pending += pendingDelta
	invariant(g.committed >= 0 && g.pending >= 0, "negative group counter")
	t.groups.ReplaceOrInsert(g)
}

// group returns the counters of group; the zero entry when it has no offsets.
func (t *symbolTable) group(name string) (groupEntry, bool) {
	return t.groups.Get(groupEntry{name: name})
}

// firstPairOf returns the smallest live symbol of group: a lower bound for
// every item of the group in the (group, ...) ordered trees.
func (t *symbolTable) firstPairOf(group string) (*pairSymbol, bool) {
	var sym *pairSymbol
	t.pairs.AscendGreaterOrEqual(pairEntry{group: group}, func(e pairEntry) bool {
		if e.group == group {
			sym = e.sym
		}
		return false
	})
	return sym, sym != nil
}
