package shard

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Tests of the share-group simple assignor, after Kafka's SimpleAssignorTest
// (docs/share-groups.md §2.4).

// shareCase is one assignor input: members (sorted by id here) and the
// partition count of every topic (0 or absent = missing topic).
type shareCase struct {
	members []assignee
	topics  map[string]int32
}

func (c shareCase) partitionsOf(t string) int32 { return c.topics[t] }

func (c shareCase) assign() [][]TopicPartitions {
	return assignShareSimple(c.members, c.partitionsOf)
}

func shareMember(id string, topics ...string) assignee {
	return assignee{id: id, subs: sortedTopics(topics)}
}

// withPrevious returns the members with out as their previous targets.
func withPrevious(members []assignee, out [][]TopicPartitions) []assignee {
	ms := slices.Clone(members)
	for i := range ms {
		ms[i].previous = out[i]
	}
	return ms
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

type topicPart struct {
	topic string
	p     int32
}

// checkShareAssignment asserts every property of a valid simple-assignor
// result and returns the holders of every partition.
func checkShareAssignment(t testing.TB, c shareCase, out [][]TopicPartitions) map[topicPart][]int {
	t.Helper()
	require.Len(t, out, len(c.members))
	holders := map[topicPart][]int{}
	counts := make([]int, len(c.members))
	for i, a := range out {
		m := c.members[i]
		require.True(t, slices.IsSortedFunc(a, func(x, y TopicPartitions) int { return strings.Compare(x.Topic, y.Topic) }), "member %s: topics not sorted: %v", m.id, a)
		for k, tp := range a {
			if k > 0 {
				require.NotEqual(t, a[k-1].Topic, tp.Topic, "member %s: topic %s twice", m.id, tp.Topic)
			}
			require.NotEmpty(t, tp.Partitions, "member %s: empty entry for %s", m.id, tp.Topic)
			_, subscribed := slices.BinarySearch(m.subs, tp.Topic)
			require.True(t, subscribed, "member %s got unsubscribed topic %s", m.id, tp.Topic)
			require.True(t, slices.IsSorted(tp.Partitions) && len(slices.Compact(slices.Clone(tp.Partitions))) == len(tp.Partitions),
				"member %s: partitions of %s not strictly ascending: %v", m.id, tp.Topic, tp.Partitions)
			for _, p := range tp.Partitions {
				require.True(t, p >= 0 && p < c.topics[tp.Topic], "member %s: %s-%d does not exist", m.id, tp.Topic, p)
				holders[topicPart{tp.Topic, p}] = append(holders[topicPart{tp.Topic, p}], i)
				counts[i]++
			}
		}
	}

	// Blocks: topics with the same set of subscribers.
	subscribers := func(topic string) []int {
		var s []int
		for i, m := range c.members {
			if _, ok := slices.BinarySearch(m.subs, topic); ok {
				s = append(s, i)
			}
		}
		return s
	}
	blocks := map[string][]string{}
	for topic, n := range c.topics {
		subs := subscribers(topic)
		if n <= 0 || len(subs) == 0 {
			for p := range max(n, 0) {
				require.Empty(t, holders[topicPart{topic, p}], "%s-%d has no subscriber but holders", topic, p)
			}
			continue
		}
		// assertEveryPartitionGetsAssignment, and sharing <= ceil(M_t/P_t)
		// (exactly one member when M_t <= P_t).
		for p := range n {
			h := holders[topicPart{topic, p}]
			require.NotEmpty(t, h, "%s-%d unassigned", topic, p)
			require.LessOrEqual(t, len(h), ceilDiv(len(subs), int(n)), "%s-%d over-shared", topic, p)
			if len(subs) <= int(n) {
				require.Len(t, h, 1, "%s-%d must be exclusive (M=%d <= P=%d)", topic, p, len(subs), n)
			}
		}
		key := fmt.Sprint(subs)
		blocks[key] = append(blocks[key], topic)
	}
	// Inside a block the sharing is exactly ceil(M/P) and member counts
	// differ by at most one.
	for key, topics := range blocks {
		subs := subscribers(topics[0])
		P := 0
		for _, topic := range topics {
			P += int(c.topics[topic])
		}
		S := ceilDiv(len(subs), P)
		per := map[int]int{}
		for _, topic := range topics {
			for p := range c.topics[topic] {
				h := holders[topicPart{topic, p}]
				require.Len(t, h, S, "block %s: %s-%d sharing", key, topic, p)
				for _, i := range h {
					per[i]++
				}
			}
		}
		lo, hi := P*S, 0
		for _, i := range subs {
			lo, hi = min(lo, per[i]), max(hi, per[i])
		}
		require.LessOrEqual(t, hi-lo, 1, "block %s: unbalanced counts %v", key, per)
	}
	// Members with the same subscriptions are within one partition.
	bySubs := map[string][]int{}
	for i, m := range c.members {
		var existing []string
		for _, s := range m.subs {
			if c.topics[s] > 0 {
				existing = append(existing, s)
			}
		}
		bySubs[strings.Join(existing, ",")] = append(bySubs[strings.Join(existing, ",")], i)
	}
	for key, idx := range bySubs {
		lo, hi := counts[idx[0]], counts[idx[0]]
		for _, i := range idx {
			lo, hi = min(lo, counts[i]), max(hi, counts[i])
		}
		require.LessOrEqual(t, hi-lo, 1, "members subscribed to [%s] unbalanced", key)
	}
	return holders
}

// retained counts the (member, partition) pairs of prev still assigned in
// out, over the members present in both (matched by id), and a lower bound
// on what a sticky assignor keeps in a homogeneous group with sharing S:
// every surviving member keeps min(previous, new) partitions, except those
// the new sharing forces off over-shared partitions.
func retained(prevMembers []assignee, prev [][]TopicPartitions, members []assignee, out [][]TopicPartitions, S int) (kept, total, bound int) {
	now := map[string]map[topicPart]bool{}
	for i, m := range members {
		set := map[topicPart]bool{}
		for _, tp := range out[i] {
			for _, p := range tp.Partitions {
				set[topicPart{tp.Topic, p}] = true
			}
		}
		now[m.id] = set
	}
	prevHolders := map[topicPart]int{}
	for i, m := range prevMembers {
		set, ok := now[m.id]
		if !ok {
			continue
		}
		n := 0
		for _, tp := range prev[i] {
			for _, p := range tp.Partitions {
				n++
				prevHolders[topicPart{tp.Topic, p}]++
				if set[topicPart{tp.Topic, p}] {
					kept++
				}
			}
		}
		total += n
		bound += min(n, len(set))
	}
	for _, h := range prevHolders {
		bound -= max(0, h-S)
	}
	return kept, total, bound
}

func memberIDs(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("member-%03d", i)
	}
	return ids
}

