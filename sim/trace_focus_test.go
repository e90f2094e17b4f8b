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

// FuzzFocus feeds the violation focus arbitrary detail text (a violation's
// detail quotes error messages and group ids, so any text can reach it): it
// must not panic, and it returns at most limit lines, each a traced event.
func FuzzFocus(f *testing.F) {
	for _, s := range []string{"partition 3 never finished moving", "the partition leader moved.", "partition ",
		"streams group g-1 lost its description; partition 12, p4", "delete of g issued by broker 1 for partition 99999999999999999999"} {
		f.Add(s)
	}
	tr := newTracer(10, nil)
	tr.add(traceEvent{step: 1, kind: tViolation, broker: -1, group: "g-1", detail: "load p3 on broker 1"})
	tr.add(traceEvent{step: 2, kind: tJoin, broker: 0, group: "g", member: "m", detail: "p12, p4"})
	f.Fuzz(func(t *testing.T, detail string) {
		got := tr.focus(detail, 2)
		if len(got) > 2 {
			t.Fatalf("%d lines, limit 2", len(got))
		}
	})
}
