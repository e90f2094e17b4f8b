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
	type call func(s *memstore.Store, g string) error
	for _, bc := range []struct {
		name string
		op   call
	}{
		{"set/plain", func(s *memstore.Store, g string) error { return s.SetTopology(ctx, g, 1, d) }},
		{"set/fenced", func(s *memstore.Store, g string) error { return s.SetTopologyFenced(ctx, g, 1, d, 7) }},
		{"delete/plain", func(s *memstore.Store, g string) error { return s.DeleteTopology(ctx, g) }},
		{"delete/fenced", func(s *memstore.Store, g string) error { return s.DeleteTopologyFenced(ctx, g, 7) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			s := memstore.New()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if err := bc.op(s, ids[i%groups]); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}
