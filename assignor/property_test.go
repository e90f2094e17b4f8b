package assignor_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/assignor"
)

// randomSpec draws a group: 1-6 topics of 0-12 partitions, 1-8 members
// subscribing to random subsets (all to the same one half of the time),
// racks on some runs, static members on some.
func randomSpec(r *rand.Rand) assignor.Spec {
	var spec assignor.Spec
	nt := 1 + r.IntN(6)
	racks := r.IntN(3) == 0
	for i := range nt {
		tm := topic(fmt.Sprintf("t%d", i), int32(r.IntN(13)))
		if racks {
			tm.Racks = make([][]string, tm.Partitions)
			for p := range tm.Racks {
				tm.Racks[p] = []string{fmt.Sprintf("r%d", r.IntN(3)), fmt.Sprintf("r%d", r.IntN(3))}
			}
		}
		spec.Topics = append(spec.Topics, tm)
	}
	pick := func() []string {
		var s []string
		for _, tm := range spec.Topics {
			if r.IntN(2) == 0 {
				s = append(s, tm.Name)
			}
		}
		return s
	}
	same := r.IntN(2) == 0
	shared := pick()
	nm := 1 + r.IntN(8)
	for i := range nm {
		m := member(fmt.Sprintf("m%d", i), shared)
		if !same {
			m.Topics = pick()
		}
		if racks && r.IntN(2) == 0 {
			m.Rack = fmt.Sprintf("r%d", r.IntN(4))
		}
		if r.IntN(4) == 0 {
			m.InstanceID = fmt.Sprintf("i%d", r.IntN(100))
		}
		spec.Members = append(spec.Members, m)
	}
	return spec
}

// withCurrent returns spec with each member's current assignment set from
// target.
func withCurrent(spec assignor.Spec, target assignor.Target) assignor.Spec {
	out := spec
	out.Members = slices.Clone(spec.Members)
	for i := range out.Members {
		out.Members[i].Assignment = target.Of(out.Members[i].ID)
	}
	return out
}

// dedupInstances gives static members unique instance ids (Kafka has one
// member per instance id).
func dedupInstances(spec *assignor.Spec) {
	seen := map[string]bool{}
	for i := range spec.Members {
		if id := spec.Members[i].InstanceID; id != "" {
			if seen[id] {
				spec.Members[i].InstanceID = ""
			}
			seen[id] = true
		}
	}
}

func totalSubscribed(spec *assignor.Spec, id string) map[string]bool {
	for _, m := range spec.Members {
		if m.ID == id {
			out := map[string]bool{}
			for _, s := range m.Topics {
				out[s] = true
			}
			return out
		}
	}
	return nil
}

// checkUniformBalance: homogeneous groups are balanced to one partition;
// in every group no partition of a topic could move from its owner to
// another subscriber of the topic with two partitions fewer (Kafka's
// checkValidityAndBalance), which the heterogeneous builder reaches on
// groups this small.
func checkUniformBalance(t *testing.T, spec *assignor.Spec, got assignor.Target) {
	t.Helper()
	s := sizes(got)
	size := map[string]int{}
	for i, m := range got {
		size[m.MemberID] = s[i]
	}
	for _, m := range got {
		for _, x := range m.Partitions {
			for _, other := range got {
				if totalSubscribed(spec, other.MemberID)[x.Topic] {
					require.Less(t, size[m.MemberID]-size[other.MemberID], 2,
						"%s (%d) could give %s to %s (%d)", m.MemberID, size[m.MemberID], x.Topic, other.MemberID, size[other.MemberID])
				}
			}
		}
	}
}

// checkRangeBalance: without racks, each topic's subscribers get
// floor(n/k) or one more partition of it.
func checkRangeBalance(t *testing.T, spec *assignor.Spec, got assignor.Target) {
	t.Helper()
	for _, tm := range spec.Topics {
		var counts []int
		for _, m := range spec.Members {
			if !slices.Contains(m.Topics, tm.Name) {
				continue
			}
			n := 0
			for _, x := range got.Of(m.ID) {
				if x.Topic == tm.Name {
					n = len(x.Partitions)
				}
			}
			counts = append(counts, n)
		}
		if len(counts) == 0 {
			continue
		}
		lo, hi := slices.Min(counts), slices.Max(counts)
		require.LessOrEqual(t, hi-lo, 1, "topic %s counts %v", tm.Name, counts)
	}
}

