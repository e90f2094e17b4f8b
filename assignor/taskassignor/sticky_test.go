package taskassignor_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	ta "github.com/coordsim/coordsim/assignor/taskassignor"
)

// The tests below reproduce Kafka's StickyTaskAssignorTest (group-coordinator,
// streams.assignor) case by case, with the test's name after the underscore.
// Where Kafka accepts either of two outcomes (its HashMap orders), so do we.

const st = "test-subtopology"

func TestStickyTaskAssignor_testToStringReturnsName(t *testing.T) {
	assert.Equal(t, "sticky", ta.Sticky{}.Name())
	assert.Equal(t, "sticky", fmt.Sprint(ta.Sticky{}))
	a, ok := ta.Lookup("sticky")
	require.True(t, ok)
	assert.Equal(t, ta.Default(), a)
	_, ok = ta.Lookup("mock")
	assert.False(t, ok, "Kafka's test-only mock assignor is not built in")
}

func TestStickyTaskAssignor_shouldAssignOneActiveTaskToEachProcessWhenTaskCountSameAsProcessCount(t *testing.T) {
	a := assign(t, 0, topo(3, false, st), mem("member1", "process1", nil, nil), mem("member2", "process2", nil, nil), mem("member3", "process3", nil, nil))
	for _, id := range []string{"member1", "member2", "member3"} {
		assert.Equal(t, 1, activeCount(t, a, id))
	}
	assert.Equal(t, ints(0, 1, 2), active(t, a, st, "member1", "member2", "member3"))
}

func sixMembersOfThreeProcesses() []ta.AssignmentMemberSpec {
	var out []ta.AssignmentMemberSpec
	for p := 1; p <= 3; p++ {
		for m := 1; m <= 2; m++ {
			out = append(out, mem(fmt.Sprintf("member%d_%d", p, m), fmt.Sprintf("process%d", p), nil, nil))
		}
	}
	return out
}

func TestStickyTaskAssignor_shouldAssignTopicGroupIdEvenlyAcrossClientsWithNoStandByTasks(t *testing.T) {
	a := assign(t, 0, topo(3, false, "test-subtopology1", "test-subtopology2"), sixMembersOfThreeProcesses()...)
	for _, id := range ids(a) {
		assert.Equal(t, 1, activeCount(t, a, id), id)
	}
	assert.Equal(t, ints(0, 1, 2), active(t, a, "test-subtopology1", ids(a)...))
	assert.Equal(t, ints(0, 1, 2), active(t, a, "test-subtopology2", ids(a)...))
}

func TestStickyTaskAssignor_shouldAssignTopicGroupIdEvenlyAcrossClientsWithStandByTasks(t *testing.T) {
	a := assign(t, 1, topo(3, true, "test-subtopology1", "test-subtopology2"), sixMembersOfThreeProcesses()...)
	for _, id := range ids(a) {
		assert.Equal(t, 1, activeCount(t, a, id), id)
	}
	assert.Equal(t, ints(0, 1, 2), active(t, a, "test-subtopology1", ids(a)...))
	assert.Equal(t, ints(0, 1, 2), active(t, a, "test-subtopology2", ids(a)...))
}

func TestStickyTaskAssignor_shouldNotMigrateActiveTaskToOtherProcess(t *testing.T) {
	a := assign(t, 0, topo(3, false, st),
		mem("member1", "process1", ts(st, 0), nil), mem("member2", "process2", ts(st, 1), nil))
	assert.Contains(t, active(t, a, st, "member1"), int32(0))
	assert.Contains(t, active(t, a, st, "member2"), int32(1))
	assert.Equal(t, 3, activeCount(t, a, "member1", "member2"))

	// Flip the previous assignment around.
	a = assign(t, 0, topo(3, false, st),
		mem("member2", "process2", ts(st, 1), nil), mem("member3", "process1", ts(st, 2), nil))
	assert.Contains(t, active(t, a, st, "member2"), int32(1))
	assert.Contains(t, active(t, a, st, "member3"), int32(2))
	assert.Equal(t, 3, activeCount(t, a, "member2", "member3"))
}

