package javaorder

import (
	"crypto/sha256"
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

// tip is a TopicIdPartition of the test's topics.
type tip struct {
	topic string
	p     int32
}

// TestHashMapOfTopicIdPartitions is Kafka's share builder's maps of
// TopicIdPartition records (hashCode 31 * Uuid.hashCode() + partition):
// computeIfAbsent into new HashMap<>((int) ((T + 1) / 0.75F + 1.0F)) and
// add into a new HashSet<>(), as JDK 17 orders them; the topic ids are
// the differential runner's for t0, t1 and t2 (first 16 bytes of
// SHA-256("coordsim-topic:t0#0")).
func TestHashMapOfTopicIdPartitions(t *testing.T) {
	ids := map[string][16]byte{}
	for _, n := range []string{"t0", "t1", "t2"} {
		sum := sha256.Sum256([]byte("coordsim-topic:" + n + "#0"))
		ids[n] = [16]byte(sum[:16])
	}
	hash := func(k tip) int32 { return RecordHash(UUIDHash(ids[k.topic]), k.p) }
	assert.Equal(t, int32(933664370), hash(tip{"t1", 3}))

	targets := 9
	m := NewHashMap(hash, int(float32(targets+1)/0.75+1))
	for _, k := range []tip{{"t1", 0}, {"t1", 1}, {"t1", 2}, {"t1", 3}, {"t0", 0}, {"t0", 1}, {"t0", 2}, {"t2", 0}, {"t2", 1}} {
		m.Compute(k)
	}
	assert.Equal(t, []tip{{"t2", 0}, {"t0", 2}, {"t1", 3}, {"t1", 1}, {"t1", 2}, {"t1", 0}, {"t0", 0}, {"t0", 1}, {"t2", 1}}, m.Keys())

	s := NewHashMap(hash, 0)
	for _, k := range []tip{{"t1", 0}, {"t1", 1}, {"t1", 2}, {"t1", 3}, {"t0", 0}, {"t0", 1}, {"t0", 2}} {
		s.Put(k)
	}
	assert.Equal(t, []tip{{"t1", 3}, {"t0", 2}, {"t1", 1}, {"t1", 2}, {"t1", 0}, {"t0", 0}, {"t0", 1}}, s.Keys())
}
