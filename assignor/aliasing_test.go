package assignor_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/assignor"
)

// cloneTarget deep-copies a Target.
func cloneTarget(t assignor.Target) assignor.Target {
	out := make(assignor.Target, len(t))
	for i, m := range t {
		out[i].MemberID = m.MemberID
		for _, tp := range m.Partitions {
			out[i].Partitions = append(out[i].Partitions, assignor.TopicPartitions{Topic: tp.Topic, Partitions: slices.Clone(tp.Partitions)})
		}
	}
	return out
}

// TestAssign_TargetListsDoNotAlias proves that the lists of a Target, which
// share backing arrays, are capped: appending to one member's topics or to
// one topic's partitions never changes another list. The members start from
// current assignments (out of order, with a duplicate and a stale
// partition) so that the model's shared current lists are exercised too.
func TestAssign_TargetListsDoNotAlias(t *testing.T) {
	spec := &assignor.Spec{
		Topics: []assignor.Topic{topic("b", 5), topic("a", 4)},
		Members: []assignor.Member{
			member("m3", subs("a", "b"), tp("b", 4, 0, 0), tp("a", 9)),
			member("m1", subs("a", "b"), tp("a", 2, 0)),
			member("m2", subs("a", "b")),
		},
	}
	for _, a := range []assignor.Assignor{assignor.Uniform{}, assignor.Range{}} {
		t.Run(a.Name(), func(t *testing.T) {
			got, err := a.Assign(spec)
			require.NoError(t, err)
			want := cloneTarget(got)
			for i := range got {
				for j := range got[i].Partitions {
					got[i].Partitions[j].Partitions = append(got[i].Partitions[j].Partitions, 99)
				}
				got[i].Partitions = append(got[i].Partitions, tp("z", 99))
			}
			for i := range got {
				require.Equal(t, want[i].MemberID, got[i].MemberID)
				require.Len(t, got[i].Partitions, len(want[i].Partitions)+1, "member %s", got[i].MemberID)
				for j, w := range want[i].Partitions {
					g := got[i].Partitions[j]
					require.Equal(t, w.Topic, g.Topic)
					require.Equal(t, append(slices.Clone(w.Partitions), 99), g.Partitions, "member %s topic %s", got[i].MemberID, w.Topic)
				}
			}
		})
	}
}