func TestStickyTaskAssignor_shouldMigrateActiveTasksToNewProcessWithoutChangingAllAssignments(t *testing.T) {
	a := assign(t, 0, topo(3, false, st),
		mem("member1", "process1", ts(st, 0, 2), nil), mem("member2", "process2", ts(st, 1), nil), mem("member3", "process3", nil, nil))
	m1, m3 := active(t, a, st, "member1"), active(t, a, st, "member3")
	assert.True(t, (len(m1) == 1 && (m1[0] == 0 || m1[0] == 2)), "member1 keeps one of 0, 2: %v", m1)
	assert.Equal(t, ints(1), active(t, a, st, "member2"))
	assert.True(t, (len(m3) == 1 && (m3[0] == 0 || m3[0] == 2)), "member3 takes the other: %v", m3)
	assert.Equal(t, 3, activeCount(t, a, "member1", "member2", "member3"))
}

func TestStickyTaskAssignor_shouldAssignBasedOnCapacity(t *testing.T) {
	a := assign(t, 0, topo(3, false, st),
		mem("member1", "process1", nil, nil), mem("member2_1", "process2", nil, nil), mem("member2_2", "process2", nil, nil))
	for _, id := range ids(a) {
		assert.Equal(t, 1, activeCount(t, a, id), id)
	}
}

func TestStickyTaskAssignor_shouldAssignTasksEvenlyWithUnequalTopicGroupSizes(t *testing.T) {
	// Kafka's TopologyDescriberImpl2: subtopology1 with 6 tasks, subtopology2 with 1.
	tp := ta.Topology{{ID: "test-subtopology1", NumTasks: 6}, {ID: "test-subtopology2", NumTasks: 1}}
	a := assign(t, 0, tp,
		mem("member1", "process1", join(ts("test-subtopology1", 0, 1, 2, 3, 4, 5), ts("test-subtopology2", 0)), nil),
		mem("member2", "process2", nil, nil))
	assert.Equal(t, 4, activeCount(t, a, "member1"))
	assert.Equal(t, 3, activeCount(t, a, "member2"))
	assert.Equal(t, ints(0, 1, 2, 3, 4, 5), active(t, a, "test-subtopology1", "member1", "member2"))
	assert.Equal(t, ints(0), active(t, a, "test-subtopology2", "member1", "member2"))
}

func TestStickyTaskAssignor_shouldKeepActiveTaskStickinessWhenMoreClientThanActiveTasks(t *testing.T) {
	a := assign(t, 0, topo(3, false, st),
		mem("member1", "process1", ts(st, 0), nil), mem("member2", "process2", ts(st, 2), nil),
		mem("member3", "process3", ts(st, 1), nil), mem("member4", "process4", nil, nil), mem("member5", "process5", nil, nil))
	assert.Equal(t, ints(0), active(t, a, st, "member1"))
	assert.Equal(t, ints(2), active(t, a, st, "member2"))
	assert.Equal(t, ints(1), active(t, a, st, "member3"))
	assert.Empty(t, active(t, a, st, "member4"))
	assert.Empty(t, active(t, a, st, "member5"))

	// Change up the assignment and make sure it is still sticky.
	a = assign(t, 0, topo(3, false, st),
		mem("member1", "process1", nil, nil), mem("member2", "process2", ts(st, 0), nil),
		mem("member3", "process3", nil, nil), mem("member4", "process4", ts(st, 2), nil), mem("member5", "process5", ts(st, 1), nil))
	assert.Empty(t, active(t, a, st, "member1"))
	assert.Equal(t, ints(0), active(t, a, st, "member2"))
	assert.Empty(t, active(t, a, st, "member3"))
	assert.Equal(t, ints(2), active(t, a, st, "member4"))
	assert.Equal(t, ints(1), active(t, a, st, "member5"))
}

func TestStickyTaskAssignor_shouldAssignTasksToClientWithPreviousStandbyTasks(t *testing.T) {
	a := assign(t, 0, topo(3, false, st),
		mem("member1", "process1", nil, ts(st, 2)), mem("member2", "process2", nil, ts(st, 1)), mem("member3", "process3", nil, ts(st, 0)))
	assert.Equal(t, ints(2), active(t, a, st, "member1"))
	assert.Equal(t, ints(1), active(t, a, st, "member2"))
	assert.Equal(t, ints(0), active(t, a, st, "member3"))
}

