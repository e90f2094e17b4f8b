package assignor

import (
	"cmp"
	"slices"
)

// maxBalanceIterations is UniformHeterogeneousAssignmentBuilder's
// MAX_ITERATION_COUNT: each round roughly halves the imbalance of
// overlapping subscriptions, and sixteen bound the cost.
const maxBalanceIterations = 16

// heterogeneous is the state of UniformHeterogeneousAssignmentBuilder.
type heterogeneous struct {
	m           *model
	subscribers [][]int   // per topic, member indices ascending
	sizes       []int     // per member, partitions in the target
	owners      [][]int32 // per topic and partition, member index or -1
}

// uniformHeterogeneous is UniformHeterogeneousAssignmentBuilder.build: keep
// every currently owned partition of a topic the member still subscribes
// to, hand each unassigned partition to the least loaded subscriber of its
// topic (topics with the most partitions per subscriber first), then move
// partitions from the most to the least loaded subscribers of each topic
// until no topic can improve, at most maxBalanceIterations rounds. With
// overlapping subscriptions the result can be off by more than one
// partition overall while every topic is balanced, as in Kafka.
func (m *model) uniformHeterogeneous() Target {
	h := &heterogeneous{m: m, subscribers: make([][]int, len(m.topics)), sizes: make([]int, len(m.members)), owners: m.newOwners()}
	for i, x := range m.members {
		for _, t := range x.subs {
			h.subscribers[t] = append(h.subscribers[t], i)
		}
	}
	if len(m.topics) == 0 {
		return m.target(h.owners)
	}
	// maybeRevokePartitions: a member keeps what it subscribes to.
	for i, x := range m.members {
		for _, o := range x.current {
			if !subscribed(x.subs, o.topic) {
				continue
			}
			h.sizes[i] += len(o.parts)
			for _, p := range o.parts {
				h.owners[o.topic][p] = int32(i)
			}
		}
	}
	// computeUnassignedPartitions and assignRemainingPartitions.
	var withUnassigned []int
	for t := range m.topics {
		if slices.Contains(h.owners[t], -1) {
			withUnassigned = append(withUnassigned, t)
		}
	}
	h.sortTopics(withUnassigned)
	b := &balancer{sizes: h.sizes}
	for _, t := range withUnassigned {
		b.initialize(h.subscribers[t])
		for p, o := range h.owners[t] {
			if o < 0 {
				h.assign(t, int32(p), b.nextLeastLoaded())
			}
		}
	}
	// balance: only topics with two subscribers or more can move.
	var movable []int
	for t := range m.topics {
		if len(h.subscribers[t]) >= 2 {
			movable = append(movable, t)
		}
	}
	if len(movable) > 0 {
		h.balanceTopics(movable, b)
	}
	return m.target(h.owners)
}

// sortTopics orders topics by partitions per subscriber descending, then
// subscriber count ascending, then topic id (compareTopics). The ratio is
// compared by cross-multiplication, exactly.
func (h *heterogeneous) sortTopics(topics []int) {
	slices.SortFunc(topics, func(t1, t2 int) int {
		p1, p2 := int64(h.m.topics[t1].Partitions), int64(h.m.topics[t2].Partitions)
		s1, s2 := int64(len(h.subscribers[t1])), int64(len(h.subscribers[t2]))
		return cmp.Or(cmp.Compare(p2*s1, p1*s2), cmp.Compare(s1, s2), h.m.compareTopics(t1, t2))
	})
}

// assign gives partition p of topic t to member i, taking it from its
// current owner if any (assignPartition).
func (h *heterogeneous) assign(t int, p int32, i int) {
	if old := h.owners[t][p]; old >= 0 {
		h.sizes[old]--
	}
	h.owners[t][p] = int32(i)
	h.sizes[i]++
}

// balanceTopics is UniformHeterogeneousAssignmentBuilder.balanceTopics:
// loop over the topics until a whole loop moves nothing, at most
// maxBalanceIterations times.
func (h *heterogeneous) balanceTopics(topics []int, b *balancer) {
	h.sortTopics(topics)
	last := -1
	var partitions []int32
	start, end := map[int]int{}, map[int]int{} // looked up only
	for range maxBalanceIterations {
		for k, t := range topics {
			if k == last {
				return
			}
			if h.balanceTopic(t, b, &partitions, start, end) > 0 || last == -1 {
				last = k
			}
		}
	}
}

