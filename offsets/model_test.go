package offsets

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// model is the naive reference the Store is checked against: plain sorted
// slices and linear scans, simple enough to be obviously right.
type model struct {
	retentionMs int64
	committed   []modelOffset  // sorted by key
	pending     []modelPending // sorted by (key, producerID)
	// next is the log offset of the next record replayed: Kafka's rule
	// compares the record offsets of a committed and a pending value.
	next int64
	// committedAt is each committed offset's record offset.
	committedAt map[Key]int64
}

type modelOffset struct {
	k Key
	v OffsetAndMetadata
}

type modelPending struct {
	producerID int64
	k          Key
	v          OffsetAndMetadata
	at         int64 // the record's offset
}

func compareKeys(a, b Key) int {
	return cmp.Or(strings.Compare(a.Group, b.Group), strings.Compare(a.Topic, b.Topic), cmp.Compare(a.Partition, b.Partition))
}

func (m *model) clone() *model {
	return &model{retentionMs: m.retentionMs, committed: slices.Clone(m.committed), pending: slices.Clone(m.pending), next: m.next,
		committedAt: maps.Clone(m.committedAt)}
}

// commit is a plain (replayed) commit.
func (m *model) commit(k Key, v OffsetAndMetadata) {
	m.put(k, v, m.next)
	m.next++
}

func (m *model) put(k Key, v OffsetAndMetadata, at int64) {
	i, found := slices.BinarySearchFunc(m.committed, k, func(e modelOffset, k Key) int { return compareKeys(e.k, k) })
	if m.committedAt == nil {
		m.committedAt = map[Key]int64{}
	}
	m.committedAt[k] = at
	if found {
		m.committed[i].v = v
		return
	}
	m.committed = slices.Insert(m.committed, i, modelOffset{k, v})
}

func (m *model) delete(k Key) bool {
	m.next++
	delete(m.committedAt, k)
	removed := false
	m.committed = slices.DeleteFunc(m.committed, func(e modelOffset) bool {
		hit := e.k == k
		removed = removed || hit
		return hit
	})
	m.pending = slices.DeleteFunc(m.pending, func(e modelPending) bool {
		hit := e.k == k
		removed = removed || hit
		return hit
	})
	return removed
}

func comparePendingEntries(a, b modelPending) int {
	return cmp.Or(compareKeys(a.k, b.k), cmp.Compare(a.producerID, b.producerID))
}

func (m *model) commitPending(producerID int64, k Key, v OffsetAndMetadata) {
	e := modelPending{producerID: producerID, k: k, v: v, at: m.next}
	m.next++
	i, found := slices.BinarySearchFunc(m.pending, e, comparePendingEntries)
	if found {
		m.pending[i] = e
		return
	}
	m.pending = slices.Insert(m.pending, i, e)
}

// endTransaction is Kafka's replayEndTransactionMarker, for one group or
// (all) every group: a committed pending value replaces the committed one
// unless that one's record offset is larger.
func (m *model) endTransaction(producerID int64, group string, all, commit bool) {
	m.next++
	var keep []modelPending
	for _, e := range m.pending { // key order, so commits land in (topic, partition) order
		if e.producerID == producerID && (all || e.k.Group == group) {
			if old, ok := m.committedAt[e.k]; commit && (!ok || e.at > old) {
				m.put(e.k, e.v, e.at)
			}
			continue
		}
		keep = append(keep, e)
	}
	m.pending = keep
}

// pendingGroups is the groups producerID has pending offsets in, sorted.
func (m *model) pendingGroups(producerID int64) []string {
	var out []string
	for _, e := range m.pending {
		if e.producerID == producerID && !slices.Contains(out, e.k.Group) {
			out = append(out, e.k.Group)
		}
	}
	slices.Sort(out)
	return out
}

func (m *model) get(k Key) (OffsetAndMetadata, bool) {
	for _, e := range m.committed {
		if e.k == k {
			return e.v, true
		}
	}
	return OffsetAndMetadata{}, false
}