func TestStickyTaskAssignor_shouldNotAssignStandbyTasksToClientWithPreviousStandbyTasksAndCurrentActiveTasks(t *testing.T) {
	a := assign(t, 1, topo(2, true, st),
		mem("member1", "process1", nil, ts(st, 0)), mem("member2", "process2", nil, ts(st, 1)))
	assert.Equal(t, ints(0), active(t, a, st, "member1"))
	assert.Equal(t, ints(1), standby(t, a, st, "member1"))
	assert.Equal(t, ints(1), active(t, a, st, "member2"))
	assert.Equal(t, ints(0), standby(t, a, st, "member2"))
}

func TestStickyTaskAssignor_shouldAssignBasedOnCapacityWhenMultipleClientHaveStandbyTasks(t *testing.T) {
	a := assign(t, 0, topo(3, false, st),
		mem("member1", "process1", ts(st, 0), ts(st, 1)),
		mem("member2_1", "process2", ts(st, 2), ts(st, 1)),
		mem("member2_2", "process2", nil, nil))
	assert.Equal(t, ints(0), active(t, a, st, "member1"))
	assert.Equal(t, ints(2), active(t, a, st, "member2_1"))
	assert.Equal(t, ints(1), active(t, a, st, "member2_2"))
}

func TestStickyTaskAssignor_shouldAssignStandbyTasksToDifferentClientThanCorrespondingActiveTaskIsAssignedTo(t *testing.T) {
	a := assign(t, 1, topo(4, true, st),
		mem("member1", "process1", ts(st, 0), nil), mem("member2", "process2", ts(st, 1), nil),
		mem("member3", "process3", ts(st, 2), nil), mem("member4", "process4", ts(st, 3), nil))
	nonEmpty := 0
	for i, id := range []string{"member1", "member2", "member3", "member4"} {
		s := standby(t, a, st, id)
		assert.NotContains(t, s, int32(i))
		assert.LessOrEqual(t, len(s), 2)
		if len(s) > 0 {
			nonEmpty++
		}
	}
	assert.GreaterOrEqual(t, nonEmpty, 3)
	assert.Equal(t, ints(0, 1, 2, 3), standby(t, a, st, ids(a)...))
}

func TestStickyTaskAssignor_shouldAssignMultipleReplicasOfStandbyTask(t *testing.T) {
	a := assign(t, 2, topo(3, true, st),
		mem("member1", "process1", ts(st, 0), nil), mem("member2", "process2", ts(st, 1), nil), mem("member3", "process3", ts(st, 2), nil))
	assert.Equal(t, ints(1, 2), standby(t, a, st, "member1"))
	assert.Equal(t, ints(0, 2), standby(t, a, st, "member2"))
	assert.Equal(t, ints(0, 1), standby(t, a, st, "member3"))
}

func TestStickyTaskAssignor_shouldNotAssignStandbyTaskReplicasWhenNoClientAvailableWithoutHavingTheTaskAssigned(t *testing.T) {
	a := assign(t, 1, topo(1, true, st), mem("member1", "process1", nil, nil))
	assert.Empty(t, of(t, a, "member1").StandbyTasks)
}

func TestStickyTaskAssignor_shouldAssignActiveAndStandbyTasks(t *testing.T) {
	a := assign(t, 1, topo(3, true, st),
		mem("member1", "process1", nil, nil), mem("member2", "process2", nil, nil), mem("member3", "process3", nil, nil))
	assert.Equal(t, ints(0, 1, 2), active(t, a, st, ids(a)...))
	assert.Equal(t, ints(0, 1, 2), standby(t, a, st, ids(a)...))
}

func TestStickyTaskAssignor_shouldAssignAtLeastOneTaskToEachClientIfPossible(t *testing.T) {
	a := assign(t, 0, topo(3, false, st),
		mem("member1_1", "process1", nil, nil), mem("member1_2", "process1", nil, nil), mem("member1_3", "process1", nil, nil),
		mem("member2", "process2", nil, nil), mem("member3", "process3", nil, nil))
	assert.Equal(t, 1, activeCount(t, a, "member1_1", "member1_2", "member1_3"))
	assert.Equal(t, 1, activeCount(t, a, "member2"))
	assert.Equal(t, 1, activeCount(t, a, "member3"))
}

