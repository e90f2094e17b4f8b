package assignor_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/assignor"
)

// The helpers below play the role of Kafka's AssignmentTestUtil.

func tp(topic string, partitions ...int32) assignor.TopicPartitions {
	return assignor.TopicPartitions{Topic: topic, Partitions: partitions}
}

func topic(name string, partitions int32) assignor.Topic {
	return assignor.Topic{Name: name, Partitions: partitions}
}

func member(id string, topics []string, current ...assignor.TopicPartitions) assignor.Member {
	return assignor.Member{ID: id, Topics: topics, Assignment: current}
}

func subs(topics ...string) []string { return topics }

// expect is an expected assignment: member id -> partitions, in the Target's
// order (topics by name, partitions ascending).
type expect map[string][]assignor.TopicPartitions

// assertAssignment checks that got gives every member exactly what want
// says (a member missing from want gets nothing).
func assertAssignment(t *testing.T, want expect, got assignor.Target) {
	t.Helper()
	for _, m := range got {
		w := want[m.MemberID]
		if len(w) == 0 {
			require.Empty(t, m.Partitions, "member %s", m.MemberID)
			continue
		}
		require.Equal(t, w, m.Partitions, "member %s", m.MemberID)
	}
	for id := range want {
		require.NotNil(t, findMember(got, id), "member %s missing from the target", id)
	}
}

func findMember(got assignor.Target, id string) *assignor.MemberAssignment {
	for i := range got {
		if got[i].MemberID == id {
			return &got[i]
		}
	}
	return nil
}

func assign(t *testing.T, a assignor.Assignor, spec assignor.Spec) assignor.Target {
	t.Helper()
	got, err := a.Assign(&spec)
	require.NoError(t, err)
	checkValid(t, &spec, got)
	return got
}

// checkValid is the validity half of Kafka's checkValidityAndBalance: each
// member gets only partitions of topics it subscribes to, each partition
// at most once, and (for every assignor here) every subscribed partition
// exactly once.
func checkValid(t *testing.T, spec *assignor.Spec, got assignor.Target) {
	t.Helper()
	require.Len(t, got, len(spec.Members))
	subscribed := map[string]map[string]bool{}
	wanted := map[string]int32{}
	for _, m := range spec.Members {
		subscribed[m.ID] = map[string]bool{}
		for _, s := range m.Topics {
			subscribed[m.ID][s] = true
			for _, tm := range spec.Topics {
				if tm.Name == s {
					wanted[s] = tm.Partitions
				}
			}
		}
	}
	seen := map[string]map[int32]string{}
	for i, m := range got {
		if i > 0 {
			require.Less(t, got[i-1].MemberID, m.MemberID, "target sorted by member id")
		}
		for j, x := range m.Partitions {
			if j > 0 {
				require.Less(t, m.Partitions[j-1].Topic, x.Topic, "topics sorted")
			}
			require.NotEmpty(t, x.Partitions)
			require.True(t, subscribed[m.MemberID][x.Topic], "member %s got %s it does not subscribe to", m.MemberID, x.Topic)
			for k, p := range x.Partitions {
				if k > 0 {
					require.Less(t, x.Partitions[k-1], p, "partitions ascending")
				}
				if seen[x.Topic] == nil {
					seen[x.Topic] = map[int32]string{}
				}
				prev, dup := seen[x.Topic][p]
				require.False(t, dup, "%s-%d given to %s and %s", x.Topic, p, prev, m.MemberID)
				seen[x.Topic][p] = m.MemberID
			}
		}
	}
	for s, n := range wanted {
		require.Len(t, seen[s], int(n), "every partition of %s assigned", s)
	}
}

// sizes returns the number of partitions per member.
func sizes(got assignor.Target) []int {
	out := make([]int, len(got))
	for i, m := range got {
		for _, x := range m.Partitions {
			out[i] += len(x.Partitions)
		}
	}
	return out
}

// checkBalanced is the balance half of checkValidityAndBalance: sizes
// differ by at most one.
func checkBalanced(t *testing.T, got assignor.Target) {
	t.Helper()
	s := sizes(got)
	lo, hi := s[0], s[0]
	for _, x := range s {
		lo, hi = min(lo, x), max(hi, x)
	}
	require.LessOrEqual(t, hi-lo, 1, "sizes %v", s)
}
