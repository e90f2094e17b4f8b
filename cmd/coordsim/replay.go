package main

import (
	"fmt"
	"io"
	"time"

	"github.com/coordsim/coordsim/sim"
)

func replayCmd(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("replay", "[flags]", "rerun a seed, stop after a step, print the state and the trace there", stderr)
	of := addOptionFlags(fs)
	stopAt := fs.Int64("stop-at", 0, "stop after `step` and print the state and trace there (0: run to the end)")
	window := fs.Int("window", 50, "how many trace events (`N`) before the stop to print")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if *stopAt < 0 || *window < 1 || *window > 100_000 {
		fmt.Fprintln(stderr, "coordsim replay: --stop-at must be >= 0 and --window in [1, 100000]")
		return exitUsage
	}
	sc, err := of.resolve()
	if err != nil {
		fmt.Fprintf(stderr, "coordsim replay: %v\n", err)
		return exitUsage
	}
	if err := of.emitScenario(sc); err != nil {
		fmt.Fprintf(stderr, "coordsim replay: --emit-scenario: %v\n", err)
		return exitUsage
	}
	o := sc.Options
	o.StopAt, o.TraceTail = *stopAt, *window
	ring := &tailWriter{max: *window}
	res, err := sim.Run(o, ring)
	if err != nil {
		fmt.Fprintf(stderr, "coordsim replay: %v\n", err)
		return exitUsage
	}
	fmt.Fprintf(stdout, "replay: scenario %s, seed %d, stopped at step %d, virtual time %s, trace hash %s\n",
		sc.Name, o.Seed, stepOf(res, *stopAt), res.VirtualTime, res.TraceHash)
	if *stopAt > 0 && !res.Stopped && res.InvariantsHeld() {
		fmt.Fprintf(stderr, "coordsim replay: --stop-at %d is past the end: the run has %d steps\n", *stopAt, res.Events)
		return exitUsage
	}
	fmt.Fprintf(stdout, "groups at this point: %s\n", joinCounts(res.GroupsFinal))
	fmt.Fprintf(stdout, "cleanup cycles %d, eligible %d, deletes ok %d / failed %d, marks %s\n",
		res.Cycles, res.Eligible, res.DeletesOK, res.DeletesFailed, joinCounts64(res.Marks))
	fmt.Fprintf(stdout, "last %d trace events:\n", len(ring.lines))
	for _, l := range ring.lines {
		fmt.Fprintf(stdout, "  %s", l)
	}
	if !res.InvariantsHeld() {
		v := res.Violation
		fmt.Fprintf(stdout, "VIOLATED: %s at step %d (t=%s): %s\n", v.Invariant, v.Step, time.Duration(v.AtMs)*time.Millisecond, v.Detail)
		return exitViolation
	}
	return exitOK
}

func stepOf(r *sim.Result, stopAt int64) int64 {
	if r.Stopped {
		return stopAt
	}
	return r.Events
}

// tailWriter keeps the last max lines written to it.
type tailWriter struct {
	max   int
	lines []string
}

func (t *tailWriter) Write(p []byte) (int, error) {
	t.lines = append(t.lines, string(p))
	if len(t.lines) > t.max {
		t.lines = t.lines[len(t.lines)-t.max:]
	}
	return len(p), nil
}
