package sim_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/sim"
)

// TestEveryRecordedMarkIsKnown proves the mark list, read from the code,
// holds every mark a run records: a mark recorded through a helper that
// takes its name as an argument escapes the scan, and then a sweep's
// --require-marks refuses it as unknown (as CI's did once for
// read-with-uncommitted-writes).
func TestEveryRecordedMarkIsKnown(t *testing.T) {
	for _, name := range []string{"ci", "rolling-upgrade", "share-faults"} {
		o := builtin(t, name)
		o.Duration = min(o.Duration, 2*time.Hour)
		r, err := sim.Run(o, nil)
		require.NoError(t, err, name)
		require.NotEmpty(t, r.Marks, name)
		for m := range r.Marks {
			assert.True(t, sim.KnownMark(m), "%s records mark %q, which the scan of the code does not find", name, m)
		}
	}
}