func TestAssignorProperties(t *testing.T) {
	// Over many seeds, for both assignors: every subscribed partition is
	// assigned exactly once and only to a subscriber; the balance bounds
	// hold; the output does not depend on the input order; assigning again
	// from the result changes nothing (Kafka's testAssignmentReuse); and a
	// member leaving a homogeneous uniform group takes nothing from the
	// others (stickiness).
	for seed := uint64(0); seed < 2000; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		spec := randomSpec(r)
		dedupInstances(&spec)
		for _, a := range []assignor.Assignor{assignor.Uniform{}, assignor.Range{}} {
			t.Run(fmt.Sprintf("%s/%d", a.Name(), seed), func(t *testing.T) {
				first := assign(t, a, spec)
				hasRacks := slices.ContainsFunc(spec.Members, func(m assignor.Member) bool { return m.Rack != "" })
				switch a.(type) {
				case assignor.Uniform:
					checkUniformBalance(t, &spec, first)
				case assignor.Range:
					if !hasRacks {
						checkRangeBalance(t, &spec, first)
					}
				}

				shuffled := spec
				shuffled.Members = slices.Clone(spec.Members)
				shuffled.Topics = slices.Clone(spec.Topics)
				r.Shuffle(len(shuffled.Members), func(i, j int) { shuffled.Members[i], shuffled.Members[j] = shuffled.Members[j], shuffled.Members[i] })
				r.Shuffle(len(shuffled.Topics), func(i, j int) { shuffled.Topics[i], shuffled.Topics[j] = shuffled.Topics[j], shuffled.Topics[i] })
				require.Equal(t, first, assign(t, a, shuffled), "input order")

				again := assign(t, a, withCurrent(spec, first))
				require.Equal(t, first, again, "reuse")

				if _, ok := a.(assignor.Uniform); ok && len(spec.Members) > 1 && !slices.ContainsFunc(spec.Members, func(m assignor.Member) bool {
					return !slices.Equal(m.Topics, spec.Members[0].Topics)
				}) {
					left := withCurrent(spec, first)
					gone := r.IntN(len(left.Members))
					left.Members = slices.Delete(left.Members, gone, gone+1)
					after := assign(t, a, left)
					for _, m := range left.Members {
						for _, x := range m.Assignment {
							for _, p := range x.Partitions {
								require.Contains(t, partitionsOf(after.Of(m.ID), x.Topic), p, "%s lost %s-%d", m.ID, x.Topic, p)
							}
						}
					}
				}
			})
		}
	}
}

func partitionsOf(a []assignor.TopicPartitions, topic string) []int32 {
	for _, x := range a {
		if x.Topic == topic {
			return x.Partitions
		}
	}
	return nil
}

func TestUniformAssignor_StickinessWhenMemberJoins(t *testing.T) {
	// A member joining a homogeneous group takes only what the others must
	// give up: every old member keeps at least the new minimum quota of its
	// old partitions.
	for seed := uint64(0); seed < 500; seed++ {
		r := rand.New(rand.NewPCG(seed, 11))
		n := 1 + r.IntN(40)
		spec := assignor.Spec{Topics: []assignor.Topic{topic("a", int32(n)), topic("b", int32(r.IntN(20)))}}
		for i := range 1 + r.IntN(6) {
			spec.Members = append(spec.Members, member(fmt.Sprintf("m%d", i), subs("a", "b")))
		}
		first := assign(t, uniform, spec)
		joined := withCurrent(spec, first)
		joined.Members = append(joined.Members, member("new", subs("a", "b")))
		after := assign(t, uniform, joined)
		total := 0
		for _, tm := range spec.Topics {
			total += int(tm.Partitions)
		}
		quota := total / len(joined.Members)
		for _, m := range spec.Members {
			kept := 0
			for _, x := range first.Of(m.ID) {
				for _, p := range x.Partitions {
					if slices.Contains(partitionsOf(after.Of(m.ID), x.Topic), p) {
						kept++
					}
				}
			}
			had := 0
			for _, x := range first.Of(m.ID) {
				had += len(x.Partitions)
			}
			require.GreaterOrEqual(t, kept, min(had, quota), "seed %d member %s", seed, m.ID)
		}
		checkBalanced(t, after)
	}
}
