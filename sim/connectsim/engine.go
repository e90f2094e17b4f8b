package connectsim

import (
	"math/rand/v2"
	"time"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/shard"
)

// Engine is what the Connect simulator needs from the simulation it runs
// in (package sim provides it): virtual time and its event queue, the
// run's one random stream, the coordinators the tasks' groups live on,
// the fault model's switch, and the run's trace, marks and violations.
// Every call draws from the stream, schedules or traces exactly as the
// simulator did when it lived inside sim, so a run's trace is unchanged.
type Engine interface {
	// StartMs is the virtual instant the run begins at; NowMs the current one.
	StartMs() int64
	NowMs() int64
	// At schedules fn at an absolute virtual time (never in the past) and
	// returns a handle Cancel accepts until fn runs; After schedules fn d
	// from now.
	At(atMs int64, fn func()) Timer
	After(d time.Duration, fn func())
	Cancel(t Timer)
	// Rand is the run's random stream; Uniform and Chance draw from it
	// (Chance draws nothing when p is 0 or 1).
	Rand() *rand.Rand
	Uniform(lo, hi time.Duration) time.Duration
	Chance(p float64) bool
	// Poisson runs fn at exponentially distributed gaps, ratePerHour on
	// average, until endMs or until the faults heal.
	Poisson(ratePerHour float64, endMs int64, fn func())
	// Healed reports whether the faults are switched off (the liveness phase).
	Healed() bool

	// Coordinator returns the broker owning the group's partition and its
	// index; broker is -1 (and c nil) while the partition moves. Touch
	// says broker b was called into, so its next deadline is re-read after
	// the current event.
	Coordinator(groupID string) (c *coordinator.Coordinator, broker int)
	Touch(broker int)
	// GroupCreated counts a group of the kind ("share", "consumer") the
	// simulator created. Squat creates groupID as a coordinator-side
	// group of type typ on topic,
	// born now and alive until diesMs.
	GroupCreated(kind string)
	Squat(groupID string, typ shard.GroupType, topic string, diesMs int64)

	// Trace writes one client-side event to the run's trace; Mark counts
	// a named situation reached; Violate stops the run on a broken
	// invariant (the first violation wins).
	Trace(kind TraceKind, group, member, detail string, n int64)
	Mark(name string)
	Violate(invariant, detail string)
}

// Timer is a scheduled event's handle.
type Timer interface {
	// AtMs is the virtual instant the event is due at.
	AtMs() int64
}

// TraceKind names the trace events the Connect simulator writes; the
// engine prints each under its name in the run's trace.
type TraceKind uint8

// The trace kinds.
const (
	TraceTask     TraceKind = iota // a task's lifecycle (start, stop, fail, kill, put)
	TraceFetch                     // records fetched or acquired
	TraceAck                       // an acknowledgement or offset commit
	TraceResponse                  // a coordinator's answer
	TraceCrash                     // a task killed hard
	TraceMove                      // a data partition's leadership moved
	TracePoll                      // the share broker expired locks or finished writes
)
