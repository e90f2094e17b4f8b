package wire_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/wire"
)

// dataTopics are a Metadata answer's rows without Kafka's internal topics
// (__consumer_offsets is always listed).
func dataTopics(resp *kmsg.MetadataResponse) []kmsg.MetadataResponseTopic {
	var out []kmsg.MetadataResponseTopic
	for _, mt := range resp.Topics {
		if !mt.IsInternal {
			out = append(out, mt)
		}
	}
	return out
}

// topicWithConfigs is a CreateTopics topic with num partitions, RF 1 and
// the configs given as key, value pairs (a nil value for Kafka's null).
func topicWithConfigs(name string, partitions int32, kv ...*string) kmsg.CreateTopicsRequestTopic {
	rt := kmsg.NewCreateTopicsRequestTopic()
	rt.Topic, rt.NumPartitions, rt.ReplicationFactor = name, partitions, 1
	for i := 0; i+1 < len(kv); i += 2 {
		c := kmsg.NewCreateTopicsRequestTopicConfig()
		c.Name, c.Value = *kv[i], kv[i+1]
		rt.Configs = append(rt.Configs, c)
	}
	return rt
}

func sp(s string) *string { return &s }

// responseConfigs maps a CreateTopics row's configs to value and source.
func responseConfigs(st kmsg.CreateTopicsResponseTopic) map[string]string {
	out := map[string]string{}
	for _, c := range st.Configs {
		out[c.Name] = fmt.Sprintf("%s/%d", *c.Value, c.Source)
	}
	return out
}

// TestValidCreateTopicsRequests reproduces
// CreateTopicsRequestTest.testValidCreateTopicsRequests with configs: a
// CreateTopics with topic configs succeeds; the v5+ answer carries the
// partition count, the replication factor, TopicConfigErrorCode 0 and the
// effective configs sorted by name, those set with source TOPIC_CONFIG
// (ReplicationControlManager.buildCreatableTopicResult); DescribeConfigs
// then reports them; a validate-only request answers the same with a
// fresh topic id and creates nothing. kadm's CreateTopic with configs
// works as against Kafka.
func TestValidCreateTopicsRequests(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	ctx := testContext(t)
	c := dial(t, cl.Addrs()[0])
	const topicConfig, defaultConfig, static = "1", "5", "4"

	for _, validateOnly := range []bool{true, false} {
		req := kmsg.NewPtrCreateTopicsRequest()
		req.Version, req.ValidateOnly = 7, validateOnly
		req.Topics = []kmsg.CreateTopicsRequestTopic{
			topicWithConfigs("compacted", 2, sp("cleanup.policy"), sp("compact"), sp("segment.bytes"), sp("2097152")),
			topicWithConfigs("plain", -1),
		}
		resp := roundTrip(t, c, req).(*kmsg.CreateTopicsResponse)
		require.Len(t, resp.Topics, 2)
		st := resp.Topics[0]
		require.Zero(t, st.ErrorCode, "validateOnly=%v: %v", validateOnly, st.ErrorMessage)
		assert.NotEqual(t, [16]byte{}, st.TopicID, "a topic id, validate-only too")
		assert.Equal(t, int32(2), st.NumPartitions)
		assert.Equal(t, int16(1), st.ReplicationFactor)
		assert.Zero(t, st.ConfigErrorCode)
		assert.Equal(t, map[string]string{
			"cleanup.policy":      "compact/" + topicConfig,
			"compression.type":    "producer/" + defaultConfig,
			"min.insync.replicas": "1/" + defaultConfig,
			"retention.bytes":     fmt.Sprintf("%d/%s", wire.DefaultRetentionBytes, static),
			"retention.ms":        "604800000/" + defaultConfig,
			"segment.bytes":       "2097152/" + topicConfig,
		}, responseConfigs(st))
		var names []string
		for _, cfg := range st.Configs {
			names = append(names, cfg.Name)
		}
		assert.IsIncreasing(t, names, "sorted by name")
		plain := resp.Topics[1]
		require.Zero(t, plain.ErrorCode)
		assert.Equal(t, int32(1), plain.NumPartitions, "-1 is num.partitions")
		assert.Len(t, plain.Configs, 5, "the modelled configs, nothing set")

		md := kmsg.NewPtrMetadataRequest()
		md.Version = 12
		mresp := roundTrip(t, c, md).(*kmsg.MetadataResponse)
		if validateOnly {
			assert.Empty(t, dataTopics(mresp), "validate-only creates nothing")
		} else {
			require.Len(t, dataTopics(mresp), 2)
			assert.Equal(t, st.TopicID, dataTopics(mresp)[0].TopicID, "the answer's id is the topic's")
		}
	}

	adm := newAdmin(t, cl)
	described, err := adm.DescribeTopicConfigs(ctx, "compacted", "plain")
	require.NoError(t, err)
	got := map[string]map[string]string{}
	for _, rc := range described {
		require.NoError(t, rc.Err)
		got[rc.Name] = map[string]string{}
		for _, cfg := range rc.Configs {
			got[rc.Name][cfg.Key] = cfg.MaybeValue() + "/" + cfg.Source.String()
		}
	}
	assert.Equal(t, "compact/DYNAMIC_TOPIC_CONFIG", got["compacted"]["cleanup.policy"])
	assert.Equal(t, "2097152/DYNAMIC_TOPIC_CONFIG", got["compacted"]["segment.bytes"])
	assert.Equal(t, "delete/DEFAULT_CONFIG", got["plain"]["cleanup.policy"])
	assert.NotContains(t, got["plain"], "segment.bytes", "an unmodelled key is listed only when set")

	// kadm, as an application creates a compacted topic.
	created, err := adm.CreateTopic(ctx, 3, -1, map[string]*string{"cleanup.policy": sp("compact"), "retention.ms": sp("3600000")}, "kadm-topic")
	require.NoError(t, err)
	require.NoError(t, created.Err)
	assert.Equal(t, int32(3), created.NumPartitions)
	assert.Equal(t, "compact", *created.Configs["cleanup.policy"].Value)
	assert.Equal(t, "3600000", *created.Configs["retention.ms"].Value)
	assert.Equal(t, kmsg.ConfigSourceDynamicTopicConfig, created.Configs["retention.ms"].Source)
}

