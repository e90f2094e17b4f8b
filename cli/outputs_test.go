package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// devFull is a file every write to fails with ENOSPC: a full disk.
const devFull = "/dev/full"

func requireDevFull(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(devFull); err != nil {
		t.Skipf("no %s on %s", devFull, runtime.GOOS)
	}
}

// TestOutputFileOnAFullDiskFailsTheRun proves each file run writes checks
// its writes and its close (issue 26: a --trace to /dev/full exited 0 with
// nothing written): the command exits 3 naming the flag and the path, the
// summary is still printed, and the other files are still written.
func TestOutputFileOnAFullDiskFailsTheRun(t *testing.T) {
	requireDevFull(t)
	for _, flag := range []string{"--trace", "--report", "--metrics", "--cpuprofile", "--memprofile"} {
		report := filepath.Join(t.TempDir(), "r.html")
		args := append([]string{"run", flag, devFull}, small...)
		if flag != "--report" {
			args = append(args, "--report", report)
		}
		code, out, errs := runCLI(args...)
		assert.Equal(t, exitIO, code, "%s: %s", flag, errs)
		assert.Contains(t, errs, flag+" "+devFull+": ", flag)
		assert.Contains(t, errs, "no space left on device", flag)
		assert.Contains(t, out, "invariants      held", "%s: the summary is printed all the same", flag)
		if flag != "--report" {
			st, err := os.Stat(report)
			require.NoError(t, err, flag)
			assert.Positive(t, st.Size(), "%s: the other files are written", flag)
		}
	}
}

// failingStdout fails every write, as stdout redirected to a full disk.
type failingStdout struct{}

func (failingStdout) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// TestStdoutOnAFullDiskFailsTheCommand proves output asked for on stdout
// (run --json, the summary, sweep lines) is checked like a file: exit 3.
func TestStdoutOnAFullDiskFailsTheCommand(t *testing.T) {
	for _, args := range [][]string{
		append([]string{"run", "--json"}, small...),
		append([]string{"run"}, small...),
		append([]string{"sweep", "--seeds", "1", "--duration", "20m"}, small[:2]...),
	} {
		var errb bytes.Buffer
		code := newApp().run(args, failingStdout{}, &errb)
		assert.Equal(t, exitIO, code, "%v: %s", args, errb.String())
		assert.Contains(t, errb.String(), "no space left on device", "%v", args)
	}
}

// TestSweepResultsOnAFullDiskFailsTheSweep proves sweep --resume refuses a
// device (it would read /dev/full forever) and fails, exit 3, on a file it
// cannot create, before any seed runs.
func TestSweepResultsOnAFullDiskFailsTheSweep(t *testing.T) {
	requireDevFull(t)
	code, _, errs := runCLI(append([]string{"sweep", "--seeds", "1", "--resume", devFull}, small...)...)
	assert.Equal(t, exitIO, code, errs)
	assert.Contains(t, errs, "--resume /dev/full: not a regular file")
}

// TestSweepResumeOfAMissingDirectoryFails proves --resume creates its file
// but never a directory (issue 26: `sweep --resume /nonexistent/x` created
// /nonexistent): a mistyped path fails before any seed runs.
func TestSweepResumeOfAMissingDirectoryFails(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nonexistent")
	code, _, errs := runCLI(append([]string{"sweep", "--seeds", "1", "--resume", filepath.Join(dir, "x")}, small...)...)
	assert.Equal(t, exitIO, code, errs)
	assert.Contains(t, errs, "no such file or directory")
	assert.NoDirExists(t, dir, "no directory was created")
}

// TestOutputFileInAReadOnlyDirectoryFailsBeforeTheRun proves an output
// path in a directory the user cannot write fails at once, exit 3, before
// the simulation runs. Root writes anywhere, so the test skips as root
// (the /dev/full tests cover root).
func TestOutputFileInAReadOnlyDirectoryFailsBeforeTheRun(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("running as root, which can write a read-only directory; the /dev/full tests cover output errors")
	}
	dir := t.TempDir()
	require.NoError(t, os.Chmod(dir, 0o555))
	t.Cleanup(func() { _ = os.Chmod(dir, 0o755) })
	for _, flag := range []string{"--trace", "--report", "--metrics", "--cpuprofile", "--memprofile", "--emit-scenario"} {
		code, out, errs := runCLI(append([]string{"run", flag, filepath.Join(dir, "out")}, small...)...)
		assert.Equal(t, exitIO, code, flag)
		assert.Contains(t, errs, "permission denied", flag)
		assert.Empty(t, out, "%s: nothing ran", flag)
	}
	code, _, errs := runCLI(append([]string{"sweep", "--seeds", "1", "--resume", filepath.Join(dir, "x.jsonl")}, small...)...)
	assert.Equal(t, exitIO, code)
	assert.Contains(t, errs, "permission denied")
}

// TestTraceToDevFullOnTheBuiltBinary proves the acceptance test on
// the real program: `coordsim run --trace /dev/full` exits non-zero (3).
func TestTraceToDevFullOnTheBuiltBinary(t *testing.T) {
	requireDevFull(t)
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool to build the binary")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	bin := filepath.Join(t.TempDir(), "coordsim")
	build, err := exec.CommandContext(ctx, goTool, "build", "-o", bin, "../cmd/coordsim").CombinedOutput()
	require.NoError(t, err, "%s", build)
	out, err := exec.CommandContext(ctx, bin, append([]string{"run", "--trace", devFull}, small...)...).CombinedOutput()
	var exit *exec.ExitError
	require.True(t, errors.As(err, &exit), "%v\n%s", err, out)
	assert.Equal(t, exitIO, exit.ExitCode(), "%s", out)
	assert.Contains(t, string(out), "--trace /dev/full: ")
}
