package cli

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCtrlCOnTheBuiltBinary proves, with a real SIGINT to the built
// program, what TestCtrlCPrintsPartialSummaryStepAndReplay proves through
// the host seam: the run stops, exits 130, prints the step reached and a
// replay command that reproduces the interrupted run. The signal is sent
// once the first trace line arrives (the handler is installed by then), and
// the whole test is bounded by a two-minute deadline.
func TestCtrlCOnTheBuiltBinary(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGINT to a child process on Windows")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool to build the binary")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	bin := filepath.Join(t.TempDir(), "coordsim")
	build, err := exec.CommandContext(ctx, goTool, "build", "-o", bin, "../cmd/coordsim").CombinedOutput()
	require.NoError(t, err, "%s", build)

	// The default scenario runs for half a minute: the signal lands long
	// before its end. The trace goes to stdout, so its first line says the
	// simulation (and the signal handler) started.
	cmd := exec.CommandContext(ctx, bin, "run", "--trace", "/dev/stdout")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	signalled := false
	var summary []string
	for sc.Scan() {
		if line := sc.Text(); !strings.HasPrefix(line, "step=") {
			summary = append(summary, line)
		} else if !signalled {
			require.NoError(t, cmd.Process.Signal(os.Interrupt))
			signalled = true
		}
	}
	require.NoError(t, sc.Err())
	err = cmd.Wait()
	var exit *exec.ExitError
	require.True(t, errors.As(err, &exit), "the program exits with a code, not killed: %v\n%s", err, strings.Join(summary, "\n"))
	require.Equal(t, exitInterrupted, exit.ExitCode(), strings.Join(summary, "\n"))
	out := strings.Join(summary, "\n") + "\n"
	assert.Regexp(t, `(?m)^  INTERRUPTED at step \d+ \(t=\S+\): the counts above are partial$`, out)
	line := replayLineRE.FindStringSubmatch(out)
	require.NotNil(t, line, out)
	// The built binary names itself as invoked, not `go run` (issue 26),
	// and its printed command, run as printed, reproduces the run.
	assert.Regexp(t, `^`+regexp.QuoteMeta(bin)+` replay --scenario default --seed 1 --stop-at \d+$`, line[1])
	words := shellWords(t, line[1])
	replayed, err := exec.CommandContext(ctx, words[0], words[1:]...).Output()
	require.NoError(t, err, "%s", replayed)
	assert.Equal(t, hashRE.FindStringSubmatch(out)[1], hashRE.FindStringSubmatch(string(replayed))[1], "the printed replay reproduces the interrupted run")
}
