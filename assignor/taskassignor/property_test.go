package taskassignor_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	ta "github.com/coordsim/coordsim/assignor/taskassignor"
)

// randomGroup draws a topology of 1-5 subtopologies of 0-12 tasks, some
// stateful, and 1-10 members on 1-6 processes (one member per process when
// singles is set), with 0-3 standby replicas.
func randomGroup(r *rand.Rand, singles bool) (ta.GroupSpec, ta.Topology) {
	var tp ta.Topology
	for i := range 1 + r.IntN(5) {
		tp = append(tp, ta.Subtopology{ID: fmt.Sprintf("s%d", i), NumTasks: int32(r.IntN(13)), Stateful: r.IntN(2) == 0})
	}
	spec := ta.GroupSpec{NumStandbyReplicas: int32(r.IntN(4))}
	procs := 1 + r.IntN(6)
	for i := range 1 + r.IntN(10) {
		p := r.IntN(procs)
		if singles {
			p = i
		}
		spec.Members = append(spec.Members, mem(fmt.Sprintf("m%02d", i), fmt.Sprintf("p%d", p), nil, nil))
	}
	r.Shuffle(len(spec.Members), func(i, j int) { spec.Members[i], spec.Members[j] = spec.Members[j], spec.Members[i] })
	return spec, tp
}

// withPrevious sets each member's previous tasks from a.
func withPrevious(spec ta.GroupSpec, a ta.GroupAssignment) ta.GroupSpec {
	out := spec
	out.Members = slices.Clone(spec.Members)
	for i := range out.Members {
		m, _ := a.Of(out.Members[i].MemberID)
		out.Members[i].ActiveTasks, out.Members[i].StandbyTasks = m.ActiveTasks, m.StandbyTasks
	}
	return out
}

// checkInvariants checks what holds for every assignment: each task active
// exactly once; standbys only of stateful tasks, never on a process that
// holds the task already, min(replicas, processes-1) copies of each.
func checkInvariants(t *testing.T, spec ta.GroupSpec, tp ta.Topology, a ta.GroupAssignment) {
	t.Helper()
	proc := map[string]string{}
	procs := map[string]bool{}
	for _, m := range spec.Members {
		proc[m.MemberID] = m.ProcessID
		procs[m.ProcessID] = true
	}
	require.Len(t, a, len(spec.Members))
	for _, s := range tp {
		for p := range s.NumTasks {
			owners, holders := 0, map[string]bool{}
			standbys := 0
			for _, m := range a {
				for _, x := range m.ActiveTasks {
					if x.SubtopologyID == s.ID && slices.Contains(x.Partitions, p) {
						owners++
						require.False(t, holders[proc[m.MemberID]], "%s_%d twice on %s", s.ID, p, proc[m.MemberID])
						holders[proc[m.MemberID]] = true
					}
				}
			}
			for _, m := range a {
				for _, x := range m.StandbyTasks {
					if x.SubtopologyID == s.ID && slices.Contains(x.Partitions, p) {
						standbys++
						require.True(t, s.Stateful, "standby of stateless %s_%d", s.ID, p)
						require.False(t, holders[proc[m.MemberID]], "standby of %s_%d on a process holding it (%s)", s.ID, p, proc[m.MemberID])
						holders[proc[m.MemberID]] = true
					}
				}
			}
			require.Equal(t, 1, owners, "%s_%d has one active owner", s.ID, p)
			want := 0
			if s.Stateful {
				want = min(int(spec.NumStandbyReplicas), len(procs)-1)
			}
			require.Equal(t, want, standbys, "standbys of %s_%d", s.ID, p)
		}
	}
}

func TestSticky_PropertyInvariants(t *testing.T) {
	// Over many seeds, from scratch and again with the result as the
	// previous assignment after random members left and joined.
	for seed := range uint64(500) {
		r := rand.New(rand.NewPCG(seed, 12))
		spec, tp := randomGroup(r, r.IntN(2) == 0)
		a, err := ta.Sticky{}.Assign(&spec, tp)
		require.NoError(t, err, "seed %d", seed)
		checkInvariants(t, spec, tp, a)

		next := withPrevious(spec, a)
		if len(next.Members) > 1 && r.IntN(2) == 0 {
			k := r.IntN(len(next.Members))
			next.Members = slices.Delete(next.Members, k, k+1)
		}
		if r.IntN(2) == 0 {
			next.Members = append(next.Members, mem("new", fmt.Sprintf("p%d", r.IntN(8)), nil, nil))
		}
		b, err := ta.Sticky{}.Assign(&next, tp)
		require.NoError(t, err, "seed %d", seed)
		checkInvariants(t, next, tp, b)
	}
}

