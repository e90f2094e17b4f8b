package cli

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/coordsim/coordsim/txn"
)

// served is a `coordsim serve` that startServe started.
type served struct {
	bootstrap  []string // the brokers' host:port
	metricsURL string   // http://host:port/metrics
	// stop cancels serve's context, as Ctrl-C does, and returns its exit
	// code; the test fails if serve does not stop. Idempotent.
	stop func() int
	// stderr is what serve logged.
	stderr *syncBuffer
}

// syncBuffer is a strings.Builder that serve's goroutine writes while the
// test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// startServe runs serve on ephemeral loopback ports with five
// __consumer_offsets partitions, quiet logs and args after those, and
// waits for it to print its addresses. The test's cleanup stops it.
func startServe(t *testing.T, ctx context.Context, args ...string) served {
	t.Helper()
	runCtx, cancel := context.WithCancel(ctx)
	outR, outW := io.Pipe()
	code := make(chan int, 1)
	base := []string{"--listen", "127.0.0.1:0", "--http", "127.0.0.1:0", "--partitions", "5", "--log-level", "error"}
	stderr := &syncBuffer{}
	go func() {
		code <- serve(runCtx, append(base, args...), outW, stderr)
		outW.Close()
	}()
	s := served{stderr: stderr}
	lines := bufio.NewScanner(outR)
	for (s.bootstrap == nil || s.metricsURL == "") && lines.Scan() {
		if v, ok := strings.CutPrefix(lines.Text(), "bootstrap servers: "); ok {
			s.bootstrap = strings.Split(v, ",")
		}
		if v, ok := strings.CutPrefix(lines.Text(), "metrics:"); ok {
			s.metricsURL = strings.TrimSpace(v)
		}
	}
	go func() { _, _ = io.Copy(io.Discard, outR) }()
	var once sync.Once
	exit := -1
	s.stop = func() int {
		once.Do(func() {
			cancel()
			select {
			case exit = <-code:
			case <-time.After(30 * time.Second):
				t.Error("serve did not stop after its context ended")
			}
		})
		return exit
	}
	t.Cleanup(func() { s.stop() })
	if s.bootstrap == nil || s.metricsURL == "" {
		t.Fatalf("serve printed no addresses (exit code %d): %s", s.stop(), stderr.String())
	}
	return s
}

// TestServe proves the operator's path: serve prints the bootstrap servers
// and the metrics URL, a kgo client produces through them, /metrics answers
// Prometheus text with every broker's coordinator metrics, a
// __consumer_offsets partition moves over the admin route, and cancelling
// the context (Ctrl-C) stops it with exit code 0.
func TestServe(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s := startServe(t, ctx, "--retention-bytes", "1048576")
	assert.Len(t, s.bootstrap, 3)

	cl, err := kgo.NewClient(kgo.SeedBrokers(s.bootstrap...), kgo.DefaultProduceTopic("t"), kgo.AllowAutoTopicCreation())
	require.NoError(t, err)
	defer cl.Close()
	require.NoError(t, cl.ProduceSync(ctx, &kgo.Record{Value: []byte("v")}).FirstErr())
	adm := kadm.NewClient(cl)
	_, err = adm.CommitOffsets(ctx, "g", kadm.OffsetsFromRecords(kgo.Record{Topic: "t", Partition: 0, Offset: 0}))
	require.NoError(t, err)

	resp, err := http.Get(s.metricsURL)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, string(body), `broker="2"`)
	assert.Contains(t, string(body), "kafka_coordinator_offset_commit")

	moveURL := strings.TrimSuffix(s.metricsURL, "/metrics") + "/admin/move?partition=0&broker=2"
	resp, err = http.Post(moveURL, "text/plain", nil)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	resp, err = http.Post(strings.TrimSuffix(s.metricsURL, "/metrics")+"/admin/move?partition=99&broker=2", "text/plain", nil)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "a partition that does not exist is refused")

	assert.Equal(t, exitOK, s.stop())
}

