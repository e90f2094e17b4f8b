package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"golang.org/x/term"
)

// exitInterrupted is the exit code after Ctrl-C (128 + SIGINT, as shells do).
const exitInterrupted = 130

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// interruptible catches Ctrl-C for one simulation and returns the
// sim.Options.Progress callback that stops it: the run then ends at the
// step reached and prints its partial summary. On a terminal the callback
// also shows the virtual time, step and events per second on stderr. The
// wall clock is read here, outside the simulation, and only for display.
func interruptible(stderr io.Writer) (stop func(), progress func(step int64, virtual time.Duration) bool) {
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt)
	show := isTerminal(stderr)
	began, last := time.Now(), time.Now()
	progress = func(step int64, virtual time.Duration) bool {
		if show && time.Since(last) >= 250*time.Millisecond {
			last = time.Now()
			rate := float64(step) / max(time.Since(began).Seconds(), 1e-3)
			fmt.Fprintf(stderr, "\r  virtual time %-12s step %-11d %8.0f events/s ", virtual.Truncate(time.Second), step, rate)
		}
		return ctx.Err() == nil
	}
	stop = func() {
		if show {
			fmt.Fprint(stderr, "\r\033[K")
		}
		cancel()
	}
	return stop, progress
}
