package shard

import (
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/coordsim/coordsim/assignor/javaorder"
)

// assignShareSimple is the share-group "simple" assignor (KIP-932,
// docs/share-groups.md §2.4), a port of Kafka's
// org.apache.kafka.coordinator.group.assignor.SimpleAssignor.assign: with
// every member subscribed to the same topics it runs
// SimpleHomogeneousAssignmentBuilder.build over all subscribed partitions
// together, otherwise SimpleHeterogeneousAssignmentBuilder.build, which
// assigns each topic on its own among that topic's subscribers ("balance is
// computed for each topic individually and then the assignments are
// combined").
//
// For one set of M members and P target partitions both builders use a
// desired sharing S = ceil(M/P) and desired per-member counts
// ceil(q·(i+1)) − ceil(q·i) with q = S·P/M as a Java double (so the same
// floats as Kafka), i the member's index. Starting from the previous
// assignment they
//  1. revokeUnassignablePartitions: drop topics no longer subscribed,
//  2. revokeOverfilledMembers: a member above its count drops partitions,
//     first ones first, until at its count,
//  3. revokeOversharedPartitions: a partition with more than S members drops
//     its first members until at S,
//  4. assignRemainingPartitions: walk the partitions once; a partition below
//     S takes the next unfilled member not holding it, cycling through the
//     unfilled members (a member leaves the cycle once at its count); a
//     full cycle that places nothing gives up on that partition ("harmless
//     tolerating a slight imbalance").
//
// Determinism: Kafka numbers the members in the order of a HashMap of
// member ids and walks HashMaps and HashSets keyed by TopicIdPartition and
// topic id. Here members are numbered as Kafka's HashMap orders their ids
// (the caller's job, share_kind.go); the homogeneous builder walks Kafka's
// maps of TopicIdPartition in their Java orders (topicID gives the ids),
// the heterogeneous one topics by name and a topic's partitions ascending.
// Where Kafka walks HashSet<Integer> or HashMap<Integer, …> of member or
// partition indices (small ints, which Java iterates ascending) the order
// is the same as Kafka's.
//
// Deviation, on inputs Kafka never builds: previous partitions at or above
// the topic's partition count are dropped (a topic recreated smaller). In
// the heterogeneous case a previous topic nobody subscribes to any more
// stays in the member's target as it was, as in Kafka, whose builder walks
// only subscribed topics (--share seed 158 of the differential runner);
// but when no subscribed topic exists at all, every target is empty (Kafka's
// builders answer an empty GroupAssignment).
//
// Only the partitions assignable says are targets: Kafka's
// GroupSpec.isPartitionAssignable over the group's initialised share
// partitions (share_init.go). Previous partitions stay where Kafka keeps
// them, assignable or not.
//
// Members are numbered in the order given (the caller gives Kafka's). The
// result has one entry per member: topics
// sorted, partitions ascending.
func assignShareSimple(members []assignee, partitionsOf func(topic string) int32, assignable func(topic string, p int32) bool, topicID func(topic string) [16]byte) [][]TopicPartitions {
	if len(members) == 0 {
		return nil
	}
	// Kafka's subscribed topic ids are those of existing topics
	// (ModernGroup resolves names through the metadata image); the
	// subscription type compares the names.
	exists := func(subs []string) []string {
		return slices.DeleteFunc(slices.Clone(subs), func(t string) bool { return partitionsOf(t) <= 0 })
	}
	held := make([]map[shareTP]bool, len(members))
	for i := range held {
		held[i] = map[shareTP]bool{}
	}
	// kept says which previous topic entries stay in a member's target,
	// emptied or not: Kafka's builders revoke a partition by removing it
	// from the member's set of its topic, so a topic whose partitions
	// all went keeps an empty set, in the target and its record. The
	// homogeneous builder drops the topics the group no longer subscribes
	// to (revokeUnassignablePartitions); the heterogeneous one drops none.
	kept := func(string) bool { return true }
	if shareHomogeneous(members) {
		subscribed := exists(members[0].subs)
		kept = func(t string) bool { _, ok := slices.BinarySearch(subscribed, t); return ok }
		assignShareHomogeneous(members, subscribed, partitionsOf, assignable, topicID, held)
	} else {
		var topics []string
		for _, m := range members {
			topics = append(topics, exists(m.subs)...)
		}
		if len(topics) == 0 {
			// Both builders answer an empty GroupAssignment when no
			// subscribed topic exists, and TargetAssignmentBuilder gives a
			// member missing from it the empty assignment: nothing is kept.
			return make([][]TopicPartitions, len(members))
		}
		for _, t := range sortedTopics(topics) {
			var subs []int
			for i, m := range members {
				if _, ok := slices.BinarySearch(m.subs, t); ok {
					subs = append(subs, i)
				}
			}
			var targets []int32
			for p := range partitionsOf(t) {
				if assignable(t, p) {
					targets = append(targets, p)
				}
			}
			assignShareTopic(members, t, subs, partitionsOf(t), targets, held)
		}
		// A topic no member subscribes to (or one deleted) is never
		// visited: Kafka's builder leaves it in each member's assignment
		// as it was (its new assignment is a copy of the old one).
		subscribed := sortedTopics(topics)
		for j, m := range members {
			for _, prev := range m.previous {
				if _, ok := slices.BinarySearch(subscribed, prev.Topic); ok {
					continue
				}
				for _, p := range prev.Partitions {
					held[j][shareTP{prev.Topic, p}] = true
				}
			}
		}
	}
	out := make([][]TopicPartitions, len(members))
	for i, h := range held {
		out[i] = withEmptyTopics(sortedTopicPartitions(h), members[i].previous, kept)
	}
	return out
}

