package taskassignor

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

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
