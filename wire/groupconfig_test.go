package wire_test

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	fkerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/coordinator/live"
	"github.com/coordsim/coordsim/groupconfig"
	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/shard"
	"github.com/coordsim/coordsim/share"
	"github.com/coordsim/coordsim/wire"
)

// groupConfigOp is one IncrementalAlterConfigs operation.
type groupConfigOp struct {
	op    kmsg.IncrementalAlterConfigOp
	name  string
	value *string
}

func set(name, value string) groupConfigOp {
	return groupConfigOp{kmsg.IncrementalAlterConfigOpSet, name, &value}
}

func del(name string) groupConfigOp {
	return groupConfigOp{kmsg.IncrementalAlterConfigOpDelete, name, nil}
}

// alterGroupConfig sends one IncrementalAlterConfigs for group's resource
// and returns its row's error and message.
//
//lint:ignore ST1008 the error is the row's outcome under test, paired with its message, not this helper's failure
func alterGroupConfig(t *testing.T, ctx context.Context, c *kgo.Client, group string, validateOnly bool, ops ...groupConfigOp) (error, string) {
	t.Helper()
	resp := alterConfigs(t, ctx, c, validateOnly, resource(kmsg.ConfigResourceTypeGroupConfig, group, ops...))
	require.Len(t, resp.Resources, 1)
	return rowErr(resp.Resources[0].ErrorCode, resp.Resources[0].ErrorMessage)
}

func resource(typ kmsg.ConfigResourceType, name string, ops ...groupConfigOp) kmsg.IncrementalAlterConfigsRequestResource {
	r := kmsg.NewIncrementalAlterConfigsRequestResource()
	r.ResourceType, r.ResourceName = typ, name
	for _, o := range ops {
		c := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
		c.Name, c.Op, c.Value = o.name, o.op, o.value
		r.Configs = append(r.Configs, c)
	}
	return r
}

func alterConfigs(t *testing.T, ctx context.Context, c *kgo.Client, validateOnly bool, rs ...kmsg.IncrementalAlterConfigsRequestResource) *kmsg.IncrementalAlterConfigsResponse {
	t.Helper()
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	req.ValidateOnly, req.Resources = validateOnly, rs
	resp, err := req.RequestWith(ctx, c)
	require.NoError(t, err)
	return resp
}

//lint:ignore ST1008 the error is the row's outcome under test, paired with its message, not this helper's failure
func rowErr(code int16, msg *string) (error, string) {
	m := ""
	if msg != nil {
		m = *msg
	}
	return fkerr.ErrorForCode(code), m
}

// describeGroupConfig describes group's configs: name → value and source.
func describeGroupConfig(t *testing.T, ctx context.Context, c *kgo.Client, group string) map[string]kmsg.DescribeConfigsResponseResourceConfig {
	t.Helper()
	req := kmsg.NewPtrDescribeConfigsRequest()
	req.IncludeSynonyms = true
	r := kmsg.NewDescribeConfigsRequestResource()
	r.ResourceType, r.ResourceName = kmsg.ConfigResourceTypeGroupConfig, group
	req.Resources = append(req.Resources, r)
	resp, err := req.RequestWith(ctx, c)
	require.NoError(t, err)
	require.Len(t, resp.Resources, 1)
	require.Zero(t, resp.Resources[0].ErrorCode)
	out := map[string]kmsg.DescribeConfigsResponseResourceConfig{}
	for _, cfg := range resp.Resources[0].Configs {
		out[cfg.Name] = cfg
	}
	return out
}

// consumerHeartbeat sends one ConsumerGroupHeartbeat through kgo, which
// finds the group's coordinator.
func consumerHeartbeat(t *testing.T, ctx context.Context, c *kgo.Client, group, member string, epoch int32, topics ...string) *kmsg.ConsumerGroupHeartbeatResponse {
	t.Helper()
	req := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	req.Group, req.MemberID, req.MemberEpoch = group, member, epoch
	if epoch == 0 {
		req.RebalanceTimeoutMillis = 5_000
		req.SubscribedTopicNames = topics
		req.Topics = []kmsg.ConsumerGroupHeartbeatRequestTopic{}
	}
	resp, err := req.RequestWith(ctx, c)
	require.NoError(t, err)
	require.Zero(t, resp.ErrorCode, "heartbeat: %v", resp.ErrorMessage)
	return resp
}

