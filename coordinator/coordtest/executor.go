package coordtest

import (
	"context"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/plugin"
)

// ManualExecutor parks topology-store calls until a test runs them, so a
// test can interleave a plugin call with other operations, as Kafka's tests
// park futures. With Auto set it runs each call at once.
type ManualExecutor struct {
	Auto   bool
	parked []*ParkedCall
}

// ParkedCall is a plugin call waiting to run.
type ParkedCall struct {
	Op      plugin.Op
	GroupID string
	call    func(context.Context) coordinator.PluginResult
	deliver func(coordinator.PluginResult)
}

// Execute parks the call (or runs it at once when Auto is set).
func (e *ManualExecutor) Execute(op plugin.Op, groupID string, call func(context.Context) coordinator.PluginResult, deliver func(coordinator.PluginResult)) {
	pc := &ParkedCall{Op: op, GroupID: groupID, call: call, deliver: deliver}
	if e.Auto {
		pc.run()
		return
	}
	e.parked = append(e.parked, pc)
}

func (pc *ParkedCall) run() { pc.deliver(pc.call(context.Background())) }

// Pending lists the parked calls in the order they were made.
func (e *ManualExecutor) Pending() []*ParkedCall { return append([]*ParkedCall(nil), e.parked...) }

// Run runs the first parked call matching op and groupID ("" matches any
// group) and delivers its outcome; it reports whether one matched.
func (e *ManualExecutor) Run(op plugin.Op, groupID string) bool {
	for i, pc := range e.parked {
		if pc.Op == op && (groupID == "" || pc.GroupID == groupID) {
			e.parked = append(e.parked[:i], e.parked[i+1:]...)
			pc.run()
			return true
		}
	}
	return false
}

// RunAll runs every parked call, including calls parked while running, in
// order, and returns how many ran (at most 1 << 20).
func (e *ManualExecutor) RunAll() int {
	n := 0
	for len(e.parked) > 0 && n < 1<<20 {
		pc := e.parked[0]
		e.parked = e.parked[1:]
		pc.run()
		n++
	}
	return n
}
