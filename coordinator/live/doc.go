// Package live runs one coordinator.Coordinator in real time: the thin
// real-time driver of docs/design.md §Time and scheduling, the counterpart of
// etcd-io/raft's node.go around its RawNode.
//
// A Driver owns the coordinator and one goroutine, the loop (package
// internal/loop, which txn/txnlive shares). Only the holder of the loop's
// ownership ever touches the coordinator: the loop's goroutine, or a caller
// of Do that found the loop idle and runs its function itself (no goroutine
// switch per request). The loop's goroutine waits on four things:
//
//   - a request: a function posted by [Driver.Do] (or a typed helper such as
//     [Driver.CommitOffsets], which is Do plus a wait for the future);
//   - a plugin outcome: the driver is the coordinator's PluginExecutor, so a
//     topology-store call runs on its own goroutine with a timeout and its
//     outcome is posted back to the loop, which delivers it (docs/design.md
//     §Plugin calls and asynchrony);
//   - a wake-up from a clock timer armed for the coordinator's NextDeadline;
//   - the end of Start's context, or Stop.
//
// Before running a request or delivering a plugin outcome the loop calls
// Poll, so every input sees the work due at the clock's now already done: a
// request sent after the clock passed a session timeout finds the member
// gone, whether or not the timer's wake-up arrived first. After every input
// the loop polls until nothing is due and re-arms the timer.
//
// # Clocks
//
// Time comes from a benbjohnson/clock Clock: clock.New() for live use, a
// *clock.Mock in tests. The timer is only ever an AfterFunc whose callback
// does a non-blocking send on a one-slot channel; it never touches the
// coordinator (a Mock runs AfterFunc callbacks on goroutines of its own) and
// never blocks inside Mock.Add (a channel timer that fires while its channel
// is full would, holding the Mock's lock). A Mock does not fire a timer armed
// for a time it has already reached, so the loop polls again instead of
// arming a timer that is already due. Plugin-call timeouts are measured on
// the same clock (Clock.WithTimeout), so a test moves them with Mock.Add too.
//
// # What it must never do
//
// It never touches the coordinator without the loop's ownership: not from a
// timer callback, not from a plugin goroutine, not from a caller of Do
// outside the function it gave. A
// function given to Do runs on the loop, so it must not block and must not
// call back into the Driver (that would deadlock the loop).
//
// It is never used inside a simulation. It reads a clock, starts goroutines
// and depends on the Go scheduler, so nothing it does is deterministic or
// replayable; the simulator (package sim) owns virtual time and delivers
// plugin outcomes itself. A *clock.Mock makes the driver testable, not
// deterministic: see docs/design.md §Time and scheduling for that type's hazards.
package live
