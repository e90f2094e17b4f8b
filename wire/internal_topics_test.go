package wire_test

import (
	"hash/crc32"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	fkerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/wire"
)

// TestIsInternal reproduces MetadataRequestTest.testIsInternal: the
// all-topics Metadata lists __consumer_offsets with IsInternal true (here
// it always exists: it is the coordinators' log), the data topics
// without; kadm.ListTopics hides it and ListTopicsWithInternal shows it.
// Its partitions are the cluster's offsets partitions, each led by the
// broker coordinating it, and a coordinator move is seen at once. Asking
// for it by name, with auto-creation allowed, or by id, creates nothing.
func TestIsInternal(t *testing.T) {
	t.Parallel()
	const offsetsPartitions = 5
	cl := startCluster(t, func(c *wire.Config) { c.Coordinator.NumPartitions = offsetsPartitions })
	ctx := testContext(t)
	adm := newAdmin(t, cl)
	createTopic(t, ctx, adm, "data", 1)
	c := dial(t, cl.Addrs()[0])

	metadata := func(topics ...kmsg.MetadataRequestTopic) *kmsg.MetadataResponse {
		req := kmsg.NewPtrMetadataRequest()
		req.Version, req.AllowAutoTopicCreation = 12, true
		if topics != nil {
			req.Topics = topics
		}
		return roundTrip(t, c, req).(*kmsg.MetadataResponse)
	}
	all := metadata()
	require.Len(t, all.Topics, 2)
	offsets, data := all.Topics[0], all.Topics[1]
	assert.Equal(t, "__consumer_offsets", *offsets.Topic, "in name order")
	assert.True(t, offsets.IsInternal)
	assert.Zero(t, offsets.ErrorCode)
	assert.NotEqual(t, [16]byte{}, offsets.TopicID)
	assert.Equal(t, "data", *data.Topic)
	assert.False(t, data.IsInternal)
	require.Len(t, offsets.Partitions, offsetsPartitions)
	for _, p := range offsets.Partitions {
		leader, err := cl.CoordinatorFor(p.Partition)
		require.NoError(t, err)
		assert.Equal(t, leader, p.Leader, "partition %d is led by its coordinator", p.Partition)
		assert.Equal(t, []int32{leader}, p.Replicas)
		assert.Equal(t, []int32{leader}, p.ISR)
	}

	require.NoError(t, cl.MoveCoordinator(ctx, 0, 2))
	moved := metadata(kmsg.MetadataRequestTopic{Topic: kmsg.StringPtr("__consumer_offsets")})
	require.Len(t, moved.Topics, 1)
	assert.Equal(t, int32(2), moved.Topics[0].Partitions[0].Leader, "the move is seen")
	assert.Len(t, moved.Topics[0].Partitions, offsetsPartitions, "by name, not auto-created with num.partitions")
	assert.True(t, moved.Topics[0].IsInternal)
	byID := metadata(kmsg.MetadataRequestTopic{TopicID: offsets.TopicID})
	require.Len(t, byID.Topics, 1)
	assert.Equal(t, "__consumer_offsets", *byID.Topics[0].Topic)
	assert.Zero(t, byID.Topics[0].ErrorCode)
	assert.Len(t, metadata().Topics, 2, "nothing was created")

	listed, err := adm.ListTopics(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"data"}, listed.Names(), "kadm.ListTopics hides internal topics")
	withInternal, err := adm.ListTopicsWithInternal(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"__consumer_offsets", "data"}, withInternal.Names())
}

// TestProduceToInternalTopic proves Produce to __consumer_offsets is
// refused as ReplicaManager.appendToLocalLog refuses a client's append to
// an internal topic, by name and by id, on its leader or not: every
// existing partition is INVALID_TOPIC_EXCEPTION "Cannot append to internal
// topic __consumer_offsets", a partition past the offsets partition count
// UNKNOWN_TOPIC_OR_PARTITION (KafkaApis checks the metadata cache first).
// Nothing is appended: the topic stays the coordinators' and the data
// topics are untouched.
func TestProduceToInternalTopic(t *testing.T) {
	t.Parallel()
	cl := startCluster(t, func(c *wire.Config) { c.Brokers = 1 })
	ctx := testContext(t)
	c := dial(t, cl.Addrs()[0])
	md := kmsg.NewPtrMetadataRequest()
	md.Version = 12
	mresp := roundTrip(t, c, md).(*kmsg.MetadataResponse)
	require.Len(t, mresp.Topics, 1)
	id := mresp.Topics[0].TopicID

	raw := newClient(t, cl)
	for _, version := range []int16{12, 13} {
		req := kmsg.NewPtrProduceRequest()
		req.Version, req.Acks, req.TimeoutMillis = version, -1, 1000
		rt := kmsg.NewProduceRequestTopic()
		rt.Topic, rt.TopicID = "__consumer_offsets", id
		for _, p := range []int32{0, 49, 50} {
			rp := kmsg.NewProduceRequestTopicPartition()
			rp.Partition = p
			rp.Records = oneBatch(t)
			rt.Partitions = append(rt.Partitions, rp)
		}
		req.Topics = append(req.Topics, rt)
		resp, err := req.RequestWith(ctx, raw.Broker(0))
		require.NoError(t, err)
		require.Len(t, resp.Topics, 1)
		require.Len(t, resp.Topics[0].Partitions, 3)
		for _, sp := range resp.Topics[0].Partitions[:2] {
			assert.Equal(t, fkerr.InvalidTopicException.Code, sp.ErrorCode, "v%d partition %d", version, sp.Partition)
			if assert.NotNil(t, sp.ErrorMessage) {
				assert.Equal(t, "Cannot append to internal topic __consumer_offsets", *sp.ErrorMessage)
			}
			assert.Equal(t, int64(-1), sp.BaseOffset)
		}
		assert.Equal(t, fkerr.UnknownTopicOrPartition.Code, resp.Topics[0].Partitions[2].ErrorCode, "v%d past the partition count", version)
	}
	assert.Empty(t, dataTopics(roundTrip(t, c, md).(*kmsg.MetadataResponse)), "no data topic appeared")
}

