package wire_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	fkerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestAlterConfigsResourceErrors proves the legacy AlterConfigs' resource
// checks, in ControllerApis.handleLegacyAlterConfigs' order: a resource
// type Kafka does not know is UNSUPPORTED_VERSION with "Unknown resource
// type ..." even when named twice, a resource named twice is
// INVALID_REQUEST "Duplicate resource." on each of its rows and left as it
// was, and every other resource is served.
func TestAlterConfigsResourceErrors(t *testing.T) {
	cl := startCluster(t)
	ctx := testContext(t)
	c := newClient(t, cl)
	res := func(typ kmsg.ConfigResourceType, name, value string) kmsg.AlterConfigsRequestResource {
		r := kmsg.NewAlterConfigsRequestResource()
		r.ResourceType, r.ResourceName = typ, name
		cfg := kmsg.NewAlterConfigsRequestResourceConfig()
		cfg.Name, cfg.Value = "share.delivery.count.limit", kmsg.StringPtr(value)
		r.Configs = append(r.Configs, cfg)
		return r
	}
	req := kmsg.NewPtrAlterConfigsRequest()
	req.Resources = []kmsg.AlterConfigsRequestResource{
		res(kmsg.ConfigResourceTypeGroupConfig, "g", "3"),
		res(99, "x", "3"),
		res(kmsg.ConfigResourceTypeGroupConfig, "g", "4"),
		res(99, "x", "4"),
		res(kmsg.ConfigResourceTypeGroupConfig, "h", "4"),
	}
	resp, err := req.RequestWith(ctx, c)
	require.NoError(t, err)
	require.Len(t, resp.Resources, 5)
	for i, want := range []struct {
		err    error
		prefix string
	}{
		{fkerr.InvalidRequest, "Duplicate resource."},
		{fkerr.UnsupportedVersion, "Unknown resource type 99."},
		{fkerr.InvalidRequest, "Duplicate resource."},
		{fkerr.UnsupportedVersion, "Unknown resource type 99."},
		{nil, ""},
	} {
		row := resp.Resources[i]
		assert.Equal(t, req.Resources[i].ResourceType, row.ResourceType, "row %d", i)
		assert.Equal(t, req.Resources[i].ResourceName, row.ResourceName, "row %d", i)
		got, msg := rowErr(row.ErrorCode, row.ErrorMessage)
		if want.err == nil {
			assert.Zero(t, row.ErrorCode, "row %d: %s", i, msg)
			continue
		}
		assert.ErrorIs(t, got, want.err, "row %d", i)
		assert.True(t, strings.HasPrefix(msg, want.prefix), "row %d: %q", i, msg)
	}
	assert.Equal(t, "4", *describeGroupConfig(t, ctx, c, "h")["share.delivery.count.limit"].Value, "served")
	assert.Equal(t, kmsg.ConfigSourceDefaultConfig, describeGroupConfig(t, ctx, c, "g")["share.delivery.count.limit"].Source, "untouched")
}