func homogeneous(ids []string, topics ...string) []assignee {
	ms := make([]assignee, len(ids))
	for i, id := range ids {
		ms[i] = shareMember(id, topics...)
	}
	return ms
}

func TestShareSimpleAssignorNoMembersOrTopics(t *testing.T) {
	require.Nil(t, assignShareSimple(nil, func(string) int32 { return 3 }))
	c := shareCase{members: []assignee{shareMember("a", "missing"), shareMember("b")}, topics: map[string]int32{"other": 3}}
	out := c.assign()
	require.Equal(t, [][]TopicPartitions{nil, nil}, out)
	checkShareAssignment(t, c, out)
}

// M <= P: every partition has exactly one member, as in a consumer group.
func TestShareSimpleAssignorExclusiveWhenMembersAtMostPartitions(t *testing.T) {
	for _, tc := range []struct {
		members int
		topics  map[string]int32
	}{
		{1, map[string]int32{"t1": 3}},
		{3, map[string]int32{"t1": 3}},
		{2, map[string]int32{"t1": 3, "t2": 2}},
		{5, map[string]int32{"t1": 3, "t2": 2}},
		{4, map[string]int32{"t1": 24}},
	} {
		names := sortedTopics(slices.Collect(func(yield func(string) bool) {
			for k := range tc.topics {
				if !yield(k) {
					return
				}
			}
		}))
		c := shareCase{members: homogeneous(memberIDs(tc.members), names...), topics: tc.topics}
		out := c.assign()
		holders := checkShareAssignment(t, c, out)
		for tp, h := range holders {
			require.Len(t, h, 1, "%v", tp)
		}
	}
	// Kafka's testAssignWithTwoMembersAndTwoTopicsHomogeneous-like layout.
	c := shareCase{members: homogeneous([]string{"a", "b"}, "t1", "t2"), topics: map[string]int32{"t1": 3, "t2": 3}}
	require.Equal(t, [][]TopicPartitions{
		{{Topic: "t1", Partitions: []int32{0, 2}}, {Topic: "t2", Partitions: []int32{1}}},
		{{Topic: "t1", Partitions: []int32{1}}, {Topic: "t2", Partitions: []int32{0, 2}}},
	}, c.assign())
}