// TestErrorCreateTopicsRequests reproduces the config cases of
// CreateTopicsRequestTest.testErrorCreateTopicsRequests and
// ReplicationControlManagerTest.testCreateTopicsWithConfigs: a null value,
// an unknown key and an invalid value are INVALID_CONFIG with Kafka's
// messages, checked after the name and before the replication factor and
// partition count, validate-only or not; nothing refused is created.
func TestErrorCreateTopicsRequests(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	c := dial(t, cl.Addrs()[0])
	for _, tc := range []struct {
		topic kmsg.CreateTopicsRequestTopic
		code  int16
		msg   string
	}{
		{topicWithConfigs("a", 1, sp("retention.ms"), nil, sp("segment.ms"), nil), 40, "Null value not supported for topic configs: retention.ms,segment.ms"},
		{topicWithConfigs("a", 1, sp("no.such.config"), sp("1")), 40, "Unknown topic config name: no.such.config"},
		{topicWithConfigs("a", 1, sp("retention.ms"), sp("soon")), 40, "Invalid value soon for configuration retention.ms: Not a number of type LONG"},
		{topicWithConfigs("a", 1, sp("cleanup.policy"), sp("compact,forever")), 40, "Invalid value forever for configuration cleanup.policy: String must be one of: compact, delete"},
		{topicWithConfigs("a", 1, sp("compression.type"), sp("brotli")), 40, "Invalid value brotli for configuration compression.type: String must be one of: uncompressed, zstd, lz4, snappy, gzip, producer"},
		{topicWithConfigs("a", 1, sp("min.insync.replicas"), sp(" 0 ")), 40, "Invalid value 0 for configuration min.insync.replicas: Value must be at least 1"},
		{topicWithConfigs("a", 1, sp("segment.bytes"), sp("1024")), 40, "Invalid value 1024 for configuration segment.bytes: Value must be at least 1048576"},
		{topicWithConfigs("a", 1, sp("segment.bytes"), sp("4294967296")), 40, "Invalid value 4294967296 for configuration segment.bytes: Not a number of type INT"},
		{topicWithConfigs("a", 1, sp("preallocate"), sp("yes")), 40, "Invalid value yes for configuration preallocate: Expected value to be either true or false"},
		{topicWithConfigs("a", 1, sp("min.cleanable.dirty.ratio"), sp("1.5")), 40, "Invalid value 1.5 for configuration min.cleanable.dirty.ratio: Value must be no more than 1"},
		{topicWithConfigs("a", 1, sp("compression.gzip.level"), sp("0")), 40, "Invalid value 0 for configuration compression.gzip.level: Value must be between 1 and 9 or equal to -1"},
		{topicWithConfigs("a", 1, sp("min.compaction.lag.ms"), sp("10"), sp("max.compaction.lag.ms"), sp("5")), 40, "conflict topic config setting min.compaction.lag.ms (10) > max.compaction.lag.ms (5)"},
		{topicWithConfigs("a", 1, sp("remote.storage.enable"), sp("true")), 40, "Tiered Storage functionality is disabled in the broker. Topic cannot be configured with remote log storage."},
		// The configs before the partition count and replication factor.
		{topicWithConfigs("a", 0, sp("no.such.config"), sp("1")), 40, "Unknown topic config name: no.such.config"},
		// The name before the configs.
		{topicWithConfigs("a b", 1, sp("no.such.config"), sp("1")), 17, "Topic name is invalid: 'a b' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'"},
	} {
		for _, validateOnly := range []bool{true, false} {
			req := kmsg.NewPtrCreateTopicsRequest()
			req.Version, req.ValidateOnly = 7, validateOnly
			req.Topics = []kmsg.CreateTopicsRequestTopic{tc.topic}
			resp := roundTrip(t, c, req).(*kmsg.CreateTopicsResponse)
			require.Len(t, resp.Topics, 1)
			st := resp.Topics[0]
			assert.Equal(t, tc.code, st.ErrorCode, tc.msg)
			if assert.NotNil(t, st.ErrorMessage, tc.msg) {
				assert.Equal(t, tc.msg, *st.ErrorMessage)
			}
			assert.Equal(t, [16]byte{}, st.TopicID, "a refused row carries no id")
			assert.Equal(t, int32(-1), st.NumPartitions)
			assert.Empty(t, st.Configs)
		}
	}
	md := kmsg.NewPtrMetadataRequest()
	md.Version = 12
	assert.Empty(t, dataTopics(roundTrip(t, c, md).(*kmsg.MetadataResponse)), "nothing refused was created")
}

