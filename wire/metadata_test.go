package wire_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/wire"
)

// metadataRows maps a Metadata answer's rows to their codes by name (""
// for a null name), keeping the row order apart.
func metadataRows(resp *kmsg.MetadataResponse) (names []string, codes map[string]int16) {
	codes = map[string]int16{}
	for _, mt := range resp.Topics {
		name := ""
		if mt.Topic != nil {
			name = *mt.Topic
		}
		names = append(names, name)
		codes[name] = mt.ErrorCode
	}
	return names, codes
}

// TestMetadataRequestShape proves the request-shape rules of
// KafkaApis.handleTopicMetadataRequest (MetadataRequestTest's
// testAllTopicsRequest and testNoTopicsRequest, the version checks, the
// topic-id rule) and that a refused request changes nothing.
func TestMetadataRequestShape(t *testing.T) {
	t.Parallel()
	cl := startCluster(t, func(c *wire.Config) { c.AutoCreateTopics = false })
	ctx := testContext(t)
	createTopic(t, ctx, newAdmin(t, cl), "data", 1)
	c := dial(t, cl.Addrs()[0])
	metadata := func(version int16, topics []kmsg.MetadataRequestTopic, mutate ...func(*kmsg.MetadataRequest)) *kmsg.MetadataResponse {
		req := kmsg.NewPtrMetadataRequest()
		req.Version, req.Topics = version, topics
		for _, m := range mutate {
			m(req)
		}
		return roundTrip(t, c, req).(*kmsg.MetadataResponse)
	}
	named := func(names ...string) []kmsg.MetadataRequestTopic {
		out := []kmsg.MetadataRequestTopic{}
		for _, n := range names {
			out = append(out, kmsg.MetadataRequestTopic{Topic: kmsg.StringPtr(n)})
		}
		return out
	}

	// testAllTopicsRequest: v0 with an empty list is every topic;
	// testNoTopicsRequest: from v1 an empty list is none.
	names, _ := metadataRows(metadata(0, []kmsg.MetadataRequestTopic{}))
	assert.Equal(t, []string{"__consumer_offsets", "data"}, names, "v0, empty list: all topics")
	assert.Empty(t, metadata(1, []kmsg.MetadataRequestTopic{}).Topics, "v1, empty list: no topic")

	// getTopicMetadata without auto-creation: Topic.validate decides
	// between INVALID_TOPIC_EXCEPTION and UNKNOWN_TOPIC_OR_PARTITION; a
	// name asked twice is answered once; IsInternal by name.
	resp := metadata(12, named("data", "bad name", "nope", "data", "__transaction_state"))
	names, codes := metadataRows(resp)
	assert.Equal(t, []string{"data", "bad name", "nope", "__transaction_state"}, names)
	assert.Equal(t, map[string]int16{"data": 0, "bad name": 17, "nope": 3, "__transaction_state": 3}, codes)
	assert.True(t, resp.Topics[3].IsInternal, "__transaction_state is an internal name")

	// v10 and v11 name topics only: the whole request is INVALID_REQUEST.
	id := [16]byte{9, 9, 9}
	for _, tc := range []struct {
		version int16
		topics  []kmsg.MetadataRequestTopic
	}{
		{10, []kmsg.MetadataRequestTopic{{Topic: kmsg.StringPtr("data")}, {TopicID: id}}},
		{11, []kmsg.MetadataRequestTopic{{Topic: kmsg.StringPtr("data"), TopicID: id}}},
	} {
		resp := metadata(tc.version, tc.topics)
		assert.Empty(t, resp.Brokers, "v%d: MetadataRequest.getErrorResponse has no brokers", tc.version)
		require.Len(t, resp.Topics, len(tc.topics))
		for _, mt := range resp.Topics {
			assert.Equal(t, int16(42), mt.ErrorCode, "v%d: INVALID_REQUEST", tc.version)
			assert.Empty(t, mt.Partitions)
		}
	}
	v13 := metadata(13, []kmsg.MetadataRequestTopic{{TopicID: id}})
	assert.Zero(t, v13.ErrorCode, "v13 takes ids")

	// From v12 an id anywhere makes the ids decide: names are ignored and
	// unknown ids come first, with a null name.
	all := metadata(12, nil)
	var dataID [16]byte
	for _, mt := range all.Topics {
		if *mt.Topic == "data" {
			dataID = mt.TopicID
		}
	}
	resp = metadata(12, []kmsg.MetadataRequestTopic{{Topic: kmsg.StringPtr("nope")}, {TopicID: dataID}, {Topic: kmsg.StringPtr("data"), TopicID: id}})
	require.Len(t, resp.Topics, 2)
	assert.Nil(t, resp.Topics[0].Topic, "the unknown id's row: null name")
	assert.Equal(t, id, resp.Topics[0].TopicID)
	assert.Equal(t, int16(100), resp.Topics[0].ErrorCode, "UNKNOWN_TOPIC_ID, first")
	assert.Equal(t, "data", *resp.Topics[1].Topic)
	assert.Zero(t, resp.Topics[1].ErrorCode)

	// Authorized operations with no authorizer: everything supported.
	resp = metadata(10, named("data", "nope"), func(r *kmsg.MetadataRequest) {
		r.IncludeTopicAuthorizedOperations, r.IncludeClusterAuthorizedOperations = true, true
	})
	for _, mt := range resp.Topics {
		assert.Equal(t, int32(3576), mt.AuthorizedOperations, "every TOPIC operation for %s", *mt.Topic)
	}
	assert.Equal(t, int32(8096), resp.AuthorizedOperations, "every CLUSTER operation")
	resp = metadata(12, named("data"))
	assert.Equal(t, int32(-2147483648), resp.Topics[0].AuthorizedOperations, "not asked: the schema default")

	names, _ = metadataRows(metadata(12, nil))
	assert.Equal(t, []string{"__consumer_offsets", "data"}, names, "no request created anything")
}

// TestAutoCreateOfCollidingTopics reproduces MetadataRequestTest's case of
// that name (KRaft): of two colliding names auto-created in one request,
// the first is created and the other is not, and stays unknown.
func TestAutoCreateOfCollidingTopics(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	c := dial(t, cl.Addrs()[0])
	metadata := func(names ...string) map[string]int16 {
		req := kmsg.NewPtrMetadataRequest()
		req.Version, req.AllowAutoTopicCreation = 12, true
		req.Topics = []kmsg.MetadataRequestTopic{}
		for _, n := range names {
			req.Topics = append(req.Topics, kmsg.MetadataRequestTopic{Topic: kmsg.StringPtr(n)})
		}
		_, codes := metadataRows(roundTrip(t, c, req).(*kmsg.MetadataResponse))
		return codes
	}
	assert.Equal(t, map[string]int16{"testAutoCreate.Topic": 0, "testAutoCreate_Topic": 3},
		metadata("testAutoCreate.Topic", "testAutoCreate_Topic"))
	assert.Equal(t, map[string]int16{"testAutoCreate.Topic": 0, "testAutoCreate_Topic": 3},
		metadata("testAutoCreate.Topic", "testAutoCreate_Topic"), "the colliding name never appears")
	assert.Equal(t, map[string]int16{"bad name": 17}, metadata("bad name"), "auto-creation refuses an invalid name")
}