// TestGroupConfigConsumerTimeoutsOverTheWire proves the group configs
// consumer.heartbeat.interval.ms and consumer.session.timeout.ms, set with
// IncrementalAlterConfigs, change the group's behaviour: the next
// heartbeat answers the group's interval, and a member that stops
// heartbeating is fenced after the group's session, not the broker's 45 s.
// ValidateOnly and an invalid config change nothing; DescribeConfigs shows
// GROUP_CONFIG values and the broker's DEFAULT_CONFIG ones; DELETE goes
// back to the broker's.
func TestGroupConfigConsumerTimeoutsOverTheWire(t *testing.T) {
	cl := startCluster(t, func(c *wire.Config) {
		// As Kafka's integration tests do, lower the minimums so a session
		// ends in seconds.
		c.Coordinator.ConsumerMinSessionTimeout = time.Second
		c.Coordinator.ConsumerMinHeartbeatInterval = 500 * time.Millisecond
	})
	ctx := testContext(t)
	c := newClient(t, cl)
	createTopic(t, ctx, kadm.NewClient(c), "t", 2)

	r := consumerHeartbeat(t, ctx, c, "g", "m1", 0, "t")
	assert.EqualValues(t, 5_000, r.HeartbeatIntervalMillis, "the broker's")

	err, msg := alterGroupConfig(t, ctx, c, "g", true, set("consumer.heartbeat.interval.ms", "1000"), set("consumer.session.timeout.ms", "2000"))
	require.NoError(t, err, msg)
	r = consumerHeartbeat(t, ctx, c, "g", "m1", r.MemberEpoch)
	assert.EqualValues(t, 5_000, r.HeartbeatIntervalMillis, "validate_only changed nothing")
	d := describeGroupConfig(t, ctx, c, "g")
	assert.Equal(t, kmsg.ConfigSourceDefaultConfig, d["consumer.session.timeout.ms"].Source)
	assert.Equal(t, "45000", *d["consumer.session.timeout.ms"].Value)
	require.Len(t, d["consumer.session.timeout.ms"].ConfigSynonyms, 2, "the key (DEFAULT_CONFIG), then the broker's")
	assert.Equal(t, "consumer.session.timeout.ms", d["consumer.session.timeout.ms"].ConfigSynonyms[0].Name)

	err, msg = alterGroupConfig(t, ctx, c, "g", false, set("consumer.heartbeat.interval.ms", "1000"), set("consumer.session.timeout.ms", "2000"))
	require.NoError(t, err, msg)
	r = consumerHeartbeat(t, ctx, c, "g", "m1", r.MemberEpoch)
	assert.EqualValues(t, 1_000, r.HeartbeatIntervalMillis, "the group's, at the next heartbeat")
	d = describeGroupConfig(t, ctx, c, "g")
	st := d["consumer.session.timeout.ms"]
	assert.Equal(t, "2000", *st.Value)
	assert.Equal(t, kmsg.ConfigSourceGroupConfig, st.Source)
	assert.Equal(t, kmsg.ConfigTypeInt, st.ConfigType)
	require.Len(t, st.ConfigSynonyms, 2)
	assert.Equal(t, "group.consumer.session.timeout.ms", st.ConfigSynonyms[1].Name)
	assert.Equal(t, "45000", *st.ConfigSynonyms[1].Value)

	// Invalid: Kafka's message, nothing changed.
	err, msg = alterGroupConfig(t, ctx, c, "g", false, set("consumer.session.timeout.ms", "500"))
	assert.ErrorIs(t, err, fkerr.InvalidConfig)
	assert.Equal(t, "consumer.session.timeout.ms must be in the range 1000 to 60000 inclusive.", msg)
	assert.Equal(t, "2000", *describeGroupConfig(t, ctx, c, "g")["consumer.session.timeout.ms"].Value)
	err, msg = alterGroupConfig(t, ctx, c, "g", false, set("consumer.session.timeout.ms", "4000"), del("consumer.heartbeat.interval.ms"))
	assert.ErrorIs(t, err, fkerr.InvalidConfig)
	assert.Equal(t, "consumer.session.timeout.ms must be greater than consumer.heartbeat.interval.ms", msg, "against the broker's 5000")
	assert.Equal(t, "1000", *describeGroupConfig(t, ctx, c, "g")["consumer.heartbeat.interval.ms"].Value)

	// The member stops heartbeating: fenced after the group's 2 s.
	stopped := time.Now()
	require.Eventually(t, func() bool { return len(groupState(cl, "g").Members) == 0 }, 20*time.Second, 50*time.Millisecond)
	elapsed := time.Since(stopped)
	assert.GreaterOrEqual(t, elapsed, 1500*time.Millisecond, "not before the session ends")
	assert.Less(t, elapsed, 15*time.Second, "the group's session, not the broker's 45 s")

	err, msg = alterGroupConfig(t, ctx, c, "g", false, del("consumer.session.timeout.ms"), del("consumer.heartbeat.interval.ms"))
	require.NoError(t, err, msg)
	r = consumerHeartbeat(t, ctx, c, "g", "m2", 0, "t")
	assert.EqualValues(t, 5_000, r.HeartbeatIntervalMillis, "deleted: the broker's again")
	assert.Equal(t, kmsg.ConfigSourceDefaultConfig, describeGroupConfig(t, ctx, c, "g")["consumer.heartbeat.interval.ms"].Source)
}

// trunkGroupConfigKeys are the names of trunk's GroupConfig.CONFIG_DEF,
// in its order.
var trunkGroupConfigKeys = []string{
	"consumer.session.timeout.ms", "consumer.heartbeat.interval.ms", "consumer.assignment.interval.ms", "consumer.assignor.offload.enable",
	"share.session.timeout.ms", "share.heartbeat.interval.ms", "share.record.lock.duration.ms", "share.delivery.count.limit",
	"share.partition.max.record.locks", "share.auto.offset.reset", "share.isolation.level", "share.renew.acknowledge.enable",
	"share.assignment.interval.ms", "share.assignor.offload.enable",
	"streams.session.timeout.ms", "streams.heartbeat.interval.ms", "streams.num.standby.replicas", "streams.initial.rebalance.delay.ms",
	"streams.assignment.interval.ms", "streams.assignor.offload.enable", "streams.task.offset.interval.ms", "streams.num.warmup.replicas",
	"streams.acceptable.recovery.lag",
	"errors.deadletterqueue.topic.name", "errors.deadletterqueue.copy.record.enable",
}

