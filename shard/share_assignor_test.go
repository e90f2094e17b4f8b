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
	return assignShareSimple(c.members, c.partitionsOf, func(string, int32) bool { return true }, DefaultTopicID)
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

// checkShareAssignment asserts what Kafka's SimpleAssignor guarantees (and
// SimpleAssignorTest checks): assertEveryPartitionGetsAssignment for every
// existing topic with a subscriber, only subscribed and existing partitions,
// and no partition shared by more than the desired sharing ceil(M/P) of its
// builder (all members and partitions when homogeneous, the topic's
// subscribers and partitions otherwise). A heterogeneous group is the
// exception Kafka's builder makes: a member keeps, as they were, its
// previous partitions of a topic no member subscribes to (or that does not
// exist), which it never visits. It returns the holders of every
// partition.
func checkShareAssignment(t testing.TB, c shareCase, out [][]TopicPartitions) map[topicPart][]int {
	t.Helper()
	if len(c.members) == 0 {
		require.Empty(t, out)
		return nil
	}
	require.Len(t, out, len(c.members))
	homog := shareHomogeneous(c.members)
	kept := map[string]bool{} // topics the heterogeneous builder leaves alone
	if !homog {
		for _, m := range c.members {
			for _, prev := range m.previous {
				kept[prev.Topic] = true
			}
		}
		for _, m := range c.members {
			for _, s := range m.subs {
				if c.topics[s] > 0 {
					delete(kept, s)
				}
			}
		}
	}
	holders := map[topicPart][]int{}
	for i, a := range out {
		m := c.members[i]
		require.True(t, slices.IsSortedFunc(a, func(x, y TopicPartitions) int { return strings.Compare(x.Topic, y.Topic) }), "member %s: topics not sorted: %v", m.id, a)
		for k, tp := range a {
			if k > 0 {
				require.NotEqual(t, a[k-1].Topic, tp.Topic, "member %s: topic %s twice", m.id, tp.Topic)
			}
			if len(tp.Partitions) == 0 {
				// Kafka's builders leave a topic whose partitions were all
				// revoked in the member's map, empty; no other entry is empty.
				require.True(t, slices.ContainsFunc(m.previous, func(prev TopicPartitions) bool { return prev.Topic == tp.Topic }),
					"member %s: empty entry for %s, which its previous target lacks", m.id, tp.Topic)
				continue
			}
			if kept[tp.Topic] {
				want := map[int32]bool{}
				for _, prev := range m.previous {
					if prev.Topic == tp.Topic {
						for _, p := range prev.Partitions {
							want[p] = true
						}
					}
				}
				for _, p := range tp.Partitions {
					require.True(t, want[p], "member %s: %s-%d of an unvisited topic was not its own", m.id, tp.Topic, p)
				}
				continue
			}
			_, subscribed := slices.BinarySearch(m.subs, tp.Topic)
			require.True(t, subscribed, "member %s got unsubscribed topic %s", m.id, tp.Topic)
			require.True(t, slices.IsSorted(tp.Partitions) && len(slices.Compact(slices.Clone(tp.Partitions))) == len(tp.Partitions),
				"member %s: partitions of %s not strictly ascending: %v", m.id, tp.Topic, tp.Partitions)
			for _, p := range tp.Partitions {
				require.True(t, p >= 0 && p < c.topics[tp.Topic], "member %s: %s-%d does not exist", m.id, tp.Topic, p)
				holders[topicPart{tp.Topic, p}] = append(holders[topicPart{tp.Topic, p}], i)
			}
		}
	}
	totalP := 0
	if homog {
		for _, s := range c.members[0].subs {
			totalP += int(max(c.topics[s], 0))
		}
	}
	for topic, n := range c.topics {
		var subs []int
		for i, m := range c.members {
			if _, ok := slices.BinarySearch(m.subs, topic); ok {
				subs = append(subs, i)
			}
		}
		if n <= 0 || len(subs) == 0 {
			continue
		}
		S := ceilDiv(len(subs), int(n))
		if homog {
			S = ceilDiv(len(c.members), totalP)
		}
		for p := range n {
			h := holders[topicPart{topic, p}]
			require.NotEmpty(t, h, "%s-%d unassigned", topic, p)
			require.LessOrEqual(t, len(h), S, "%s-%d over-shared", topic, p)
		}
	}
	return holders
}