func sixProcesses() []ta.AssignmentMemberSpec {
	var out []ta.AssignmentMemberSpec
	for i := 1; i <= 6; i++ {
		out = append(out, mem(fmt.Sprintf("member%d", i), fmt.Sprintf("process%d", i), nil, nil))
	}
	return out
}

func TestStickyTaskAssignor_shouldAssignEachActiveTaskToOneClientWhenMoreClientsThanTasks(t *testing.T) {
	a := assign(t, 0, topo(3, false, st), sixProcesses()...)
	assert.Equal(t, 3, activeCount(t, a, ids(a)...))
	assert.Equal(t, ints(0, 1, 2), active(t, a, st, ids(a)...))
}

func TestStickyTaskAssignor_shouldBalanceActiveAndStandbyTasksAcrossAvailableClients(t *testing.T) {
	a := assign(t, 1, topo(3, true, st), sixProcesses()...)
	for _, id := range ids(a) {
		assert.Equal(t, 1, activeCount(t, a, id)+standbyCount(t, a, id), id)
	}
}

func TestStickyTaskAssignor_shouldAssignMoreTasksToClientWithMoreCapacity(t *testing.T) {
	a := assign(t, 0, topo(3, false, "test-subtopology0", "test-subtopology1", "test-subtopology2", "test-subtopology3"),
		mem("member1", "process1", nil, nil), mem("member2_1", "process2", nil, nil), mem("member2_2", "process2", nil, nil))
	assert.Equal(t, 8, activeCount(t, a, "member2_1", "member2_2"))
	assert.Equal(t, 4, activeCount(t, a, "member1"))
}

func TestStickyTaskAssignor_shouldReBalanceTasksAcrossAllClientsWhenCapacityAndTaskCountTheSame(t *testing.T) {
	a := assign(t, 0, topo(4, false, st),
		mem("member1", "process1", nil, nil), mem("member2", "process2", nil, nil),
		mem("member3", "process3", ts(st, 0, 1, 2, 3), nil), mem("member4", "process4", nil, nil))
	for _, id := range ids(a) {
		assert.Equal(t, 1, activeCount(t, a, id), id)
	}
}

func TestStickyTaskAssignor_shouldReBalanceTasksAcrossClientsWhenCapacityLessThanTaskCount(t *testing.T) {
	a := assign(t, 0, topo(4, false, st),
		mem("member1", "process1", nil, nil), mem("member2", "process2", nil, nil), mem("member3", "process3", ts(st, 0, 1, 2, 3), nil))
	assert.Equal(t, 1, activeCount(t, a, "member1"))
	assert.Equal(t, 1, activeCount(t, a, "member2"))
	assert.Equal(t, 2, activeCount(t, a, "member3"))
}

func TestStickyTaskAssignor_shouldRebalanceTasksToClientsBasedOnCapacity(t *testing.T) {
	a := assign(t, 0, topo(3, false, st),
		mem("member2", "process2", ts(st, 0, 3, 2), nil), mem("member3_1", "process3", nil, nil), mem("member3_2", "process3", nil, nil))
	assert.Equal(t, 1, activeCount(t, a, "member2"))
	assert.Equal(t, 2, activeCount(t, a, "member3_1", "member3_2"))
}

func TestStickyTaskAssignor_shouldMoveMinimalNumberOfTasksWhenPreviouslyAboveCapacityAndNewClientAdded(t *testing.T) {
	a := assign(t, 0, topo(4, false, st),
		mem("member1", "process1", ts(st, 0, 2), nil), mem("member2", "process2", ts(st, 1, 3), nil), mem("member3", "process3", nil, nil))
	require.Equal(t, 1, activeCount(t, a, "member3"))
	moved := active(t, a, st, "member3")[0]
	if moved == 0 || moved == 2 {
		assert.Equal(t, ints(1, 3), active(t, a, st, "member2"))
	} else {
		assert.Equal(t, ints(0, 2), active(t, a, st, "member1"))
	}
}