// TestGroupConfigEveryTrunkKey proves each of trunk's GroupConfig keys is
// either served (DescribeConfigs lists it and a valid value is accepted)
// or refused with the typed "not modelled" INVALID_CONFIG, which changes
// nothing; no trunk key is "Unknown group config name", which is kept for
// names that are no Kafka group config at all.
func TestGroupConfigEveryTrunkKey(t *testing.T) {
	cl := startCluster(t)
	ctx := testContext(t)
	c := newClient(t, cl)
	valid := map[string]string{
		"consumer.session.timeout.ms": "50000", "consumer.heartbeat.interval.ms": "6000",
		"share.session.timeout.ms": "50000", "share.heartbeat.interval.ms": "6000", "share.record.lock.duration.ms": "20000",
		"share.delivery.count.limit": "3", "share.partition.max.record.locks": "500", "share.auto.offset.reset": "earliest",
		"share.isolation.level": "read_committed", "share.renew.acknowledge.enable": "false",
		"streams.session.timeout.ms": "50000", "streams.heartbeat.interval.ms": "6000", "streams.num.standby.replicas": "1",
		"streams.initial.rebalance.delay.ms": "0",
		"consumer.assignment.interval.ms":    "500", "share.assignment.interval.ms": "0", "streams.assignment.interval.ms": "15000",
		"streams.task.offset.interval.ms": "20000", "streams.acceptable.recovery.lag": "9223372036854775807",
	}
	described := describeGroupConfig(t, ctx, c, "g")
	served := 0
	for _, key := range trunkGroupConfigKeys {
		if v, ok := valid[key]; ok {
			served++
			if k, _ := groupconfig.KeyOf(key); k.Internal {
				// Kafka's defineInternal keys are listed once set only.
				require.NotContains(t, described, key, "DescribeConfigs leaves out an internal key not set")
			} else {
				require.Contains(t, described, key, "DescribeConfigs lists a served key")
			}
			err, msg := alterGroupConfig(t, ctx, c, "g", false, set(key, v))
			require.NoError(t, err, "%s: %s", key, msg)
			assert.Equal(t, kmsg.ConfigSourceGroupConfig, describeGroupConfig(t, ctx, c, "g")[key].Source, key)
			continue
		}
		assert.NotContains(t, described, key)
		err, msg := alterGroupConfig(t, ctx, c, "other", false, set(key, "1"))
		assert.ErrorIs(t, err, fkerr.InvalidConfig, key)
		assert.Equal(t, "Group config "+key+" is not modelled by coordsim.", msg)
		for _, cfg := range describeGroupConfig(t, ctx, c, "other") {
			assert.Equal(t, kmsg.ConfigSourceDefaultConfig, cfg.Source, "%s changed nothing", key)
		}
	}
	assert.Equal(t, len(valid), served, "every served key is a trunk key")
	internal := 0
	for _, k := range groupconfig.Keys {
		if k.Internal {
			internal++
		}
	}
	assert.Len(t, described, len(valid)-internal, "DescribeConfigs lists the served keys only, internal ones once set")
	assert.Len(t, describeGroupConfig(t, ctx, c, "g"), len(valid), "all of them once set")
}

