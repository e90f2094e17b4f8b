package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestComparedOfCarriesTheViolation proves a compared run that broke an
// invariant carries it in full (Violated, which the JSON and the CLI's
// exit code read) beside its one-line name, and a run that held carries
// neither.
func TestComparedOfCarriesTheViolation(t *testing.T) {
	r := &Result{TraceHash: "h", Events: 7, Marks: map[string]int64{"rolling-upgraded": 2, "rolling-downgraded": 1},
		Violation: &Violation{Invariant: "9-one-owner", Step: 5, AtMs: 1200, Detail: "two owners", Trace: []string{"x"}}}
	c := ComparedOf(r, BaselineRunName)
	assert.Equal(t, "the same applications on the consumer protocol from the start, never rolled", c.What)
	assert.Equal(t, int64(3), c.Rolls)
	assert.Equal(t, "9-one-owner at step 5", c.Violation)
	require.NotNil(t, c.Violated)
	assert.Equal(t, ComparedViolation{Invariant: "9-one-owner", Step: 5, AtMs: 1200, Detail: "two owners"}, *c.Violated)

	r.Violation = nil
	c = ComparedOf(r, RollingRunName)
	assert.Empty(t, c.Violation)
	assert.Nil(t, c.Violated)
}