func homogeneous(ids []string, topics ...string) []assignee {
	ms := make([]assignee, len(ids))
	for i, id := range ids {
		ms[i] = shareMember(id, topics...)
	}
	return ms
}

// SimpleAssignorTest.testAssignWithEmptyMembers: no members, no assignment
// (homogeneous or not).
func TestAssignWithEmptyMembers(t *testing.T) {
	require.Nil(t, shareCase{topics: map[string]int32{"topic1": 3}}.assign())
}

// SimpleAssignorTest.testAssignWithNoSubscribedTopic: Kafka returns an empty
// GroupAssignment; here the member's entry is empty.
func TestAssignWithNoSubscribedTopic(t *testing.T) {
	out := shareCase{members: []assignee{shareMember("A")}, topics: map[string]int32{"topic1": 3}}.assign()
	require.Equal(t, [][]TopicPartitions{nil}, out)
}

// SimpleAssignorTest.testAssignWithSubscribedToNonExistentTopic: Kafka's
// builders throw PartitionAssignorException for a subscribed topic id
// missing from the metadata. That cannot reach them (ModernGroup resolves
// subscribed names through the metadata image, dropping unknown ones), and
// here the assignor gets names, so a missing topic is dropped the same way:
// nothing is assigned.
func TestAssignWithSubscribedToNonExistentTopic(t *testing.T) {
	out := shareCase{members: []assignee{shareMember("A", "topic2")}, topics: map[string]int32{"topic1": 3}}.assign()
	require.Equal(t, [][]TopicPartitions{nil}, out)
}

// SimpleAssignorTest.testAssignWithTwoMembersAndTwoTopicsHomogeneous: Kafka
// asserts assertEveryPartitionGetsAssignment(5). With members and partitions
// walked in order the result is also fixed: desired counts 3 and 2, the
// partitions handed out round robin.
func TestAssignWithTwoMembersAndTwoTopicsHomogeneous(t *testing.T) {
	c := shareCase{
		members: []assignee{shareMember("A", "topic1", "topic3"), shareMember("B", "topic1", "topic3")},
		topics:  map[string]int32{"topic1": 3, "topic3": 2},
	}
	out := c.assign()
	require.Len(t, checkShareAssignment(t, c, out), 5)
	require.Equal(t, [][]TopicPartitions{
		{{Topic: "topic1", Partitions: []int32{0, 2}}, {Topic: "topic3", Partitions: []int32{1}}},
		{{Topic: "topic1", Partitions: []int32{1}}, {Topic: "topic3", Partitions: []int32{0}}},
	}, out)
}

// SimpleAssignorTest.testAssignWithThreeMembersThreeTopicsHeterogeneous:
// A {topic1, topic2}, B {topic3}, C {topic2, topic3}; every one of the 8
// partitions assigned. Per topic: topic1 all to A; topic2 desired counts A 2,
// C 1 (as in Kafka's ...WithNonAssignableTopic expectation: A 0,2 and C 1);
// topic3 one each.
func TestAssignWithThreeMembersThreeTopicsHeterogeneous(t *testing.T) {
	c := shareCase{
		members: []assignee{shareMember("A", "topic1", "topic2"), shareMember("B", "topic3"), shareMember("C", "topic2", "topic3")},
		topics:  map[string]int32{"topic1": 3, "topic2": 3, "topic3": 2},
	}
	out := c.assign()
	require.Len(t, checkShareAssignment(t, c, out), 8)
	require.Equal(t, [][]TopicPartitions{
		{{Topic: "topic1", Partitions: []int32{0, 1, 2}}, {Topic: "topic2", Partitions: []int32{0, 2}}},
		{{Topic: "topic3", Partitions: []int32{0}}},
		{{Topic: "topic2", Partitions: []int32{1}}, {Topic: "topic3", Partitions: []int32{1}}},
	}, out)
}