// TestIncrementalAlterConfigsGroupErrors checks each refusal's code and
// message against Kafka's (ConfigAdminManager.preprocess,
// ConfigurationControlManager, ControllerConfigurationValidator,
// GroupConfig.validate) and that none changed the group's config.
func TestIncrementalAlterConfigsGroupErrors(t *testing.T) {
	cl := startCluster(t)
	ctx := testContext(t)
	c := newClient(t, cl)
	err, msg := alterGroupConfig(t, ctx, c, "g", false, set("streams.num.standby.replicas", "1"))
	require.NoError(t, err, msg)

	for _, tc := range []struct {
		name  string
		group string
		ops   []groupConfigOp
		want  error
		msg   string
	}{
		{"empty group", "", []groupConfigOp{set("consumer.session.timeout.ms", "50000")}, fkerr.InvalidRequest, "Default group resources are not allowed."},
		{"unknown key", "g", []groupConfigOp{set("not.a.group.key", "1")}, fkerr.InvalidConfig, "Unknown group config name: not.a.group.key"},
		{"append", "g", []groupConfigOp{{kmsg.IncrementalAlterConfigOpAppend, "streams.session.timeout.ms", ptr("50000")}}, fkerr.InvalidConfig,
			"Can't APPEND to key streams.session.timeout.ms because its type is not LIST."},
		{"subtract", "g", []groupConfigOp{{kmsg.IncrementalAlterConfigOpSubtract, "streams.session.timeout.ms", ptr("50000")}}, fkerr.InvalidConfig,
			"Can't SUBTRACT to key streams.session.timeout.ms because its type is not LIST."},
		{"null value", "g", []groupConfigOp{{kmsg.IncrementalAlterConfigOpSet, "consumer.session.timeout.ms", nil}}, fkerr.InvalidRequest,
			"Null value not supported for : consumer.session.timeout.ms"},
		{"duplicate key", "g", []groupConfigOp{set("share.delivery.count.limit", "3"), set("share.delivery.count.limit", "4")}, fkerr.InvalidRequest,
			"Error due to duplicate config keys"},
		{"not a number", "g", []groupConfigOp{set("consumer.session.timeout.ms", "soon")}, fkerr.InvalidConfig,
			"Invalid value soon for configuration consumer.session.timeout.ms: Not a number of type INT"},
		{"below ConfigDef's minimum", "g", []groupConfigOp{set("share.record.lock.duration.ms", "999")}, fkerr.InvalidConfig,
			"Invalid value 999 for configuration share.record.lock.duration.ms: Value must be at least 1000"},
		{"share range", "g", []groupConfigOp{set("share.record.lock.duration.ms", "1000")}, fkerr.InvalidConfig,
			"share.record.lock.duration.ms must be in the range 15000 to 60000 inclusive."},
		{"standby maximum", "g", []groupConfigOp{set("streams.num.standby.replicas", "3")}, fkerr.InvalidConfig,
			"streams.num.standby.replicas must be less than or equal to 2"},
		{"assignment interval range", "g", []groupConfigOp{set("consumer.assignment.interval.ms", "15001")}, fkerr.InvalidConfig,
			"consumer.assignment.interval.ms must be in the range 0 to 15000 inclusive."},
		{"negative assignment interval", "g", []groupConfigOp{set("share.assignment.interval.ms", "-1")}, fkerr.InvalidConfig,
			"Invalid value -1 for configuration share.assignment.interval.ms: Value must be at least 0"},
		// validateValues checks the standby maximum before the streams
		// assignment interval's range.
		{"task offset interval minimum", "g", []groupConfigOp{set("streams.task.offset.interval.ms", "14999")}, fkerr.InvalidConfig,
			"streams.task.offset.interval.ms must be greater than or equal to 15000"},
		{"recovery lag is a long", "g", []groupConfigOp{set("streams.acceptable.recovery.lag", "9223372036854775808")}, fkerr.InvalidConfig,
			"Invalid value 9223372036854775808 for configuration streams.acceptable.recovery.lag: Not a number of type LONG"},
		{"negative recovery lag", "g", []groupConfigOp{set("streams.acceptable.recovery.lag", "-1")}, fkerr.InvalidConfig,
			"Invalid value -1 for configuration streams.acceptable.recovery.lag: Value must be at least 0"},
		{"standby maximum before streams interval", "g", []groupConfigOp{set("streams.assignment.interval.ms", "20000"), set("streams.num.standby.replicas", "3")}, fkerr.InvalidConfig,
			"streams.num.standby.replicas must be less than or equal to 2"},
		{"share session range", "g", []groupConfigOp{set("share.heartbeat.interval.ms", "15000"), set("share.session.timeout.ms", "44999")}, fkerr.InvalidConfig,
			"share.session.timeout.ms must be in the range 45000 to 60000 inclusive."},
		{"reset strategy", "g", []groupConfigOp{set("share.auto.offset.reset", "by_duration:yesterday")}, fkerr.InvalidConfig,
			"Invalid value by_duration:yesterday for configuration share.auto.offset.reset: Invalid value `by_duration:yesterday` for configuration share.auto.offset.reset. The value must be either 'earliest', 'latest' or of the format 'by_duration:<PnDTnHnMn.nS.>'."},
		{"isolation level", "g", []groupConfigOp{set("share.isolation.level", "serializable")}, fkerr.InvalidConfig,
			"Invalid value serializable for configuration share.isolation.level: String must be one of: read_committed, read_uncommitted"},
		{"boolean", "g", []groupConfigOp{set("share.renew.acknowledge.enable", "yes")}, fkerr.InvalidConfig,
			"Invalid value yes for configuration share.renew.acknowledge.enable: Expected value to be either true or false"},
		{"not modelled", "g", []groupConfigOp{set("streams.num.warmup.replicas", "1")}, fkerr.InvalidConfig,
			"Group config streams.num.warmup.replicas is not modelled by coordsim."},
		// GroupConfig.validateNames runs first: an unknown name wins over a
		// Kafka key coordsim does not model, whatever their order.
		{"unknown before not modelled", "g", []groupConfigOp{set("consumer.assignor.offload.enable", "true"), set("zzz.unknown", "1")}, fkerr.InvalidConfig,
			"Unknown group config name: zzz.unknown"},
		{"broker key is no group key", "g", []groupConfigOp{set("group.consumer.session.timeout.ms", "50000")}, fkerr.InvalidConfig,
			"Unknown group config name: group.consumer.session.timeout.ms"},
		{"names are case-sensitive", "g", []groupConfigOp{set("Consumer.Session.Timeout.Ms", "50000")}, fkerr.InvalidConfig,
			"Unknown group config name: Consumer.Session.Timeout.Ms"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err, msg := alterGroupConfig(t, ctx, c, tc.group, false, tc.ops...)
			assert.ErrorIs(t, err, tc.want)
			assert.Equal(t, tc.msg, msg)
			d := describeGroupConfig(t, ctx, c, "g")
			assert.Equal(t, "1", *d["streams.num.standby.replicas"].Value, "unchanged")
			assert.Equal(t, kmsg.ConfigSourceDefaultConfig, d["share.delivery.count.limit"].Source, "unchanged")
		})
	}

	// A resource named twice: both rows refused. Client metrics: not served.
	resp := alterConfigs(t, ctx, c, false,
		resource(kmsg.ConfigResourceTypeGroupConfig, "g", set("share.delivery.count.limit", "3")),
		resource(kmsg.ConfigResourceTypeGroupConfig, "g", set("share.delivery.count.limit", "4")),
		resource(kmsg.ConfigResourceTypeClientMetrics, "m", set("interval.ms", "1000")),
		resource(kmsg.ConfigResourceTypeGroupConfig, "h", set("share.delivery.count.limit", "4")),
	)
	require.Len(t, resp.Resources, 4)
	for _, row := range resp.Resources[:2] {
		err, msg := rowErr(row.ErrorCode, row.ErrorMessage)
		assert.ErrorIs(t, err, fkerr.InvalidRequest)
		assert.Equal(t, "Each resource must appear at most once.", msg)
	}
	err, _ = rowErr(resp.Resources[2].ErrorCode, resp.Resources[2].ErrorMessage)
	assert.ErrorIs(t, err, fkerr.InvalidRequest)
	assert.Zero(t, resp.Resources[3].ErrorCode, "the other resources are served")
	assert.Equal(t, "4", *describeGroupConfig(t, ctx, c, "h")["share.delivery.count.limit"].Value)

	req := kmsg.NewPtrDescribeConfigsRequest()
	r := kmsg.NewDescribeConfigsRequestResource()
	r.ResourceType = kmsg.ConfigResourceTypeGroupConfig
	req.Resources = append(req.Resources, r)
	dresp, derr := req.RequestWith(ctx, c)
	require.NoError(t, derr)
	err, msg = rowErr(dresp.Resources[0].ErrorCode, dresp.Resources[0].ErrorMessage)
	assert.ErrorIs(t, err, fkerr.InvalidRequest)
	assert.Equal(t, "Group name must not be empty", msg)
}