// withEmptyTopics adds to target an empty entry for each topic of previous
// that kept allows and target lacks (its partitions all revoked).
func withEmptyTopics(target, previous []TopicPartitions, kept func(string) bool) []TopicPartitions {
	for _, prev := range previous {
		if !kept(prev.Topic) {
			continue
		}
		i, found := slices.BinarySearchFunc(target, prev.Topic, func(tp TopicPartitions, t string) int { return strings.Compare(tp.Topic, t) })
		if !found {
			target = slices.Insert(target, i, TopicPartitions{Topic: prev.Topic})
		}
	}
	return target
}

// shareTP is one partition of one topic.
type shareTP struct {
	topic string
	p     int32
}

func compareShareTP(a, b shareTP) int {
	if c := strings.Compare(a.topic, b.topic); c != 0 {
		return c
	}
	return int(a.p) - int(b.p)
}

// sortedTopicPartitions turns a set of partitions into the result form.
func sortedTopicPartitions(h map[shareTP]bool) []TopicPartitions {
	tps := make([]shareTP, 0, len(h))
	for tp := range h {
		tps = append(tps, tp)
	}
	slices.SortFunc(tps, compareShareTP)
	var out []TopicPartitions
	for _, tp := range tps {
		if len(out) == 0 || out[len(out)-1].Topic != tp.topic {
			out = append(out, TopicPartitions{Topic: tp.topic})
		}
		out[len(out)-1].Partitions = append(out[len(out)-1].Partitions, tp.p)
	}
	return out
}

// shareHomogeneous is ModernGroup.subscriptionType's HOMOGENEOUS: every
// member subscribes to the same topic names.
func shareHomogeneous(members []assignee) bool {
	for _, m := range members[1:] {
		if !slices.Equal(m.subs, members[0].subs) {
			return false
		}
	}
	return true
}

// shareDesired returns the desired sharing and the desired counts of m
// members over p partitions, as the builders' constructors compute them.
func shareDesired(m, p int) (int, []int) {
	sharing := 0
	if p > 0 {
		sharing = (m + p - 1) / p
	}
	q := float64(sharing*p) / float64(m)
	counts := make([]int, m)
	for i := range counts {
		counts[i] = int(math.Ceil(q*float64(i+1))) - int(math.Ceil(q*float64(i)))
	}
	return sharing, counts
}

// memberCycle is assignRemainingPartitions' iterator over the unfilled
// members (ascending, as Java iterates a HashSet of small Integers): next
// wraps to the start, remove drops the member last returned.
type memberCycle struct {
	members []int
	pos     int
}

func (c *memberCycle) hasNext() bool { return c.pos < len(c.members) }
func (c *memberCycle) restart()      { c.pos = 0 }
func (c *memberCycle) next() int     { c.pos++; return c.members[c.pos-1] }
func (c *memberCycle) remove() {
	c.pos--
	c.members = slices.Delete(c.members, c.pos, c.pos+1)
}

