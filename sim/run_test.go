package sim_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/sim"
)

func TestDefaultRunSmoke(t *testing.T) {
	o := sim.DefaultOptions()
	start := time.Now()
	r, err := sim.Run(o, nil)
	require.NoError(t, err)
	t.Logf("wall %s events %d (%.0f/s) vt %s hash %s", time.Since(start), r.Events, float64(r.Events)/time.Since(start).Seconds(), r.VirtualTime, r.TraceHash)
	if r.Violation != nil {
		t.Logf("VIOLATION %s: %s", r.Violation.Invariant, r.Violation.Detail)
		for _, l := range r.Violation.Trace {
			t.Log(l)
		}
	}
	t.Logf("cycles %d eligible %d ok %d failed %d commits %d expired %d moves %d dataloss %d leaked %d dropped %d",
		r.Cycles, r.Eligible, r.DeletesOK, r.DeletesFailed, r.OffsetCommits, r.OffsetExpired, r.ShardMoves, r.AcceptedDataLoss, r.LeakedRows, r.TicksDropped)
	t.Logf("marks %v", r.Marks)
	t.Logf("final %v created %v", r.GroupsFinal, r.GroupsCreated)
}