// SimpleAssignorTest.testAssignWithOneMemberNoAssignedTopicHeterogeneous.
func TestAssignWithOneMemberNoAssignedTopicHeterogeneous(t *testing.T) {
	c := shareCase{
		members: []assignee{shareMember("A", "topic1", "topic2"), shareMember("B")},
		topics:  map[string]int32{"topic1": 3, "topic2": 2},
	}
	out := c.assign()
	require.Len(t, checkShareAssignment(t, c, out), 5)
	require.Equal(t, [][]TopicPartitions{
		{{Topic: "topic1", Partitions: []int32{0, 1, 2}}, {Topic: "topic2", Partitions: []int32{0, 1}}},
		nil,
	}, out)
}

// sortedByID sorts members by id, as the shard hands them to the assignor.
func sortedByID(ms []assignee) []assignee {
	ms = slices.Clone(ms)
	slices.SortFunc(ms, func(a, b assignee) int { return strings.Compare(a.id, b.id) })
	return ms
}

// incremental grows a group of 101 members "M0".."M100" one member at a
// time, or builds it whole and shrinks it to one, feeding every result back
// as the previous assignment and asserting assertEveryPartitionGetsAssignment
// each time (SimpleAssignorTest.testIncrementalAssignment*).
func incremental(t *testing.T, topics map[string]int32, subsOf func(i int) []string, grow bool) {
	const numMembers = 101
	mk := func(n int) []assignee {
		ms := make([]assignee, n)
		for i := range ms {
			ms[i] = shareMember(fmt.Sprintf("M%d", i), subsOf(i)...)
		}
		return ms
	}
	prev := map[string][]TopicPartitions{}
	step := func(ms []assignee) {
		ms = sortedByID(ms)
		for i := range ms {
			ms[i].previous = prev[ms[i].id]
		}
		c := shareCase{members: ms, topics: topics}
		out := c.assign()
		checkShareAssignment(t, c, out)
		prev = map[string][]TopicPartitions{}
		for i, m := range ms {
			prev[m.id] = out[i]
		}
	}
	if grow {
		for n := 1; n <= numMembers; n++ {
			step(mk(n))
		}
		return
	}
	for n := numMembers; n >= 1; n-- {
		step(mk(n))
	}
}

func TestIncrementalAssignmentIncreasingMembersHomogeneous(t *testing.T) {
	incremental(t, map[string]int32{"topic1": 24}, func(int) []string { return []string{"topic1"} }, true)
}

func TestIncrementalAssignmentDecreasingMembersHomogeneous(t *testing.T) {
	incremental(t, map[string]int32{"topic1": 24}, func(int) []string { return []string{"topic1"} }, false)
}

// The heterogeneous variants: topics of 12, 8 and 4 partitions, members
// subscribed round robin to {1,2,3}, {2}, {3}, {1,2}.
var incrementalSubs = [][]string{{"topic1", "topic2", "topic3"}, {"topic2"}, {"topic3"}, {"topic1", "topic2"}}

func TestIncrementalAssignmentIncreasingMembersHeterogeneous(t *testing.T) {
	incremental(t, map[string]int32{"topic1": 12, "topic2": 8, "topic3": 4}, func(i int) []string { return incrementalSubs[i%4] }, true)
}

func TestIncrementalAssignmentDecreasingMembersHeterogeneous(t *testing.T) {
	incremental(t, map[string]int32{"topic1": 12, "topic2": 8, "topic3": 4}, func(i int) []string { return incrementalSubs[i%4] }, false)
}