// assignRemaining is both builders' assignRemainingPartitions over parts (in
// walk order): holders[k] are part k's members, count(j) member j's
// partitions, take(j, k) assigns part k to j.
func assignRemaining(parts int, unfilled []int, sharing int, desired func(j int) int,
	holders func(k int) map[int]bool, count func(j int) int, take func(j, k int)) {
	if len(unfilled) == 0 {
		return
	}
	it := &memberCycle{members: unfilled}
	assignedThisCycle := false
	for k := range parts {
		hs := holders(k)
		for toMake := sharing - len(hs); toMake > 0; {
			if !it.hasNext() {
				if !assignedThisCycle || len(it.members) == 0 {
					break // Kafka would call next() on an empty set only when no partition is short
				}
				it.restart()
				assignedThisCycle = false
			}
			j := it.next()
			if hs[j] {
				continue
			}
			take(j, k)
			toMake--
			assignedThisCycle = true
			if count(j) >= desired(j) {
				it.remove()
			}
		}
		if len(it.members) == 0 {
			break
		}
	}
}

// sortedMembers returns a member set ascending.
func sortedMembers(s map[int]bool) []int {
	out := make([]int, 0, len(s))
	for j := range s {
		out = append(out, j)
	}
	slices.Sort(out)
	return out
}

// assignShareHomogeneous is SimpleHomogeneousAssignmentBuilder.build over the
// (existing) topics every member subscribes to; it fills held. It walks
// Kafka's maps in their Java orders (package javaorder): the target
// partitions in the order of the first member's topic names (a HashSet),
// each member's previous partitions in the order of its assignment (a
// HashMap by topic id), finalAssignmentByPartition (a HashMap of
// TopicIdPartition, filled by computeIfAbsent, which links a new key at
// its bucket's head) and each member's finalAssignmentByMember (a
// HashSet of them); topicID gives the ids their hash codes.
func assignShareHomogeneous(members []assignee, topics []string, partitionsOf func(string) int32, assignable func(string, int32) bool,
	topicID func(string) [16]byte, held []map[shareTP]bool) {
	topics = sortedTopics(topics)
	if len(topics) == 0 {
		return // Kafka: an empty GroupAssignment
	}
	hashOf := func(tp shareTP) int32 { return javaorder.RecordHash(javaorder.UUIDHash(topicID(tp.topic)), tp.p) }
	// computeTargetPartitions, over the subscribed topic names' HashSet.
	var targets []shareTP
	for _, i := range javaorder.DistinctStringMapOrder(topics, javaorder.SetCopyCapacity(len(topics)), javaorder.Put) {
		t := topics[i]
		for p := range partitionsOf(t) {
			if assignable(t, p) {
				targets = append(targets, shareTP{t, p})
			}
		}
	}
	sharing, desired := shareDesired(len(members), len(targets))
	byPartition := map[shareTP]map[int]bool{} // finalAssignmentByPartition's sets; looked up only
	partitionOrder := javaorder.NewHashMap(hashOf, int(float32(len(targets)+1)/0.75+1))
	holdersOf := func(tp shareTP) map[int]bool {
		partitionOrder.Compute(tp)
		hs := byPartition[tp]
		if hs == nil {
			hs = map[int]bool{}
			byPartition[tp] = hs
		}
		return hs
	}
	byMember := make([]*javaorder.HashMap[shareTP], len(members)) // finalAssignmentByMember
	unfilled, overfilled := map[int]bool{}, map[int]bool{}

	// revokeUnassignablePartitions: keep the subscribed topics' partitions.
	for j, m := range members {
		n := 0
		for _, prev := range previousInKafkaOrder(m.previous, topicID) {
			if _, ok := slices.BinarySearch(topics, prev.Topic); !ok {
				continue
			}
			for _, p := range prev.Partitions {
				if p < 0 || p >= partitionsOf(prev.Topic) {
					continue
				}
				tp := shareTP{prev.Topic, p}
				if held[j][tp] {
					continue
				}
				n++
				held[j][tp] = true
				holdersOf(tp)[j] = true
				if byMember[j] == nil {
					byMember[j] = javaorder.NewHashMap(hashOf, 0)
				}
				byMember[j].Put(tp)
			}
		}
		if n < desired[j] {
			unfilled[j] = true
		} else if n > desired[j] {
			overfilled[j] = true
		}
	}

	// revokeOverfilledMembers: drop a member's first partitions in its
	// set's order down to the desired count.
	for _, j := range sortedMembers(overfilled) {
		for _, tp := range byMember[j].Keys() {
			if byMember[j].Len() <= desired[j] {
				break
			}
			byMember[j].Remove(tp)
			delete(held[j], tp)
			delete(byPartition[tp], j)
		}
	}

	// revokeOversharedPartitions: drop the first members (by index) of a
	// partition above the desired sharing.
	for _, tp := range partitionOrder.Keys() {
		hs := byPartition[tp]
		for _, j := range sortedMembers(hs) {
			if len(hs) <= sharing {
				break
			}
			delete(hs, j)
			delete(held[j], tp)
			byMember[j].Remove(tp)
			unfilled[j] = true
		}
	}

	// assignRemainingPartitions over every partition in the map: the
	// targets added now, and the kept ones (a kept partition that is no
	// longer assignable included, as Kafka's finalAssignmentByPartition
	// has it).
	for _, tp := range targets {
		holdersOf(tp)
	}
	all := partitionOrder.Keys()
	assignRemaining(len(all), sortedMembers(unfilled), sharing,
		func(j int) int { return desired[j] },
		func(k int) map[int]bool { return byPartition[all[k]] },
		func(j int) int { return len(held[j]) },
		func(j, k int) {
			held[j][all[k]] = true
			byPartition[all[k]][j] = true
		})
}

