package cli

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// describeGroupConfigOver answers DescribeConfigs of a GROUP resource:
// each key's value and source.
func describeGroupConfigOver(t *testing.T, ctx context.Context, cl *kgo.Client, group string) map[string]kmsg.DescribeConfigsResponseResourceConfig {
	t.Helper()
	req := kmsg.NewPtrDescribeConfigsRequest()
	r := kmsg.NewDescribeConfigsRequestResource()
	r.ResourceType, r.ResourceName = kmsg.ConfigResourceTypeGroupConfig, group
	req.Resources = append(req.Resources, r)
	resp, err := req.RequestWith(ctx, cl)
	require.NoError(t, err)
	require.Len(t, resp.Resources, 1)
	require.Zero(t, resp.Resources[0].ErrorCode)
	out := map[string]kmsg.DescribeConfigsResponseResourceConfig{}
	for _, c := range resp.Resources[0].Configs {
		out[c.Name] = c
	}
	return out
}

// TestServeShareAutoOffsetResetFlag proves serve's share.auto.offset.reset
// is Kafka's default, latest, that --share-auto-offset-reset earliest gives
// every group without its own config the old behaviour (DescribeConfigs
// reports it as the default), and that a value Kafka's validator refuses
// exits with the usage code, naming the key.
func TestServeShareAutoOffsetResetFlag(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "latest"},
		{[]string{"--share-auto-offset-reset", "earliest"}, "earliest"},
		{[]string{"--share-auto-offset-reset", "by_duration:PT1H"}, "by_duration:PT1H"},
		{[]string{"--share-auto-offset-reset", "by_duration:P1DT0.25S"}, "by_duration:PT24H0.25S"},
	} {
		s := startServe(t, ctx, tc.args...)
		cl, err := kgo.NewClient(kgo.SeedBrokers(s.bootstrap...))
		require.NoError(t, err)
		d := describeGroupConfigOver(t, ctx, cl, "g")
		cl.Close()
		if assert.NotNil(t, d["share.auto.offset.reset"].Value, "%v", tc.args) {
			assert.Equal(t, tc.want, *d["share.auto.offset.reset"].Value, "%v", tc.args)
		}
		assert.Equal(t, kmsg.ConfigSourceDefaultConfig, d["share.auto.offset.reset"].Source, "%v", tc.args)
		assert.Equal(t, exitOK, s.stop())
	}

	for _, bad := range []string{"none", "Earliest", "by_duration:soon", "by_duration:-PT1S"} {
		var stderr strings.Builder
		code := serve(ctx, []string{"--listen", "127.0.0.1:0", "--http", "127.0.0.1:0", "--share-auto-offset-reset", bad}, io.Discard, &stderr)
		assert.Equal(t, exitUsage, code, bad)
		assert.Contains(t, stderr.String(), "Invalid value "+bad+" for configuration share.auto.offset.reset", bad)
	}
}
