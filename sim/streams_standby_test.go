package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStandbyReplicasFor proves the standby draw: no app without a share,
// every app with share 1, about half with 0.5, always 1 or 2 replicas, the
// same answer for the same seed and app, and different apps per seed.
func TestStandbyReplicasFor(t *testing.T) {
	const apps = 2000
	for i := range apps {
		require.Zero(t, standbyReplicasFor(7, i, 0))
		n := standbyReplicasFor(7, i, 1)
		require.Contains(t, []int32{1, 2}, n)
		require.Equal(t, n, standbyReplicasFor(7, i, 1), "deterministic")
	}
	count := func(seed uint64) (with int, picks []bool) {
		for i := range apps {
			n := standbyReplicasFor(seed, i, 0.5)
			picks = append(picks, n > 0)
			if n > 0 {
				with++
			}
		}
		return with, picks
	}
	with1, picks1 := count(1)
	with2, picks2 := count(2)
	assert.InDelta(t, apps/2, with1, apps/10, "about half the apps")
	assert.InDelta(t, apps/2, with2, apps/10, "about half the apps")
	assert.NotEqual(t, picks1, picks2, "another seed picks other apps")
}

// TestProcessOf proves the two-thread apps put two members on each process
// and the others one.
func TestProcessOf(t *testing.T) {
	one, two := &simGroup{}, &simGroup{twoThreads: true}
	assert.Equal(t, []string{"m0", "m1", "m2"}, []string{processOf(one, 0), processOf(one, 1), processOf(one, 2)})
	assert.Equal(t, []string{"p0", "p0", "p1", "p1"}, []string{processOf(two, 0), processOf(two, 1), processOf(two, 2), processOf(two, 3)})
}