// M > P: partitions are shared by ceil(M/P) members, counts differ by <= 1.
func TestShareSimpleAssignorSharesWhenMoreMembersThanPartitions(t *testing.T) {
	c := shareCase{members: homogeneous(memberIDs(5), "t"), topics: map[string]int32{"t": 2}}
	out := c.assign()
	holders := checkShareAssignment(t, c, out)
	require.Len(t, holders[topicPart{"t", 0}], 3)
	require.Len(t, holders[topicPart{"t", 1}], 3)
	counts := []int{}
	for _, a := range out {
		counts = append(counts, countPartitions(a))
	}
	slices.Sort(counts)
	require.Equal(t, []int{1, 1, 1, 1, 2}, counts) // 6 slots over 5 members

	// One partition, many members: everybody shares it.
	c = shareCase{members: homogeneous(memberIDs(7), "t"), topics: map[string]int32{"t": 1}}
	out = c.assign()
	checkShareAssignment(t, c, out)
	for _, a := range out {
		require.Equal(t, []TopicPartitions{{Topic: "t", Partitions: []int32{0}}}, a)
	}
}

// Kafka's incremental tests: grow from 1 to 101 members on 24 partitions,
// then shrink back, each step valid and sticky.
func TestShareSimpleAssignorIncrementalGrowthAndShrink(t *testing.T) {
	for _, topics := range []map[string]int32{{"t": 24}, {"a": 10, "b": 14}} {
		var names []string
		for _, n := range []string{"a", "b", "t"} {
			if topics[n] > 0 {
				names = append(names, n)
			}
		}
		ids := memberIDs(101)
		keptAll, totalAll := 0, 0
		var members []assignee
		var prev [][]TopicPartitions
		step := func(next []assignee, what string) {
			t.Helper()
			prevMembers := members
			// Carry each surviving member's previous target.
			byID := map[string][]TopicPartitions{}
			for i, m := range prevMembers {
				byID[m.id] = prev[i]
			}
			for i := range next {
				next[i].previous = byID[next[i].id]
			}
			c := shareCase{members: next, topics: topics}
			out := c.assign()
			checkShareAssignment(t, c, out)
			// Sticky: only what balance forces moves.
			S := ceilDiv(len(next), 24)
			kept, total, bound := retained(prevMembers, prev, next, out, S)
			require.GreaterOrEqual(t, kept, bound, "%s: kept %d of %d", what, kept, total)
			keptAll += kept
			totalAll += total
			// Idempotent: recomputing with nothing changed moves nothing.
			again := shareCase{members: withPrevious(next, out), topics: topics}.assign()
			require.Equal(t, out, again, "%s: not stable", what)
			members, prev = next, out
		}
		for n := 1; n <= 101; n++ {
			step(homogeneous(ids[:n], names...), fmt.Sprintf("grow to %d", n))
		}
		rng := rand.New(rand.NewPCG(24, 101))
		for len(members) > 1 {
			next := slices.Clone(members)
			k := rng.IntN(len(next))
			next = slices.Delete(next, k, k+1)
			step(next, fmt.Sprintf("shrink to %d", len(next)))
		}
		t.Logf("%v: kept %d of %d previous (member, partition) pairs over all steps", topics, keptAll, totalAll)
		require.Greater(t, float64(keptAll)/float64(totalAll), 0.8)
	}
}

func TestShareSimpleAssignorHeterogeneous(t *testing.T) {
	c := shareCase{
		members: []assignee{
			shareMember("a", "t1", "t2"),
			shareMember("b", "t2"),
			shareMember("c", "t2", "t3"),
			shareMember("d", "t3"),
			shareMember("e", "t3"),
			shareMember("f", "t4"), // missing topic
		},
		topics: map[string]int32{"t1": 3, "t2": 2, "t3": 1, "unused": 4},
	}
	out := c.assign()
	holders := checkShareAssignment(t, c, out)
	// t1 only has a: all three partitions; t2 (3 subscribers, 2 partitions)
	// is shared by two; t3 (3 subscribers, 1 partition) by all three.
	// a, loaded by t1, gets the smaller t2 quota (one partition).
	require.Equal(t, []TopicPartitions{{Topic: "t1", Partitions: []int32{0, 1, 2}}, {Topic: "t2", Partitions: []int32{1}}}, out[0])
	require.Len(t, holders[topicPart{"t2", 0}], 2)
	require.Len(t, holders[topicPart{"t2", 1}], 2)
	require.Equal(t, []int{2, 3, 4}, holders[topicPart{"t3", 0}])
	require.Nil(t, out[5])

	// Subscription change: partitions no longer subscribed are dropped and
	// the new topic is covered.
	ms := withPrevious(c.members, out)
	ms[0].subs = []string{"t3"}
	c2 := shareCase{members: ms, topics: c.topics}
	out2 := c2.assign()
	checkShareAssignment(t, c2, out2)
	require.Equal(t, []TopicPartitions{{Topic: "t3", Partitions: []int32{0}}}, out2[0])
}

