package sim

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/coordsim/coordsim/shard"
)

// traceKind names a traced event.
type traceKind uint8

const (
	tJoin traceKind = iota + 1
	tHeartbeat
	tLeave
	tCommit
	tPush
	tResponse
	tCrash
	tRestart
	tPoll
	tPluginDone
	tMove
	tLoad
	tCycle
	tDelete
	tDescribe
	tAdminDelete
	tHeal
	tViolation
	tUpgrade
	tMark
	tFetch
	tAck
	tTask
	tOffsetExpired
	tGroupTombstone
	tStoredEpoch
	tPluginCall
	tUnload
)

var traceNames = [...]string{"", "join", "heartbeat", "leave", "commit", "push", "response", "crash", "restart",
	"poll", "plugin-done", "move", "load", "cycle", "delete", "describe", "admin-delete", "heal", "violation", "upgrade", "mark",
	"fetch", "ack", "task", "offset-expired", "group-tombstone", "stored-epoch", "plugin-call", "unload"}

// traceEvent is one line of the trace, kept compact so that tracing every
// event stays cheap; it is formatted only when printed.
type traceEvent struct {
	step   int64
	atMs   int64
	kind   traceKind
	broker int16
	group  string
	member string
	detail string
	n      int64
}

// FormatVirtual writes virtual time, an instant (since the run's start) or
// a span, the one way coordsim prints it everywhere: in the trace (t=...),
// the run and replay summaries, metrics samples and the HTML report. It is
// Go's duration syntax at the simulation's millisecond resolution ("6h20m0s",
// "31.2s", "200ms"), the syntax --duration and the scenario keys read, so a
// time can be pasted back. Wall-clock times are labelled "wall" wherever
// they are printed.
func FormatVirtual(d time.Duration) string { return d.Round(time.Millisecond).String() }

func (t traceEvent) String() string {
	s := fmt.Sprintf("step=%d t=%s %s", t.step, FormatVirtual(time.Duration(t.atMs-startMs)*time.Millisecond), traceNames[t.kind])
	if t.broker >= 0 {
		s += " broker=" + strconv.Itoa(int(t.broker))
	}
	if t.group != "" {
		s += " group=" + t.group
	}
	if t.member != "" {
		s += " member=" + t.member
	}
	if t.detail != "" {
		s += " " + t.detail
	}
	if t.n != 0 {
		s += " n=" + strconv.FormatInt(t.n, 10)
	}
	return s
}

// tracer hashes every event (the determinism fingerprint), keeps the last
// few for violation reports, and writes them all when asked.
type tracer struct {
	h    fnv64a
	buf  [64]byte
	ring []traceEvent
	next int
	full bool
	out  io.Writer
	// err is the first error writing to out; nothing is written after it,
	// and Run reports it (ErrTrace). written counts the lines written.
	err     error
	written int64
	// history is a longer ring, searched for the events that concern a
	// violation's group or partition.
	history []traceEvent
	hnext   int
	hfull   bool
	// key keeps each group's last few KIP-1331 events (pushes, plugin
	// calls, stored-epoch writes, deletes, tombstones), which a violation
	// often needs from further back than the history reaches.
	key map[string][]traceEvent
}

// keyKinds are the events kept per group; keyPerGroup bounds them. An
// array, not a map: add asks on every event.
var keyKinds = [len(traceNames)]bool{tPush: true, tPluginCall: true, tPluginDone: true, tStoredEpoch: true, tDelete: true, tGroupTombstone: true, tAdminDelete: true}

const keyPerGroup = 8

// historyLen bounds the events searched for a violation's own lines.
const historyLen = 1 << 13

func newTracer(tail int, out io.Writer) *tracer {
	if tail <= 0 {
		tail = 50
	}
	return &tracer{h: fnvOffset64, ring: make([]traceEvent, tail), out: out, history: make([]traceEvent, historyLen), key: map[string][]traceEvent{}}
}

// focus returns, oldest first and at most limit, the recent events that
// concern what detail names: a group that appears in the history (as
// group=G) and is named in detail, or a partition named "partition N" or
// "pN".
func (t *tracer) focus(detail string, limit int) []string {
	words := map[string]bool{}
	for _, f := range strings.FieldsFunc(detail, func(r rune) bool { return strings.ContainsRune(" ,;:()[]'\"", r) }) {
		words[strings.TrimSuffix(f, ".")] = true
	}
	var part string
	if _, rest, ok := strings.Cut(detail, "partition "); ok {
		// The detail may say "partition " with no number after it (an
		// error text): no partition focus then.
		if digits := strings.FieldsFunc(rest, func(r rune) bool { return r < '0' || r > '9' }); len(digits) > 0 {
			if n, err := strconv.Atoi(digits[0]); err == nil {
				part = "p" + strconv.Itoa(n)
			}
		}
	}
	var evs []traceEvent
	for _, g := range slices.Sorted(maps.Keys(words)) {
		evs = append(evs, t.key[g]...)
	}
	if t.hfull {
		evs = append(evs, t.history[t.hnext:]...)
	}
	evs = append(evs, t.history[:t.hnext]...)
	slices.SortStableFunc(evs, func(a, b traceEvent) int { return cmp.Compare(a.step, b.step) })
	var out []string
	var last traceEvent
	for i, ev := range evs {
		if i > 0 && ev == last {
			continue // kept per group and in the history
		}
		last = ev
		hit := ev.group != "" && words[ev.group]
		if !hit && part != "" {
			for _, f := range strings.Fields(ev.detail) {
				if strings.TrimSuffix(f, ",") == part {
					hit = true
					break
				}
			}
		}
		if hit {
			out = append(out, ev.String())
		}
	}
	if len(out) > limit {
		out = out[len(out)-limit:]
	}
	return out
}

