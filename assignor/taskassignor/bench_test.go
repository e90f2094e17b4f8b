package taskassignor_test

import (
	"fmt"
	"testing"

	ta "github.com/coordsim/coordsim/assignor/taskassignor"
)

// benchGroup is members on processes of membersPerProcess members each, over
// subtopologies of tasks tasks, half of them stateful.
func benchGroup(members, membersPerProcess, subtopologies int, tasks int32, standbys int32) (ta.GroupSpec, ta.Topology) {
	var tp ta.Topology
	for i := range subtopologies {
		tp = append(tp, ta.Subtopology{ID: fmt.Sprintf("%d", i), NumTasks: tasks, Stateful: i%2 == 0})
	}
	spec := ta.GroupSpec{NumStandbyReplicas: standbys}
	for i := range members {
		spec.Members = append(spec.Members, mem(fmt.Sprintf("member-%05d", i), fmt.Sprintf("process-%05d", i/membersPerProcess), nil, nil))
	}
	return spec, tp
}

// BenchmarkStickyAssign measures a full assignment (no previous tasks) and
// an incremental one (one process joins a settled group), with and without
// standbys, like Kafka's StreamsStickyAssignorBenchmark.
func BenchmarkStickyAssign(b *testing.B) {
	for _, size := range []struct{ members, perProcess, subs int }{{10, 1, 10}, {100, 2, 20}, {1000, 4, 50}} {
		for _, standbys := range []int32{0, 1} {
			spec, tp := benchGroup(size.members, size.perProcess, size.subs, 32, standbys)
			name := fmt.Sprintf("members=%d/tasks=%d/standbys=%d", size.members, size.subs*32, standbys)
			b.Run(name+"/full", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := (ta.Sticky{}).Assign(&spec, tp); err != nil {
						b.Fatal(err)
					}
				}
			})
			settled, err := ta.Sticky{}.Assign(&spec, tp)
			if err != nil {
				b.Fatal(err)
			}
			next := withPrevious(spec, settled)
			next.Members = append(next.Members, mem("member-new", "process-new", nil, nil))
			b.Run(name+"/incremental", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := (ta.Sticky{}).Assign(&next, tp); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