// Partitions that disappear (topic shrink or deletion) and bogus previous
// entries are dropped; surviving ones stay where they were.
func TestShareSimpleAssignorDropsVanishedPartitions(t *testing.T) {
	members := []assignee{shareMember("a", "t"), shareMember("b", "t")}
	members[0].previous = []TopicPartitions{{Topic: "t", Partitions: []int32{0, 1, 5, 7, 1}}, {Topic: "gone", Partitions: []int32{0}}}
	members[1].previous = []TopicPartitions{{Topic: "t", Partitions: []int32{2, 3, -1}}}
	c := shareCase{members: members, topics: map[string]int32{"t": 4}}
	out := c.assign()
	checkShareAssignment(t, c, out)
	require.Equal(t, [][]TopicPartitions{
		{{Topic: "t", Partitions: []int32{0, 1}}},
		{{Topic: "t", Partitions: []int32{2, 3}}},
	}, out)
}

// The result depends on the inputs only: not on map iteration order, nor on
// the order of a member's previous topics and partitions.
func TestShareSimpleAssignorDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	c := randomShareCase(rng)
	out := c.assign()
	checkShareAssignment(t, c, out)
	c = shareCase{members: withPrevious(c.members, out), topics: c.topics}
	// Perturb: new members, a changed subscription, then shuffle previous.
	c.members = append(c.members, shareMember("zz-new", "t0", "t1"))
	c.members[0].subs = []string{"t1", "t2"}
	want := c.assign()
	for range 20 {
		shuffled := slices.Clone(c.members)
		for i := range shuffled {
			prev := slices.Clone(shuffled[i].previous)
			rng.Shuffle(len(prev), func(a, b int) { prev[a], prev[b] = prev[b], prev[a] })
			for k := range prev {
				ps := slices.Clone(prev[k].Partitions)
				rng.Shuffle(len(ps), func(a, b int) { ps[a], ps[b] = ps[b], ps[a] })
				prev[k].Partitions = ps
			}
			shuffled[i].previous = prev
		}
		require.Equal(t, want, shareCase{members: shuffled, topics: c.topics}.assign())
	}
}

// randomShareCase draws members (some with no or missing topics), topic
// sizes (some missing) and arbitrary previous targets.
func randomShareCase(rng *rand.Rand) shareCase {
	nTopics := 1 + rng.IntN(5)
	topics := map[string]int32{}
	for i := range nTopics {
		if rng.IntN(8) > 0 {
			topics[fmt.Sprintf("t%d", i)] = int32(1 + rng.IntN(30))
		}
	}
	homog := rng.IntN(3) == 0
	var common []string
	for i := range nTopics + 1 { // t<nTopics> never exists
		if rng.IntN(2) == 0 {
			common = append(common, fmt.Sprintf("t%d", i))
		}
	}
	n := rng.IntN(60)
	members := make([]assignee, n)
	for i := range members {
		subs := common
		if !homog {
			subs = nil
			for k := range nTopics + 1 {
				if rng.IntN(2) == 0 {
					subs = append(subs, fmt.Sprintf("t%d", k))
				}
			}
		}
		m := shareMember(fmt.Sprintf("m%02d", i), subs...)
		for k := range nTopics + 1 {
			if rng.IntN(3) > 0 {
				continue
			}
			tp := TopicPartitions{Topic: fmt.Sprintf("t%d", k)}
			for range rng.IntN(8) {
				tp.Partitions = append(tp.Partitions, int32(rng.IntN(35))) // may not exist
			}
			m.previous = append(m.previous, tp)
		}
		members[i] = m
	}
	return shareCase{members: members, topics: topics}
}

// Property test over random member sets, subscriptions and topic sizes.
func TestShareSimpleAssignorProperties(t *testing.T) {
	for seed := range uint64(300) {
		rng := rand.New(rand.NewPCG(seed, 0x5ea4e))
		c := randomShareCase(rng)
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			out := c.assign()
			checkShareAssignment(t, c, out)
			require.Equal(t, out, c.assign(), "not deterministic")

			// Stable: recomputing from its own output changes nothing.
			c2 := shareCase{members: withPrevious(c.members, out), topics: c.topics}
			require.Equal(t, out, c2.assign(), "not stable")

			// One member leaves and one joins (subscribed like the first
			// member): still valid.
			next := slices.Clone(c2.members)
			var subs []string
			if len(next) > 0 {
				subs = next[0].subs
				k := rng.IntN(len(next))
				next = slices.Delete(next, k, k+1)
			}
			next = append(next, shareMember("zz", subs...))
			c3 := shareCase{members: next, topics: c.topics}
			out3 := c3.assign()
			checkShareAssignment(t, c3, out3)
		})
	}
}
