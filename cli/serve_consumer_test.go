package cli

import (
	"context"
	"flag"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/coordinator"
)

// TestServeConsumerSessionFlags proves the --consumer-* flags reach the
// coordinators: with the minimums lowered, a group config of a 2 s session
// and a 1 s heartbeat interval is accepted (Kafka's defaults refuse it),
// and the broker describes the minimum as a static broker config.
func TestServeConsumerSessionFlags(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s := startServe(t, ctx, "--consumer-min-session-timeout", "1s", "--consumer-min-heartbeat-interval", "500ms")

	cl, err := kgo.NewClient(kgo.SeedBrokers(s.bootstrap...))
	require.NoError(t, err)
	defer cl.Close()
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	res := kmsg.NewIncrementalAlterConfigsRequestResource()
	res.ResourceType, res.ResourceName = kmsg.ConfigResourceTypeGroupConfig, "g"
	for name, value := range map[string]string{"consumer.session.timeout.ms": "2000", "consumer.heartbeat.interval.ms": "1000"} {
		c := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
		c.Name, c.Value = name, kmsg.StringPtr(value)
		res.Configs = append(res.Configs, c)
	}
	req.Resources = append(req.Resources, res)
	resp, err := req.RequestWith(ctx, cl)
	require.NoError(t, err)
	require.Len(t, resp.Resources, 1)
	assert.Zero(t, resp.Resources[0].ErrorCode, "%v", resp.Resources[0].ErrorMessage)

	configs, err := kadm.NewClient(cl).DescribeBrokerConfigs(ctx, 0)
	require.NoError(t, err)
	require.Len(t, configs, 1)
	var found bool
	for _, c := range configs[0].Configs {
		if c.Key == "group.consumer.min.session.timeout.ms" {
			found = true
			assert.Equal(t, "1000", c.MaybeValue())
			assert.Equal(t, kmsg.ConfigSourceStaticBrokerConfig, c.Source)
		}
	}
	assert.True(t, found)

	assert.Equal(t, exitOK, s.stop())
}

// TestServeConsumerSessionFlagsRefused proves bad --consumer-* values exit
// with the usage code before anything starts, and that consumerBounds
// leaves the config as it was when it refuses.
func TestServeConsumerSessionFlagsRefused(t *testing.T) {
	addrs := []string{"--listen", "127.0.0.1:0", "--http", "127.0.0.1:0"}
	for _, args := range [][]string{
		{"--consumer-min-session-timeout", "50s"},                                    // above the 45 s session
		{"--consumer-max-session-timeout", "30s"},                                    // below the minimum
		{"--consumer-heartbeat-interval", "1500us"},                                  // not whole milliseconds
		{"--consumer-max-heartbeat-interval", "0s"},                                  // below 1 ms
		{"--consumer-min-heartbeat-interval", "20s"},                                 // above its maximum
		{"--consumer-session-timeout", "5s", "--consumer-min-session-timeout", "1s"}, // heartbeat 5 s not below it
		{"--consumer-session-timeout", "soon"},
	} {
		var stderr strings.Builder
		assert.Equal(t, exitUsage, serve(context.Background(), append(args, addrs...), io.Discard, &stderr), "%v", args)
		assert.Contains(t, stderr.String(), "consumer", "%v: the error names the flag or key", args)
	}

	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	b := sessionBoundsFlags(fs, coordinator.DefaultConfig())
	require.NoError(t, fs.Parse([]string{"--consumer-min-session-timeout", "50s"}))
	cfg := coordinator.DefaultConfig()
	err := applySessionBounds(b, &cfg)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "group.consumer.session.timeout.ms")
	assert.Equal(t, coordinator.DefaultConfig().ConsumerMinSessionTimeout, cfg.ConsumerMinSessionTimeout, "unchanged")
	require.NoError(t, fs.Parse([]string{"--consumer-min-session-timeout", "1s"}))
	require.NoError(t, applySessionBounds(b, &cfg))
	assert.Equal(t, time.Second, cfg.ConsumerMinSessionTimeout)
}

// TestServeAssignmentIntervalFlags proves --KIND-assignment-interval sets
// group.KIND.assignment.interval.ms and refuses a value outside Kafka's
// bounds (0 to 15 s, whole milliseconds) with the usage code, leaving the
// config as it was.
func TestServeAssignmentIntervalFlags(t *testing.T) {
	addrs := []string{"--listen", "127.0.0.1:0", "--http", "127.0.0.1:0"}
	for _, args := range [][]string{
		{"--consumer-assignment-interval", "16s"},
		{"--share-assignment-interval", "-1ms"},
		{"--streams-assignment-interval", "1500us"},
	} {
		var stderr strings.Builder
		assert.Equal(t, exitUsage, serve(context.Background(), append(args, addrs...), io.Discard, &stderr), "%v", args)
		assert.Contains(t, stderr.String(), "assignment.interval.ms", "%v: the error names the key", args)
	}

	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	iv := assignmentIntervalFlags(fs)
	cfg := coordinator.DefaultConfig()
	require.NoError(t, fs.Parse([]string{"--streams-assignment-interval", "16s"}))
	require.Error(t, applyAssignmentIntervals(iv, &cfg))
	assert.Zero(t, cfg.StreamsAssignmentInterval.Interval, "unchanged")
	require.NoError(t, fs.Parse([]string{"--streams-assignment-interval", "0s", "--consumer-assignment-interval", "1s"}))
	require.NoError(t, applyAssignmentIntervals(iv, &cfg))
	assert.Equal(t, time.Second, cfg.ConsumerAssignmentInterval.Interval)
	assert.Zero(t, cfg.ShareAssignmentInterval.Interval)
}
