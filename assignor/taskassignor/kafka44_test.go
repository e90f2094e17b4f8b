package taskassignor_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	ta "github.com/coordsim/coordsim/assignor/taskassignor"
)

// Behaviour of Kafka 4.4's StickyTaskAssignor beyond the cases above:
// one quota for stateful and stateless tasks, reported offsets as standby
// candidates, warm-ups ignored. Kafka's tests of these are not reproduced
// by name; each test says what it proves.

func TestSticky_StatefulAndStatelessTasksShareOneQuota(t *testing.T) {
	// Two processes, 2 stateful and 2 stateless tasks, the first process
	// held both stateful tasks: Kafka 4.4 balances all active tasks under
	// one quota, ceil(4/2) = 2, so it keeps them and the other process
	// gets both stateless tasks (trunk's later split would give each
	// process one of each).
	tp := ta.Topology{{ID: "s", NumTasks: 2, Stateful: true}, {ID: "x", NumTasks: 2}}
	a := assign(t, 0, tp, mem("m1", "p1", ts("s", 0, 1), nil), mem("m2", "p2", nil, nil))
	assert.Equal(t, ints(0, 1), active(t, a, "s", "m1"))
	assert.Empty(t, active(t, a, "x", "m1"))
	assert.Equal(t, ints(0, 1), active(t, a, "x", "m2"))
}

func TestSticky_StandbysOnlyForStatefulSubtopologies(t *testing.T) {
	tp := ta.Topology{{ID: "s", NumTasks: 3, Stateful: true}, {ID: "x", NumTasks: 3}}
	a := assign(t, 1, tp, processes(3)...)
	assert.Equal(t, ints(0, 1, 2), standby(t, a, "s", ids(a)...))
	assert.Empty(t, standby(t, a, "x", ids(a)...))
}

func TestSticky_WarmupsAreNotStandbyCandidates(t *testing.T) {
	// Kafka 4.4's collectStandbyCandidates reads a member's standbys and
	// task offsets, not its warm-ups: random groups get the same
	// assignment with and without warm-ups added to their members.
	differs := 0
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 1251))
		spec, tp := randomGroup(r, false)
		a, err := ta.Sticky{}.Assign(&spec, tp)
		require.NoError(t, err)
		warm := spec
		warm.Members = slices.Clone(spec.Members)
		for i := range warm.Members {
			s := tp[r.IntN(len(tp))]
			if s.NumTasks > 0 {
				warm.Members[i].WarmupTasks = ts(s.ID, int32(r.IntN(int(s.NumTasks))))
				differs++
			}
		}
		b, err := ta.Sticky{}.Assign(&warm, tp)
		require.NoError(t, err)
		require.Equal(t, a, b, "seed %d", seed)
	}
	require.Greater(t, differs, 100, "warm-ups added")
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