// TestTopicNameCollision reproduces ReplicationControlManagerTest's
// testTopicNameCollision over the wire: a name that differs from an
// existing topic's only in '.' against '_' is INVALID_TOPIC_EXCEPTION
// "Topic 'X' collides with existing topic: Y" and is not created; a name
// without either character never collides.
func TestTopicNameCollision(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	c := dial(t, cl.Addrs()[0])
	create := func(name string) kmsg.CreateTopicsResponseTopic {
		req := kmsg.NewPtrCreateTopicsRequest()
		req.Version = 7
		req.Topics = []kmsg.CreateTopicsRequestTopic{topicWithConfigs(name, 1)}
		resp := roundTrip(t, c, req).(*kmsg.CreateTopicsResponse)
		require.Len(t, resp.Topics, 1)
		return resp.Topics[0]
	}
	require.Zero(t, create("c.d").ErrorCode)
	require.Zero(t, create("cd").ErrorCode)
	for name, other := range map[string]string{"c_d": "c.d", "__consumer.offsets": "__consumer_offsets"} {
		st := create(name)
		assert.Equal(t, int16(17), st.ErrorCode, name)
		if assert.NotNil(t, st.ErrorMessage) {
			assert.Equal(t, fmt.Sprintf("Topic '%s' collides with existing topic: %s", name, other), *st.ErrorMessage)
		}
	}
	assert.Equal(t, int16(36), create("c.d").ErrorCode, "the name itself exists: TOPIC_ALREADY_EXISTS wins")
	md := kmsg.NewPtrMetadataRequest()
	md.Version = 12
	var names []string
	for _, mt := range dataTopics(roundTrip(t, c, md).(*kmsg.MetadataResponse)) {
		names = append(names, *mt.Topic)
	}
	assert.Equal(t, []string{"c.d", "cd"}, names, "the colliding names were not created")
}

// TestCreateTopicRetentionBytes proves a topic's own retention.bytes is
// honoured: its log start advances under a limit far below the cluster's,
// while a topic without one keeps every record.
func TestCreateTopicRetentionBytes(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	ctx := testContext(t)
	adm := newAdmin(t, cl)
	resp, err := adm.CreateTopic(ctx, 1, 1, map[string]*string{"retention.bytes": sp("1024")}, "small")
	require.NoError(t, err)
	require.NoError(t, resp.Err)
	createTopic(t, ctx, adm, "big", 1)
	const n = 100
	prod := newClient(t, cl)
	for i := range n {
		for _, topic := range []string{"small", "big"} {
			require.NoError(t, prod.ProduceSync(ctx, &kgo.Record{Topic: topic, Value: []byte(fmt.Sprint(i))}).FirstErr())
		}
	}
	starts, err := adm.ListStartOffsets(ctx, "small", "big")
	require.NoError(t, err)
	start := func(topic string) int64 {
		o, ok := starts.Lookup(topic, 0)
		require.True(t, ok)
		require.NoError(t, o.Err)
		return o.Offset
	}
	assert.Positive(t, start("small"), "retention.bytes=1024 advanced the log start")
	assert.Zero(t, start("big"), "the cluster's 64 MiB keeps everything")
}
