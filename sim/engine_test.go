package sim

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestEngineQueueOrder proves the engine's heap pops events in (time,
// sequence) order under random schedules and cancels, against a sorted
// list: the order every trace hash depends on.
func TestEngineQueueOrder(t *testing.T) {
	for seed := range uint64(50) {
		r := rand.New(rand.NewPCG(seed, 1))
		e := newEngine(seed)
		type ref struct {
			atMs int64
			seq  uint64
			id   int
		}
		var want []ref
		live := map[int]*event{}
		var fired []int
		id := 0
		for step := 0; step < 2000; step++ {
			switch op := r.IntN(10); {
			case op < 6: // schedule, often at equal times
				id++
				n := id
				at := e.nowMs + int64(r.IntN(20))
				ev := e.at(at, func() { fired = append(fired, n) })
				live[n] = ev
				want = append(want, ref{ev.atMs, ev.seq, n})
			case op < 7 && len(live) > 0: // cancel a random live event
				keys := make([]int, 0, len(live))
				for k := range live {
					keys = append(keys, k)
				}
				slices.Sort(keys)
				k := keys[r.IntN(len(keys))]
				e.cancel(live[k])
				delete(live, k)
				want = slices.DeleteFunc(want, func(x ref) bool { return x.id == k })
			default: // fire the next one
				fn, ok := e.next(e.nowMs + int64(r.IntN(5)))
				if !ok {
					continue
				}
				fn()
				slices.SortFunc(want, func(a, b ref) int {
					if a.atMs != b.atMs {
						return int(a.atMs - b.atMs)
					}
					return int(a.seq) - int(b.seq)
				})
				require.Equal(t, want[0].id, fired[len(fired)-1], "seed %d step %d", seed, step)
				delete(live, want[0].id)
				want = want[1:]
			}
			require.Len(t, e.queue, len(want), "seed %d step %d", seed, step)
		}
	}
}
