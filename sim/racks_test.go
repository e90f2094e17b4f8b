package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTopicImageRacks proves the simulated replica placement: with N racks
// every partition has two replicas on two neighbouring racks, the same for
// the same seed, spread over every rack; a move shifts one topic's replicas
// to the next racks and leaves the others; without racks the image has none.
func TestTopicImageRacks(t *testing.T) {
	topics := map[string]int32{"orders": 6, "clicks": 12}
	w := &world{opts: Options{Seed: 7, Workload: Workload{Racks: 3}}, topics: topics}
	img := w.topicImage()
	seen := map[string]bool{}
	for topic, n := range topics {
		require.Len(t, img.Racks[topic], int(n))
		for _, rs := range img.Racks[topic] {
			require.Len(t, rs, 2)
			assert.NotEqual(t, rs[0], rs[1])
			seen[rs[0]] = true
		}
	}
	assert.Len(t, seen, 3, "replicas on every rack")
	again := (&world{opts: w.opts, topics: topics}).topicImage()
	assert.Equal(t, img.Racks, again.Racks, "deterministic")

	before := map[string][][]string{"orders": img.Racks["orders"], "clicks": img.Racks["clicks"]}
	w.rackShift = map[string]int{"orders": 1}
	delete(w.rackCache, "orders")
	moved := w.topicImage()
	assert.Equal(t, before["clicks"], moved.Racks["clicks"])
	for p, rs := range moved.Racks["orders"] {
		assert.Equal(t, before["orders"][p][1], rs[0], "partition %d moves to the next racks", p)
	}

	none := (&world{opts: Options{Seed: 7}, topics: topics}).topicImage()
	assert.Nil(t, none.Racks)
}

// TestMemberRack proves most members name one of the racks, some (about one
// in eight) none, and the same host always names the same one.
func TestMemberRack(t *testing.T) {
	w := &world{opts: Options{Seed: 3, Workload: Workload{Racks: 3}}}
	counts := map[string]int{}
	for i := range 800 {
		host := string(rune('a'+i%26)) + string(rune('a'+i/26))
		r := w.memberRack("g", host)
		counts[r]++
		assert.Equal(t, r, w.memberRack("g", host))
	}
	assert.InDelta(t, 100, counts[""], 40, "about one in eight without a rack")
	for _, r := range []string{"rack-a", "rack-b", "rack-c"} {
		assert.Greater(t, counts[r], 150, r)
	}
	assert.Empty(t, (&world{opts: Options{Seed: 3}}).memberRack("g", "m0"), "no racks")
}

// TestUsesRange proves the range pick: none at 0, all at 1, about half at
// 0.5, another set of groups for another seed.
func TestUsesRange(t *testing.T) {
	picks := func(seed uint64, prob float64) (n int, which []bool) {
		for i := range 1000 {
			u := usesRange(seed, i, prob)
			which = append(which, u)
			if u {
				n++
			}
		}
		return n, which
	}
	n0, _ := picks(1, 0)
	n1, _ := picks(1, 1)
	half1, which1 := picks(1, 0.5)
	_, which2 := picks(2, 0.5)
	assert.Zero(t, n0)
	assert.Equal(t, 1000, n1)
	assert.InDelta(t, 500, half1, 60)
	assert.NotEqual(t, which1, which2)
}
