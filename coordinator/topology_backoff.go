package coordinator

import (
	"math"
	"math/rand/v2"
)

// Back-off constants of StreamsGroupTopologyDescriptionBackoff (docs/kip1331.md §1.7).
const (
	backoffInitialMs  = 30_000
	backoffMultiplier = 2.0
	backoffMaxMs      = 3_600_000
	backoffJitter     = 0.2
)

type backoffEntry struct {
	epoch    int32
	attempts int
	nextMs   int64
}

// TopologyBackoff is the per-broker solicitation back-off of KIP-1331: for
// each group, the topology epoch it was solicited at, how many attempts the
// chain has made, and when the next may start. It is in memory only, never
// replayed, and starts empty on restart. Delays follow Kafka's
// ExponentialBackoff with jitter drawn from an injected seeded source.
//
// Lookups use a Go map; nothing iterates it, so its order never matters.
type TopologyBackoff struct {
	entries map[string]backoffEntry
	rng     *rand.Rand
	expMax  float64
}

func newTopologyBackoff(rng *rand.Rand) *TopologyBackoff {
	return &TopologyBackoff{
		entries: map[string]backoffEntry{},
		rng:     rng,
		expMax:  math.Log(float64(backoffMaxMs)/float64(backoffInitialMs)) / math.Log(backoffMultiplier),
	}
}

// delayMs is ExponentialBackoff.backoff(attempts):
// min(floor(initial · 2^min(attempts, expMax) · U(0.8, 1.2)), max).
func (b *TopologyBackoff) delayMs(attempts int) int64 {
	term := backoffInitialMs * math.Pow(backoffMultiplier, math.Min(float64(attempts), b.expMax))
	factor := 1 - backoffJitter + 2*backoffJitter*b.rng.Float64()
	d := int64(factor * term)
	return min(d, backoffMaxMs)
}

func (b *TopologyBackoff) arm(groupID string, epoch int32, nowMs int64) {
	e, ok := b.entries[groupID]
	attempts := 0
	if ok && e.epoch == epoch {
		attempts = e.attempts + 1
	}
	b.entries[groupID] = backoffEntry{epoch: epoch, attempts: attempts, nextMs: nowMs + b.delayMs(attempts)}
}

// ArmIfNotActive arms the back-off unless a same-epoch window is still open;
// it reports whether it armed (the heartbeat then solicits). A same-epoch
// entry continues its chain; an absent or other-epoch entry starts at 0.
func (b *TopologyBackoff) ArmIfNotActive(groupID string, epoch int32, nowMs int64) bool {
	if e, ok := b.entries[groupID]; ok && e.epoch == epoch && nowMs < e.nextMs {
		return false
	}
	b.arm(groupID, epoch, nowMs)
	return true
}

// ArmOrExtend arms after a transient failure: nothing if the entry is for a
// newer epoch, else the same-epoch chain continues or a new one starts.
func (b *TopologyBackoff) ArmOrExtend(groupID string, epoch int32, nowMs int64) {
	if e, ok := b.entries[groupID]; ok && e.epoch > epoch {
		return
	}
	b.arm(groupID, epoch, nowMs)
}

// Clear removes the entry only if it is for epoch.
func (b *TopologyBackoff) Clear(groupID string, epoch int32) {
	if e, ok := b.entries[groupID]; ok && e.epoch == epoch {
		delete(b.entries, groupID)
	}
}

// ClearGroup removes the group's entry whatever its epoch.
func (b *TopologyBackoff) ClearGroup(groupID string) { delete(b.entries, groupID) }

// Entry returns a group's back-off state.
func (b *TopologyBackoff) Entry(groupID string) (epoch int32, attempts int, nextMs int64, ok bool) {
	e, ok := b.entries[groupID]
	return e.epoch, e.attempts, e.nextMs, ok
}

// Len is the number of groups with an entry (entries of groups removed by
// session expiry, unload or replayed tombstones leak until the id is reused,
// as in Kafka: docs/kip1331.md §2.8).
func (b *TopologyBackoff) Len() int { return len(b.entries) }
