package shard

import (
	"slices"
	"strconv"
	"strings"
)

// assignShareSimple is the share-group "simple" assignor (KIP-932,
// docs/share-groups.md §2.4). Unlike the consumer and streams assignors, a partition may be shared by
// several members: with M members and P partitions the desired sharing of a
// partition is S = ceil(M/P), so M <= P gives every partition exactly one
// member (as in a consumer group) and M > P shares each partition among S
// members. The S·P slots are split into per-member quotas whose values are
// the steps of a ceil staircase, ceil(q·(i+1)) − ceil(q·i) with q = S·P/M,
// i.e. floor(q) or ceil(q), so member counts differ by at most one.
//
// Starting from each member's previous target, the assignor
//  1. drops partitions no longer subscribed (or no longer existing),
//  2. revokes from members holding more than their quota,
//  3. revokes from partitions shared by more than S members,
//  4. hands under-shared partitions to under-filled members, emptiest
//     partitions first, so every partition of a subscribed topic gets at
//     least one member; when every under-filled member already holds the
//     partition in need, one partition moves between two members to make
//     room (balance wins over stickiness).
//
// Heterogeneous subscriptions: topics are grouped into blocks of topics with
// the same set of subscribers, and each block is assigned as a homogeneous
// group (its M is the subscriber count, its P the block's partition count).
// A homogeneous group is a single block, so both cases share one code path;
// the sharing of a partition of topic t never exceeds ceil(M_t/P_t).
//
// Members must be sorted by id. Topics and partitions are walked in order and
// maps are used for lookups only, so the result is deterministic. The result
// has one entry per member: topics sorted, partitions
// ascending.
func assignShareSimple(members []assignee, partitionsOf func(topic string) int32) [][]TopicPartitions {
	if len(members) == 0 {
		return nil
	}
	// Subscribers of every existing topic, in member (id) order.
	var topics []string
	for _, m := range members {
		topics = append(topics, m.subs...)
	}
	slices.Sort(topics)
	topics = slices.Compact(topics)
	topics = slices.DeleteFunc(topics, func(t string) bool { return partitionsOf(t) <= 0 })

	// Group topics by subscriber set; blocks are ordered by their first topic.
	type block struct {
		topics  []string
		members []int // indices into members, ascending
	}
	var blocks []*block
	byKey := map[string]*block{}
	for _, t := range topics {
		var subs []int
		var key strings.Builder
		for i, m := range members {
			if _, ok := slices.BinarySearch(m.subs, t); ok {
				subs = append(subs, i)
				key.WriteString(strconv.Itoa(i))
				key.WriteByte(',')
			}
		}
		b := byKey[key.String()]
		if b == nil {
			b = &block{members: subs}
			byKey[key.String()] = b
			blocks = append(blocks, b)
		}
		b.topics = append(b.topics, t)
	}

	// holders[t][p] lists the members (indices into members) holding t-p.
	holders := make(map[string][][]int, len(topics))
	load := make([]int, len(members)) // partitions assigned so far, all blocks
	for _, b := range blocks {
		h := assignShareBlock(members, b.members, b.topics, partitionsOf, load)
		for i, t := range b.topics {
			holders[t] = h[i]
		}
	}

	out := make([][]TopicPartitions, len(members))
	for _, t := range topics {
		for p, hs := range holders[t] {
			for _, i := range hs {
				a := out[i]
				if len(a) == 0 || a[len(a)-1].Topic != t {
					a = append(a, TopicPartitions{Topic: t})
				}
				a[len(a)-1].Partitions = append(a[len(a)-1].Partitions, int32(p))
				out[i] = a
			}
		}
	}
	return out
}