func (m *model) group(group string) []modelOffset {
	var out []modelOffset
	for _, e := range m.committed {
		if e.k.Group == group {
			out = append(out, e)
		}
	}
	return out
}

func (m *model) hasOpenTransaction(group string) bool {
	return slices.ContainsFunc(m.pending, func(e modelPending) bool { return e.k.Group == group })
}

func (m *model) hasPending(k Key) bool {
	return slices.ContainsFunc(m.pending, func(e modelPending) bool { return e.k == k })
}

// expirable is the full scan AscendExpirable must equal: every expired offset,
// ordered by expirable-at then key.
func (m *model) expirable(nowMs int64) []modelOffset {
	var out []modelOffset
	for _, e := range m.committed {
		if IsOffsetExpired(e.v, nowMs, m.retentionMs) {
			out = append(out, e)
		}
	}
	slices.SortStableFunc(out, func(a, b modelOffset) int {
		return cmp.Compare(ExpirableAtMs(a.v, m.retentionMs), ExpirableAtMs(b.v, m.retentionMs))
	})
	return out
}

func (m *model) cleanup(group string, nowMs int64, subscribed func(string) bool) ([]Key, bool) {
	offsets := m.group(group)
	if len(offsets) == 0 {
		return nil, !m.hasOpenTransaction(group)
	}
	var out []Key
	all := true
	for _, e := range offsets {
		switch {
		case subscribed(e.k.Topic):
			all = false
		case IsOffsetExpired(e.v, nowMs, m.retentionMs) && !m.hasPending(e.k):
			out = append(out, e.k)
		default:
			all = false
		}
	}
	return out, all && !m.hasOpenTransaction(group)
}

// universe is the small name space random operations draw from. It holds the
// extreme values the store uses as range-probe bounds ("" names, MinInt32
// partitions, MinInt64 producers) so an off-by-one in a bound shows up.
type universe struct {
	groups     []string
	topics     []string
	partitions []int32
	producers  []int64
	nows       []int64
}

var testUniverse = universe{
	groups:     []string{"", "g0", "g1", "g1x", "group-2"},
	topics:     []string{"", "a", "b", "bb"},
	partitions: []int32{math.MinInt32, -1, 0, 1, 2, math.MaxInt32},
	producers:  []int64{math.MinInt64, -1, 0, 7, math.MaxInt64},
	nows:       []int64{math.MinInt64, -1, 0, 250, 499, 500, 999, 1000, 1500, 2500, math.MaxInt64 - 1, math.MaxInt64},
}

func (u universe) keys() []Key {
	var out []Key
	for _, g := range u.groups {
		for _, t := range u.topics {
			for _, p := range u.partitions {
				out = append(out, Key{g, t, p})
			}
		}
	}
	return out
}

// subscriptions are the subscription predicates cleanup is checked with.
var subscriptions = []func(string) bool{
	func(string) bool { return false },
	func(string) bool { return true },
	func(t string) bool { return t == "a" },
	func(t string) bool { return t == "" || t == "bb" },
}