func ptr(s string) *string { return &s }

// TestDescribeTopicAndBrokerConfigs describes a topic's and a broker's
// configs with kadm: the data plane's retention, the coordinator's
// settings; an unknown topic is UNKNOWN_TOPIC_OR_PARTITION.
func TestDescribeTopicAndBrokerConfigs(t *testing.T) {
	cl := startCluster(t, func(c *wire.Config) { c.RetentionBytes = 1 << 20 })
	ctx := testContext(t)
	adm := newAdmin(t, cl)
	createTopic(t, ctx, adm, "t", 1)
	rcs, err := adm.DescribeTopicConfigs(ctx, "t", "missing")
	require.NoError(t, err)
	require.Len(t, rcs, 2)
	got, err := rcs.On("t", nil)
	require.NoError(t, err)
	require.NoError(t, got.Err)
	values := map[string]string{}
	for _, c := range got.Configs {
		values[c.Key] = c.MaybeValue()
	}
	assert.Equal(t, "1048576", values["retention.bytes"])
	assert.Equal(t, "delete", values["cleanup.policy"])
	missing, _ := rcs.On("missing", nil)
	assert.ErrorIs(t, missing.Err, fkerr.UnknownTopicOrPartition)

	bcs, err := adm.DescribeBrokerConfigs(ctx, 1)
	require.NoError(t, err)
	require.Len(t, bcs, 1)
	require.NoError(t, bcs[0].Err)
	values = map[string]string{}
	for _, c := range bcs[0].Configs {
		values[c.Key] = c.MaybeValue()
	}
	assert.Equal(t, "1", values["broker.id"])
	assert.Equal(t, "45000", values["group.consumer.session.timeout.ms"])
}

// TestDescribeBrokerConfigsMigrationPolicy proves a broker lists
// group.consumer.migration.policy as Kafka 4.4 does: Kafka's default,
// "bidirectional" (ConsumerGroupMigrationPolicy.toString), as
// DEFAULT_CONFIG; a policy serve was started with as STATIC_BROKER_CONFIG.
func TestDescribeBrokerConfigsMigrationPolicy(t *testing.T) {
	for _, tc := range []struct {
		policy shard.MigrationPolicy
		value  string
		source kmsg.ConfigSource
	}{
		{shard.MigrationBidirectional, "bidirectional", kmsg.ConfigSourceDefaultConfig},
		{shard.MigrationUpgrade, "upgrade", kmsg.ConfigSourceStaticBrokerConfig},
	} {
		t.Run(tc.value, func(t *testing.T) {
			cl := startCluster(t, func(c *wire.Config) { c.Coordinator.Classic.MigrationPolicy = tc.policy })
			ctx := testContext(t)
			bcs, err := newAdmin(t, cl).DescribeBrokerConfigs(ctx, 1)
			require.NoError(t, err)
			require.Len(t, bcs, 1)
			require.NoError(t, bcs[0].Err)
			i := slices.IndexFunc(bcs[0].Configs, func(c kadm.Config) bool { return c.Key == "group.consumer.migration.policy" })
			require.GreaterOrEqual(t, i, 0, "group.consumer.migration.policy listed")
			got := bcs[0].Configs[i]
			assert.Equal(t, tc.value, got.MaybeValue())
			assert.Equal(t, tc.source, got.Source)
		})
	}
}

