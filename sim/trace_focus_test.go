package sim

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestFocusOnAPartition proves a violation's focus picks the trace lines of
// the partition its detail names ("partition N" finds the events that say
// pN), and that a detail saying "partition " with no number after it (an
// error text such as "share partition not found") gets no partition focus
// instead of a panic that would hide the violation it reports.
func TestFocusOnAPartition(t *testing.T) {
	tr := newTracer(10, nil)
	tr.add(traceEvent{step: 1, kind: tViolation, broker: -1, detail: "load p3 on broker 1"})
	tr.add(traceEvent{step: 2, kind: tViolation, broker: -1, detail: "load p4 on broker 2"})

	got := tr.focus("partition 3 never finished moving", 10)
	if assert.Len(t, got, 1) {
		assert.True(t, strings.Contains(got[0], "p3"), got[0])
	}
	for _, detail := range []string{"sink s: share partition not found", "partition ", "the partition leader moved."} {
		assert.NotPanics(t, func() {
			assert.Empty(t, tr.focus(detail, 10), detail)
		}, detail)
	}
}
