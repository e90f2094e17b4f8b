package assignor

import (
	"cmp"
	"slices"
	"strings"
)

// RangeName is the range assignor's name (Kafka's RangeAssignor.NAME).
const RangeName = "range"

// Range is Kafka's server-side RangeAssignor: per topic, the subscribed
// members, ordered by instance id (static members first) and then by member
// id, receive contiguous partitions, minQuota each and one more for the
// first partitions%members of them. With equal partition counts and one
// subscription for all, every member gets the same partition numbers of
// every topic (co-partitioning). When members and partitions carry racks
// that can make a difference, partitions go first to a member on one of
// their replicas' racks, balance still first.
type Range struct{}

// Name returns "range".
func (Range) Name() string { return RangeName }

// Assign computes the target assignment (RangeAssignor.assign).
func (Range) Assign(spec *Spec) (Target, error) {
	m, err := newModel(spec, func(string) error {
		return assignorError("Member is subscribed to a non-existent topic")
	})
	if err != nil {
		return nil, err
	}
	owners := m.newOwners()
	if len(m.members) == 0 {
		return m.target(owners), nil
	}
	r := &ranger{m: m, owners: owners, order: m.rangeOrder(), counts: map[[2]int]int{}}
	if m.homogeneous {
		r.homogeneous()
	} else {
		r.heterogeneous()
	}
	return m.target(owners), nil
}

// rangeOrder is RangeAssignor.sortMemberIds: static members first, by
// instance id, then the others by member id. An instance id keeps a static
// member's place, and so its ranges, across a rejoin under a new member id.
func (m *model) rangeOrder() []int {
	order := make([]int, len(m.members))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		ia, ib := m.members[a].instanceID, m.members[b].instanceID
		switch {
		case ia != "" && ib != "":
			return strings.Compare(ia, ib)
		case ia != "":
			return -1
		case ib != "":
			return 1
		}
		return cmp.Compare(a, b) // members are sorted by id
	})
	return order
}

// rangeTopic is RangeAssignor.TopicMetadata.
type rangeTopic struct {
	t          int
	partitions int32
	members    int
	minQuota   int
	extra      int
	taken      []bool
	next       int32 // no partition below next is free
}

func (rt *rangeTopic) computeQuota() {
	if rt.minQuota >= 0 {
		return
	}
	rt.minQuota = int(rt.partitions) / rt.members
	rt.extra = int(rt.partitions) % rt.members
}

// ranger is one RangeAssignor.assign run.
type ranger struct {
	m      *model
	owners [][]int32
	order  []int
	counts map[[2]int]int // (topic, member) -> partitions given; looked up only
}

func (r *ranger) newTopic(t, members int) *rangeTopic {
	n := r.m.topics[t].Partitions
	return &rangeTopic{t: t, partitions: n, members: members, minQuota: -1, extra: -1, taken: make([]bool, n)}
}

func (r *ranger) give(rt *rangeTopic, p int32, member int) {
	rt.taken[p] = true
	r.owners[rt.t][p] = int32(member)
	r.counts[[2]int{rt.t, member}]++
}

// racksMatch: a member without a rack matches every partition; otherwise
// one of the partition's replicas must be on the member's rack.
func (r *ranger) racksMatch(rt *rangeTopic, p int32, member int) bool {
	rack := r.m.members[member].rack
	if rack == "" {
		return true
	}
	racks := r.m.topics[rt.t].Racks
	return racks != nil && slices.Contains(racks[p], rack)
}

// homogeneous is assignHomogeneousGroup: every member subscribes to the
// same topics.
func (r *ranger) homogeneous() {
	subs := r.m.members[0].subs
	topics := make([]*rangeTopic, len(subs))
	for k, t := range subs {
		topics[k] = r.newTopic(t, len(r.m.members))
		topics[k].computeQuota()
	}
	if r.useRacks(topics) {
		if len(topics) > 1 && coPartitioned(topics) {
			r.coPartitionedWithRacks(topics)
		} else {
			for _, rt := range topics {
				r.topicWithRacks(rt)
			}
		}
	}
	for _, member := range r.order {
		for _, rt := range topics {
			r.addPartitions(rt, member)
		}
	}
}