func TestStickyTaskAssignor_shouldNotMoveAnyTasksWhenNewTasksAdded(t *testing.T) {
	a := assign(t, 0, topo(6, false, st), mem("member1", "process1", ts(st, 0, 1), nil), mem("member2", "process2", ts(st, 2, 3), nil))
	assert.Subset(t, active(t, a, st, "member1"), ints(0, 1))
	assert.Subset(t, active(t, a, st, "member2"), ints(2, 3))
}

func TestStickyTaskAssignor_shouldAssignNewTasksToNewClientWhenPreviousTasksAssignedToOldClients(t *testing.T) {
	a := assign(t, 0, topo(6, false, st),
		mem("member1", "process1", ts(st, 2, 1), nil), mem("member2", "process2", ts(st, 0, 3), nil), mem("member3", "process3", nil, nil))
	assert.Subset(t, active(t, a, st, "member1"), ints(1, 2))
	assert.Subset(t, active(t, a, st, "member2"), ints(0, 3))
	assert.Subset(t, active(t, a, st, "member3"), ints(4, 5))
}

func TestStickyTaskAssignor_shouldAssignTasksNotPreviouslyActiveToNewClient(t *testing.T) {
	s0, s1, s2 := "test-subtopology0", "test-subtopology1", "test-subtopology2"
	a := assign(t, 0, topo(4, false, s0, s1, s2),
		mem("member1", "process1", join(ts(s0, 1), ts(s1, 2, 3)), join(ts(s0, 0), ts(s1, 1), ts(s2, 0, 1, 3))),
		mem("member2", "process2", join(ts(s0, 0), ts(s1, 1), ts(s2, 2)), join(ts(s0, 1, 2, 3), ts(s1, 0, 2, 3), ts(s2, 0, 1, 3))),
		mem("member3", "process3", ts(s2, 0, 1, 3), join(ts(s0, 2), ts(s1, 2))),
		mem("newMember", "process4", nil, join(ts(s0, 0, 1, 2, 3), ts(s1, 0, 1, 2, 3), ts(s2, 0, 1, 2, 3))))
	assert.Equal(t, join(ts(s0, 1), ts(s1, 2, 3)), of(t, a, "member1").ActiveTasks)
	assert.Equal(t, join(ts(s0, 0), ts(s1, 1), ts(s2, 2)), of(t, a, "member2").ActiveTasks)
	assert.Equal(t, ts(s2, 0, 1, 3), of(t, a, "member3").ActiveTasks)
	assert.Equal(t, join(ts(s0, 2, 3), ts(s1, 0)), of(t, a, "newMember").ActiveTasks)
}

func TestStickyTaskAssignor_shouldAssignTasksNotPreviouslyActiveToMultipleNewClients(t *testing.T) {
	s0, s1, s2 := "test-subtopology0", "test-subtopology1", "test-subtopology2"
	a := assign(t, 0, topo(4, false, s0, s1, s2),
		mem("member1", "process1", join(ts(s0, 1), ts(s1, 2, 3)), join(ts(s0, 0), ts(s1, 1), ts(s2, 0, 1, 3))),
		mem("member2", "process2", join(ts(s0, 0), ts(s1, 1), ts(s2, 2)), join(ts(s0, 1, 2, 3), ts(s1, 0, 2, 3), ts(s2, 0, 1, 3))),
		mem("bounce_member1", "bounce1", nil, ts(s2, 0, 1, 3)),
		mem("bounce_member2", "bounce2", nil, join(ts(s0, 2, 3), ts(s1, 0))))
	assert.Equal(t, join(ts(s0, 1), ts(s1, 2, 3)), of(t, a, "member1").ActiveTasks)
	assert.Equal(t, join(ts(s0, 0), ts(s1, 1), ts(s2, 2)), of(t, a, "member2").ActiveTasks)
	assert.Equal(t, ts(s2, 0, 1, 3), of(t, a, "bounce_member1").ActiveTasks)
	assert.Equal(t, join(ts(s0, 2, 3), ts(s1, 0)), of(t, a, "bounce_member2").ActiveTasks)
}

func TestStickyTaskAssignor_shouldAssignTasksToNewClient(t *testing.T) {
	a := assign(t, 0, topo(2, false, st), mem("member1", "process1", ts(st, 1, 2), nil), mem("member2", "process2", nil, nil))
	assert.Equal(t, 1, activeCount(t, a, "member1"))
}

