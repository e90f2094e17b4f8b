package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/coordsim/coordsim/sim"
)

func (a *app) replayCmd(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("replay", "[flags]", "rerun a seed, stop after a step, print the state and the trace there", stdout, stderr)
	of := a.addOptionFlags(fs)
	stopAt := fs.Int64("stop-at", 0, "stop after `step` and print the state and trace there (0: run to the end)")
	window := fs.Int("window", 50, "how many trace events (`N`) before the stop to print")
	group := fs.String("group", "", "also print `group`'s state, stored and failed description epochs, plugin rows and timeline")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if *stopAt < 0 || *window < 1 || *window > 100_000 {
		fmt.Fprintf(stderr, "coordsim replay: --stop-at %d --window %d: --stop-at must be >= 0 and --window in [1, 100000]\n", *stopAt, *window)
		return exitUsage
	}
	_, sc, release, code, ok := a.startOne(of, "replay", stderr)
	if !ok {
		return code
	}
	defer release()
	if err := of.emitScenario(sc); err != nil {
		fmt.Fprintf(stderr, "coordsim replay: --emit-scenario %s: %v\n", of.emit, err)
		return exitIO
	}
	o := sc.Options
	o.StopAt, o.TraceTail, o.InspectGroup = *stopAt, *window, *group
	ring := &tailWriter{max: *window}
	var out io.Writer = ring
	var timeline *tailWriter
	if *group != "" {
		timeline = &tailWriter{max: 1000, match: " group=" + *group + " "}
		out = io.MultiWriter(ring, timeline)
	}
	res, err := sim.Run(o, out)
	if err != nil {
		fmt.Fprintf(stderr, "coordsim replay: %v\n", err)
		return exitUsage
	}
	where := "stopped at step"
	switch {
	case !res.Stopped && !res.InvariantsHeld():
		where = "stopped by the violation at step"
	case !res.Stopped:
		where = "ran to the end, step"
	}
	fmt.Fprintf(stdout, "replay: scenario %s, seed %d, protocol %s, %s %d, virtual time %s, trace hash %s\n",
		sc.Name, o.Seed, res.Protocol, where, stepOf(res, *stopAt), fmtVirtual(res.VirtualTime), res.TraceHash)
	printChecks(stdout, res)
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
	if g := res.Group; g != nil {
		printGroup(stdout, g, timeline.lines)
	}
	if !res.InvariantsHeld() {
		v := res.Violation
		if len(v.Focus) > 0 {
			fmt.Fprintf(stdout, "its last %d trace events (the group or partition it names):\n", len(v.Focus))
			for _, l := range v.Focus {
				fmt.Fprintf(stdout, "  %s\n", l)
			}
		}
		fmt.Fprintf(stdout, "VIOLATED: %s at step %d (t=%s): %s\n", v.Invariant, v.Step, fmtVirtualMs(v.AtMs), v.Detail)
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

// printGroup prints replay --group's view of one group.
func printGroup(w io.Writer, g *sim.GroupDetail, timeline []string) {
	where := fmt.Sprintf("partition %d on broker %d", g.Partition, g.Broker)
	if !g.Exists {
		fmt.Fprintf(w, "group %s: not in the committed state (%s)\n", g.GroupID, where)
	} else {
		fmt.Fprintf(w, "group %s: %s %s, epoch %d, %d members, %s\n", g.GroupID, g.Type, g.State, g.Epoch, g.Members, where)
		fmt.Fprintf(w, "  topology epoch %d, stored description epoch %d, failed description epoch %d, %d committed offsets\n",
			g.TopologyEpoch, g.StoredEpoch, g.FailedEpoch, g.Offsets)
	}
	switch {
	case !g.Listable:
		fmt.Fprintf(w, "  plugin rows: the store cannot list them; %d plugin calls in flight\n", g.InFlight)
	case len(g.PluginRows) == 0:
		fmt.Fprintf(w, "  plugin rows: none; %d plugin calls in flight\n", g.InFlight)
	default:
		var epochs []string
		for _, r := range g.PluginRows {
			epochs = append(epochs, fmt.Sprint(r.TopologyEpoch))
		}
		fmt.Fprintf(w, "  plugin rows: topology epoch %s; %d plugin calls in flight\n", strings.Join(epochs, ", "), g.InFlight)
	}
	fmt.Fprintf(w, "  timeline (its last %d events, heartbeats left out):\n", len(timeline))
	for _, l := range timeline {
		fmt.Fprintf(w, "    %s", l)
	}
}

// tailWriter keeps the last max lines written to it (with match set, only
// the lines that contain it, heartbeats left out).
type tailWriter struct {
	max   int
	match string
	lines []string
}

func (t *tailWriter) Write(p []byte) (int, error) {
	if t.match != "" && (!strings.Contains(string(p), t.match) || strings.Contains(string(p), " heartbeat ")) {
		return len(p), nil
	}
	t.lines = append(t.lines, string(p))
	if len(t.lines) > t.max {
		t.lines = t.lines[len(t.lines)-t.max:]
	}
	return len(p), nil
}
