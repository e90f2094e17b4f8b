package sim

import (
	"cmp"
	"slices"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/shard"
)

// The classic group leader's client-side assignors, for the one topic a
// simulated application reads: range (RangeAssignor: members by id, each a
// contiguous run, the first ones one more) and cooperative-sticky
// (CooperativeStickyAssignor: members keep what they own up to their
// quota, the rest fill the members with fewest; then a partition that
// changes owner is left out of this round, so its owner revokes it first
// and the second round hands it over).

// classicMemberSub is one member's decoded subscription.
type classicMemberSub struct {
	id    string
	owned []int32
}

// classicAssign is the leader's assignment of the members of its
// JoinGroup response.
func (w *world) classicAssign(m *simMember, members []shard.JoinGroupMember) []shard.SyncGroupAssignment {
	subs := make([]classicMemberSub, 0, len(members))
	for _, jm := range members {
		s := kmsg.NewConsumerMemberMetadata()
		var owned []int32
		if s.ReadFrom(jm.Metadata) == nil {
			for _, op := range s.OwnedPartitions {
				if op.Topic == m.g.topic {
					owned = append(owned, op.Partitions...)
				}
			}
		}
		subs = append(subs, classicMemberSub{id: jm.MemberID, owned: sortedPartitions(owned)})
	}
	slices.SortFunc(subs, func(a, b classicMemberSub) int { return cmp.Compare(a.id, b.id) })
	n := w.topics[m.g.topic]
	var got [][]int32
	if m.classic.cooperative {
		got = cooperativeStickyAssign(subs, n)
	} else {
		got = rangeAssign(len(subs), n)
	}
	out := make([]shard.SyncGroupAssignment, len(subs))
	for i, s := range subs {
		a := kmsg.ConsumerMemberAssignment{Version: 3}
		if len(got[i]) > 0 {
			a.Topics = []kmsg.ConsumerMemberAssignmentTopic{{Topic: m.g.topic, Partitions: got[i]}}
		}
		out[i] = shard.SyncGroupAssignment{MemberID: s.id, Assignment: a.AppendTo(nil)}
	}
	return out
}

// rangeAssign splits partitions 0..n-1 into k contiguous runs.
func rangeAssign(k int, n int32) [][]int32 {
	out := make([][]int32, k)
	if k == 0 {
		return out
	}
	per, extra := int(n)/k, int(n)%k
	p := int32(0)
	for i := range k {
		size := per
		if i < extra {
			size++
		}
		for range size {
			out[i] = append(out[i], p)
			p++
		}
	}
	return out
}

// cooperativeStickyAssign keeps owned partitions within quota, spreads the
// rest, then withholds every partition whose owner changes.
func cooperativeStickyAssign(subs []classicMemberSub, n int32) [][]int32 {
	k := len(subs)
	out := make([][]int32, k)
	if k == 0 {
		return out
	}
	minQuota, extras := int(n)/k, int(n)%k
	owner := map[int32]int{}
	taken := map[int32]bool{}
	for i, s := range subs {
		for _, p := range s.owned {
			if _, dup := owner[p]; !dup && p < n {
				owner[p] = i
			}
		}
	}
	// Keep owned partitions: up to minQuota each, then one more while the
	// extra slots last.
	for i, s := range subs {
		for _, p := range s.owned {
			if owner[p] == i && !taken[p] && len(out[i]) < minQuota {
				out[i], taken[p] = append(out[i], p), true
			}
		}
	}
	for i, s := range subs {
		if extras == 0 {
			break
		}
		for _, p := range s.owned {
			if owner[p] == i && !taken[p] && len(out[i]) == minQuota {
				out[i], taken[p] = append(out[i], p), true
				extras--
				break
			}
		}
	}
	// The rest to the members with fewest, lowest index first.
	for p := range n {
		if taken[p] {
			continue
		}
		best := 0
		for i := range out {
			if len(out[i]) < len(out[best]) {
				best = i
			}
		}
		out[best], taken[p] = append(out[best], p), true
	}
	// The cooperative adjustment: a partition another member owns waits
	// for the next round.
	for i := range out {
		out[i] = slices.DeleteFunc(out[i], func(p int32) bool {
			o, owned := owner[p]
			return owned && o != i
		})
		slices.Sort(out[i])
	}
	return out
}

func sortedPartitions(ps []int32) []int32 {
	out := slices.Clone(ps)
	slices.Sort(out)
	return slices.Compact(out)
}