// previousInKafkaOrder is a member's previous assignment in the order of
// Kafka's Assignment.fromRecord map: a HashMap by topic id filled in the
// record's topic order.
func previousInKafkaOrder(previous []TopicPartitions, topicID func(string) [16]byte) []TopicPartitions {
	if len(previous) < 2 {
		return previous
	}
	m := javaorder.NewHashMap(func(i int) int32 { return javaorder.UUIDHash(topicID(previous[i].Topic)) }, 0)
	for i := range previous {
		m.Put(i)
	}
	out := make([]TopicPartitions, 0, len(previous))
	for _, i := range m.Keys() {
		out = append(out, previous[i])
	}
	return out
}

// assignShareTopic is SimpleHeterogeneousAssignmentBuilder's
// TopicAssignmentPartialBuilder.build for topic t of n partitions, of which
// targets (ascending) are assignable, subscribed to by subs (member indices,
// ascending); it updates held.
func assignShareTopic(members []assignee, t string, subs []int, n int32, targets []int32, held []map[shareTP]bool) {
	sharing, counts := shareDesired(len(subs), len(targets))
	desired := make([]int, len(members)) // 0 for non-subscribers
	for i, j := range subs {
		desired[j] = counts[i]
	}
	// byPartition holds the kept partitions and the targets (Kafka's
	// finalAssignmentByPartition), walked ascending.
	byPartition := map[int32]map[int]bool{}
	holders := func(p int32) map[int]bool {
		hs := byPartition[p]
		if hs == nil {
			hs = map[int]bool{}
			byPartition[p] = hs
		}
		return hs
	}
	byMember := make([][]int32, len(members)) // ascending partitions

	// revokeUnassignablePartitions: every member's previous partitions of t,
	// subscribed to t or not (a non-subscriber's desired count is 0, so
	// revokeOverfilledMembers takes them away).
	for j, m := range members {
		for _, prev := range m.previous {
			if prev.Topic != t {
				continue
			}
			for _, p := range prev.Partitions {
				if p < 0 || p >= n || byPartition[p][j] {
					continue
				}
				holders(p)[j] = true
				byMember[j] = append(byMember[j], p)
			}
		}
		slices.Sort(byMember[j])
	}

	// revokeOverfilledMembers: drop the lowest partitions down to the count.
	for j := range members {
		if extra := len(byMember[j]) - desired[j]; extra > 0 {
			for _, p := range byMember[j][:extra] {
				delete(byPartition[p], j)
			}
			byMember[j] = slices.Delete(byMember[j], 0, extra)
		}
	}

	// revokeOversharedPartitions: drop the lowest members down to sharing.
	for _, p := range slices.Sorted(maps.Keys(byPartition)) {
		hs := byPartition[p]
		for _, j := range sortedMembers(hs) {
			if len(hs) <= sharing {
				break
			}
			delete(hs, j)
			byMember[j] = slices.DeleteFunc(byMember[j], func(x int32) bool { return x == p })
		}
	}
	for _, p := range targets {
		holders(p)
	}
	all := slices.Sorted(maps.Keys(byPartition))

	var unfilled []int
	for _, j := range subs {
		if len(byMember[j]) < desired[j] {
			unfilled = append(unfilled, j)
		}
	}
	assignRemaining(len(all), unfilled, sharing,
		func(j int) int { return desired[j] },
		func(k int) map[int]bool { return byPartition[all[k]] },
		func(j int) int { return len(byMember[j]) },
		func(j, k int) {
			byPartition[all[k]][j] = true
			byMember[j] = append(byMember[j], all[k])
		})

	for j := range members {
		for _, p := range byMember[j] {
			held[j][shareTP{t, p}] = true
		}
	}
}
