package wire_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The clients outside Go that people point at a Kafka endpoint: kafkajs and
// @platformatic/kafka on Node.js, and kcat (librdkafka). They need packages
// go test cannot fetch, so each test runs only when its client is
// installed and says so when it skips: .ci/run installs kcat from Debian
// and the Node.js clients with npm into a directory it names in
// COORDSIM_JS_CLIENTS (its node_modules holds kafkajs@2.2.4 and
// @platformatic/kafka@2.12.1).

func jsClients(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("real clients over loopback")
	}
	dir := os.Getenv("COORDSIM_JS_CLIENTS")
	if dir == "" {
		t.Skip("COORDSIM_JS_CLIENTS is not set: no kafkajs or @platformatic/kafka to run (.ci/run installs them)")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not on PATH")
	}
	return dir
}

// runNode runs one of testdata/jsclients' scripts against cl and decodes
// the JSON line it prints last.
func runNode(t *testing.T, modules, script string, brokers []string, out any) {
	t.Helper()
	abs, err := filepath.Abs(filepath.Join("testdata", "jsclients", script))
	require.NoError(t, err)
	// An .mjs script resolves its imports next to itself, not by
	// NODE_PATH, so it runs from a copy in the clients' directory.
	copyPath := filepath.Join(modules, script)
	src, err := os.ReadFile(abs)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(copyPath, src, 0o644))
	ctx := testContext(t)
	cmd := exec.CommandContext(ctx, "node", copyPath)
	cmd.Dir = modules
	cmd.Env = append(os.Environ(), "BROKERS="+strings.Join(brokers, ","), "NODE_PATH="+filepath.Join(modules, "node_modules"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "%s failed:\n%s", script, stderr.String())
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), out), "%s printed %q", script, stdout.String())
}

// TestKafkajsProducersGroupAndAdmin: kafkajs 2.2.4's idempotent producer
// (100 records), a transaction committed and one aborted, a group of three
// consumers reading everything committed exactly once and nothing aborted,
// and setOffsets, resetOffsets, listGroups and deleteGroups, which hung or
// closed the connection before classic groups were served.
func TestKafkajsProducersGroupAndAdmin(t *testing.T) {
	modules := jsClients(t)
	t.Parallel()
	cl := startCluster(t)
	var got struct {
		Distinct, Duplicates, Members int
		AbortedSeen, CommittedSeen    bool
		State                         string
		OffsetAfterSet                string
		Listed, ListedAfterDelete     bool
	}
	runNode(t, modules, "kafkajs.js", cl.Addrs(), &got)
	assert.Equal(t, 101, got.Distinct, "100 idempotent records and the committed transaction's one")
	assert.True(t, got.CommittedSeen)
	assert.False(t, got.AbortedSeen, "read_committed never shows an aborted record")
	assert.Equal(t, "Stable", got.State)
	assert.Equal(t, 3, got.Members)
	assert.Equal(t, "1", got.OffsetAfterSet)
	assert.True(t, got.Listed)
	assert.False(t, got.ListedAfterDelete)
	t.Logf("kafkajs: %+v (a record read again after a rebalance is a duplicate, allowed: the group commits at least once)", got)
}

// TestPlatformaticIdempotentProducersAndClassicGroup: three idempotent
// producers of @platformatic/kafka 2.12.1, which all got producer id 0
// and lost their batches as duplicates before InitProducerId allocated a
// new id per null transactional id, then a classic group of two.
func TestPlatformaticIdempotentProducersAndClassicGroup(t *testing.T) {
	modules := jsClients(t)
	t.Parallel()
	cl := startCluster(t)
	var got struct{ Distinct, Duplicates int }
	runNode(t, modules, "platformatic.mjs", cl.Addrs(), &got)
	assert.Equal(t, 300, got.Distinct, "every acknowledged record is consumed")
	t.Logf("@platformatic/kafka: %+v", got)
}

// TestKcatProduceConsumeAndGroup: kcat (librdkafka) produces 100 records
// idempotently, reads them back to the end (-e, which needs an empty Fetch
// answer librdkafka can parse to stop), and reads them again in a classic
// group (-G), which failed with "JoinGroup failed: Required feature not
// supported" before classic groups were served.
func TestKcatProduceConsumeAndGroup(t *testing.T) {
	if testing.Short() {
		t.Skip("real clients over loopback")
	}
	if _, err := exec.LookPath("kcat"); err != nil {
		t.Skip("kcat is not on PATH (.ci/run installs Debian's kcat)")
	}
	t.Parallel()
	cl := startCluster(t)
	ctx := testContext(t)
	broker := cl.Addrs()[0]
	var in strings.Builder
	for i := range 100 {
		fmt.Fprintf(&in, "record-%d\n", i)
	}
	produce := exec.CommandContext(ctx, "kcat", "-P", "-b", broker, "-t", "kcat-orders", "-X", "enable.idempotence=true")
	produce.Stdin = strings.NewReader(in.String())
	out, err := produce.CombinedOutput()
	require.NoError(t, err, "kcat -P: %s", out)
	count := func(args ...string) int {
		t.Helper()
		cmd := exec.CommandContext(ctx, "kcat", args...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		require.NoError(t, cmd.Run(), "kcat %v: %s", args, stderr.String())
		return strings.Count(stdout.String(), "\n")
	}
	assert.Equal(t, 100, count("-C", "-b", broker, "-t", "kcat-orders", "-e", "-q"))
	assert.Equal(t, 100, count("-b", broker, "-G", "kcat-group", "kcat-orders", "-e", "-q", "-X", "auto.offset.reset=earliest"))
}