// shareFetchOffsets sends one ShareFetch for partition 0 of topic to its
// leader and returns the acquired offsets.
func shareFetchOffsets(t *testing.T, ctx context.Context, c *kgo.Client, leader int32, topicID [16]byte, group, member string, epoch int32) []int64 {
	t.Helper()
	req := kmsg.NewPtrShareFetchRequest()
	req.GroupID, req.MemberID, req.ShareSessionEpoch, req.MaxRecords, req.BatchSize = &group, &member, epoch, 100, 100
	req.MaxWaitMillis = 50
	rt := kmsg.NewShareFetchRequestTopic()
	rt.TopicID = topicID
	rp := kmsg.NewShareFetchRequestTopicPartition()
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	resp, err := c.Broker(int(leader)).Request(ctx, req)
	require.NoError(t, err)
	fr := resp.(*kmsg.ShareFetchResponse)
	require.Zero(t, fr.ErrorCode)
	var out []int64
	for _, tr := range fr.Topics {
		for _, pr := range tr.Partitions {
			require.Zero(t, pr.ErrorCode)
			for _, a := range pr.AcquiredRecords {
				for o := a.FirstOffset; o <= a.LastOffset; o++ {
					out = append(out, o)
				}
			}
		}
	}
	return out
}

// TestGroupConfigShareAutoOffsetReset proves share.auto.offset.reset set
// over the wire decides where a new share-partition starts: a group
// without the config takes Kafka's default, latest (GroupConfig's
// SHARE_AUTO_OFFSET_RESET_DEFAULT), and skips what was produced before;
// earliest set over the wire starts at the log start; DescribeConfigs
// reports the default as DEFAULT_CONFIG and the group's own value as
// GROUP_CONFIG, with its share.record.lock.duration.ms.
func TestGroupConfigShareAutoOffsetReset(t *testing.T) {
	cl := startCluster(t)
	ctx := testContext(t)
	c := newClient(t, cl)
	adm := kadm.NewClient(c)
	createTopic(t, ctx, adm, "jobs", 1)
	produce := func(n int) {
		for range n {
			require.NoError(t, c.ProduceSync(ctx, &kgo.Record{Topic: "jobs", Value: []byte("x")}).FirstErr())
		}
	}
	produce(5)
	err, msg := alterGroupConfig(t, ctx, c, "early", false, set("share.auto.offset.reset", "earliest"), set("share.record.lock.duration.ms", "20000"))
	require.NoError(t, err, msg)

	topics, err := adm.ListTopics(ctx, "jobs")
	require.NoError(t, err)
	id, leader := topics["jobs"].ID, topics["jobs"].Partitions[0].Leader
	assert.Empty(t, shareFetchOffsets(t, ctx, c, leader, id, "late", "m1", 0), "Kafka's default, latest: nothing produced before")
	produce(3)
	assert.Equal(t, []int64{5, 6, 7}, shareFetchOffsets(t, ctx, c, leader, id, "late", "m1", 1))
	assert.Equal(t, []int64{0, 1, 2, 3, 4, 5, 6, 7}, shareFetchOffsets(t, ctx, c, leader, id, "early", "m1", 0), "earliest from the group config")

	d := describeGroupConfig(t, ctx, c, "early")
	assert.Equal(t, "earliest", *d["share.auto.offset.reset"].Value)
	assert.Equal(t, kmsg.ConfigSourceGroupConfig, d["share.auto.offset.reset"].Source)
	assert.Equal(t, "20000", *d["share.record.lock.duration.ms"].Value)
	d = describeGroupConfig(t, ctx, c, "late")
	assert.Equal(t, "latest", *d["share.auto.offset.reset"].Value)
	assert.Equal(t, kmsg.ConfigSourceDefaultConfig, d["share.auto.offset.reset"].Source)
}

