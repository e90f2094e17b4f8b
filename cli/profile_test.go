package cli

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// profileStrings reads a pprof profile as runtime/pprof writes it (a
// gzipped protobuf Profile message), failing the test unless the gzip
// stream is whole and every top-level field parses to the end; it returns
// the string table (field 6: sample types, units, function and file
// names) and how many samples (field 2) the profile holds.
func profileStrings(t *testing.T, path string) (strs []string, samples int) {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	require.NoError(t, err, "%s: not gzipped", path)
	b, err := io.ReadAll(zr)
	require.NoError(t, err, "%s: a truncated or corrupt gzip stream", path)
	require.NotEmpty(t, b, path)
	for len(b) > 0 {
		key, n := binary.Uvarint(b)
		require.Positive(t, n, "%s: a bad field key", path)
		b = b[n:]
		field, wire := key>>3, key&7
		switch wire {
		case 0: // varint
			_, n = binary.Uvarint(b)
			require.Positive(t, n, "%s: field %d: a bad varint", path, field)
			b = b[n:]
		case 2: // length-delimited
			l, n := binary.Uvarint(b)
			require.Positive(t, n, "%s: field %d: a bad length", path, field)
			require.LessOrEqual(t, l, uint64(len(b)-n), "%s: field %d runs past the end", path, field)
			v := b[n : n+int(l)]
			b = b[n+int(l):]
			switch field {
			case 2:
				samples++
			case 6:
				strs = append(strs, string(v))
			}
		default:
			t.Fatalf("%s: field %d has wire type %d, which profile.proto does not use", path, field, wire)
		}
	}
	return strs, samples
}

// TestRunProfiles proves run --cpuprofile and --memprofile write valid
// pprof profiles of the simulation (CPU samples in sim.Run; the heap
// profile's four sample types) and leave the trace as it is without them.
func TestRunProfiles(t *testing.T) {
	dir := t.TempDir()
	cpu, mem := filepath.Join(dir, "cpu.prof"), filepath.Join(dir, "mem.prof")
	quick := []string{"--json", "--scenario", "quick"}
	code, out, errs := runCLI(append([]string{"run", "--cpuprofile", cpu, "--memprofile", mem}, quick...)...)
	require.Equal(t, exitOK, code, errs)
	strs, samples := profileStrings(t, cpu)
	assert.Subset(t, strs, []string{"samples", "count", "cpu", "nanoseconds", "github.com/coordsim/coordsim/sim.Run"})
	assert.Positive(t, samples, "the CPU profile has samples")
	strs, samples = profileStrings(t, mem)
	assert.Subset(t, strs, []string{"alloc_objects", "alloc_space", "inuse_objects", "inuse_space", "bytes"})
	assert.Positive(t, samples, "the heap profile has samples")

	code, plain, errs := runCLI(append([]string{"run"}, quick...)...)
	require.Equal(t, exitOK, code, errs)
	hash := func(s string) string {
		var r struct {
			TraceHash string `json:"trace_hash"`
		}
		require.NoError(t, json.Unmarshal([]byte(s), &r))
		return r.TraceHash
	}
	assert.Equal(t, hash(plain), hash(out), "profiling does not change the trace")
}

// TestSweepProfiles proves sweep --cpuprofile and --memprofile write valid
// profiles of the seeds it runs.
func TestSweepProfiles(t *testing.T) {
	dir := t.TempDir()
	cpu, mem := filepath.Join(dir, "cpu.prof"), filepath.Join(dir, "mem.prof")
	code, _, errs := runCLI(append([]string{"sweep", "--seeds", "2", "--cpuprofile", cpu, "--memprofile", mem}, small...)...)
	require.Equal(t, exitOK, code, errs)
	strs, _ := profileStrings(t, cpu)
	assert.Subset(t, strs, []string{"cpu", "nanoseconds"})
	strs, samples := profileStrings(t, mem)
	assert.Subset(t, strs, []string{"alloc_space", "inuse_space"})
	assert.Positive(t, samples)
}

// TestServeProfiles proves serve writes its profiles when it stops (Ctrl-C),
// and that a profile path it cannot create fails before it starts, exit 3.
func TestServeProfiles(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dir := t.TempDir()
	cpu, mem := filepath.Join(dir, "cpu.prof"), filepath.Join(dir, "mem.prof")
	s := startServe(t, ctx, "--cpuprofile", cpu, "--memprofile", mem)
	require.Equal(t, exitOK, s.stop(), s.stderr.String())
	strs, _ := profileStrings(t, cpu)
	assert.Subset(t, strs, []string{"cpu", "nanoseconds"})
	strs, _ = profileStrings(t, mem)
	assert.Subset(t, strs, []string{"alloc_space", "inuse_space"})

	var stderr bytes.Buffer
	missing := filepath.Join(dir, "nonexistent", "mem.prof")
	args := []string{"--listen", "127.0.0.1:0", "--http", "127.0.0.1:0", "--memprofile", missing}
	assert.Equal(t, exitIO, serve(ctx, args, io.Discard, &stderr))
	assert.Contains(t, stderr.String(), "--memprofile "+missing+": ")
}
