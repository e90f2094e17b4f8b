package cli

import (
	"context"
	"errors"
	"flag"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	fkerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/coordinator"
)

// coordinatorOf is the broker client of group's coordinator.
func coordinatorOf(t *testing.T, ctx context.Context, cl *kgo.Client, group string) *kgo.Broker {
	t.Helper()
	found := kadm.NewClient(cl).FindGroupCoordinators(ctx, group)
	require.NoError(t, found.Error())
	return cl.Broker(int(found[group].NodeID))
}

// TestServeShareAndStreamsSessionFlags proves the --share-* and --streams-*
// session and heartbeat flags reach the coordinators, as the --consumer-*
// ones do: a share and a streams member's first heartbeat answer the
// intervals the flags set, group configs below Kafka's default minimums
// are accepted once the minimums are lowered (and refused past the new
// maximums, with Kafka's message), and the broker describes the bounds as
// static broker configs.
func TestServeShareAndStreamsSessionFlags(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s := startServe(t, ctx,
		"--share-session-timeout", "10s", "--share-min-session-timeout", "1s", "--share-max-session-timeout", "20s",
		"--share-min-heartbeat-interval", "500ms", "--share-heartbeat-interval", "700ms",
		"--streams-session-timeout", "3s", "--streams-min-session-timeout", "2s",
		"--streams-min-heartbeat-interval", "300ms", "--streams-heartbeat-interval", "400ms")
	cl, err := kgo.NewClient(kgo.SeedBrokers(s.bootstrap...))
	require.NoError(t, err)
	defer cl.Close()
	_, err = kadm.NewClient(cl).CreateTopic(ctx, 1, 1, nil, "t")
	require.NoError(t, err)

	share := kmsg.NewPtrShareGroupHeartbeatRequest()
	share.GroupID, share.MemberID, share.SubscribedTopicNames = "sg", "m1", []string{"t"}
	resp, err := coordinatorOf(t, ctx, cl, "sg").Request(ctx, share)
	require.NoError(t, err)
	shb := resp.(*kmsg.ShareGroupHeartbeatResponse)
	require.Zero(t, shb.ErrorCode, "%v", shb.ErrorMessage)
	assert.Equal(t, int32(700), shb.HeartbeatIntervalMillis, "--share-heartbeat-interval")

	streams := kmsg.NewPtrStreamsGroupHeartbeatRequest()
	process := "p1"
	streams.Group, streams.MemberID, streams.ProcessID, streams.RebalanceTimeoutMillis = "app", "m1", &process, 30000
	topology := kmsg.NewStreamsGroupHeartbeatRequestTopology()
	topology.Epoch = 1
	sub := kmsg.NewStreamsGroupHeartbeatRequestTopologySubtopology()
	sub.SubtopologyID, sub.SourceTopics = "0", []string{"t"}
	topology.Subtopologies = append(topology.Subtopologies, sub)
	streams.Topology = &topology
	resp, err = coordinatorOf(t, ctx, cl, "app").Request(ctx, streams)
	require.NoError(t, err)
	sthb := resp.(*kmsg.StreamsGroupHeartbeatResponse)
	require.Zero(t, sthb.ErrorCode, "%v", sthb.ErrorMessage)
	assert.Equal(t, int32(400), sthb.HeartbeatIntervalMillis, "--streams-heartbeat-interval")

	alter := func(group string, kv ...string) (int16, *string) {
		req := kmsg.NewPtrIncrementalAlterConfigsRequest()
		res := kmsg.NewIncrementalAlterConfigsRequestResource()
		res.ResourceType, res.ResourceName = kmsg.ConfigResourceTypeGroupConfig, group
		for i := 0; i < len(kv); i += 2 {
			c := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
			c.Name, c.Value = kv[i], kmsg.StringPtr(kv[i+1])
			res.Configs = append(res.Configs, c)
		}
		req.Resources = append(req.Resources, res)
		resp, err := req.RequestWith(ctx, cl)
		require.NoError(t, err)
		require.Len(t, resp.Resources, 1)
		return resp.Resources[0].ErrorCode, resp.Resources[0].ErrorMessage
	}
	code, msg := alter("sg", "share.session.timeout.ms", "2000", "share.heartbeat.interval.ms", "600")
	assert.Zero(t, code, "%v", msg)
	code, msg = alter("app", "streams.session.timeout.ms", "2500", "streams.heartbeat.interval.ms", "350")
	assert.Zero(t, code, "%v", msg)
	code, msg = alter("sg", "share.session.timeout.ms", "30000")
	assert.Equal(t, fkerr.InvalidConfig.Code, code)
	if assert.NotNil(t, msg) {
		assert.Equal(t, "share.session.timeout.ms must be in the range 1000 to 20000 inclusive.", *msg)
	}
	code, msg = alter("app", "streams.heartbeat.interval.ms", "200")
	assert.Equal(t, fkerr.InvalidConfig.Code, code)
	if assert.NotNil(t, msg) {
		assert.Equal(t, "streams.heartbeat.interval.ms must be in the range 300 to 15000 inclusive.", *msg)
	}

	configs, err := kadm.NewClient(cl).DescribeBrokerConfigs(ctx, 0)
	require.NoError(t, err)
	require.Len(t, configs, 1)
	got := map[string]*kadm.Config{}
	for i := range configs[0].Configs {
		got[configs[0].Configs[i].Key] = &configs[0].Configs[i]
	}
	for key, want := range map[string]string{
		"group.share.session.timeout.ms": "10000", "group.share.min.session.timeout.ms": "1000", "group.share.max.session.timeout.ms": "20000",
		"group.share.min.heartbeat.interval.ms": "500", "group.share.heartbeat.interval.ms": "700",
		"group.streams.session.timeout.ms": "3000", "group.streams.min.session.timeout.ms": "2000",
		"group.streams.min.heartbeat.interval.ms": "300", "group.streams.heartbeat.interval.ms": "400",
	} {
		assert.Equal(t, want, got[key].MaybeValue(), key)
		assert.Equal(t, kmsg.ConfigSourceStaticBrokerConfig, got[key].Source, key)
	}
	assert.Equal(t, "15000", got["group.share.max.heartbeat.interval.ms"].MaybeValue())
	assert.Equal(t, kmsg.ConfigSourceDefaultConfig, got["group.share.max.heartbeat.interval.ms"].Source, "Kafka's default")

	assert.Equal(t, exitOK, s.stop())
}

