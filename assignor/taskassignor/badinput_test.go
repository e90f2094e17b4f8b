package taskassignor_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	ta "github.com/coordsim/coordsim/assignor/taskassignor"
	"github.com/coordsim/coordsim/kerr"
)

// badTopology is a TopologyDescriber that cannot describe its subtopology.
type badTopology struct{}

func (badTopology) Subtopologies() []string { return []string{"a"} }
func (badTopology) MaxNumInputPartitions(string) (int32, error) {
	return 0, errors.New("no such subtopology")
}
func (badTopology) IsStateful(string) bool { return false }

func TestSticky_BadInputIsRefusedAndUntouched(t *testing.T) {
	// Every malformed input gets an UNKNOWN_SERVER_ERROR (a
	// TaskAssignorException as the coordinator reports it), no assignment,
	// and is left exactly as it was.
	one := topo(2, true, "a")
	cases := map[string]struct {
		spec ta.GroupSpec
		topo ta.TopologyDescriber
	}{
		"negative standbys":     {ta.GroupSpec{NumStandbyReplicas: -1}, one},
		"empty member id":       {ta.GroupSpec{Members: []ta.AssignmentMemberSpec{mem("", "p", nil, nil)}}, one},
		"duplicate member":      {ta.GroupSpec{Members: []ta.AssignmentMemberSpec{mem("m", "p", nil, nil), mem("m", "q", nil, nil)}}, one},
		"no process id":         {ta.GroupSpec{Members: []ta.AssignmentMemberSpec{mem("m", "", nil, nil)}}, one},
		"empty subtopology id":  {ta.GroupSpec{}, topo(1, false, "")},
		"duplicate subtopology": {ta.GroupSpec{}, ta.Topology{{ID: "a", NumTasks: 1}, {ID: "a", NumTasks: 2}}},
		"negative task count":   {ta.GroupSpec{}, ta.Topology{{ID: "a", NumTasks: -1}}},
		"undescribable":         {ta.GroupSpec{}, badTopology{}},
		"two active owners": {ta.GroupSpec{Members: []ta.AssignmentMemberSpec{
			mem("m1", "p", ts("a", 0), nil), mem("m2", "q", ts("a", 0), nil)}}, one},
		"tasks but no members": {ta.GroupSpec{}, one},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			before := deepCopy(c.spec)
			got, err := ta.Sticky{}.Assign(&c.spec, c.topo)
			require.ErrorIs(t, err, kerr.UnknownServerError)
			assert.Nil(t, got)
			assert.Equal(t, before, c.spec, "the spec is not modified")
		})
	}
	_, err := ta.Sticky{}.Assign(nil, one)
	require.ErrorIs(t, err, kerr.UnknownServerError)
	_, err = ta.Sticky{}.Assign(&ta.GroupSpec{}, nil)
	require.ErrorIs(t, err, kerr.UnknownServerError)
}

func TestSticky_NoActiveTaskWithoutMembersIsKafkasMessage(t *testing.T) {
	// Kafka's assignActive throws "No process available to assign active
	// task ..." when a group without members has tasks.
	_, err := ta.Sticky{}.Assign(&ta.GroupSpec{}, topo(1, false, "a"))
	assert.EqualError(t, err, "UNKNOWN_SERVER_ERROR: No process available to assign active task a_0.")
	// No tasks and no members is an empty assignment, not an error.
	got, err := ta.Sticky{}.Assign(&ta.GroupSpec{}, ta.Topology{})
	require.NoError(t, err)
	assert.Empty(t, got)
}

func TestSticky_UnknownAndOutOfRangeTasksAreIgnored(t *testing.T) {
	// A previous task the topology no longer has (a subtopology gone, a
	// topic shrunk) is dropped, as Kafka never looks it up; the spec is not
	// modified.
	spec := ta.GroupSpec{Members: []ta.AssignmentMemberSpec{
		mem("m2", "p2", join(ts("gone", 0), ts("a", 7, 1)), ts("a", -1)),
		mem("m1", "p1", ts("a", 0), nil),
	}}
	before := deepCopy(spec)
	got, err := ta.Sticky{}.Assign(&spec, topo(2, false, "a"))
	require.NoError(t, err)
	assert.Equal(t, before, spec)
	assert.Equal(t, ta.GroupAssignment{
		{MemberID: "m1", ActiveTasks: ts("a", 0)},
		{MemberID: "m2", ActiveTasks: ts("a", 1)},
	}, got)
}

func deepCopy(s ta.GroupSpec) ta.GroupSpec {
	out := s
	out.Members = nil
	for _, m := range s.Members {
		c := m
		c.ActiveTasks = copyTasks(m.ActiveTasks)
		c.StandbyTasks = copyTasks(m.StandbyTasks)
		c.WarmupTasks = copyTasks(m.WarmupTasks)
		c.TaskOffsets = append([]ta.TaskOffset(nil), m.TaskOffsets...)
		out.Members = append(out.Members, c)
	}
	return out
}

func copyTasks(l []ta.Tasks) []ta.Tasks {
	if l == nil {
		return nil
	}
	out := make([]ta.Tasks, len(l))
	for i, x := range l {
		out[i] = ta.Tasks{SubtopologyID: x.SubtopologyID, Partitions: append([]int32(nil), x.Partitions...)}
	}
	return out
}
