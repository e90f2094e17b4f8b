package javaorder

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The expectations below were printed by JDK 17 with Kafka 4.4.0's
// TimelineHashMap (kafka-server-common) on the classpath.

func keysAt(keys []string, order []int) []string {
	out := make([]string, len(order))
	for i, k := range order {
		out[i] = keys[k]
	}
	return out
}

// TestTimelineOrder is TimelineHashMap's keySet order after puts.
func TestTimelineOrder(t *testing.T) {
	for _, c := range []struct{ in, want []string }{
		{[]string{"uniform", "range"}, []string{"uniform", "range"}},
		{[]string{"range", "uniform"}, []string{"uniform", "range"}},
		{[]string{"a", "b", "c", "d", "e"}, []string{"c", "e", "b", "d", "a"}},
		{[]string{"uniform", "range", "sticky", "x1", "x2", "x3"}, []string{"uniform", "x1", "x3", "range", "sticky", "x2"}},
	} {
		assert.Equal(t, c.want, keysAt(c.in, TimelineOrder(c.in)), "%v", c.in)
	}
}

// TestHashMapCopyAndCompute is new HashMap<>(timelineMap), then compute:
// a copy puts the keys in the map's order, compute links a new key at the
// head of its bucket ("uniform" and "range" share one in tables of 2 and
// 4), and a key removed and computed again moves to the head.
func TestHashMapCopyAndCompute(t *testing.T) {
	assert.Equal(t, []string{"a", "b", "c", "d", "e"}, NewHashMapCopy([]string{"c", "e", "b", "d", "a"}).Keys())
	assert.Equal(t, []string{"uniform", "sticky", "x1", "range", "x2", "x3"},
		NewHashMapCopy([]string{"uniform", "x1", "x3", "range", "sticky", "x2"}).Keys())

	m := NewHashMapCopy([]string{"uniform"})
	m.Compute("range")
	assert.Equal(t, []string{"range", "uniform"}, m.Keys())

	m = NewHashMapCopy([]string{"uniform", "range"})
	assert.Equal(t, []string{"uniform", "range"}, m.Keys())
	m.Remove("range")
	m.Compute("range")
	assert.Equal(t, []string{"range", "uniform"}, m.Keys())
	m.Put("range") // present: stays
	assert.Equal(t, []string{"range", "uniform"}, m.Keys())
}

// TestPutOrderOfMemberIDs is a HashMap of the difftest's member ids put in
// id order (TargetAssignmentBuilder's member specs).
func TestPutOrderOfMemberIDs(t *testing.T) {
	ids := []string{"member-0-1-xxxxxxxxxxxxx", "member-0-2-xxxxxxxxxxxxx", "member-1-0-xxxxxxxxxxxxx", "member-1-2-xxxxxxxxxxxxx"}
	assert.Equal(t, []string{"member-1-2-xxxxxxxxxxxxx", "member-0-1-xxxxxxxxxxxxx", "member-1-0-xxxxxxxxxxxxx", "member-0-2-xxxxxxxxxxxxx"},
		keysAt(ids, PutOrder(ids)))
}
