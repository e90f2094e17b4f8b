package memstore_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/coordsim/coordsim/plugin"
	"github.com/coordsim/coordsim/plugin/memstore"
)

// BenchmarkFence compares the plain and the fenced (protocol v3) set and
// delete on memstore in one run: the fence is one map lookup and store per
// call under the lock the call already takes.
func BenchmarkFence(b *testing.B) {
	ctx := context.Background()
	d := plugin.SampleTopology(1, 4)
	const groups = 1024
	ids := make([]string, groups)
	for i := range ids {
		ids[i] = fmt.Sprintf("group-%04d", i)
	}
	for _, fenced := range []bool{false, true} {
		name := "plain"
		if fenced {
			name = "fenced"
		}
		b.Run("set/"+name, func(b *testing.B) {
			s := memstore.New()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				g := ids[i%groups]
				var err error
				if fenced {
					err = s.SetTopologyFenced(ctx, g, 1, d, 7)
				} else {
					err = s.SetTopology(ctx, g, 1, d)
				}
				if err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
		b.Run("delete/"+name, func(b *testing.B) {
			s := memstore.New()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				g := ids[i%groups]
				var err error
				if fenced {
					err = s.DeleteTopologyFenced(ctx, g, 7)
				} else {
					err = s.DeleteTopology(ctx, g)
				}
				if err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}
