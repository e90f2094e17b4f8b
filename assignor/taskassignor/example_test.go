package taskassignor_test

import (
	"fmt"

	ta "github.com/coordsim/coordsim/assignor/taskassignor"
)

// A streams group of two processes with num.standby.replicas=1: each active
// task of the stateful subtopology gets a standby on the other process; the
// stateless subtopology gets none.
func Example() {
	topology := ta.Topology{
		{ID: "0", NumTasks: 2, Stateful: true}, // has changelog topics
		{ID: "1", NumTasks: 2},
	}
	got, err := ta.Default().Assign(&ta.GroupSpec{
		Members: []ta.AssignmentMemberSpec{
			{MemberID: "m1", ProcessID: "p1", ActiveTasks: []ta.Tasks{{SubtopologyID: "0", Partitions: []int32{1}}}},
			{MemberID: "m2", ProcessID: "p2"},
		},
		NumStandbyReplicas: 1,
	}, topology)
	if err != nil {
		panic(err)
	}
	for _, m := range got {
		fmt.Println(m.MemberID, "active", m.ActiveTasks, "standby", m.StandbyTasks)
	}
	// Output:
	// m1 active [{0 [1]} {1 [0]}] standby [{0 [0]}]
	// m2 active [{0 [0]} {1 [1]}] standby [{0 [1]}]
}
