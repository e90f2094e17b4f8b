package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"golang.org/x/term"

	"github.com/coordsim/coordsim/sim"
)

// exitInterrupted is the exit code after Ctrl-C (128 + SIGINT, as shells do).
const exitInterrupted = 130

// progressEvery is the least wall time between two progress lines.
const progressEvery = 250 * time.Millisecond

// host is what the program reads from its surroundings besides its
// arguments: Ctrl-C, whether an output is a terminal, and the wall clock.
// It is a seam so that tests can interrupt a run at a chosen point and
// pretend to be a terminal without a real signal or a real terminal.
// Nothing it returns reaches a simulation: the wall clock only labels
// progress and wall times, and an interrupt only stops the run between
// events (sim.Options.Progress).
type host struct {
	// interrupts returns a context cancelled by Ctrl-C, and the function
	// that stops catching it.
	interrupts func() (context.Context, context.CancelFunc)
	// isTerminal reports whether w is a terminal.
	isTerminal func(w io.Writer) bool
	// now reads the wall clock.
	now func() time.Time
}

// osHost is the real process's host.
func osHost() host {
	return host{
		interrupts: func() (context.Context, context.CancelFunc) {
			return signal.NotifyContext(context.Background(), os.Interrupt)
		},
		isTerminal: func(w io.Writer) bool {
			f, ok := w.(*os.File)
			return ok && term.IsTerminal(int(f.Fd()))
		},
		now: time.Now,
	}
}

// interruptible catches Ctrl-C for one simulation and returns the
// sim.Options.Progress callback that stops it: the run then ends at the
// step reached and prints its partial summary. On a terminal the callback
// also shows the virtual time, the step and the events per second of wall
// time on stderr, at most every progressEvery; elsewhere it prints nothing.
func (a *app) interruptible(stderr io.Writer) (stop func(), progress func(step int64, virtual time.Duration) bool) {
	ctx, cancel := a.host.interrupts()
	show := a.host.isTerminal(stderr)
	began := a.host.now()
	last := began
	progress = func(step int64, virtual time.Duration) bool {
		if now := a.host.now(); show && now.Sub(last) >= progressEvery {
			last = now
			rate := float64(step) / max(now.Sub(began).Seconds(), 1e-3)
			fmt.Fprintf(stderr, "\r  virtual time %-12s step %-11d %8.0f events/s (wall) ", fmtVirtual(virtual.Truncate(time.Second)), step, rate)
		}
		return ctx.Err() == nil
	}
	stopped := false
	stop = func() {
		// Called before the summary is printed (the progress line must not
		// run into it) and again when the command returns.
		if stopped {
			return
		}
		stopped = true
		if show {
			fmt.Fprint(stderr, "\r\033[K")
		}
		cancel()
	}
	return stop, progress
}

// fmtVirtual is sim.FormatVirtual: virtual time, printed one way everywhere.
func fmtVirtual(d time.Duration) string { return sim.FormatVirtual(d) }

// fmtVirtualMs is virtual time given in milliseconds.
func fmtVirtualMs(ms int64) string { return sim.FormatVirtual(time.Duration(ms) * time.Millisecond) }
