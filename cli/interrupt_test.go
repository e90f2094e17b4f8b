package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeHost stands in for the process's surroundings: a Ctrl-C that comes at
// the interruptAt-th poll (0: never), a terminal or not, and a wall clock
// that advances by tick at every reading.
type fakeHost struct {
	interruptAt int64
	terminal    bool
	tick        time.Duration

	polls atomic.Int64
	clock time.Time
}

func (f *fakeHost) host() host {
	return host{
		interrupts: func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			return &pollCountingCtx{Context: ctx, cancel: cancel, f: f}, cancel
		},
		isTerminal: func(io.Writer) bool { return f.terminal },
		now: func() time.Time {
			f.clock = f.clock.Add(f.tick)
			return f.clock
		},
	}
}

// pollCountingCtx is cancelled, as Ctrl-C cancels the real one, when its
// Err is polled for the interruptAt-th time: the run's progress callback
// and the sweep's workers poll it, so the interrupt lands at a known point.
type pollCountingCtx struct {
	context.Context
	cancel context.CancelFunc
	f      *fakeHost
}

func (c *pollCountingCtx) Err() error {
	if n := c.f.polls.Add(1); c.f.interruptAt > 0 && n >= c.f.interruptAt {
		c.cancel()
	}
	return c.Context.Err()
}

// runWith runs the program with a fake host.
func runWith(f *fakeHost, args ...string) (code int, stdout, stderr string) {
	a := newApp()
	a.host = f.host()
	var out, errb bytes.Buffer
	code = a.run(args, &out, &errb)
	return code, out.String(), errb.String()
}

var replayLineRE = regexp.MustCompile(`(?m)^replay: (.*)$`)

// TestCtrlCPrintsPartialSummaryStepAndReplay proves an interrupted run
// exits 130 and prints the partial summary, the step it reached and a
// replay command that stops there, and that this command reproduces the
// interrupted run's trace hash (the prefix of the full run).
func TestCtrlCPrintsPartialSummaryStepAndReplay(t *testing.T) {
	f := &fakeHost{interruptAt: 2} // the second progress poll: step 2 × 32768
	code, out, errs := runWith(f, append([]string{"run"}, small...)...)
	require.Equal(t, exitInterrupted, code, "%s%s", out, errs)
	assert.Contains(t, out, "  events          65536\n", "the counts are those of the steps run")
	assert.Regexp(t, `(?m)^  INTERRUPTED at step 65536 \(t=[0-9hms.]+\): the counts above are partial$`, out)
	line := replayLineRE.FindStringSubmatch(out)
	require.NotNil(t, line, out)
	assert.True(t, strings.HasSuffix(line[1], " --stop-at 65536"), line[1])
	hash := hashRE.FindStringSubmatch(out)[1]
	assert.Equal(t, hash, replayHash(t, line[1]), "the replay command reproduces the interrupted run")
	_, full, _ := runCLI(append([]string{"run"}, small...)...)
	assert.NotEqual(t, hash, hashRE.FindStringSubmatch(full)[1], "the interrupted run is a prefix, not the whole run")
	assert.Empty(t, errs, "no progress when stderr is not a terminal")
}

// TestCtrlCStopsASweep proves an interrupted sweep prints the lines and the
// summary of the seeds done and exits 130, even when the workers have
// already stopped by the time the interrupt is read.
func TestCtrlCStopsASweep(t *testing.T) {
	// Polls: the worker's before seed 5, before seed 6 (the interrupt).
	f := &fakeHost{interruptAt: 2}
	code, out, errs := runWith(f, append([]string{"sweep", "--seeds", "3", "--start", "5", "--parallel", "1"}, small...)...)
	require.Equal(t, exitInterrupted, code, errs)
	assert.Equal(t, 1, strings.Count(out, "\n"), "one seed's line")
	assert.Contains(t, out, `"seed":5,`)
	assert.Contains(t, errs, "sweep summary: 1 seeds")
	assert.Contains(t, errs, "INTERRUPTED: 1 of 3 seeds done")
}

