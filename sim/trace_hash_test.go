package sim

import (
	"hash/fnv"
	"testing"
)

// TestFNV64aMatchesHashFNV pins the tracer's own FNV-1a to hash/fnv's, so
// trace hashes stay what they were when the tracer used hash/fnv.
func TestFNV64aMatchesHashFNV(t *testing.T) {
	for _, in := range []string{"", "a", "0 0 \x01\x02group\x00member\x00detail7\n", "ünïcödé\x00\xff"} {
		want := fnv.New64a()
		_, _ = want.Write([]byte(in))
		h := fnvOffset64
		h.writeString(in[:len(in)/2])
		h.write([]byte(in[len(in)/2:]))
		if uint64(h) != want.Sum64() {
			t.Errorf("%q: got %016x, hash/fnv says %016x", in, uint64(h), want.Sum64())
		}
	}
}

// TestTracerAddAllocatesNothing proves hashing and keeping a traced event
// (without a trace file) allocates nothing: the tracer runs on every event.
func TestTracerAddAllocatesNothing(t *testing.T) {
	tr := newTracer(50, nil)
	ev := traceEvent{step: 12345, atMs: startMs + 999, kind: tHeartbeat, broker: 2, group: "orders-app", member: "m-1", detail: "lost", n: 7}
	if allocs := testing.AllocsPerRun(1000, func() { tr.add(ev) }); allocs != 0 {
		t.Fatalf("tracer.add allocated %.1f times per event", allocs)
	}
}