// TestServeLogKeysAreUnique proves every serve log line names each key
// once (issue 26: "component=wire broker=1 component=live broker=1"), over
// start-up, a partition move and shutdown, at debug level.
func TestServeLogKeysAreUnique(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s := startServe(t, ctx, "--log-level", "debug")
	resp, err := http.Post(strings.TrimSuffix(s.metricsURL, "/metrics")+"/admin/move?partition=0&broker=2", "text/plain", nil)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, exitOK, s.stop())
	logged := s.stderr.String()
	require.Contains(t, logged, "coordinator loop started", "the drivers logged")
	require.Contains(t, logged, "loaded shard", "the coordinators logged")
	keyRE := regexp.MustCompile(`(?:^| )([a-z_.]+)=`)
	for _, line := range strings.Split(strings.TrimSpace(logged), "\n") {
		seen := map[string]bool{}
		// Quoted values may hold spaces and '=': drop them first.
		for _, m := range keyRE.FindAllStringSubmatch(regexp.MustCompile(`"(?:[^"\\]|\\.)*"`).ReplaceAllString(line, `""`), -1) {
			assert.False(t, seen[m[1]], "key %s twice in %q", m[1], line)
			seen[m[1]] = true
		}
	}
}

// TestServeBadFlags proves that bad flags exit with the usage code and
// start nothing.
func TestServeBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--store", "redis"},
		{"--partitions", "0"},
		{"--protocol", "v9", "--listen", "127.0.0.1:0", "--http", "127.0.0.1:0"},
		{"--log-level", "loud"},
		{"--retention-bytes", "0", "--listen", "127.0.0.1:0", "--http", "127.0.0.1:0"},
		{"--retention-bytes", "-2", "--listen", "127.0.0.1:0", "--http", "127.0.0.1:0"},
		{"extra"},
	} {
		assert.Equal(t, exitUsage, serve(context.Background(), args, io.Discard, io.Discard), "%v", args)
	}
}

// TestServeBrokerRacks proves --broker-racks sets each broker's broker.rack,
// which Metadata reports, and that a bad list (a count other than
// --brokers, an empty rack) exits with the usage code before anything
// starts: serve runs on an ended context there, so a serve that started
// would exit 0 instead.
func TestServeBrokerRacks(t *testing.T) {
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	for _, args := range [][]string{
		{"--broker-racks", "a,b"},
		{"--broker-racks", "a,b,c,d"},
		{"--broker-racks", "a,,c"},
		{"--broker-racks", ","},
		{"--brokers", "2", "--broker-racks", "a,b,c"},
	} {
		var stderr strings.Builder
		args = append([]string{"--listen", "127.0.0.1:0", "--http", "127.0.0.1:0"}, args...)
		assert.Equal(t, exitUsage, serve(ended, args, io.Discard, &stderr), "%v", args)
		assert.Contains(t, stderr.String(), "INVALID_CONFIG: broker.rack", "%v", args)
	}

	ctx, stop := context.WithTimeout(context.Background(), 60*time.Second)
	defer stop()
	s := startServe(t, ctx, "--broker-racks", "r0,r1,r2")
	cl, err := kgo.NewClient(kgo.SeedBrokers(s.bootstrap...))
	require.NoError(t, err)
	defer cl.Close()
	meta, err := kadm.NewClient(cl).BrokerMetadata(ctx)
	require.NoError(t, err)
	racks := map[int32]string{}
	for _, b := range meta.Brokers {
		if assert.NotNil(t, b.Rack, "broker %d", b.NodeID) {
			racks[b.NodeID] = *b.Rack
		}
	}
	assert.Equal(t, map[int32]string{0: "r0", 1: "r1", 2: "r2"}, racks)
	assert.Equal(t, exitOK, s.stop())
}

// TestServeTransactionVersion proves --transaction-version: 2 by default
// (Kafka 4.x's transaction.version), 1 to keep clients on the older
// protocol, and a level Kafka does not know is a usage error.
func TestServeTransactionVersion(t *testing.T) {
	o, _, ok := parseServe(nil, io.Discard, io.Discard)
	require.True(t, ok)
	assert.Equal(t, txn.TV2, o.cfg.Transactions.TransactionVersion)
	o, _, ok = parseServe([]string{"--transaction-version", "1"}, io.Discard, io.Discard)
	require.True(t, ok)
	assert.Equal(t, txn.TV1, o.cfg.Transactions.TransactionVersion)
	for _, v := range []string{"3", "-1", "70000"} {
		var stderr strings.Builder
		_, code, ok := parseServe([]string{"--transaction-version", v}, io.Discard, &stderr)
		assert.False(t, ok, v)
		assert.Equal(t, exitUsage, code, v)
		assert.Contains(t, stderr.String(), "transaction.version", v)
	}
}