// checkAgainstModel compares every query of s with m.
func checkAgainstModel(t testing.TB, s *Store, m *model, u universe) {
	t.Helper()
	s.checkInvariants(t)
	require.Equal(t, len(m.committed), s.Len(), "Len")
	require.Equal(t, len(m.pending), s.PendingLen(), "PendingLen")
	for _, k := range u.keys() {
		want, wantOK := m.get(k)
		got, ok := s.Get(k)
		require.Equal(t, wantOK, ok, "Get %v", k)
		require.Equal(t, want, got, "Get %v", k)
		require.Equal(t, m.hasPending(k), s.HasPending(k), "HasPending %v", k)
	}
	for _, g := range u.groups {
		want := m.group(g)
		var got []modelOffset
		s.AscendGroup(g, func(k Key, v OffsetAndMetadata) bool {
			got = append(got, modelOffset{k, v})
			return true
		})
		requireSameList(t, want, got, "AscendGroup %q", g)
		require.Equal(t, len(want), s.GroupOffsetCount(g), "GroupOffsetCount %q", g)
		require.Equal(t, m.hasOpenTransaction(g), s.HasOpenTransaction(g), "HasOpenTransaction %q", g)
		require.Equal(t, len(want) == 0 && !m.hasOpenTransaction(g), s.GroupHasNoOffsets(g), "GroupHasNoOffsets %q", g)
		for _, tp := range u.topics {
			var wantTopic, gotTopic []modelOffset
			for _, e := range want {
				if e.k.Topic == tp {
					wantTopic = append(wantTopic, e)
				}
			}
			s.AscendTopic(g, tp, func(k Key, v OffsetAndMetadata) bool {
				gotTopic = append(gotTopic, modelOffset{k, v})
				return true
			})
			requireSameList(t, wantTopic, gotTopic, "AscendTopic %q/%q", g, tp)
		}
		for _, now := range u.nows {
			for i, sub := range subscriptions {
				wantKeys, wantAll := m.cleanup(g, now, sub)
				sentinel := Key{Group: "sentinel"}
				gotKeys, gotAll := s.CleanupExpiredOffsets(g, now, sub, []Key{sentinel})
				require.Equal(t, append([]Key{sentinel}, wantKeys...), gotKeys, "CleanupExpiredOffsets %q now=%d sub=%d", g, now, i)
				require.Equal(t, wantAll, gotAll, "CleanupExpiredOffsets allExpired %q now=%d sub=%d", g, now, i)
			}
		}
	}
	for _, now := range u.nows {
		var got []modelOffset
		s.AscendExpirable(now, func(k Key, v OffsetAndMetadata) bool {
			got = append(got, modelOffset{k, v})
			return true
		})
		want := m.expirable(now)
		requireSameList(t, want, got, "AscendExpirable now=%d", now)
		var wantKeys, gotKeys []Key
		for _, e := range want {
			wantKeys = append(wantKeys, e.k)
		}
		s.AscendExpirableKeys(now, func(k Key) bool {
			gotKeys = append(gotKeys, k)
			return true
		})
		requireSameList(t, wantKeys, gotKeys, "AscendExpirableKeys now=%d", now)
	}
	var all []modelOffset
	s.Ascend(func(k Key, v OffsetAndMetadata) bool {
		all = append(all, modelOffset{k, v})
		return true
	})
	requireSameList(t, m.committed, all, "Ascend")
	for _, g := range u.groups {
		var want []Key
		for _, e := range m.pending { // key order
			if e.k.Group == g && (len(want) == 0 || want[len(want)-1] != e.k) {
				want = append(want, e.k)
			}
		}
		requireSameList(t, want, s.PendingKeys(g), "PendingKeys %q", g)
	}
}