// balanceTopic moves partitions of topic t from its most to its least
// loaded subscribers until their counts differ by one or less, and returns
// how many it moved.
func (h *heterogeneous) balanceTopic(t int, b *balancer, partitions *[]int32, start, end map[int]int) int {
	moved := 0
	if b.initialize(h.subscribers[t]) <= 1 {
		return moved
	}
	owners := h.owners[t]
	ps := (*partitions)[:0]
	for p := range owners {
		ps = append(ps, int32(p))
	}
	// Partitions of one owner together, so the owner's last one is found in
	// constant time.
	slices.SortFunc(ps, func(a, c int32) int { return cmp.Or(cmp.Compare(owners[a], owners[c]), cmp.Compare(a, c)) })
	*partitions = ps
	clear(start)
	clear(end)
	for i, p := range ps {
		o := int(owners[p])
		if _, ok := start[o]; !ok {
			start[o] = i
		}
		end[o] = i + 1
	}
	for !b.isBalanced() {
		most := -1
		for {
			most = b.nextMostLoaded()
			if most == -1 {
				break
			}
			if e, ok := end[most]; !ok || e-start[most] <= 0 {
				b.excludeMostLoaded()
				continue
			}
			break
		}
		if most == -1 {
			break
		}
		p := ps[end[most]-1]
		end[most]--
		least := b.nextLeastLoaded()
		if b.isBalanced() {
			break
		}
		h.assign(t, p, least)
		moved++
	}
	return moved
}

// balancer is UniformHeterogeneousAssignmentBuilder.MemberAssignmentBalancer:
// over one topic's subscribers sorted by load, a least loaded range
// [0, llEnd) that grows rightwards as its members receive partitions and a
// most loaded range [mlStart, mlEnd) that grows leftwards as its members give
// them up. The members are balanced once the two ranges' counts differ by
// one or less.
type balancer struct {
	sizes  []int
	sorted []int

	llEnd, llCount, nextLL          int
	mlStart, mlEnd, mlCount, nextML int
}

// initialize resets the balancer for members and returns the difference
// between the most and the least loaded member.
func (b *balancer) initialize(members []int) int {
	b.sorted = append(b.sorted[:0], members...)
	slices.SortFunc(b.sorted, func(i, j int) int { return cmp.Or(cmp.Compare(b.sizes[i], b.sizes[j]), cmp.Compare(i, j)) })
	n := len(b.sorted)
	b.llEnd, b.llCount, b.nextLL = 0, b.sizes[b.sorted[0]]-1, 0
	b.mlStart, b.mlEnd, b.mlCount, b.nextML = n, n, b.sizes[b.sorted[n-1]]+1, n-1
	return b.sizes[b.sorted[n-1]] - b.sizes[b.sorted[0]]
}

// nextLeastLoaded returns the member to give the next partition to and
// advances as if it had received it.
func (b *balancer) nextLeastLoaded() int {
	if b.nextLL >= b.llEnd {
		// The range is full: bump its level and try to expand it.
		b.llCount++
		for b.llEnd < len(b.sorted) && b.sizes[b.sorted[b.llEnd]] == b.llCount {
			b.llEnd++
		}
		b.nextLL = 0
	}
	i := b.sorted[b.nextLL]
	b.nextLL++
	return i
}

// nextMostLoaded returns the member to take the next partition from, or -1
// when no member has one to give up.
func (b *balancer) nextMostLoaded() int {
	if b.nextML < b.mlStart {
		if b.mlEnd <= b.mlStart && b.mlStart > 0 {
			// The range is empty after exclusions: restart from the count
			// of the member just below it so the range always expands.
			b.mlCount = b.sizes[b.sorted[b.mlStart-1]]
		} else {
			b.mlCount--
		}
		for b.mlStart > 0 && b.sizes[b.sorted[b.mlStart-1]] == b.mlCount {
			b.mlStart--
		}
		b.nextML = b.mlEnd - 1
	}
	if b.nextML < 0 {
		return -1
	}
	i := b.sorted[b.nextML]
	b.nextML--
	return i
}

// excludeMostLoaded drops the member nextMostLoaded last returned from the
// most loaded range: it has nothing of this topic to give up.
func (b *balancer) excludeMostLoaded() {
	i := b.sorted[b.nextML+1]
	b.sorted[b.nextML+1] = b.sorted[b.mlEnd-1]
	b.sorted[b.mlEnd-1] = i
	b.mlEnd--
}

func (b *balancer) isBalanced() bool { return b.mlCount-b.llCount <= 1 }