func TestStickyTaskAssignor_shouldAssignTasksToNewClientWithoutFlippingAssignmentBetweenExistingClients(t *testing.T) {
	a := assign(t, 0, topo(6, false, st),
		mem("member1", "process1", ts(st, 0, 1, 2), nil), mem("member2", "process2", ts(st, 3, 4, 5), nil), mem("newMember", "process3", nil, nil))
	m1, m2 := active(t, a, st, "member1"), active(t, a, st, "member2")
	assert.Len(t, m1, 2)
	assert.Subset(t, ints(0, 1, 2), m1)
	assert.Len(t, m2, 2)
	assert.Subset(t, ints(3, 4, 5), m2)
	assert.Equal(t, 2, activeCount(t, a, "newMember"))
}

func TestStickyTaskAssignor_shouldAssignTasksToNewClientWithoutFlippingAssignmentBetweenExistingAndBouncedClients(t *testing.T) {
	a := assign(t, 0, topo(7, false, st),
		mem("member1", "process1", ts(st, 0, 1, 2, 6), nil), mem("member2", "process2", nil, ts(st, 3, 4, 5)), mem("newMember", "newProcess", nil, nil))
	m1, m2 := active(t, a, st, "member1"), active(t, a, st, "member2")
	assert.Len(t, m1, 3)
	assert.NotContains(t, m1, int32(3))
	assert.NotContains(t, m1, int32(4))
	assert.NotContains(t, m1, int32(5))
	assert.Len(t, m2, 2)
	assert.NotContains(t, m2, int32(0))
	assert.NotContains(t, m2, int32(1))
	assert.NotContains(t, m2, int32(2))
	assert.Equal(t, 2, activeCount(t, a, "newMember"))
}

func processes(n int) []ta.AssignmentMemberSpec {
	var out []ta.AssignmentMemberSpec
	for i := range n {
		out = append(out, mem(fmt.Sprintf("member%d", i), fmt.Sprintf("process%d", i), nil, nil))
	}
	return out
}

// noActiveAndStandbyTogether checks that no member holds a task both ways.
func noActiveAndStandbyTogether(t *testing.T, a ta.GroupAssignment, sub string) {
	for _, id := range ids(a) {
		for _, p := range active(t, a, sub, id) {
			assert.NotContains(t, standby(t, a, sub, id), p, "%s holds %d as active and standby", id, p)
		}
	}
}

func TestStickyTaskAssignor_shouldHandleLargeNumberOfTasksWithStandbyAssignment(t *testing.T) {
	a := assign(t, 2, topo(100, true, st), processes(5)...)
	assert.Len(t, active(t, a, st, ids(a)...), 100)
	assert.Equal(t, 200, standbyCount(t, a, ids(a)...), "two copies of each task fit on five processes")
	noActiveAndStandbyTogether(t, a, st)
	for _, id := range ids(a) {
		assert.Equal(t, 20, activeCount(t, a, id), id)
	}
}

func TestStickyTaskAssignor_shouldHandleOddNumberOfClientsWithStandbyTasks(t *testing.T) {
	a := assign(t, 1, topo(14, true, st), processes(7)...)
	assert.Len(t, active(t, a, st, ids(a)...), 14)
	assert.Equal(t, 14, standbyCount(t, a, ids(a)...))
	for _, id := range ids(a) {
		assert.Equal(t, 2, activeCount(t, a, id), id)
	}
}

func TestStickyTaskAssignor_shouldHandleHighStandbyReplicaCount(t *testing.T) {
	a := assign(t, 5, topo(6, true, st), processes(3)...)
	assert.Len(t, active(t, a, st, ids(a)...), 6)
	// Each task fits on the two other processes only.
	assert.Equal(t, 12, standbyCount(t, a, ids(a)...))
	noActiveAndStandbyTogether(t, a, st)
}

func TestStickyTaskAssignor_shouldHandleLargeNumberOfSubtopologiesWithStandbyTasks(t *testing.T) {
	var subs []string
	for i := range 10 {
		subs = append(subs, fmt.Sprintf("subtopology-%d", i))
	}
	a := assign(t, 1, topo(5, true, subs...), processes(4)...)
	for _, s := range subs {
		assert.Len(t, active(t, a, s, ids(a)...), 5, s)
		assert.Len(t, standby(t, a, s, ids(a)...), 5, s)
	}
}

