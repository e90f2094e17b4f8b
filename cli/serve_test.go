package cli

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestServe proves the operator's path: serve prints the bootstrap servers
// and the metrics URL, a kgo client produces through them, /metrics answers
// Prometheus text with every broker's coordinator metrics, a
// __consumer_offsets partition moves over the admin route, and cancelling
// the context (Ctrl-C) stops it with exit code 0.
func TestServe(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	runCtx, stop := context.WithCancel(ctx)
	outR, outW := io.Pipe()
	code := make(chan int, 1)
	go func() {
		code <- serve(runCtx, []string{"--listen", "127.0.0.1:0", "--http", "127.0.0.1:0", "--partitions", "5", "--log-level", "error", "--retention-bytes", "1048576"}, outW, io.Discard)
		outW.Close()
	}()
	lines := bufio.NewScanner(outR)
	var bootstrap, metricsURL string
	for lines.Scan() && (bootstrap == "" || metricsURL == "") {
		line := lines.Text()
		if v, ok := strings.CutPrefix(line, "bootstrap servers: "); ok {
			bootstrap = v
		}
		if v, ok := strings.CutPrefix(line, "metrics:"); ok {
			metricsURL = strings.TrimSpace(v)
		}
	}
	require.NotEmpty(t, bootstrap)
	require.NotEmpty(t, metricsURL)
	go func() { _, _ = io.Copy(io.Discard, outR) }()
	assert.Len(t, strings.Split(bootstrap, ","), 3)

	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(bootstrap, ",")...), kgo.DefaultProduceTopic("t"), kgo.AllowAutoTopicCreation())
	require.NoError(t, err)
	defer cl.Close()
	require.NoError(t, cl.ProduceSync(ctx, &kgo.Record{Value: []byte("v")}).FirstErr())
	adm := kadm.NewClient(cl)
	_, err = adm.CommitOffsets(ctx, "g", kadm.OffsetsFromRecords(kgo.Record{Topic: "t", Partition: 0, Offset: 0}))
	require.NoError(t, err)

	resp, err := http.Get(metricsURL)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, string(body), `broker="2"`)
	assert.Contains(t, string(body), "kafka_coordinator_offset_commit")

	moveURL := strings.TrimSuffix(metricsURL, "/metrics") + "/admin/move?partition=0&broker=2"
	resp, err = http.Post(moveURL, "text/plain", nil)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	resp, err = http.Post(strings.TrimSuffix(metricsURL, "/metrics")+"/admin/move?partition=99&broker=2", "text/plain", nil)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "a partition that does not exist is refused")

	stop()
	select {
	case c := <-code:
		assert.Equal(t, exitOK, c)
	case <-ctx.Done():
		t.Fatal("serve did not stop after its context ended")
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