func (t *tracer) add(ev traceEvent) {
	b := t.buf[:0]
	b = strconv.AppendInt(b, ev.step, 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, ev.atMs, 10)
	b = append(b, ' ', byte(ev.kind), byte(ev.broker))
	t.h.write(b)
	t.h.writeString(ev.group)
	t.h.writeByte(0)
	t.h.writeString(ev.member)
	t.h.writeByte(0)
	t.h.writeString(ev.detail)
	b = strconv.AppendInt(t.buf[:0], ev.n, 10)
	b = append(b, '\n')
	t.h.write(b)
	if keyKinds[ev.kind] && ev.group != "" {
		k := append(t.key[ev.group], ev)
		if len(k) > keyPerGroup {
			k = k[1:]
		}
		t.key[ev.group] = k
	}
	t.history[t.hnext] = ev
	if t.hnext = (t.hnext + 1) % len(t.history); t.hnext == 0 {
		t.hfull = true
	}
	t.ring[t.next] = ev
	t.next = (t.next + 1) % len(t.ring)
	if t.next == 0 {
		t.full = true
	}
	if t.out != nil && t.err == nil {
		if _, t.err = io.WriteString(t.out, ev.String()+"\n"); t.err == nil {
			t.written++
		}
	}
}

func (t *tracer) sum() string { return fmt.Sprintf("%016x", uint64(t.h)) }

// fnv64a is FNV-1a, 64 bits, as hash/fnv's New64a computes it, written
// here so that hashing a string neither converts nor allocates (fnv's
// hash has no WriteString, so io.WriteString copied every string).
type fnv64a uint64

const (
	fnvOffset64 fnv64a = 14695981039346656037
	fnvPrime64  fnv64a = 1099511628211
)

func (h *fnv64a) writeByte(c byte) { *h = (*h ^ fnv64a(c)) * fnvPrime64 }

func (h *fnv64a) write(b []byte) {
	for _, c := range b {
		h.writeByte(c)
	}
}

func (h *fnv64a) writeString(s string) {
	for i := 0; i < len(s); i++ {
		h.writeByte(s[i])
	}
}

// tail returns the last events, oldest first, formatted.
func (t *tracer) tail() []string {
	var out []string
	if t.full {
		for _, ev := range t.ring[t.next:] {
			out = append(out, ev.String())
		}
	}
	for _, ev := range t.ring[:t.next] {
		out = append(out, ev.String())
	}
	return out
}

// traceWrite traces what a coordinator write does to the state a reader
// debugs by: each expired offset, each group tombstone, and each change of
// a streams group's stored description epoch (the v2 -2 mark, the finalize,
// the conditional clear, a push's store), named by the operation that
// wrote it. latest is the state the write ran against (before its records).
func (w *world) traceWrite(b int, p int32, op string, latest *shard.Shard, records []shard.Record) {
	for _, r := range records {
		switch r := r.(type) {
		case *shard.OffsetCommit:
			if r.Tombstone && op == shard.SweepTimerKey {
				w.tr(traceEvent{kind: tOffsetExpired, broker: int16(b), group: r.Group, detail: fmt.Sprintf("%s-%d p%d", r.Topic, r.Partition, p)})
			}
		case *shard.GroupMetadata:
			w.traceTombstone(b, p, op, r, r.Tombstone, "classic")
		case *shard.ConsumerGroupMetadata:
			w.traceTombstone(b, p, op, r, r.Tombstone, "consumer")
		case *shard.ShareGroupMetadata:
			w.traceTombstone(b, p, op, r, r.Tombstone, "share")
		case *shard.StreamsGroupMetadata:
			if w.traceTombstone(b, p, op, r, r.Tombstone, "streams") {
				continue
			}
			before := shard.EpochNone
			if d, ok := latest.DescribeGroup(r.Group); ok {
				before = d.StoredDescriptionTopologyEpoch
			}
			if before != r.StoredDescriptionTopologyEpoch {
				w.tr(traceEvent{kind: tStoredEpoch, broker: int16(b), group: r.Group,
					detail: fmt.Sprintf("%d -> %d by %s p%d", before, r.StoredDescriptionTopologyEpoch, op, p)})
			}
		}
	}
}

// traceTombstone traces a group metadata record that is a tombstone and
// reports whether it was one.
func (w *world) traceTombstone(b int, p int32, op string, r shard.Record, tombstone bool, typ string) bool {
	if tombstone {
		w.tr(traceEvent{kind: tGroupTombstone, broker: int16(b), group: r.GroupID(), detail: fmt.Sprintf("%s by %s p%d", typ, op, p)})
	}
	return tombstone
}