// TestSetShareAutoOffsetResetEndpointDefault proves both halves of
// Config.SetShareAutoOffsetReset: a bad value is INVALID_CONFIG with
// Kafka's validator message and leaves the config as it was; earliest makes
// a group without its own config start at the log start, and
// DescribeConfigs reports it as the default.
func TestSetShareAutoOffsetResetEndpointDefault(t *testing.T) {
	cfg := wire.DefaultConfig()
	before := cfg.Share
	for _, bad := range []string{"", "none", "EARLIEST", "by_duration:", "by_duration:-PT1S", "by_duration:yesterday"} {
		err := cfg.SetShareAutoOffsetReset(bad)
		require.ErrorIs(t, err, kerr.InvalidConfig, "%q", bad)
		assert.Contains(t, err.Error(), "The value must be either 'earliest', 'latest' or of the format 'by_duration:<PnDTnHnMn.nS.>'.", "%q", bad)
		assert.Equal(t, before, cfg.Share, "%q changed nothing", bad)
	}
	require.NoError(t, cfg.SetShareAutoOffsetReset("by_duration:PT0S"))
	assert.Equal(t, share.ResetLatest, cfg.Share.Defaults.AutoOffsetReset, "a zero duration is latest")
	require.NoError(t, cfg.SetShareAutoOffsetReset("by_duration:P1DT2H"))
	assert.Equal(t, share.ResetByDuration, cfg.Share.Defaults.AutoOffsetReset)
	assert.Equal(t, int64(26*3600*1000), cfg.Share.Defaults.AutoOffsetResetDurationMs)
	require.NoError(t, cfg.SetShareAutoOffsetReset("earliest"))
	assert.Zero(t, cfg.Share.Defaults.AutoOffsetResetDurationMs)

	cl := startCluster(t, func(c *wire.Config) { *c = cfg })
	ctx := testContext(t)
	c := newClient(t, cl)
	adm := kadm.NewClient(c)
	createTopic(t, ctx, adm, "jobs", 1)
	for range 3 {
		require.NoError(t, c.ProduceSync(ctx, &kgo.Record{Topic: "jobs", Value: []byte("x")}).FirstErr())
	}
	topics, err := adm.ListTopics(ctx, "jobs")
	require.NoError(t, err)
	assert.Equal(t, []int64{0, 1, 2}, shareFetchOffsets(t, ctx, c, topics["jobs"].Partitions[0].Leader, topics["jobs"].ID, "g", "m1", 0))
	d := describeGroupConfig(t, ctx, c, "g")
	assert.Equal(t, "earliest", *d["share.auto.offset.reset"].Value)
	assert.Equal(t, kmsg.ConfigSourceDefaultConfig, d["share.auto.offset.reset"].Source)
}

// TestGroupConfigStreamsStandbyReplicas proves streams.num.standby.replicas
// set over the wire rebalances a streams group at its next heartbeat (the
// group epoch moves, as Kafka's lastAssignmentConfigs check does) and
// gives each stateful task a standby on the other process; the group's
// streams.heartbeat.interval.ms is the heartbeat's answer.
func TestGroupConfigStreamsStandbyReplicas(t *testing.T) {
	cl := startCluster(t, func(c *wire.Config) { c.Coordinator.StreamsInitialRebalanceDelay = 0 })
	ctx := testContext(t)
	c := newClient(t, cl)
	createTopic(t, ctx, kadm.NewClient(c), "events", 2)
	const group = "app"
	node, err := cl.CoordinatorFor(coordinator.PartitionFor(group, 50))
	require.NoError(t, err)
	coord := c.Broker(int(node))
	epochs := map[string]int32{}
	beat := func(member string) *kmsg.StreamsGroupHeartbeatResponse {
		t.Helper()
		req := kmsg.NewPtrStreamsGroupHeartbeatRequest()
		req.Version, req.Group, req.MemberID, req.MemberEpoch = 1, group, member, epochs[member]
		process := "process-" + member
		req.ProcessID = &process
		if epochs[member] == 0 {
			req.RebalanceTimeoutMillis = 30000
			req.ActiveTasks, req.StandbyTasks, req.WarmupTasks = []kmsg.TaskIDs{}, []kmsg.TaskIDs{}, []kmsg.TaskIDs{}
			topology := kmsg.NewStreamsGroupHeartbeatRequestTopology()
			topology.Epoch = 1
			sub := kmsg.NewStreamsGroupHeartbeatRequestTopologySubtopology()
			sub.SubtopologyID, sub.SourceTopics = "0", []string{"events"}
			changelog := kmsg.NewTopicInfo()
			changelog.Topic = "app-store-changelog"
			sub.StateChangelogTopics = append(sub.StateChangelogTopics, changelog)
			topology.Subtopologies = append(topology.Subtopologies, sub)
			req.Topology = &topology
		}
		resp, err := coord.Request(ctx, req)
		require.NoError(t, err)
		hb := resp.(*kmsg.StreamsGroupHeartbeatResponse)
		require.Zero(t, hb.ErrorCode, "%s: %v", member, hb.ErrorMessage)
		epochs[member] = hb.MemberEpoch
		return hb
	}
	describe := func() kmsg.StreamsGroupDescribeResponseGroup {
		req := kmsg.NewPtrStreamsGroupDescribeRequest()
		req.Groups = []string{group}
		resp, err := coord.Request(ctx, req)
		require.NoError(t, err)
		return resp.(*kmsg.StreamsGroupDescribeResponse).Groups[0]
	}
	standbys := func() int {
		n := 0
		for _, m := range describe().Members {
			for _, st := range m.TargetAssignment.StandbyTasks {
				n += len(st.Partitions)
			}
		}
		return n
	}
	require.Eventually(t, func() bool {
		beat("a")
		beat("b")
		return describe().State == "Stable"
	}, 20*time.Second, 20*time.Millisecond, "the group settles (its changelog topic created)")
	before := describe().Epoch
	assert.Zero(t, standbys(), "the broker's group.streams.num.standby.replicas is 0")

	err, msg := alterGroupConfig(t, ctx, c, group, false, set("streams.num.standby.replicas", "1"), set("streams.heartbeat.interval.ms", "6000"))
	require.NoError(t, err, msg)
	hb := beat("a")
	assert.EqualValues(t, 6000, hb.HeartbeatIntervalMillis, "the group's streams.heartbeat.interval.ms")
	assert.Greater(t, describe().Epoch, before, "the new config bumped the group epoch")
	assert.Equal(t, 2, standbys(), "each of the 2 stateful tasks has a standby")
}

