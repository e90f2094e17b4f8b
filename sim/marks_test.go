package sim

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestMarkNames proves the mark list is read from the code: sorted, with
// the marks and the prefixes of mark families the simulator records, and a
// copy the caller may change.
func TestMarkNames(t *testing.T) {
	names := MarkNames()
	assert.True(t, slices.IsSorted(names))
	for _, m := range []string{"tick-dropped", "range-rack-matched", "partition-racks-moved", "describe-"} {
		assert.Contains(t, names, m)
	}
	assert.True(t, KnownMark("describe-AVAILABLE"), "a family member")
	assert.False(t, KnownMark("no-such-mark"))
	names[0] = "changed"
	assert.NotEqual(t, "changed", MarkNames()[0])
}
