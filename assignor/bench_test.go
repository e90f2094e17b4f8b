package assignor_test

import (
	"fmt"
	"testing"

	"github.com/coordsim/coordsim/assignor"
)

// benchSpec is a group of members over topics of partitions each; with
// heterogeneous set, member i subscribes to every topic but i%topics.
func benchSpec(members, topics int, partitions int32, heterogeneous bool) assignor.Spec {
	var spec assignor.Spec
	var names []string
	for i := range topics {
		name := fmt.Sprintf("topic-%04d", i)
		names = append(names, name)
		spec.Topics = append(spec.Topics, topic(name, partitions))
	}
	for i := range members {
		s := names
		if heterogeneous {
			s = append(append([]string(nil), names[:i%topics]...), names[i%topics+1:]...)
		}
		spec.Members = append(spec.Members, member(fmt.Sprintf("member-%05d", i), s))
	}
	return spec
}

// BenchmarkAssign measures a full assignment (no current assignment) and an
// incremental one (one member joins a settled group) for each assignor and
// subscription shape, like Kafka's ServerSideAssignorBenchmark.
func BenchmarkAssign(b *testing.B) {
	for _, a := range []assignor.Assignor{assignor.Uniform{}, assignor.Range{}} {
		for _, het := range []bool{false, true} {
			shape := "homogeneous"
			if het {
				shape = "heterogeneous"
			}
			spec := benchSpec(1000, 100, 50, het)
			b.Run(fmt.Sprintf("%s/%s/full", a.Name(), shape), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := a.Assign(&spec); err != nil {
						b.Fatal(err)
					}
				}
			})
			first, err := a.Assign(&spec)
			if err != nil {
				b.Fatal(err)
			}
			inc := withCurrent(spec, first)
			inc.Members = append(inc.Members, member("member-new", spec.Members[0].Topics))
			b.Run(fmt.Sprintf("%s/%s/incremental", a.Name(), shape), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := a.Assign(&inc); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
