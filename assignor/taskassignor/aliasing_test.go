package taskassignor_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	ta "github.com/coordsim/coordsim/assignor/taskassignor"
)

// TestSticky_TaskListsDoNotAlias proves that the task lists of an
// assignment, which share backing arrays, are capped: appending to one
// member's subtopologies or to one subtopology's partitions never changes
// another list.
func TestSticky_TaskListsDoNotAlias(t *testing.T) {
	topology := ta.Topology{{ID: "0", NumTasks: 5}, {ID: "1", NumTasks: 4, Stateful: true}}
	got := assign(t, 1, topology,
		mem("m1", "p1", ts("1", 3, 0), nil),
		mem("m2", "p2", nil, nil),
		mem("m3", "p3", ts("0", 4), ts("1", 3)),
	)
	clone := func(a []ta.Tasks) []ta.Tasks {
		var out []ta.Tasks
		for _, x := range a {
			out = append(out, ta.Tasks{SubtopologyID: x.SubtopologyID, Partitions: slices.Clone(x.Partitions)})
		}
		return out
	}
	grow := func(a []ta.Tasks) []ta.Tasks {
		for i := range a {
			a[i].Partitions = append(a[i].Partitions, 99)
		}
		return append(a, ta.Tasks{SubtopologyID: "z"})
	}
	check := func(want, got []ta.Tasks, what string) {
		require.Len(t, got, len(want)+1, what)
		for i, w := range want {
			require.Equal(t, w.SubtopologyID, got[i].SubtopologyID, what)
			require.Equal(t, append(slices.Clone(w.Partitions), 99), got[i].Partitions, what)
		}
	}
	wantActive, wantStandby := make([][]ta.Tasks, len(got)), make([][]ta.Tasks, len(got))
	for i, m := range got {
		wantActive[i], wantStandby[i] = clone(m.ActiveTasks), clone(m.StandbyTasks)
	}
	for i := range got {
		got[i].ActiveTasks, got[i].StandbyTasks = grow(got[i].ActiveTasks), grow(got[i].StandbyTasks)
	}
	for i, m := range got {
		check(wantActive[i], m.ActiveTasks, m.MemberID+" active")
		check(wantStandby[i], m.StandbyTasks, m.MemberID+" standby")
	}
}