// TestProgressOnATerminalOnly proves run shows the virtual time, the step
// and the events per second of wall time on a terminal, and nothing on
// stderr when it is not one; progress never changes the run.
func TestProgressOnATerminalOnly(t *testing.T) {
	tty := &fakeHost{terminal: true, tick: time.Second}
	code, out, errs := runWith(tty, append([]string{"run"}, small...)...)
	require.Equal(t, exitOK, code, errs)
	// The clock advances 1s per reading: 1s when progress starts, 2s when
	// the run starts, 3s and 4s at the two polls (steps 32768 and 65536),
	// 5s when the run ends.
	re := regexp.MustCompile(`\r  virtual time (\S+) +step (\d+) +(\d+) events/s \(wall\) `)
	shown := re.FindAllStringSubmatch(errs, -1)
	require.Len(t, shown, 2, "one line per progress poll (the clock advances 1s per reading): %q", errs)
	assert.Equal(t, "32768", shown[0][2])
	assert.Equal(t, "16384", shown[0][3], "32768 events in 2s of wall time")
	assert.Equal(t, "65536", shown[1][2])
	assert.Equal(t, "21845", shown[1][3], "65536 events in 3s")
	for _, s := range shown {
		d, err := time.ParseDuration(s[1])
		require.NoError(t, err, "the virtual time is a Go duration: %s", s[1])
		assert.Equal(t, fmtVirtual(d), s[1])
		assert.Zero(t, d%time.Second, "shown to the second")
	}
	assert.True(t, strings.HasSuffix(errs, "\r\033[K"), "the progress line is cleared at the end")

	plain := &fakeHost{tick: time.Second}
	code, plainOut, plainErrs := runWith(plain, append([]string{"run"}, small...)...)
	require.Equal(t, exitOK, code)
	assert.Empty(t, plainErrs, "nothing on stderr when it is not a terminal")
	assert.Equal(t, hashRE.FindStringSubmatch(out)[1], hashRE.FindStringSubmatch(plainOut)[1])
	assert.Contains(t, plainOut, "  wall time       ", "the wall time is labelled")
	n, err := strconv.ParseInt(regexp.MustCompile(`events\s+(\d+)`).FindStringSubmatch(plainOut)[1], 10, 64)
	require.NoError(t, err)
	// The run starts at the second reading and ends at the fifth: 3s.
	assert.Contains(t, plainOut, "  wall time       3s\n")
	assert.Contains(t, plainOut, fmt.Sprintf("  events/s        %.0f (wall)\n", float64(n)/3))
}

// TestSweepProgressBarOnATerminalOnly proves sweep draws its progress bar
// on a terminal and writes only its summary lines elsewhere.
func TestSweepProgressBarOnATerminalOnly(t *testing.T) {
	args := append([]string{"sweep", "--seeds", "2", "--parallel", "1", "--duration", "20m"}, small[:2]...)
	code, _, errs := runWith(&fakeHost{terminal: true, tick: time.Second}, args...)
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, errs, "\rsweep", "the bar, redrawn in place")
	assert.Contains(t, errs, "(1/2)", "the count of seeds done")
	code, _, errs = runWith(&fakeHost{tick: time.Second}, args...)
	require.Equal(t, exitOK, code, errs)
	assert.NotContains(t, errs, "\r", "no bar when stderr is not a terminal")
	assert.True(t, strings.HasPrefix(errs, "sweep: 2 seeds in 1s of wall time with 1 workers\n"), errs)
}

// TestProgressClearedBeforeTheSummary proves, on one terminal that shows
// stdout and stderr together, that run's progress line and sweep's bar
// are erased before the summary starts (issue 26: the summary ran into
// the progress line).
func TestProgressClearedBeforeTheSummary(t *testing.T) {
	for _, c := range []struct {
		args    []string
		summary string
	}{
		{append([]string{"run"}, small...), "coordsim run: scenario ci"},
		{append([]string{"sweep", "--seeds", "2", "--parallel", "1", "--duration", "20m"}, small[:2]...), "sweep: 2 seeds in "},
	} {
		a := newApp()
		a.host = (&fakeHost{terminal: true, tick: time.Second}).host()
		var screen syncBuffer
		code := a.run(c.args, &screen, &screen)
		require.Equal(t, exitOK, code, screen.String())
		before, _, found := strings.Cut(screen.String(), c.summary)
		require.True(t, found, screen.String())
		last := -1
		if m := erasedRE.FindAllStringIndex(before, -1); m != nil {
			last = m[len(m)-1][0]
		}
		drawn := max(strings.LastIndex(before, "events/s (wall)"), strings.LastIndex(before, "\rsweep"))
		require.GreaterOrEqual(t, drawn, 0, "%v: progress was drawn: %q", c.args[0], before)
		assert.Greater(t, last, drawn, "%v: the progress is erased before the summary: %q", c.args[0], before)
		// A sweep line printed while the bar is up starts on a clean line.
		assert.NotRegexp(t, `\]\{"seed"`, before, "%v: a line runs into the bar", c.args[0])
	}
}

// erasedRE is a line erased: ANSI erase-line, or blanks between carriage
// returns (the progress bar's way).
var erasedRE = regexp.MustCompile(`\r(\x1b\[K| +\r)`)
