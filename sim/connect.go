package sim

import (
	"math/rand/v2"
	"time"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/shard"
	"github.com/coordsim/coordsim/sim/connectsim"
)

// The Connect simulator (package connectsim) runs beside the coordinators
// on this engine. It sees the world only through connectEngine: the
// world calls it back at four points (Start, AfterEvent, SchedulePoll,
// Finish) and knows nothing else of it.

// InvSharePartitions is docs/invariants.md invariant 8, checked by the
// Connect simulator.
const InvSharePartitions = connectsim.InvSharePartitions

// connectEngine is the world as the Connect simulator's engine.
type connectEngine struct{ w *world }

var _ connectsim.Engine = connectEngine{}

// connectTraceKinds maps the Connect simulator's trace kinds to the trace's.
var connectTraceKinds = [...]traceKind{
	connectsim.TraceTask:     tTask,
	connectsim.TraceFetch:    tFetch,
	connectsim.TraceAck:      tAck,
	connectsim.TraceResponse: tResponse,
	connectsim.TraceCrash:    tCrash,
	connectsim.TraceMove:     tMove,
	connectsim.TracePoll:     tPoll,
}

func (e connectEngine) StartMs() int64 { return startMs }
func (e connectEngine) NowMs() int64   { return e.w.eng.nowMs }
func (e connectEngine) At(atMs int64, fn func()) connectsim.Timer {
	return e.w.eng.at(atMs, fn)
}
func (e connectEngine) After(d time.Duration, fn func()) { e.w.eng.after(d, fn) }
func (e connectEngine) Cancel(t connectsim.Timer) {
	if t != nil {
		e.w.eng.cancel(t.(*event))
	}
}
func (e connectEngine) Rand() *rand.Rand { return e.w.eng.rng }
func (e connectEngine) Uniform(lo, hi time.Duration) time.Duration {
	return e.w.eng.uniform(lo, hi)
}
func (e connectEngine) Chance(p float64) bool { return e.w.eng.chance(p) }
func (e connectEngine) Poisson(ratePerHour float64, endMs int64, fn func()) {
	e.w.poisson(ratePerHour, endMs, fn)
}
func (e connectEngine) Healed() bool { return e.w.healed }

func (e connectEngine) Coordinator(groupID string) (*coordinator.Coordinator, int) {
	b := e.w.route(groupID)
	if b < 0 {
		return nil, b
	}
	return e.w.brokers[b].c, b
}
func (e connectEngine) Touch(broker int)         { e.w.touch(broker) }
func (e connectEngine) GroupCreated(kind string) { e.w.res.GroupsCreated[kind]++ }

// Squat adds a coordinator-side group that holds a connector's group id
// under another type, born now.
func (e connectEngine) Squat(groupID string, typ shard.GroupType, topic string, diesMs int64) {
	w := e.w
	g := &simGroup{id: groupID, typ: typ, topic: topic, bornMs: startMs, diesMs: diesMs}
	w.groups = append(w.groups, g)
	w.res.GroupsCreated[typ.String()]++
	w.eng.at(startMs, func() { w.birth(g) })
}

func (e connectEngine) Trace(kind connectsim.TraceKind, group, member, detail string, n int64) {
	e.w.tr(traceEvent{kind: connectTraceKinds[kind], broker: -1, group: group, member: member, detail: detail, n: n})
}
func (e connectEngine) Mark(name string)                 { e.w.mark(name) }
func (e connectEngine) Violate(invariant, detail string) { e.w.violate(invariant, detail) }

// AtMs is when the event is due (connectsim.Timer).
func (ev *event) AtMs() int64 { return ev.atMs }