// SimpleAssignorTest.testAssignWithCurrentAssignmentHeterogeneous: A {1,2},
// B {3}, C {2,3}, then A {1,2,3} and B {3,4} keeping A's and B's targets
// (topic4 of one partition is created): all 8, then all 9, partitions
// assigned.
func TestAssignWithCurrentAssignmentHeterogeneous(t *testing.T) {
	c1 := shareCase{
		members: []assignee{shareMember("A", "topic1", "topic2"), shareMember("B", "topic3"), shareMember("C", "topic2", "topic3")},
		topics:  map[string]int32{"topic1": 3, "topic2": 3, "topic3": 2},
	}
	require.Len(t, checkShareAssignment(t, c1, c1.assign()), 8)

	a, b := shareMember("A", "topic1", "topic2", "topic3"), shareMember("B", "topic3", "topic4")
	a.previous = []TopicPartitions{{Topic: "topic1", Partitions: []int32{0, 1, 2}}, {Topic: "topic2", Partitions: []int32{0, 2}}}
	b.previous = []TopicPartitions{{Topic: "topic3", Partitions: []int32{0, 1}}}
	c2 := shareCase{members: []assignee{a, b}, topics: map[string]int32{"topic1": 3, "topic2": 3, "topic3": 2, "topic4": 1}}
	out := c2.assign()
	require.Len(t, checkShareAssignment(t, c2, out), 9)
	// topic3 (A, B; desired 1 each): B is over by one and gives up its
	// lowest partition, which A then takes.
	require.Equal(t, [][]TopicPartitions{
		{{Topic: "topic1", Partitions: []int32{0, 1, 2}}, {Topic: "topic2", Partitions: []int32{0, 1, 2}}, {Topic: "topic3", Partitions: []int32{0}}},
		{{Topic: "topic3", Partitions: []int32{1}}, {Topic: "topic4", Partitions: []int32{0}}},
	}, out)
}

// SimpleHomogeneousAssignmentBuilder's order: revokeOverfilledMembers, then
// revokeOversharedPartitions, then assignRemainingPartitions. Three members
// share one partition (S = 3) and a fourth joins a topic of two partitions
// (S = 2, desired 1 each): every member keeps at most one, the first holders
// by index leave an over-shared partition.
func TestShareSimpleAssignorRevokesOverfilledThenOvershared(t *testing.T) {
	ms := homogeneous([]string{"a", "b", "c", "d"}, "t")
	for i := range 3 {
		ms[i].previous = []TopicPartitions{{Topic: "t", Partitions: []int32{0, 1}}}
	}
	c := shareCase{members: ms, topics: map[string]int32{"t": 2}}
	out := c.assign()
	checkShareAssignment(t, c, out)
	// Overfilled a, b, c drop the first partition of their HashSet of
	// TopicIdPartition, t-1 for this topic's id (31 * Uuid.hashCode() + 1
	// lands in an earlier bucket than + 0); t-0 (a, b, c) is over-shared
	// by one and drops a, its first holder. Unfilled a and d (ascending)
	// then take t-1.
	require.Equal(t, [][]TopicPartitions{
		{{Topic: "t", Partitions: []int32{1}}},
		{{Topic: "t", Partitions: []int32{0}}},
		{{Topic: "t", Partitions: []int32{0}}},
		{{Topic: "t", Partitions: []int32{1}}},
	}, out)
}

// A previous partition beyond the topic's partition count (a topic
// recreated smaller) or of a topic no longer subscribed is dropped.
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

// The desired counts are the steps of Kafka's double-precision ceil
// staircase: they differ by at most one and sum to S·P, or one more where
// the double q·M rounds above S·P (M=7, P=29: ceil(29/7.0·7) = 30), as in
// Kafka.
func TestShareSimpleAssignorDesiredCounts(t *testing.T) {
	s, counts := shareDesired(2, 5)
	require.Equal(t, 1, s)
	require.Equal(t, []int{3, 2}, counts)
	s, counts = shareDesired(5, 2)
	require.Equal(t, 3, s)
	require.Equal(t, []int{2, 1, 1, 1, 1}, counts)
	_, counts = shareDesired(7, 29)
	require.Equal(t, []int{5, 4, 4, 4, 4, 4, 5}, counts)
	for m := 1; m <= 60; m++ {
		for p := 1; p <= 40; p++ {
			s, counts := shareDesired(m, p)
			sum := 0
			for _, c := range counts {
				sum += c
			}
			require.True(t, sum == s*p || sum == s*p+1, "m=%d p=%d: sum %d", m, p, sum)
			require.LessOrEqual(t, slices.Max(counts)-slices.Min(counts), 1, "m=%d p=%d", m, p)
		}
	}
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
