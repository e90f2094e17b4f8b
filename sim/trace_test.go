package sim_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/internal/mutant"
	"github.com/coordsim/coordsim/sim"
)

// TestViolationFocusesOnItsGroup proves a violation carries, before the
// global window, the recent trace lines of the group it names, and that
// the trace shows the sweep's work on it (offset expiry, tombstone) so the
// failure can be read from the trace alone.
func TestViolationFocusesOnItsGroup(t *testing.T) {
	o := small(t)
	o.Mutants = mutant.Set{SkipSweepDeferral: true}
	res, err := sim.Run(o, nil)
	require.NoError(t, err)
	v := res.Violation
	require.NotNil(t, v)
	group := regexp.MustCompile(`streams group (\S+)`).FindStringSubmatch(v.Detail)
	require.NotNil(t, group, v.Detail)
	require.NotEmpty(t, v.Focus)
	for _, l := range v.Focus {
		assert.Contains(t, l, "group="+group[1]+" ", "every focus line concerns the group")
	}
	all := strings.Join(v.Focus, "\n")
	assert.Contains(t, all, " stored-epoch ", "the stored-epoch writes are traced")
}

// TestTraceKinds proves the trace names the moments a debugger looks for:
// offset expiry, group tombstones, stored-epoch writes with the operation
// that wrote them, plugin calls issued and landed, shard unload and load.
func TestTraceKinds(t *testing.T) {
	o := small(t)
	var b strings.Builder
	_, err := sim.Run(o, &b)
	require.NoError(t, err)
	trace := b.String()
	for _, kind := range []string{" offset-expired ", " group-tombstone ", " stored-epoch ", " plugin-call ", " plugin-done ", " unload ", " load "} {
		assert.Contains(t, trace, kind)
	}
	assert.Regexp(t, `stored-epoch broker=\d+ group=\S+ -?\d+ -> -2 by streams-group-mark-topology-uncertain`, trace, "the v2 mark")
}
