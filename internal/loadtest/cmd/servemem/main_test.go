package main

import (
	"bytes"
	"context"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInterruptDrains proves that Ctrl-C stops only the sampling: the
// run interrupted after about two seconds of a much longer --duration lets
// its records in flight finish, none fails or is left unfinished, the
// group consumes every acknowledged record, and it exits 0 with the
// samples taken so far.
func TestInterruptDrains(t *testing.T) {
	interrupted, interrupt := context.WithCancel(context.Background())
	defer interrupt()
	restored := false
	go func() {
		time.Sleep(2 * time.Second) // the load runs on the wall clock
		interrupt()
	}()
	var stdout, stderr bytes.Buffer
	code := run(interrupted, func() { restored = true }, []string{
		"--duration", "10m", "--every", "500ms", "--warmup", "0", "--drain", "30s",
		"--brokers", "1", "--partitions", "4", "--rate", "500", "--record-bytes", "100", "--consumers", "2",
	}, &stdout, &stderr)
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	assert.True(t, restored, "Ctrl-C gets its default back before the drain")
	assert.Contains(t, stderr.String(), "interrupted; draining")
	m := regexp.MustCompile(`records: sent (\d+), acked (\d+), failed (\d+), unfinished (\d+), consumed (\d+)`).
		FindStringSubmatch(stdout.String())
	require.NotNil(t, m, stdout.String())
	n := func(i int) int64 { v, _ := strconv.ParseInt(m[i], 10, 64); return v }
	assert.Positive(t, n(2), "records were acknowledged")
	assert.Equal(t, n(1), n(2), "every sent record acknowledged")
	assert.Zero(t, n(3), "none failed")
	assert.Zero(t, n(4), "none unfinished")
	assert.GreaterOrEqual(t, n(5), n(2), "the group consumed every acknowledged record")
}

// TestRunToTheEnd: a run that is not interrupted drains as quietly, says
// nothing of an interruption (restoring Ctrl-C's default ends the
// interrupt context too, which once printed one), and exits 0.
func TestRunToTheEnd(t *testing.T) {
	interrupted, stop := context.WithCancel(context.Background())
	defer stop()
	var stdout, stderr bytes.Buffer
	code := run(interrupted, stop, []string{
		"--duration", "1s", "--every", "500ms", "--warmup", "0",
		"--brokers", "1", "--partitions", "2", "--rate", "200", "--record-bytes", "10", "--consumers", "1",
	}, &stdout, &stderr)
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	assert.NotContains(t, stderr.String(), "interrupted")
	assert.Contains(t, stdout.String(), "failed 0, unfinished 0")
}

// TestBadFlags: a bad flag exits 2 before anything starts.
func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--every", "0"},
		{"--duration", "1s", "--every", "2s"},
		{"--drain", "0"},
		{"--rate", "0"},
	} {
		var out bytes.Buffer
		assert.Equal(t, 2, run(context.Background(), func() {}, args, &out, &out), "%v", args)
	}
}
