package wire_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	fkerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestListConfigResources reproduces PlaintextAdminIntegrationTest's
// testListConfigResources with kadm over loopback: a group with a group
// config is listed as a GROUP resource whether or not the group exists (a
// group without one is not), every broker as a BROKER, every topic as a
// TOPIC, no CLIENT_METRICS; a type filter lists only its types, in
// KafkaApis.handleListConfigResources' order whatever the request's; a
// group whose config is removed is no longer listed.
func TestListConfigResources(t *testing.T) {
	cl := startCluster(t)
	ctx := testContext(t)
	c := newClient(t, cl)
	adm := kadm.NewClient(c)
	createTopic(t, ctx, adm, "orders", 1)
	createTopic(t, ctx, adm, "audit", 1)
	err, msg := alterGroupConfig(t, ctx, c, "configured", false, set("consumer.session.timeout.ms", "50000"))
	require.NoError(t, err, msg)
	committed, err := adm.CommitOffsets(ctx, "unconfigured", kadm.OffsetsFromRecords(kgo.Record{Topic: "orders", Partition: 0, Offset: 0}))
	require.NoError(t, err)
	require.NoError(t, committed.Error(), "a group without a config exists")

	all, err := adm.ListConfigResources(ctx)
	require.NoError(t, err)
	require.NoError(t, all.Err)
	type res struct {
		typ  kadm.ConfigResourceType
		name string
	}
	var got []res
	for _, r := range all.Resources {
		got = append(got, res{r.Type, r.Name})
	}
	assert.Equal(t, []res{
		{kadm.ConfigResourceType(kmsg.ConfigResourceTypeGroupConfig), "configured"},
		{kadm.ConfigResourceType(kmsg.ConfigResourceTypeBroker), "0"},
		{kadm.ConfigResourceType(kmsg.ConfigResourceTypeBroker), "1"},
		{kadm.ConfigResourceType(kmsg.ConfigResourceTypeBroker), "2"},
		{kadm.ConfigResourceType(kmsg.ConfigResourceTypeTopic), "audit"},
		{kadm.ConfigResourceType(kmsg.ConfigResourceTypeTopic), "orders"},
	}, got, "every supported type, in Kafka's order")

	filtered, err := adm.ListConfigResources(ctx, kadm.ConfigResourceType(kmsg.ConfigResourceTypeTopic),
		kadm.ConfigResourceType(kmsg.ConfigResourceTypeGroupConfig), kadm.ConfigResourceType(kmsg.ConfigResourceTypeTopic))
	require.NoError(t, err)
	got = got[:0]
	for _, r := range filtered.Resources {
		got = append(got, res{r.Type, r.Name})
	}
	assert.Equal(t, []res{
		{kadm.ConfigResourceType(kmsg.ConfigResourceTypeGroupConfig), "configured"},
		{kadm.ConfigResourceType(kmsg.ConfigResourceTypeTopic), "audit"},
		{kadm.ConfigResourceType(kmsg.ConfigResourceTypeTopic), "orders"},
	}, got, "the types asked for, each once, in Kafka's order")

	metrics, err := adm.ListConfigResources(ctx, kadm.ConfigResourceType(kmsg.ConfigResourceTypeClientMetrics), kadm.ConfigResourceType(kmsg.ConfigResourceTypeBrokerLogger))
	require.NoError(t, err)
	require.NoError(t, metrics.Err)
	assert.Empty(t, metrics.Resources, "no client-metrics subscriptions, no broker-logger configs")

	err, msg = alterGroupConfig(t, ctx, c, "configured", false, del("consumer.session.timeout.ms"))
	require.NoError(t, err, msg)
	groups, err := adm.ListConfigResources(ctx, kadm.ConfigResourceType(kmsg.ConfigResourceTypeGroupConfig))
	require.NoError(t, err)
	assert.Empty(t, groups.Resources, "the group's last key removed: no config left")
}

// TestListConfigResourcesUnsupportedResourceType reproduces KafkaApisTest's
// unsupported-type case: a type outside
// ListConfigResourcesRequest.supportedResourceTypes (v1: 2, 4, 8, 16, 32),
// alone or among supported ones, fails the whole request with
// UNSUPPORTED_VERSION and lists nothing.
func TestListConfigResourcesUnsupportedResourceType(t *testing.T) {
	cl := startCluster(t)
	ctx := testContext(t)
	c := newClient(t, cl)
	createTopic(t, ctx, kadm.NewClient(c), "orders", 1)
	for _, types := range [][]int8{{0}, {3}, {64}, {-1}, {2, 64, 4}} {
		req := kmsg.NewPtrListConfigResourcesRequest()
		req.ResourceTypes = types
		resp, err := req.RequestWith(ctx, c)
		require.NoError(t, err)
		assert.Equal(t, fkerr.UnsupportedVersion.Code, resp.ErrorCode, "%v", types)
		assert.Empty(t, resp.ConfigResources, "%v", types)
	}
}

// TestListConfigResourcesV0 reproduces KafkaApisTest's v0 case
// (ListClientMetricsResources): v0 supports CLIENT_METRICS alone, so a v0
// request lists the client-metrics subscriptions, none here, and never the
// groups, brokers or topics v1 lists.
func TestListConfigResourcesV0(t *testing.T) {
	cl := startCluster(t)
	ctx := testContext(t)
	c := newClient(t, cl)
	createTopic(t, ctx, kadm.NewClient(c), "orders", 1)
	err, msg := alterGroupConfig(t, ctx, c, "configured", false, set("consumer.session.timeout.ms", "50000"))
	require.NoError(t, err, msg)

	conn := dial(t, cl.Addrs()[0])
	req := kmsg.NewPtrListConfigResourcesRequest()
	req.Version = 0
	_, err = conn.Write(kmsg.NewRequestFormatter(kmsg.FormatterClientID("test")).AppendRequest(nil, req, 7))
	require.NoError(t, err)
	body := readResponse(t, conn)
	resp := kmsg.NewPtrListConfigResourcesResponse()
	resp.Version = 0
	require.NoError(t, resp.ReadFrom(body[5:])) // the correlation id, the empty header tags
	assert.Zero(t, resp.ErrorCode)
	assert.Empty(t, resp.ConfigResources)

	versions := apiVersions(t, dial(t, cl.Addrs()[1]))
	var advertised *kmsg.ApiVersionsResponseApiKey
	for i := range versions.ApiKeys {
		if versions.ApiKeys[i].ApiKey == 74 {
			advertised = &versions.ApiKeys[i]
		}
	}
	if assert.NotNil(t, advertised, "ApiVersions advertises ListConfigResources") {
		assert.Equal(t, int16(0), advertised.MinVersion)
		assert.Equal(t, int16(1), advertised.MaxVersion)
	}
}
