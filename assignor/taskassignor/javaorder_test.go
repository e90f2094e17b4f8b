package taskassignor

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestJavaHashMapOrder proves javaHashMapOrder is java.util.HashMap's
// iteration order, the expectations printed by JDK 17: two process ids
// that share a bucket in every table smaller than 16 come out in insertion
// order after put and reversed after computeIfAbsent (which links a new
// key at the bucket's head), and in hash order in a table of 16.
func TestJavaHashMapOrder(t *testing.T) {
	keys := []string{"00000000-proc", "9e3779b1-proc"}
	assert.Equal(t, int32(1767288067), javaStringHash(keys[0]))
	assert.Equal(t, int32(-606118782), javaStringHash(keys[1]))
	for _, c := range []int{1, 2, 3, 4, 8} {
		assert.Equal(t, []int{1, 0}, javaHashMapOrder(keys, c, computeIfAbsent), "new HashMap(%d), computeIfAbsent", c)
		assert.Equal(t, []int{0, 1}, javaHashMapOrder(keys, c, put), "new HashMap(%d), put", c)
	}
	assert.Equal(t, []int{0, 1}, javaHashMapOrder(keys, 0, computeIfAbsent), "new HashMap()")
	assert.Equal(t, []int{0, 1}, javaHashMapOrder(keys, 16, computeIfAbsent), "new HashMap(16)")
	// A present key is a no-op; non-ASCII hashes over UTF-16 units
	// ("é".hashCode() is 233, "😀".hashCode() is 1772899).
	assert.Equal(t, []int{0, 1}, javaHashMapOrder([]string{"a", "b", "a"}, 0, put))
	assert.Equal(t, int32(233), javaStringHash("é"))
	assert.Equal(t, int32(1772899), javaStringHash("😀"))
}

// TestJavaPQ proves javaPQ pops equal elements in java.util.PriorityQueue's
// order: JDK 17 polls [3a 1a 1b 2a 1c] (added in that order, compared by
// the number) as 1a 1c 1b 2a 3a.
func TestJavaPQ(t *testing.T) {
	type e struct {
		n    int
		name string
	}
	q := &javaPQ[e]{cmp: func(a, b e) int { return a.n - b.n }}
	for _, x := range []e{{3, "3a"}, {1, "1a"}, {1, "1b"}, {2, "2a"}, {1, "1c"}} {
		q.add(x)
	}
	var got []string
	for {
		x, ok := q.poll()
		if !ok {
			break
		}
		got = append(got, x.name)
	}
	assert.Equal(t, []string{"1a", "1c", "1b", "2a", "3a"}, got)
}
