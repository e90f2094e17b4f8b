package taskassignor_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	ta "github.com/coordsim/coordsim/assignor/taskassignor"
)

// mem is a member of process proc with previous active and standby tasks.
func mem(id, proc string, active, standby []ta.Tasks) ta.AssignmentMemberSpec {
	return ta.AssignmentMemberSpec{MemberID: id, ProcessID: proc, ActiveTasks: active, StandbyTasks: standby}
}

// ts is the tasks of one subtopology; several can be appended.
func ts(sub string, parts ...int32) []ta.Tasks {
	return []ta.Tasks{{SubtopologyID: sub, Partitions: parts}}
}

func join(lists ...[]ta.Tasks) []ta.Tasks {
	var out []ta.Tasks
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// topo is Kafka's test TopologyDescriberImpl: every subtopology has n tasks
// and the same statefulness.
func topo(n int32, stateful bool, subs ...string) ta.Topology {
	var t ta.Topology
	for _, s := range subs {
		t = append(t, ta.Subtopology{ID: s, NumTasks: n, Stateful: stateful})
	}
	return t
}

func assign(t *testing.T, standbys int32, tp ta.TopologyDescriber, members ...ta.AssignmentMemberSpec) ta.GroupAssignment {
	t.Helper()
	got, err := ta.Sticky{}.Assign(&ta.GroupSpec{Members: members, NumStandbyReplicas: standbys}, tp)
	require.NoError(t, err)
	require.Len(t, got, len(members))
	return got
}

func of(t *testing.T, a ta.GroupAssignment, id string) ta.MemberAssignment {
	t.Helper()
	m, ok := a.Of(id)
	require.True(t, ok, "member %s in the assignment", id)
	return m
}

// active returns the active partitions of sub held by the members.
func active(t *testing.T, a ta.GroupAssignment, sub string, ids ...string) []int32 {
	t.Helper()
	var out []int32
	for _, id := range ids {
		for _, x := range of(t, a, id).ActiveTasks {
			if x.SubtopologyID == sub {
				out = append(out, x.Partitions...)
			}
		}
	}
	slices.Sort(out)
	return out
}

func standby(t *testing.T, a ta.GroupAssignment, sub string, ids ...string) []int32 {
	t.Helper()
	var out []int32
	for _, id := range ids {
		for _, x := range of(t, a, id).StandbyTasks {
			if x.SubtopologyID == sub {
				out = append(out, x.Partitions...)
			}
		}
	}
	slices.Sort(out)
	return out
}

func count(l []ta.Tasks) int {
	n := 0
	for _, x := range l {
		n += len(x.Partitions)
	}
	return n
}

// activeCount is Kafka's getAllActiveTaskCount.
func activeCount(t *testing.T, a ta.GroupAssignment, ids ...string) int {
	t.Helper()
	n := 0
	for _, id := range ids {
		n += count(of(t, a, id).ActiveTasks)
	}
	return n
}

func standbyCount(t *testing.T, a ta.GroupAssignment, ids ...string) int {
	t.Helper()
	n := 0
	for _, id := range ids {
		n += count(of(t, a, id).StandbyTasks)
	}
	return n
}

func ids(a ta.GroupAssignment) []string {
	out := make([]string, len(a))
	for i, m := range a {
		out[i] = m.MemberID
	}
	return out
}

func ints(xs ...int32) []int32 { return xs }
