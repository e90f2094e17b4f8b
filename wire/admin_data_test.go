package wire_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	fkerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestCreatePartitionsGrowsTopicAndGroups proves CreatePartitions through
// kadm as Kafka's controller answers it: the topic grows, a KIP-848 group
// reading it gets the new partitions and consumes what is produced there;
// the same count, a smaller one and an unknown topic are refused with
// Kafka's codes and messages, and validate-only grows nothing.
func TestCreatePartitionsGrowsTopicAndGroups(t *testing.T) {
	ctx := testContext(t)
	cl := startCluster(t)
	adm := newAdmin(t, cl)
	createTopic(t, ctx, adm, "grow", 1)
	cons := newClient(t, cl, kgo.ConsumerGroup("growers"), kgo.ConsumeTopics("grow"), kgo.ServerSideBalancer(),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.MetadataMinAge(50*time.Millisecond), kgo.MetadataMaxAge(100*time.Millisecond))
	prod := newClient(t, cl, kgo.DefaultProduceTopic("grow"))
	require.NoError(t, prod.ProduceSync(ctx, kgo.StringRecord("before")).FirstErr())
	fs := cons.PollFetches(ctx)
	require.NoError(t, fs.Err0())

	v, err := adm.ValidateCreatePartitions(ctx, 2, "grow")
	require.NoError(t, err)
	require.NoError(t, v["grow"].Err)
	topics, err := adm.ListTopics(ctx, "grow")
	require.NoError(t, err)
	require.Len(t, topics["grow"].Partitions, 1, "validate-only grows nothing")

	grown, err := adm.CreatePartitions(ctx, 2, "grow")
	require.NoError(t, err)
	require.NoError(t, grown["grow"].Err)
	topics, err = adm.ListTopics(ctx, "grow")
	require.NoError(t, err)
	require.Len(t, topics["grow"].Partitions, 3)

	after := newClient(t, cl, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	for p := int32(1); p < 3; p++ {
		require.NoError(t, after.ProduceSync(ctx, &kgo.Record{Topic: "grow", Partition: p, Value: []byte("new")}).FirstErr())
	}
	seen := map[int32]bool{}
	for !seen[1] || !seen[2] {
		fs := cons.PollFetches(ctx)
		require.NoError(t, ctx.Err(), "the group never read the new partitions: %v", seen)
		fs.EachRecord(func(r *kgo.Record) { seen[r.Partition] = true })
	}

	same, err := adm.UpdatePartitions(ctx, 3, "grow")
	require.NoError(t, err)
	assert.ErrorIs(t, same["grow"].Err, fkerr.InvalidPartitions)
	assert.Equal(t, "Topic already has 3 partition(s).", same["grow"].ErrMessage)
	fewer, err := adm.UpdatePartitions(ctx, 2, "grow")
	require.NoError(t, err)
	assert.ErrorIs(t, fewer["grow"].Err, fkerr.InvalidPartitions)
	assert.Equal(t, "The topic grow currently has 3 partition(s); 2 would not be an increase.", fewer["grow"].ErrMessage)
	unknown, err := adm.CreatePartitions(ctx, 1, "nope")
	require.NoError(t, err)
	assert.ErrorIs(t, unknown["nope"].Err, fkerr.UnknownTopicOrPartition)
}

// TestDeleteRecords proves DeleteRecords through kadm: the log start
// offset advances (the low watermark, ListOffsets earliest, where a
// consumer from the start begins), an offset past the high watermark is
// OFFSET_OUT_OF_RANGE and changes nothing, and a compact-only topic is
// POLICY_VIOLATION.
func TestDeleteRecords(t *testing.T) {
	ctx := testContext(t)
	cl := startCluster(t)
	adm := newAdmin(t, cl)
	createTopic(t, ctx, adm, "del", 1)
	prod := newClient(t, cl, kgo.DefaultProduceTopic("del"))
	for i := range 10 {
		require.NoError(t, prod.ProduceSync(ctx, kgo.StringRecord(string(rune('a'+i)))).FirstErr())
	}
	var os kadm.Offsets
	os.AddOffset("del", 0, 4, -1)
	deleted, err := adm.DeleteRecords(ctx, os)
	require.NoError(t, err)
	require.NoError(t, deleted.Error())
	assert.Equal(t, int64(4), deleted["del"][0].LowWatermark)
	starts, err := adm.ListStartOffsets(ctx, "del")
	require.NoError(t, err)
	assert.Equal(t, int64(4), starts["del"][0].Offset)

	os.AddOffset("del", 0, 11, -1)
	past, err := adm.DeleteRecords(ctx, os)
	require.NoError(t, err)
	assert.ErrorIs(t, past["del"][0].Err, fkerr.OffsetOutOfRange)
	starts, err = adm.ListStartOffsets(ctx, "del")
	require.NoError(t, err)
	assert.Equal(t, int64(4), starts["del"][0].Offset, "nothing changed")

	cons := newClient(t, cl, kgo.ConsumeTopics("del"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	fs := cons.PollFetches(ctx)
	require.NoError(t, fs.Err0())
	first := fs.Records()[0]
	assert.Equal(t, int64(4), first.Offset, "a consumer from the start begins at the new log start")

	resp, err := adm.CreateTopic(ctx, 1, 1, map[string]*string{"cleanup.policy": kadm.StringPtr("compact")}, "compacted")
	require.NoError(t, err)
	require.NoError(t, resp.Err)
	var co kadm.Offsets
	co.AddOffset("compacted", 0, 0, -1)
	refused, err := adm.DeleteRecords(ctx, co)
	require.NoError(t, err)
	assert.ErrorIs(t, refused["compacted"][0].Err, fkerr.PolicyViolation)
}

// TestAlterTopicConfigs proves IncrementalAlterConfigs and AlterConfigs on
// TOPIC resources through kadm: SET, APPEND to a list and DELETE change
// what DescribeConfigs reports; the legacy call replaces the whole set;
// validate-only, an unknown key, a bad value, a non-list APPEND and an
// unknown topic change nothing and answer Kafka's errors.
func TestAlterTopicConfigs(t *testing.T) {
	ctx := testContext(t)
	cl := startCluster(t)
	adm := newAdmin(t, cl)
	createTopic(t, ctx, adm, "cfg", 1)
	value := func(key string) (string, kmsg.ConfigSource) {
		t.Helper()
		rc, err := adm.DescribeTopicConfigs(ctx, "cfg")
		require.NoError(t, err)
		c, err := rc.On("cfg", nil)
		require.NoError(t, err)
		for _, e := range c.Configs {
			if e.Key == key {
				return e.MaybeValue(), e.Source
			}
		}
		return "", kmsg.ConfigSource(0)
	}
	set := func(op kadm.IncrementalOp, key, v string) kadm.AlterConfig {
		return kadm.AlterConfig{Op: op, Name: key, Value: &v}
	}
	res, err := adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{set(kadm.SetConfig, "retention.bytes", "12345"), set(kadm.AppendConfig, "cleanup.policy", "compact")}, "cfg")
	require.NoError(t, err)
	require.NoError(t, res[0].Err)
	v, src := value("retention.bytes")
	assert.Equal(t, "12345", v)
	assert.Equal(t, kmsg.ConfigSourceDynamicTopicConfig, src, "DYNAMIC_TOPIC_CONFIG")
	v, _ = value("cleanup.policy")
	assert.Equal(t, "delete,compact", v, "APPEND adds to Kafka's default")

	res, err = adm.ValidateAlterTopicConfigs(ctx, []kadm.AlterConfig{set(kadm.SetConfig, "retention.bytes", "1")}, "cfg")
	require.NoError(t, err)
	require.NoError(t, res[0].Err)
	v, _ = value("retention.bytes")
	assert.Equal(t, "12345", v, "validate-only changes nothing")

	for _, tc := range []struct {
		name string
		cfg  kadm.AlterConfig
		err  error
		msg  string
	}{
		{"unknown key", set(kadm.SetConfig, "no.such.key", "1"), fkerr.InvalidConfig, "Unknown topic config name: no.such.key"},
		{"bad value", set(kadm.SetConfig, "retention.ms", "-5"), fkerr.InvalidConfig, "Invalid value -5 for configuration retention.ms: Value must be at least -1"},
		{"append to a non-list", set(kadm.AppendConfig, "retention.ms", "5"), fkerr.InvalidConfig, "Can't APPEND to key retention.ms because its type is not LIST."},
	} {
		res, err := adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{tc.cfg}, "cfg")
		require.NoError(t, err)
		assert.ErrorIs(t, res[0].Err, tc.err, tc.name)
		assert.Equal(t, tc.msg, res[0].ErrMessage, tc.name)
	}
	res, err = adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{set(kadm.SetConfig, "retention.ms", "5")}, "nope")
	require.NoError(t, err)
	assert.ErrorIs(t, res[0].Err, fkerr.UnknownTopicOrPartition)
	assert.Equal(t, "The topic 'nope' does not exist.", res[0].ErrMessage)

	res, err = adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{{Op: kadm.DeleteConfig, Name: "retention.bytes"}}, "cfg")
	require.NoError(t, err)
	require.NoError(t, res[0].Err)
	_, src = value("retention.bytes")
	assert.NotEqual(t, kmsg.ConfigSourceDynamicTopicConfig, src, "DELETE returns the key to the broker's value")

	res, err = adm.AlterTopicConfigsState(ctx, []kadm.AlterConfig{{Name: "retention.ms", Value: kadm.StringPtr("60000")}}, "cfg")
	require.NoError(t, err)
	require.NoError(t, res[0].Err)
	v, _ = value("retention.ms")
	assert.Equal(t, "60000", v)
	v, _ = value("cleanup.policy")
	assert.Equal(t, "delete", v, "the legacy call replaced the whole set")
}