// assignShareBlock assigns the partitions of topics (one block: every member
// in mems subscribes to all of them and no other member to any) and returns,
// per topic and partition, the holding members. load holds each member's
// partition count from earlier blocks and is updated.
func assignShareBlock(members []assignee, mems []int, topics []string, partitionsOf func(string) int32, load []int) [][][]int {
	// Block-local partition indices: base[topic] + partition.
	base := make(map[string]int, len(topics))
	nParts := 0
	for _, t := range topics {
		base[t] = nParts
		nParts += int(partitionsOf(t))
	}
	M, P := len(mems), nParts
	S := (M + P - 1) / P        // desired sharing
	holders := make([][]int, P) // block partition -> local member indices
	held := make([][]int, M)    // local member -> block partitions
	holds := func(j, pi int) bool { return slices.Contains(holders[pi], j) }
	add := func(j, pi int) {
		holders[pi] = append(holders[pi], j)
		held[j] = append(held[j], pi)
	}
	remove := func(j, pi int) {
		holders[pi] = slices.DeleteFunc(holders[pi], func(x int) bool { return x == j })
		held[j] = slices.DeleteFunc(held[j], func(x int) bool { return x == pi })
	}

	// Step 1: keep the previous partitions still in the block.
	for j, i := range mems {
		for _, prev := range members[i].previous {
			b, ok := base[prev.Topic]
			if !ok {
				continue // not subscribed any more, or another block's topic
			}
			n := partitionsOf(prev.Topic)
			for _, p := range prev.Partitions {
				if p < 0 || p >= n || holds(j, b+int(p)) {
					continue
				}
				add(j, b+int(p))
			}
		}
	}

	// Quotas: the ceil staircase of q = S·P/M has extra = (S·P) mod M steps
	// of ceil(q) and the rest floor(q). The larger quotas go to the members
	// least loaded by earlier blocks (balance: members with the same
	// subscriptions end up within one partition of each other), then to
	// those already holding the most here (stickiness), then by id.
	total := S * P
	quota := make([]int, M)
	rank := make([]int, M)
	for j := range rank {
		rank[j] = j
		quota[j] = total / M
	}
	slices.SortStableFunc(rank, func(a, b int) int {
		if d := load[mems[a]] - load[mems[b]]; d != 0 {
			return d
		}
		return len(held[b]) - len(held[a])
	})
	for _, j := range rank[:total%M] {
		quota[j]++
	}

	// Step 2: revoke from over-filled members, most-shared partitions first
	// (ties: the highest partition). Dropping j from a partition changes
	// only that partition's sharing, so one sort per member picks them all.
	dropped := make([]bool, P)
	for j := range M {
		excess := len(held[j]) - quota[j]
		if excess <= 0 {
			continue
		}
		order := slices.Clone(held[j])
		slices.SortFunc(order, func(a, b int) int {
			if d := len(holders[b]) - len(holders[a]); d != 0 {
				return d
			}
			return b - a
		})
		for _, pi := range order[:excess] {
			dropped[pi] = true
			holders[pi] = slices.DeleteFunc(holders[pi], func(x int) bool { return x == j })
		}
		held[j] = slices.DeleteFunc(held[j], func(pi int) bool { return dropped[pi] })
		for _, pi := range order[:excess] {
			dropped[pi] = false
		}
	}

	// Step 3: revoke over-shared partitions from their fullest holders
	// (ties: the highest member id).
	for pi := range P {
		for len(holders[pi]) > S {
			worst := -1
			for _, j := range holders[pi] {
				if worst < 0 || len(held[j]) > len(held[worst]) ||
					(len(held[j]) == len(held[worst]) && j > worst) {
					worst = j
				}
			}
			remove(worst, pi)
		}
	}

	// Step 4: fill in rounds so that every partition gets a first member
	// before any gets a second. Σquota = S·P and no member is over quota nor
	// partition over S, so a partition in need implies a member in deficit.
	for r := 1; r <= S; r++ {
		for pi := range P {
			for len(holders[pi]) < r {
				// The under-filled member with the largest deficit not
				// holding pi (ties: the lowest id).
				best, anyDeficit := -1, -1
				for j := range M {
					d := quota[j] - len(held[j])
					if d <= 0 {
						continue
					}
					if anyDeficit < 0 || d > quota[anyDeficit]-len(held[anyDeficit]) {
						anyDeficit = j
					}
					if holds(j, pi) {
						continue
					}
					if best < 0 || d > quota[best]-len(held[best]) {
						best = j
					}
				}
				if best >= 0 {
					add(best, pi)
					continue
				}
				// Every member in deficit already holds pi. u holds fewer
				// than quota <= P partitions, so it lacks some q != pi. If q
				// is under-shared, u takes it; otherwise q has S holders and
				// pi fewer, so some holder x of q lacks pi: x hands q to u
				// and takes pi.
				u, moved := anyDeficit, false
				for q := range P {
					if holds(u, q) {
						continue
					}
					if len(holders[q]) < S {
						add(u, q)
						moved = true
						break
					}
					x := -1
					for _, k := range holders[q] {
						if !holds(k, pi) {
							x = k
							break
						}
					}
					if x < 0 {
						continue
					}
					remove(x, q)
					add(u, q)
					add(x, pi)
					moved = true
					break
				}
				if !moved {
					panic("shard: share assignor found no move (unreachable)")
				}
			}
		}
	}

	out := make([][][]int, len(topics))
	for ti, t := range topics {
		n := int(partitionsOf(t))
		out[ti] = make([][]int, n)
		for p := range n {
			hs := holders[base[t]+p]
			g := make([]int, len(hs))
			for k, j := range hs {
				g[k] = mems[j]
			}
			slices.Sort(g)
			out[ti][p] = g
		}
	}
	for j, i := range mems {
		load[i] += len(held[j])
	}
	return out
}