func TestSticky_PropertyDeterministic(t *testing.T) {
	// The member order of the spec does not change the result.
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 13))
		spec, tp := randomGroup(r, false)
		a, err := ta.Sticky{}.Assign(&spec, tp)
		require.NoError(t, err)
		prev := withPrevious(spec, a)
		want, err := ta.Sticky{}.Assign(&prev, tp)
		require.NoError(t, err)
		r.Shuffle(len(prev.Members), func(i, j int) { prev.Members[i], prev.Members[j] = prev.Members[j], prev.Members[i] })
		slices.Reverse(tp)
		got, err := ta.Sticky{}.Assign(&prev, tp)
		require.NoError(t, err)
		require.Equal(t, want, got, "seed %d", seed)
	}
}

func TestSticky_PropertyStable(t *testing.T) {
	// Stickiness: assigning again with the result as the previous
	// assignment changes no active task, and a member that rejoins with
	// what it held keeps its active tasks.
	for seed := range uint64(500) {
		r := rand.New(rand.NewPCG(seed, 14))
		spec, tp := randomGroup(r, r.IntN(2) == 0)
		a, err := ta.Sticky{}.Assign(&spec, tp)
		require.NoError(t, err)
		prev := withPrevious(spec, a)
		b, err := ta.Sticky{}.Assign(&prev, tp)
		require.NoError(t, err)
		for i := range a {
			require.Equal(t, a[i].ActiveTasks, b[i].ActiveTasks, "seed %d member %s", seed, a[i].MemberID)
		}
	}
}

func TestSticky_PropertyBalanced(t *testing.T) {
	// From scratch with one member per process, active task counts differ by
	// at most one between members (Kafka 4.4 balances stateful and
	// stateless tasks under one quota, not each on its own).
	for seed := range uint64(500) {
		r := rand.New(rand.NewPCG(seed, 15))
		spec, tp := randomGroup(r, true)
		a, err := ta.Sticky{}.Assign(&spec, tp)
		require.NoError(t, err)
		for _, flavour := range []func(ta.Subtopology) bool{
			func(ta.Subtopology) bool { return true },
		} {
			lo, hi := 1<<30, 0
			for _, m := range a {
				n := 0
				for _, s := range tp {
					if flavour(s) {
						n += len(active(t, a, s.ID, m.MemberID))
					}
				}
				lo, hi = min(lo, n), max(hi, n)
			}
			require.LessOrEqual(t, hi-lo, 1, "seed %d", seed)
		}
	}
}

func TestSticky_PropertyLeavingMoveOnlyItsTasks(t *testing.T) {
	// When a member leaves a settled group of one member per process whose
	// subtopologies are all stateful or all stateless, the others keep every
	// active task they had; only the leaver's move. (With both flavours a
	// member may give up a task: each flavour's quota is checked on its own
	// against a count that includes the other flavour, so a member that
	// takes some of the leaver's stateful tasks can fall over the quota of
	// the stateless pass. Kafka's algorithm, reproduced.)
	for seed := range uint64(500) {
		r := rand.New(rand.NewPCG(seed, 16))
		spec, tp := randomGroup(r, true)
		if len(spec.Members) < 2 {
			continue
		}
		for i := range tp {
			tp[i].Stateful = tp[0].Stateful
		}
		a, err := ta.Sticky{}.Assign(&spec, tp)
		require.NoError(t, err)
		next := withPrevious(spec, a)
		k := r.IntN(len(next.Members))
		next.Members = slices.Delete(next.Members, k, k+1)
		b, err := ta.Sticky{}.Assign(&next, tp)
		require.NoError(t, err)
		for _, m := range next.Members {
			got, _ := b.Of(m.MemberID)
			for _, x := range m.ActiveTasks {
				for _, p := range x.Partitions {
					require.Contains(t, active(t, b, x.SubtopologyID, m.MemberID), p, "seed %d: %s lost %s_%d (%v)", seed, m.MemberID, x.SubtopologyID, p, got)
				}
			}
		}
	}
}