// TestOffsetsTopicNotInTopicImage proves __consumer_offsets never enters
// the coordinators' topic image, even after a Metadata that names it with
// auto-creation allowed: a KIP-848 member subscribed to every topic by
// regex is assigned the data topic's partitions only.
func TestOffsetsTopicNotInTopicImage(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	ctx := testContext(t)
	createTopic(t, ctx, newAdmin(t, cl), "data", 2)
	c := dial(t, cl.Addrs()[0])
	md := kmsg.NewPtrMetadataRequest()
	md.Version, md.AllowAutoTopicCreation = 12, true
	md.Topics = []kmsg.MetadataRequestTopic{{Topic: kmsg.StringPtr("__consumer_offsets")}}
	require.Len(t, roundTrip(t, c, md).(*kmsg.MetadataResponse).Topics, 1)

	const group = "everything"
	node, err := cl.CoordinatorFor(coordinator.PartitionFor(group, 50))
	require.NoError(t, err)
	req := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	req.Group, req.MemberID, req.MemberEpoch, req.RebalanceTimeoutMillis = group, "m1", 0, 30000
	req.SubscribedTopicRegex = kmsg.StringPtr(".*")
	req.Topics = []kmsg.ConsumerGroupHeartbeatRequestTopic{}
	coord := newClient(t, cl).Broker(int(node))
	resp, err := req.RequestWith(ctx, coord)
	require.NoError(t, err)
	require.Zero(t, resp.ErrorCode, "join: %v", resp.ErrorMessage)
	assert.Equal(t, 2, assignedAfterRegexRefresh(t, ctx, coord, group, "m1", resp), "the data topic's two partitions, nothing of __consumer_offsets")
}

// oneBatch is one valid record batch with one record, as kgo encodes it.
func oneBatch(t *testing.T) []byte {
	t.Helper()
	rec := kmsg.NewRecord()
	rec.Value = []byte("v")
	batch := kmsg.NewRecordBatch()
	batch.Magic, batch.NumRecords, batch.FirstTimestamp, batch.MaxTimestamp = 2, 1, 1, 1
	batch.ProducerID, batch.ProducerEpoch, batch.FirstSequence = -1, -1, -1
	batch.Records = rec.AppendTo(nil)
	raw := batch.AppendTo(nil)
	batch.Length = int32(len(raw) - 12)
	raw = batch.AppendTo(nil)
	batch.CRC = int32(crc32.Checksum(raw[21:], crc32.MakeTable(crc32.Castagnoli)))
	return batch.AppendTo(nil)
}

// TestCreateTopicsRefusesClusterMetadataTopic proves KRaft's metadata log
// never becomes a topic, as ControllerApis.createTopics leaves it out: a
// CreateTopics naming it answers TOPIC_AUTHORIZATION_FAILED "Authorization
// failed." after the other rows (whose topics are created), validate-only
// or not, and a Metadata with auto-creation answers it
// UNKNOWN_TOPIC_OR_PARTITION and creates nothing.
func TestCreateTopicsRefusesClusterMetadataTopic(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	c := dial(t, cl.Addrs()[0])
	for _, validateOnly := range []bool{true, false} {
		req := kmsg.NewPtrCreateTopicsRequest()
		req.Version, req.ValidateOnly = 7, validateOnly
		req.Topics = []kmsg.CreateTopicsRequestTopic{topicWithConfigs("__cluster_metadata", 1), topicWithConfigs("ok", 1)}
		resp := roundTrip(t, c, req).(*kmsg.CreateTopicsResponse)
		require.Len(t, resp.Topics, 2)
		assert.Equal(t, "ok", resp.Topics[0].Topic)
		assert.Zero(t, resp.Topics[0].ErrorCode)
		assert.Equal(t, "__cluster_metadata", resp.Topics[1].Topic)
		assert.Equal(t, fkerr.TopicAuthorizationFailed.Code, resp.Topics[1].ErrorCode)
		if assert.NotNil(t, resp.Topics[1].ErrorMessage) {
			assert.Equal(t, "Authorization failed.", *resp.Topics[1].ErrorMessage)
		}
	}
	md := kmsg.NewPtrMetadataRequest()
	md.Version, md.AllowAutoTopicCreation = 12, true
	md.Topics = []kmsg.MetadataRequestTopic{{Topic: kmsg.StringPtr("__cluster_metadata")}}
	mresp := roundTrip(t, c, md).(*kmsg.MetadataResponse)
	require.Len(t, mresp.Topics, 1)
	assert.Equal(t, fkerr.UnknownTopicOrPartition.Code, mresp.Topics[0].ErrorCode)
	md.Topics = nil
	var names []string
	for _, mt := range dataTopics(roundTrip(t, c, md).(*kmsg.MetadataResponse)) {
		names = append(names, *mt.Topic)
	}
	assert.Equal(t, []string{"ok"}, names, "only the other topic exists")
}
