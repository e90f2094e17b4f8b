package taskassignor_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	ta "github.com/coordsim/coordsim/assignor/taskassignor"
)

// Behaviour of trunk's StickyTaskAssignor beyond the cases above: stateful
// and stateless tasks balanced separately, previous warm-ups and reported
// offsets as standby candidates. Kafka's tests of these are not reproduced
// by name; each test says what it proves.

func TestSticky_StatefulAndStatelessTasksAreBalancedSeparately(t *testing.T) {
	// Two processes, 2 stateful and 2 stateless tasks: each process gets one
	// of each, even though the first process held both stateful tasks
	// before (a flavour's quota is ceil(2/2) = 1).
	tp := ta.Topology{{ID: "s", NumTasks: 2, Stateful: true}, {ID: "x", NumTasks: 2}}
	a := assign(t, 0, tp, mem("m1", "p1", ts("s", 0, 1), nil), mem("m2", "p2", nil, nil))
	assert.Len(t, active(t, a, "s", "m1"), 1)
	assert.Len(t, active(t, a, "s", "m2"), 1)
	assert.Len(t, active(t, a, "x", "m1"), 1)
	assert.Len(t, active(t, a, "x", "m2"), 1)
	assert.Equal(t, ints(0), active(t, a, "s", "m1"), "the previous owner keeps the first task it had")
}

func TestSticky_StandbysOnlyForStatefulSubtopologies(t *testing.T) {
	tp := ta.Topology{{ID: "s", NumTasks: 3, Stateful: true}, {ID: "x", NumTasks: 3}}
	a := assign(t, 1, tp, processes(3)...)
	assert.Equal(t, ints(0, 1, 2), standby(t, a, "s", ids(a)...))
	assert.Empty(t, standby(t, a, "x", ids(a)...))
}

func TestSticky_PreviousWarmupTakesTheActiveTask(t *testing.T) {
	// A warm-up is a member restoring the state of a task moving to it: for
	// stickiness it counts as a previous standby, so a task without a
	// previous active owner goes to it.
	tp := topo(2, true, "s")
	a := assign(t, 0, tp,
		ta.AssignmentMemberSpec{MemberID: "m1", ProcessID: "p1", WarmupTasks: ts("s", 1)},
		mem("m2", "p2", nil, nil))
	assert.Equal(t, ints(1), active(t, a, "s", "m1"))
	assert.Equal(t, ints(0), active(t, a, "s", "m2"))
}

func TestSticky_MostCaughtUpStandbyTakesTheActiveTask(t *testing.T) {
	// Two previous standbys of task s_0: the one reporting the larger offset
	// sum ranks first; with equal loads the first ranked wins.
	tp := topo(1, true, "s")
	a := assign(t, 0, tp,
		ta.AssignmentMemberSpec{MemberID: "m1", ProcessID: "p1", StandbyTasks: ts("s", 0),
			TaskOffsets: []ta.TaskOffset{{SubtopologyID: "s", Partition: 0, OffsetSum: 10}}},
		ta.AssignmentMemberSpec{MemberID: "m2", ProcessID: "p2", StandbyTasks: ts("s", 0),
			TaskOffsets: []ta.TaskOffset{{SubtopologyID: "s", Partition: 0, OffsetSum: 99}}})
	assert.Equal(t, ints(0), active(t, a, "s", "m2"))
}

func TestSticky_ReportedOffsetsMakeAWeakerCandidate(t *testing.T) {
	// A member that restarted (fresh id, empty target) but reports an offset
	// sum for a task with local state gets it back; a current standby
	// elsewhere still ranks ahead of it.
	tp := topo(2, true, "s")
	a := assign(t, 0, tp,
		ta.AssignmentMemberSpec{MemberID: "fresh", ProcessID: "p1",
			TaskOffsets: []ta.TaskOffset{{SubtopologyID: "s", Partition: 1, OffsetSum: 1000}}},
		mem("other", "p2", nil, nil))
	assert.Equal(t, ints(1), active(t, a, "s", "fresh"))

	a = assign(t, 0, topo(1, true, "s"),
		ta.AssignmentMemberSpec{MemberID: "fresh", ProcessID: "p1",
			TaskOffsets: []ta.TaskOffset{{SubtopologyID: "s", Partition: 0, OffsetSum: 1000}}},
		mem("standby", "p2", nil, ts("s", 0)))
	assert.Equal(t, ints(0), active(t, a, "s", "standby"))
}

func TestSticky_NoStandbyOnTheActivesProcess(t *testing.T) {
	// Two members of one process and one of another: a task's standby never
	// goes to the process that runs it, even to its other member.
	tp := topo(4, true, "s")
	a := assign(t, 1, tp, mem("a1", "pa", nil, nil), mem("a2", "pa", nil, nil), mem("b1", "pb", nil, nil))
	onA := append(active(t, a, "s", "a1", "a2"), standby(t, a, "s", "a1", "a2")...)
	onB := append(active(t, a, "s", "b1"), standby(t, a, "s", "b1")...)
	assert.ElementsMatch(t, ints(0, 1, 2, 3), onA)
	assert.ElementsMatch(t, ints(0, 1, 2, 3), onB)
}
