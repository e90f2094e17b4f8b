package report

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/coordsim/coordsim/sim"
)

// fmtInt formats n with thousands separators: 12345678 → "12,345,678".
func fmtInt(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// fmtFloat formats a rate or ratio: whole numbers with separators from 100
// up, three significant digits below.
func fmtFloat(v float64) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "n/a"
	case math.Abs(v) >= 100:
		return fmtInt(int64(math.Round(v)))
	default:
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
}

// fmtVirtual formats virtual time, an instant or a span, as everything
// coordsim prints does (sim.FormatVirtual: "6h20m0s", "31.2s"), so a time
// in the report reads and greps the same as in the trace and the summary.
func fmtVirtual(d time.Duration) string { return sim.FormatVirtual(d) }

// fmtAtMs formats a virtual instant given in milliseconds since the start.
func fmtAtMs(ms int64) string { return fmtVirtual(msDuration(ms)) }

// shellQuote returns s quoted for a POSIX shell when it needs quoting, so the
// replay command can be pasted as is.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
			strings.ContainsRune("-_./:=+,@", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// replayCommand is the command that reruns the simulation: the result's
// own Replay (every resolved option) when the caller filled it in, else
// the seed and scenario name alone; stopAt > 0 adds --stop-at to stop
// right after that step.
func replayCommand(r *sim.Result, stopAt int64) string {
	cmd := r.Replay
	if cmd == "" {
		cmd = "go run ./cmd/coordsim replay --seed " + strconv.FormatUint(r.Seed, 10)
		if r.Scenario != "" {
			cmd += " --scenario " + shellQuote(r.Scenario)
		}
	}
	if stopAt > 0 {
		cmd += " --stop-at " + strconv.FormatInt(stopAt, 10)
	}
	return cmd
}

// msDuration converts virtual milliseconds to a duration.
func msDuration(ms int64) time.Duration { return time.Duration(ms) * time.Millisecond }