// TestGroupConfigConcurrentAlterationsAgree sends alterations of one
// group's config to every broker at once: whichever lands last, every
// broker's coordinator holds the config DescribeConfigs shows.
func TestGroupConfigConcurrentAlterationsAgree(t *testing.T) {
	cl := startCluster(t)
	ctx := testContext(t)
	c := newClient(t, cl)
	var wg sync.WaitGroup
	for i := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := kmsg.NewPtrIncrementalAlterConfigsRequest()
			req.Resources = append(req.Resources, resource(kmsg.ConfigResourceTypeGroupConfig, "g",
				set("streams.num.standby.replicas", strconv.Itoa(i%3)), set("consumer.session.timeout.ms", strconv.Itoa(45_000+i))))
			resp, err := c.Broker(i%3).Request(ctx, req)
			if assert.NoError(t, err) {
				assert.Zero(t, resp.(*kmsg.IncrementalAlterConfigsResponse).Resources[0].ErrorCode)
			}
		}()
	}
	wg.Wait()
	d := describeGroupConfig(t, ctx, c, "g")
	standbys, err := strconv.Atoi(*d["streams.num.standby.replicas"].Value)
	require.NoError(t, err)
	session, err := strconv.Atoi(*d["consumer.session.timeout.ms"].Value)
	require.NoError(t, err)
	assert.Equal(t, (session-45_000)%3, standbys, "one alteration's values, not a mix")
	for node := range int32(3) {
		gc, err := live.Read(ctx, cl.Driver(node), func(co *coordinator.Coordinator) (coordinator.GroupConfig, error) {
			return co.GroupConfig("g"), nil
		})
		require.NoError(t, err)
		require.NotNil(t, gc.StreamsNumStandbyReplicas)
		require.NotNil(t, gc.ConsumerSessionTimeoutMs)
		assert.EqualValues(t, standbys, *gc.StreamsNumStandbyReplicas, "broker %d", node)
		assert.EqualValues(t, session, *gc.ConsumerSessionTimeoutMs, "broker %d", node)
	}
}

// A group's streams.task.offset.interval.ms and streams.acceptable.recovery.lag
// are what its streams heartbeats answer (GroupMetadataManager's
// streamsGroupTaskOffsetIntervalMs and streamsGroupAcceptableRecoveryLag),
// the broker's without them.
func TestStreamsHeartbeatAnswersTheGroupConfig(t *testing.T) {
	cl := startCluster(t, func(c *wire.Config) { c.Coordinator.StreamsInitialRebalanceDelay = 0 })
	ctx := testContext(t)
	c := newClient(t, cl)
	createTopic(t, ctx, newAdmin(t, cl), "in", 2)
	const group = "answers-config"
	node, err := cl.CoordinatorFor(coordinator.PartitionFor(group, 50))
	require.NoError(t, err)
	coord := c.Broker(int(node))
	send := func(req kmsg.Request) kmsg.Response {
		t.Helper()
		resp, err := coord.Request(ctx, req)
		require.NoError(t, err)
		return resp
	}
	r := streamsBeat(t, send, group, "a", 0)
	assert.Equal(t, int32(60000), r.TaskOffsetIntervalMillis)
	assert.Equal(t, int64(10000), r.AcceptableRecoveryLag)

	err, msg := alterGroupConfig(t, ctx, c, group, false, set("streams.task.offset.interval.ms", "20000"), set("streams.acceptable.recovery.lag", "5000000000"))
	require.NoError(t, err, msg)
	r = streamsBeat(t, send, group, "a", r.MemberEpoch)
	assert.Equal(t, int32(20000), r.TaskOffsetIntervalMillis)
	assert.Equal(t, int64(5000000000), r.AcceptableRecoveryLag)
}

// Kafka's internal broker keys (defineInternal: the streams task offset
// interval, its minimum, the acceptable recovery lag) are described only
// when the broker sets them.
func TestDescribeBrokerConfigsListsInternalKeysWhenSet(t *testing.T) {
	ctx := testContext(t)
	names := func(cl *wire.Cluster) map[string]string {
		rcs, err := newAdmin(t, cl).DescribeBrokerConfigs(ctx, 0)
		require.NoError(t, err)
		out := map[string]string{}
		for _, rc := range rcs {
			for _, c := range rc.Configs {
				out[c.Key] = c.MaybeValue()
			}
		}
		return out
	}
	def := names(startCluster(t))
	assert.NotContains(t, def, "group.streams.task.offset.interval.ms")
	assert.NotContains(t, def, "group.streams.acceptable.recovery.lag")
	assert.Contains(t, def, "group.streams.assignment.interval.ms")
	set := names(startCluster(t, func(c *wire.Config) { c.Coordinator.StreamsTaskOffsetInterval = 30 * time.Second }))
	assert.Equal(t, "30000", set["group.streams.task.offset.interval.ms"])
	assert.NotContains(t, set, "group.streams.acceptable.recovery.lag")
}