// TestDescribeLogDirsAndReassignmentsAndAcls proves the read-only admin
// calls tools make: DescribeLogDirs reports each partition's bytes on its
// leader's one log dir, ListPartitionReassignments is empty, and the ACL
// calls answer SECURITY_DISABLED as a broker without an authorizer.
func TestDescribeLogDirsAndReassignmentsAndAcls(t *testing.T) {
	ctx := testContext(t)
	cl := startCluster(t)
	adm := newAdmin(t, cl)
	createTopic(t, ctx, adm, "dirs", 3)
	prod := newClient(t, cl, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	require.NoError(t, prod.ProduceSync(ctx, &kgo.Record{Topic: "dirs", Partition: 1, Value: []byte("hello")}).FirstErr())

	dirs, err := adm.DescribeAllLogDirs(ctx, nil)
	require.NoError(t, err)
	sizes := map[int32]int64{}
	dirs.Each(func(d kadm.DescribedLogDir) {
		d.Topics.Each(func(p kadm.DescribedLogDirPartition) {
			if p.Topic == "dirs" {
				sizes[p.Partition] = p.Size
				assert.Equal(t, p.Partition%3, p.Broker, "on the partition's leader")
			}
		})
	})
	assert.Len(t, sizes, 3)
	assert.Positive(t, sizes[1])
	assert.Zero(t, sizes[0])

	reassigning, err := adm.ListPartitionReassignments(ctx, nil)
	require.NoError(t, err)
	assert.Empty(t, reassigning)

	raw := newClient(t, cl)
	describe := kmsg.NewPtrDescribeACLsRequest()
	describe.ResourceType, describe.ResourcePatternType, describe.Operation, describe.PermissionType = kmsg.ACLResourceTypeAny, kmsg.ACLResourcePatternTypeAny, kmsg.ACLOperationAny, kmsg.ACLPermissionTypeAny
	described, err := describe.RequestWith(ctx, raw)
	require.NoError(t, err)
	assert.Equal(t, fkerr.SecurityDisabled.Code, described.ErrorCode)
	assert.Equal(t, "No Authorizer is configured.", *described.ErrorMessage)
	create := kmsg.NewPtrCreateACLsRequest()
	create.Creations = append(create.Creations, kmsg.NewCreateACLsRequestCreation(), kmsg.NewCreateACLsRequestCreation())
	cresp, err := create.RequestWith(ctx, raw)
	require.NoError(t, err)
	require.Len(t, cresp.Results, 2, "one result per creation")
	for _, r := range cresp.Results {
		assert.Equal(t, fkerr.SecurityDisabled.Code, r.ErrorCode)
		assert.Equal(t, "No Authorizer is configured.", *r.ErrorMessage)
	}
	del := kmsg.NewPtrDeleteACLsRequest()
	del.Filters = append(del.Filters, kmsg.NewDeleteACLsRequestFilter())
	dresp, err := del.RequestWith(ctx, raw)
	require.NoError(t, err)
	require.Len(t, dresp.Results, 1, "one result per filter")
	assert.Equal(t, fkerr.SecurityDisabled.Code, dresp.Results[0].ErrorCode)
}

// TestDescribeProducers proves DescribeProducers through kadm: an
// idempotent producer's id, epoch and last sequence on the partition it
// wrote.
func TestDescribeProducers(t *testing.T) {
	ctx := testContext(t)
	cl := startCluster(t)
	adm := newAdmin(t, cl)
	createTopic(t, ctx, adm, "prods", 1)
	prod := newClient(t, cl, kgo.DefaultProduceTopic("prods"))
	for range 3 {
		require.NoError(t, prod.ProduceSync(ctx, kgo.StringRecord("x")).FirstErr())
	}
	described, err := adm.DescribeProducers(ctx, kadm.TopicsSet{"prods": {0: {}}})
	require.NoError(t, err)
	p := described["prods"].Partitions[0]
	require.NoError(t, p.Err)
	require.Len(t, p.ActiveProducers, 1)
	ap := p.ActiveProducers[0]
	assert.Equal(t, int16(0), ap.ProducerEpoch)
	assert.Equal(t, int32(2), ap.LastSequence, "three batches of one record")
	assert.Equal(t, int64(-1), ap.CurrentTxnStartOffset)
}