// TestServeShareAndStreamsSessionFlagsRefused proves bad --share-* and
// --streams-* values exit with the usage code before anything starts,
// naming the flag or Kafka's key (GroupCoordinatorConfig's checks: each
// minimum at most its maximum, each value within them, the heartbeat
// interval below the session timeout, whole milliseconds), and that
// applySessionBounds returns a typed *coordinator.ConfigError and leaves
// the config as it was.
func TestServeShareAndStreamsSessionFlagsRefused(t *testing.T) {
	addrs := []string{"--listen", "127.0.0.1:0", "--http", "127.0.0.1:0"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--share-min-session-timeout", "50s"}, "group.share.session.timeout.ms"},
		{[]string{"--share-max-session-timeout", "30s"}, "group.share.max.session.timeout.ms"},
		{[]string{"--share-heartbeat-interval", "1500us"}, "--share-heartbeat-interval"},
		{[]string{"--share-max-heartbeat-interval", "0s"}, "--share-max-heartbeat-interval"},
		{[]string{"--share-min-heartbeat-interval", "20s"}, "group.share.max.heartbeat.interval.ms"},
		{[]string{"--share-session-timeout", "5s", "--share-min-session-timeout", "1s"}, "group.share.heartbeat.interval.ms"},
		{[]string{"--streams-min-session-timeout", "50s"}, "group.streams.session.timeout.ms"},
		{[]string{"--streams-max-session-timeout", "30s"}, "group.streams.max.session.timeout.ms"},
		{[]string{"--streams-heartbeat-interval", "16s"}, "group.streams.heartbeat.interval.ms"},
		{[]string{"--streams-min-heartbeat-interval", "-1s"}, "--streams-min-heartbeat-interval"},
		{[]string{"--streams-session-timeout", "3s", "--streams-min-session-timeout", "1s", "--streams-heartbeat-interval", "3s", "--streams-min-heartbeat-interval", "1s"},
			"group.streams.heartbeat.interval.ms"},
		{[]string{"--streams-session-timeout", "later"}, "streams-session-timeout"},
	} {
		var stderr strings.Builder
		assert.Equal(t, exitUsage, serve(context.Background(), append(tc.args, addrs...), io.Discard, &stderr), "%v", tc.args)
		assert.Contains(t, stderr.String(), tc.want, "%v: the error names the flag or key", tc.args)
	}

	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	b := sessionBoundsFlags(fs, coordinator.DefaultConfig())
	require.NoError(t, fs.Parse([]string{"--share-min-session-timeout", "1s", "--streams-max-heartbeat-interval", "4s"}))
	cfg := coordinator.DefaultConfig()
	err := applySessionBounds(b, &cfg)
	var ce *coordinator.ConfigError
	require.True(t, errors.As(err, &ce), "%v", err)
	assert.Equal(t, "group.streams.max.heartbeat.interval.ms", ce.Key)
	assert.Equal(t, coordinator.DefaultConfig(), cfg, "unchanged, the share half too")
	require.NoError(t, fs.Parse([]string{"--streams-max-heartbeat-interval", "15s"}))
	require.NoError(t, applySessionBounds(b, &cfg))
	assert.Equal(t, time.Second, cfg.ShareMinSessionTimeout)
}