// heterogeneous is assignHeterogeneousGroup: per topic, its subscribers in
// member order take their ranges. Racks are not used.
func (r *ranger) heterogeneous() {
	topics := make([]*rangeTopic, len(r.m.topics))
	for _, x := range r.m.members {
		for _, t := range x.subs {
			if topics[t] == nil {
				topics[t] = r.newTopic(t, 0)
			}
			topics[t].members++
		}
	}
	for _, member := range r.order {
		for _, t := range r.m.members[member].subs {
			topics[t].computeQuota()
			r.addPartitions(topics[t], member)
		}
	}
}

// addPartitions is addPartitionsToAssignment: the member takes the lowest
// free partitions up to its quota (minQuota, plus one while extra partitions
// remain), counting what the rack pass already gave it. Kafka falls back to
// a raw range when no partition is free; that range can only hold
// partitions already given, so here the member simply takes nothing.
func (r *ranger) addPartitions(rt *rangeTopic, member int) {
	quota := rt.minQuota
	if rt.extra > 0 {
		quota++
		rt.extra--
	}
	needed := quota - r.counts[[2]int{rt.t, member}]
	for ; needed > 0 && rt.next < rt.partitions; rt.next++ {
		if !rt.taken[rt.next] {
			r.give(rt, rt.next, member)
			needed--
		}
	}
}

// useRacks is shouldUseRackAwareAssignment: some member has a rack, some
// partition has a replica on a member's rack, and the partitions do not all
// have the same racks (else matching racks changes nothing).
func (r *ranger) useRacks(topics []*rangeTopic) bool {
	memberRacks := map[string]bool{} // looked up only
	for _, x := range r.m.members {
		if x.rack != "" {
			memberRacks[x.rack] = true
		}
	}
	if len(memberRacks) == 0 {
		return false
	}
	overlap := false
	rackSets := map[string]bool{} // counted only
	for _, rt := range topics {
		for _, racks := range r.m.topics[rt.t].Racks {
			if len(racks) == 0 {
				continue
			}
			set := slices.Clone(racks)
			slices.Sort(set)
			set = slices.Compact(set)
			rackSets[strings.Join(set, "\x00")] = true
			for _, rack := range set {
				overlap = overlap || memberRacks[rack]
			}
		}
	}
	return overlap && len(rackSets) > 1
}

func coPartitioned(topics []*rangeTopic) bool {
	for _, rt := range topics[1:] {
		if rt.partitions != topics[0].partitions {
			return false
		}
	}
	return true
}

// coPartitionedWithRacks is assignCoPartitionedWithRackMatching: partition
// number p of every topic goes to the first member, in member order, that
// still has room and whose rack matches p in every topic. Its room checks
// follow Kafka's, which read the first topic's quota.
func (r *ranger) coPartitionedWithRacks(topics []*rangeTopic) {
	first := topics[0]
	remaining := slices.Clone(r.order)
	given := make([]int, len(r.m.members))
	hasExtra := 0
	if first.extra > 0 {
		hasExtra = 1
	}
	for p := int32(0); p < first.partitions && len(remaining) > 0; p++ {
		k := slices.IndexFunc(remaining, func(member int) bool {
			if given[member] >= first.minQuota+hasExtra {
				return false
			}
			for _, rt := range topics {
				if !r.racksMatch(rt, p, member) {
					return false
				}
			}
			return true
		})
		if k < 0 {
			continue
		}
		member := remaining[k]
		for _, rt := range topics {
			r.give(rt, p, member)
		}
		given[member]++
		quota := first.minQuota
		if given[member] <= first.extra {
			quota++
		}
		if given[member] >= quota {
			remaining = slices.Delete(remaining, k, k+1)
		}
	}
}

// topicWithRacks is assignTopicWithRackMatching: each free partition goes
// to the first member, in member order, under its quota whose rack matches.
func (r *ranger) topicWithRacks(rt *rangeTopic) {
	given := make([]int, len(r.m.members))
	for p := int32(0); p < rt.partitions; p++ {
		if rt.taken[p] {
			continue
		}
		for _, member := range r.order {
			quota := rt.minQuota
			if given[member] < rt.extra {
				quota++
			}
			if given[member] < quota && r.racksMatch(rt, p, member) {
				r.give(rt, p, member)
				given[member]++
				break
			}
		}
	}
}