func TestStickyTaskAssignor_shouldHandleEdgeCaseWithSingleClientAndMultipleStandbyReplicas(t *testing.T) {
	a := assign(t, 3, topo(10, true, st), mem("member1", "process1", nil, nil))
	assert.Equal(t, 10, activeCount(t, a, "member1"))
	assert.Empty(t, of(t, a, "member1").StandbyTasks)
}

func TestStickyTaskAssignor_shouldHandleEdgeCaseWithMoreStandbyReplicasThanAvailableClients(t *testing.T) {
	a := assign(t, 5, topo(4, true, st), processes(2)...)
	assert.Len(t, active(t, a, st, ids(a)...), 4)
	assert.Equal(t, ints(0, 1, 2, 3), standby(t, a, st, ids(a)...))
	assert.Equal(t, 4, standbyCount(t, a, ids(a)...))
}

func TestStickyTaskAssignor_shouldReassignTasksWhenNewNodeJoinsWithExistingActiveAndStandbyAssignments(t *testing.T) {
	a := assign(t, 1, topo(4, true, st),
		mem("member1", "process1", ts(st, 0, 1), ts(st, 2, 3)),
		mem("member2", "process2", ts(st, 2, 3), ts(st, 0, 1)),
		mem("member3", "process3", nil, nil))
	assert.Equal(t, ints(0, 1, 2, 3), active(t, a, st, ids(a)...))
	assert.Equal(t, ints(0, 1, 2, 3), standby(t, a, st, ids(a)...))
	for _, id := range ids(a) {
		n := activeCount(t, a, id)
		assert.True(t, n >= 1 && n <= 2, "%s has %d active tasks", id, n)
		assert.LessOrEqual(t, n+standbyCount(t, a, id), 3, id)
	}
}

func TestStickyTaskAssignor_shouldRangeAssignTasksWhenScalingUp(t *testing.T) {
	s1, s2 := "test-subtopology1", "test-subtopology2"
	a := assign(t, 1, topo(2, true, s1, s2), mem("member1", "process1", join(ts(s1, 0, 1), ts(s2, 0, 1)), nil), mem("member2", "process2", nil, nil))
	for _, id := range []string{"member1", "member2"} {
		for _, s := range []string{s1, s2} {
			assert.Len(t, active(t, a, s, id), 1, "%s %s", id, s)
			assert.Len(t, standby(t, a, s, id), 1, "%s %s", id, s)
		}
	}
	assert.Equal(t, ints(0, 1), active(t, a, s1, "member1", "member2"))
	assert.Equal(t, ints(0, 1), active(t, a, s2, "member1", "member2"))
}

func TestStickyTaskAssignor_shouldRangeAssignTasksWhenStartingEmpty(t *testing.T) {
	s1, s2 := "test-subtopology1", "test-subtopology2"
	a := assign(t, 1, topo(2, true, s1, s2), processes(2)...)
	for _, id := range ids(a) {
		for _, s := range []string{s1, s2} {
			assert.Len(t, active(t, a, s, id), 1, "%s %s", id, s)
			assert.Len(t, standby(t, a, s, id), 1, "%s %s", id, s)
		}
	}
	// Range-like: the member that gets partition 0 of one subtopology gets
	// partition 0 of the other.
	assert.Equal(t, active(t, a, s1, "member0"), active(t, a, s2, "member0"))
}

func TestStickyTaskAssignor_shouldAssignStandbyTaskToPreviousOwnerBasedOnBelowQuotaCondition(t *testing.T) {
	a := assign(t, 1, topo(2, true, st),
		mem("member1", "process1", ts(st, 0), ts(st, 1)), mem("member2", "process2", ts(st, 1), nil), mem("member3", "process3", nil, nil))
	assert.Contains(t, active(t, a, st, "member1"), int32(0))
	assert.Equal(t, ints(1), standby(t, a, st, "member1"), "the previous standby keeps it while under quota")
	assert.NotContains(t, active(t, a, st, "member1"), int32(1))
	assert.LessOrEqual(t, activeCount(t, a, "member1")+standbyCount(t, a, "member1"), 2)
}