// checkInvariants verifies the internal indexes against each other: the
// expiry and pending mirrors, interned symbol identity, reference counts and
// group counters.
func (s *Store) checkInvariants(t testing.TB) {
	t.Helper()
	type pairCount struct{ committed, pending int }
	counts := map[*pairSymbol]*pairCount{}
	count := func(p *pairSymbol) *pairCount {
		c := counts[p]
		if c == nil {
			c = &pairCount{}
			counts[p] = c
		}
		return c
	}
	require.Equal(t, s.committed.Len(), s.expiry.Len(), "expiry index size")
	s.committed.Ascend(func(it committedItem) bool {
		require.True(t, s.expiry.Has(it.expiry(s.retentionMs)), "committed %v missing from expiry index", it.key())
		count(it.pair).committed++
		return true
	})
	require.Equal(t, s.pendingByProducer.Len(), s.pendingByPartition.Len(), "pending mirror size")
	s.pendingByProducer.Ascend(func(it pendingItem) bool {
		require.True(t, s.pendingByPartition.Has(pendingRef{pair: it.pair, partition: it.partition, producerID: it.producerID}))
		count(it.pair).pending++
		return true
	})
	groups := map[string]*groupEntry{}
	topics := map[string]int{}
	require.Equal(t, len(counts), s.symbols.pairs.Len(), "live symbols")
	s.symbols.pairs.Ascend(func(e pairEntry) bool {
		c := counts[e.sym]
		require.NotNil(t, c, "symbol %q/%q without items (or items with a foreign symbol)", e.group, e.topic)
		require.Equal(t, c.committed+c.pending, e.refs, "refs of %q/%q", e.group, e.topic)
		require.Equal(t, e.group, e.sym.group)
		require.Equal(t, e.topic, e.sym.topic)
		g := groups[e.group]
		if g == nil {
			g = &groupEntry{name: e.group}
			groups[e.group] = g
		}
		g.committed += c.committed
		g.pending += c.pending
		g.pairs++
		topics[e.topic]++
		return true
	})
	require.Equal(t, len(groups), s.symbols.groups.Len(), "group entries")
	s.symbols.groups.Ascend(func(e groupEntry) bool {
		require.NotNil(t, groups[e.name], "group %q", e.name)
		require.Equal(t, *groups[e.name], e, "group %q", e.name)
		return true
	})
	require.Equal(t, len(topics), s.symbols.topics.Len(), "topic entries")
	s.symbols.topics.Ascend(func(e topicEntry) bool {
		require.Equal(t, topics[e.name], e.refs, "topic %q", e.name)
		return true
	})
	if s.symbols.last != nil {
		e, ok := s.symbols.pairs.Get(pairEntry{group: s.symbols.last.group, topic: s.symbols.last.topic})
		require.True(t, ok && e.sym == s.symbols.last, "cached symbol is not live")
	}
}

// op is one random mutation, applied identically to a Store and the model.
type op struct {
	kind       int // 0 commit, 1 delete, 2 commit pending, 3 end transaction, 4 end a producer's transaction
	k          Key
	v          OffsetAndMetadata
	producerID int64
	commit     bool
}

func (o op) String() string {
	switch o.kind {
	case 0:
		return fmt.Sprintf("Commit(%v, %+v)", o.k, o.v)
	case 1:
		return fmt.Sprintf("Delete(%v)", o.k)
	case 2:
		return fmt.Sprintf("CommitPending(%d, %v, %+v)", o.producerID, o.k, o.v)
	case 3:
		return fmt.Sprintf("EndTransaction(%d, %q, %v)", o.producerID, o.k.Group, o.commit)
	default:
		return fmt.Sprintf("EndProducerTransaction(%d, %v)", o.producerID, o.commit)
	}
}

func (o op) apply(t testing.TB, s *Store, m *model) {
	t.Helper()
	switch o.kind {
	case 0:
		s.Commit(o.k, o.v)
		m.commit(o.k, o.v)
	case 1:
		assert.Equal(t, m.delete(o.k), s.Delete(o.k), "%v", o)
	case 2:
		s.CommitPending(o.producerID, o.k, o.v)
		m.commitPending(o.producerID, o.k, o.v)
	case 3:
		s.EndTransaction(o.producerID, o.k.Group, o.commit)
		m.endTransaction(o.producerID, o.k.Group, false, o.commit)
	default:
		var groups []string
		s.EndProducerTransaction(o.producerID, o.commit, func(g string) { groups = append(groups, g) })
		want := m.pendingGroups(o.producerID)
		m.endTransaction(o.producerID, "", true, o.commit)
		requireSameList(t, want, groups, "%v: groups touched", o)
	}
}

// requireSameList compares two lists by their elements: the model builds
// its lists by deleting from slices (leaving empty, non-nil ones) where the
// Store appends to nil, and both mean "nothing".
func requireSameList[T any](t testing.TB, want, got []T, msgAndArgs ...any) {
	t.Helper()
	if len(want) == 0 && len(got) == 0 {
		return
	}
	require.Equal(t, want, got, msgAndArgs...)
}
