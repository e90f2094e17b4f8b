package wire_test

import (
	"context"
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/wire"
)

// kafka44Versions is the range Kafka 4.4.0's broker advertises for every
// key coordsim serves: ApiKeys.oldestVersion() to latestVersion(false)
// (the stable latest; InitProducerId's v6 is unstable), read from the
// kafka-clients 4.4.0 jar, which is generated from the message JSONs'
// validVersions. Produce's minimum is ApiKeys.toApiVersion's KAFKA-18659
// special case, 0 rather than 3.
var kafka44Versions = map[int16][2]int16{
	0:  {0, 13}, // Produce (served from 3)
	1:  {4, 18}, // Fetch
	2:  {1, 11}, // ListOffsets
	3:  {0, 13}, // Metadata
	8:  {2, 10}, // OffsetCommit
	9:  {1, 10}, // OffsetFetch
	10: {0, 6},  // FindCoordinator
	11: {0, 9},  // JoinGroup
	12: {0, 4},  // Heartbeat
	13: {0, 5},  // LeaveGroup
	14: {0, 5},  // SyncGroup
	15: {0, 6},  // DescribeGroups
	16: {0, 5},  // ListGroups
	18: {0, 5},  // ApiVersions
	19: {2, 7},  // CreateTopics
	20: {1, 6},  // DeleteTopics
	21: {0, 2},  // DeleteRecords
	22: {0, 5},  // InitProducerId
	24: {0, 5},  // AddPartitionsToTxn
	25: {0, 4},  // AddOffsetsToTxn
	26: {0, 5},  // EndTxn
	28: {0, 6},  // TxnOffsetCommit
	29: {1, 3},  // DescribeAcls
	30: {1, 3},  // CreateAcls
	31: {1, 3},  // DeleteAcls
	32: {1, 4},  // DescribeConfigs
	33: {0, 2},  // AlterConfigs
	35: {1, 5},  // DescribeLogDirs
	37: {0, 3},  // CreatePartitions
	42: {0, 3},  // DeleteGroups
	44: {0, 1},  // IncrementalAlterConfigs
	46: {0, 0},  // ListPartitionReassignments
	47: {0, 0},  // OffsetDelete
	61: {0, 0},  // DescribeProducers
	65: {0, 0},  // DescribeTransactions
	66: {0, 2},  // ListTransactions
	68: {0, 1},  // ConsumerGroupHeartbeat
	69: {0, 1},  // ConsumerGroupDescribe
	74: {0, 1},  // ListConfigResources
	76: {1, 1},  // ShareGroupHeartbeat
	77: {1, 1},  // ShareGroupDescribe
	78: {1, 2},  // ShareFetch
	79: {1, 2},  // ShareAcknowledge
	88: {0, 1},  // StreamsGroupHeartbeat
	89: {0, 1},  // StreamsGroupDescribe
	90: {0, 1},  // DescribeShareGroupOffsets
	91: {0, 0},  // AlterShareGroupOffsets
	92: {0, 0},  // DeleteShareGroupOffsets
	93: {0, 0},  // StreamsGroupTopologyDescriptionUpdate
}

// TestApiVersionsMatchKafka44 pins the ApiVersions table: every key
// coordsim advertises, and only those, with Kafka 4.4's range.
func TestApiVersionsMatchKafka44(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	got := map[int16][2]int16{}
	for _, k := range apiVersions(t, dial(t, cl.Addrs()[0])).ApiKeys {
		got[k.ApiKey] = [2]int16{k.MinVersion, k.MaxVersion}
	}
	assert.Equal(t, kafka44Versions, got)
}

