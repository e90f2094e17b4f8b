package sim

import (
	"fmt"
	"hash"
	"hash/fnv"
	"io"
	"strconv"
	"time"
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
)

var traceNames = [...]string{"", "join", "heartbeat", "leave", "commit", "push", "response", "crash", "restart",
	"poll", "plugin-done", "move", "load", "cycle", "delete", "describe", "admin-delete", "heal", "violation", "upgrade", "mark",
	"fetch", "ack", "task"}

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

func (t traceEvent) String() string {
	s := fmt.Sprintf("step=%d t=%s %s", t.step, time.Duration(t.atMs-startMs)*time.Millisecond, traceNames[t.kind])
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
	h    hash.Hash64
	buf  [64]byte
	ring []traceEvent
	next int
	full bool
	out  io.Writer
	err  error
}

func newTracer(tail int, out io.Writer) *tracer {
	if tail <= 0 {
		tail = 50
	}
	return &tracer{h: fnv.New64a(), ring: make([]traceEvent, tail), out: out}
}

func (t *tracer) add(ev traceEvent) {
	b := t.buf[:0]
	b = strconv.AppendInt(b, ev.step, 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, ev.atMs, 10)
	b = append(b, ' ', byte(ev.kind), byte(ev.broker))
	_, _ = t.h.Write(b)
	_, _ = io.WriteString(t.h, ev.group)
	_, _ = t.h.Write([]byte{0})
	_, _ = io.WriteString(t.h, ev.member)
	_, _ = t.h.Write([]byte{0})
	_, _ = io.WriteString(t.h, ev.detail)
	b = strconv.AppendInt(t.buf[:0], ev.n, 10)
	b = append(b, '\n')
	_, _ = t.h.Write(b)
	t.ring[t.next] = ev
	t.next = (t.next + 1) % len(t.ring)
	if t.next == 0 {
		t.full = true
	}
	if t.out != nil && t.err == nil {
		_, t.err = io.WriteString(t.out, ev.String()+"\n")
	}
}

func (t *tracer) sum() string { return fmt.Sprintf("%016x", t.h.Sum64()) }

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