// TestAdminV0RoundTrip proves that CreatePartitions, DeleteRecords and
// AlterConfigs answer v0, the version segmentio/kafka-go sends, and act:
// the topic grows, the log start advances, the config is set.
func TestAdminV0RoundTrip(t *testing.T) {
	t.Parallel()
	cl := startCluster(t, func(c *wire.Config) { c.Brokers = 1 })
	ctx := testContext(t)
	adm := newAdmin(t, cl)
	const topic = "v0"
	createTopic(t, ctx, adm, topic, 1)
	prod := newClient(t, cl, kgo.DefaultProduceTopic(topic))
	for range 5 {
		require.NoError(t, prod.ProduceSync(ctx, &kgo.Record{Value: []byte("x")}).FirstErr())
	}
	c := dial(t, cl.Addrs()[0])

	cp := kmsg.NewPtrCreatePartitionsRequest()
	cpt := kmsg.NewCreatePartitionsRequestTopic()
	cpt.Topic, cpt.Count = topic, 3
	cp.Topics, cp.TimeoutMillis = append(cp.Topics, cpt), 5000
	cpResp := roundTripV0(t, c, cp).(*kmsg.CreatePartitionsResponse)
	require.Len(t, cpResp.Topics, 1)
	assert.Zero(t, cpResp.Topics[0].ErrorCode, "CreatePartitions v0")

	dr := kmsg.NewPtrDeleteRecordsRequest()
	drt := kmsg.NewDeleteRecordsRequestTopic()
	drp := kmsg.NewDeleteRecordsRequestTopicPartition()
	drp.Partition, drp.Offset = 0, 2
	drt.Topic, drt.Partitions = topic, append(drt.Partitions, drp)
	dr.Topics, dr.TimeoutMillis = append(dr.Topics, drt), 5000
	drResp := roundTripV0(t, c, dr).(*kmsg.DeleteRecordsResponse)
	require.Len(t, drResp.Topics, 1)
	require.Len(t, drResp.Topics[0].Partitions, 1)
	assert.Zero(t, drResp.Topics[0].Partitions[0].ErrorCode, "DeleteRecords v0")
	assert.Equal(t, int64(2), drResp.Topics[0].Partitions[0].LowWatermark)

	ac := kmsg.NewPtrAlterConfigsRequest()
	acr := kmsg.NewAlterConfigsRequestResource()
	acr.ResourceType, acr.ResourceName = kmsg.ConfigResourceTypeTopic, topic
	acc := kmsg.NewAlterConfigsRequestResourceConfig()
	acc.Name, acc.Value = "retention.ms", kmsg.StringPtr("60000")
	acr.Configs = append(acr.Configs, acc)
	ac.Resources = append(ac.Resources, acr)
	acResp := roundTripV0(t, c, ac).(*kmsg.AlterConfigsResponse)
	require.Len(t, acResp.Resources, 1)
	assert.Zero(t, acResp.Resources[0].ErrorCode, "AlterConfigs v0")

	details, err := adm.ListTopics(ctx, topic)
	require.NoError(t, err)
	assert.Len(t, details[topic].Partitions, 3, "the topic grew")
	starts, err := adm.ListStartOffsets(ctx, topic)
	require.NoError(t, err)
	start, _ := starts.Lookup(topic, 0)
	assert.Equal(t, int64(2), start.Offset, "the log start advanced")
	assert.Equal(t, "60000 (DYNAMIC_TOPIC_CONFIG)", topicConfig(t, ctx, adm, topic, "retention.ms"), "the config is set")
}

// roundTripV0 sends req at v0 on c and decodes the v0 answer.
func roundTripV0(t *testing.T, c net.Conn, req kmsg.Request) kmsg.Response {
	t.Helper()
	req.SetVersion(0)
	_, err := c.Write(kmsg.NewRequestFormatter(kmsg.FormatterClientID("test")).AppendRequest(nil, req, 1))
	require.NoError(t, err)
	body := readResponse(t, c)
	resp := req.ResponseKind()
	resp.SetVersion(0)
	require.NoError(t, resp.ReadFrom(body[4:])) // after the correlation id
	return resp
}

// topicConfig is a topic config's value and source as DescribeConfigs
// answers it, or "absent".
func topicConfig(t *testing.T, ctx context.Context, adm *kadm.Client, topic, key string) string {
	t.Helper()
	configs, err := adm.DescribeTopicConfigs(ctx, topic)
	require.NoError(t, err)
	rc, err := configs.On(topic, nil)
	require.NoError(t, err)
	return parityConfig(rc, key)
}
