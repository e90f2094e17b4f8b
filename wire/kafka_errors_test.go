package wire_test

import (
	"net"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	fkerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/wire"
)

// roundTrip sends req on a raw connection and decodes the answer at the
// request's version, so a test sees exactly what the endpoint wrote.
func roundTrip(t *testing.T, c net.Conn, req kmsg.Request) kmsg.Response {
	t.Helper()
	_, err := c.Write(kmsg.NewRequestFormatter(kmsg.FormatterClientID("test")).AppendRequest(nil, req, 1))
	require.NoError(t, err)
	body := readResponse(t, c)
	resp := req.ResponseKind()
	resp.SetVersion(req.GetVersion())
	body = body[4:] // the correlation id
	if resp.IsFlexible() {
		require.Equal(t, byte(0), body[0], "empty response header tags")
		body = body[1:]
	}
	require.NoError(t, resp.ReadFrom(body))
	return resp
}

// TestFindCoordinatorUnknownKeyType proves Kafka's answer to a key type
// CoordinatorType.forId does not know: INVALID_REQUEST for every key, in
// both the batched (v4+) and single-key shapes, and the connection keeps
// being served.
func TestFindCoordinatorUnknownKeyType(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	c := dial(t, cl.Addrs()[0])
	for _, keyType := range []int8{3, -1, 127} {
		req := kmsg.NewPtrFindCoordinatorRequest()
		req.Version, req.CoordinatorType, req.CoordinatorKeys = 4, keyType, []string{"a", "b"}
		resp := roundTrip(t, c, req).(*kmsg.FindCoordinatorResponse)
		require.Len(t, resp.Coordinators, 2)
		for _, co := range resp.Coordinators {
			assert.Equal(t, int16(42), co.ErrorCode, "INVALID_REQUEST for type %d", keyType)
			assert.Equal(t, int32(-1), co.NodeID)
		}
		old := kmsg.NewPtrFindCoordinatorRequest()
		old.Version, old.CoordinatorType, old.CoordinatorKey = 3, keyType, "a"
		oresp := roundTrip(t, c, old).(*kmsg.FindCoordinatorResponse)
		assert.Equal(t, int16(42), oresp.ErrorCode, "INVALID_REQUEST for type %d at v3", keyType)
		assert.Equal(t, int32(-1), oresp.NodeID)
	}
	ok := kmsg.NewPtrFindCoordinatorRequest()
	ok.Version, ok.CoordinatorKeys = 4, []string{"a"}
	resp := roundTrip(t, c, ok).(*kmsg.FindCoordinatorResponse)
	require.Len(t, resp.Coordinators, 1)
	assert.Zero(t, resp.Coordinators[0].ErrorCode, "a group key is still answered")
}

// TestExcessiveNumberOfPartitionsCannotBeCreated reproduces
// ReplicationControlManagerTest's case of that name: a CreateTopics whose
// topics ask for more than 10000 partitions in total is refused whole with
// POLICY_VIOLATION, and none of its topics exists afterwards; 10000 in
// total is still served.
func TestExcessiveNumberOfPartitionsCannotBeCreated(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	c := dial(t, cl.Addrs()[0])
	create := func(validateOnly bool, topics map[string]int32, order ...string) *kmsg.CreateTopicsResponse {
		req := kmsg.NewPtrCreateTopicsRequest()
		req.Version, req.ValidateOnly = 7, validateOnly
		for _, name := range order {
			rt := kmsg.NewCreateTopicsRequestTopic()
			rt.Topic, rt.NumPartitions, rt.ReplicationFactor = name, topics[name], 1
			req.Topics = append(req.Topics, rt)
		}
		return roundTrip(t, c, req).(*kmsg.CreateTopicsResponse)
	}
	for _, validateOnly := range []bool{false, true} {
		resp := create(validateOnly, map[string]int32{"foo": 5000, "bar": 5000, "baz": 1}, "foo", "bar", "baz")
		require.Len(t, resp.Topics, 3)
		for _, st := range resp.Topics {
			assert.Equal(t, int16(44), st.ErrorCode, "POLICY_VIOLATION for %s", st.Topic)
			if assert.NotNil(t, st.ErrorMessage) {
				assert.Equal(t, "Excessively large number of partitions per request.", *st.ErrorMessage)
			}
		}
	}
	md := kmsg.NewPtrMetadataRequest()
	md.Version = 12
	mresp := roundTrip(t, c, md).(*kmsg.MetadataResponse)
	assert.Empty(t, dataTopics(mresp), "no topic of the refused request exists")

	resp := create(false, map[string]int32{"foo": 9999, "baz": 1}, "foo", "baz")
	require.Len(t, resp.Topics, 2)
	for _, st := range resp.Topics {
		assert.Zero(t, st.ErrorCode, "10000 partitions in total are served (%s)", st.Topic)
	}
}

// TestMetadataAutoCreateIsBounded proves one Metadata request cannot
// auto-create without bound: past 10000 partitions its topics answer
// LEADER_NOT_AVAILABLE and do not exist, and a later request creates them.
func TestMetadataAutoCreateIsBounded(t *testing.T) {
	t.Parallel()
	cl := startCluster(t, func(c *wire.Config) { c.NumPartitions = 4000 })
	c := dial(t, cl.Addrs()[0])
	metadata := func(names ...string) *kmsg.MetadataResponse {
		req := kmsg.NewPtrMetadataRequest()
		req.Version, req.AllowAutoTopicCreation = 12, true
		if names != nil {
			req.Topics = []kmsg.MetadataRequestTopic{}
		}
		for _, n := range names {
			rt := kmsg.NewMetadataRequestTopic()
			rt.Topic = kmsg.StringPtr(n)
			req.Topics = append(req.Topics, rt)
		}
		return roundTrip(t, c, req).(*kmsg.MetadataResponse)
	}
	codes := func(resp *kmsg.MetadataResponse) map[string]int16 {
		out := map[string]int16{}
		for _, mt := range dataTopics(resp) {
			out[*mt.Topic] = mt.ErrorCode
		}
		return out
	}
	assert.Equal(t, map[string]int16{"a": 0, "b": 0, "c": 5, "d": 5}, codes(metadata("a", "b", "c", "d")),
		"two topics of 4000 fit in 10000; the others are LEADER_NOT_AVAILABLE")
	assert.Equal(t, map[string]int16{"a": 0, "b": 0}, codes(metadata()), "only the created topics exist")
	assert.Equal(t, map[string]int16{"c": 0, "d": 0}, codes(metadata("c", "d")), "a later request creates them")
}

// TestCreateTopicsErrorOrder proves ReplicationControlManager.createTopics'
// order of checks and its messages: an existing topic is
// TOPIC_ALREADY_EXISTS whatever else is wrong with the request for it,
// then the name (Topic.validate's messages), then the replication factor,
// the partition count and last the placement (a replication factor over
// the broker count), and nothing refused is created.
func TestCreateTopicsErrorOrder(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	c := dial(t, cl.Addrs()[0])
	create := func(name string, partitions int32, rf int16) kmsg.CreateTopicsResponseTopic {
		req := kmsg.NewPtrCreateTopicsRequest()
		req.Version = 7
		req.Topics = []kmsg.CreateTopicsRequestTopic{{Topic: name, NumPartitions: partitions, ReplicationFactor: rf}}
		resp := roundTrip(t, c, req).(*kmsg.CreateTopicsResponse)
		require.Len(t, resp.Topics, 1)
		return resp.Topics[0]
	}
	require.Zero(t, create("exists", 2, 1).ErrorCode)
	for _, tc := range []struct {
		name       string
		partitions int32
		rf         int16
		code       int16
		msg        string
	}{
		{"exists", 0, 0, 36, "Topic 'exists' already exists."},
		{"fresh", 0, 0, 38, "Replication factor must be larger than 0, or -1 to use the default value."},
		{"fresh", 1, 4, 38, "Unable to replicate the partition 4 time(s): The target replication factor of 4 cannot be reached because only 3 broker(s) are registered."},
		{"fresh", -2, 1, 37, "Number of partitions was set to an invalid non-positive value."},
		{"fresh", 0, -1, 37, "Number of partitions was set to an invalid non-positive value."},
		// The partition count before the placement: a replication factor
		// over the broker count is found only when placing the replicas.
		{"fresh", 0, 9, 37, "Number of partitions was set to an invalid non-positive value."},
		// Topic.validate's messages, before everything but existence.
		{"", 0, 0, 17, "Topic name is invalid: the empty string is not allowed"},
		{".", 1, 1, 17, "Topic name is invalid: '.' is not allowed"},
		{"..", 1, 1, 17, "Topic name is invalid: '..' is not allowed"},
		{strings.Repeat("x", 250), 1, 1, 17, "Topic name is invalid: the length of '" + strings.Repeat("x", 250) + "' is longer than the max allowed length 249"},
		{"x y", 0, 0, 17, "Topic name is invalid: 'x y' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'"},
		// The offsets topic exists (the coordinators' log).
		{"__consumer_offsets", 0, 0, 36, "Topic '__consumer_offsets' already exists."},
		{"__consumer.offsets", 1, 1, 17, "Topic '__consumer.offsets' collides with existing topic: __consumer_offsets"},
	} {
		st := create(tc.name, tc.partitions, tc.rf)
		assert.Equal(t, tc.code, st.ErrorCode, "%s %d %d", tc.name, tc.partitions, tc.rf)
		if assert.NotNil(t, st.ErrorMessage) {
			assert.Equal(t, tc.msg, *st.ErrorMessage)
		}
	}
	md := kmsg.NewPtrMetadataRequest()
	md.Version = 12
	mresp := roundTrip(t, c, md).(*kmsg.MetadataResponse)
	topics := dataTopics(mresp)
	require.Len(t, topics, 1, "only the first topic exists")
	assert.Equal(t, "exists", *topics[0].Topic)
	assert.Len(t, topics[0].Partitions, 2, "and it kept its partitions")
}

// TestUnknownTopicCodes proves the per-partition code each data and offset
// API answers for a topic that does not exist, by name and by id, as
// KafkaApis answers them, and that an OffsetCommit to it stores nothing.
func TestUnknownTopicCodes(t *testing.T) {
	t.Parallel()
	cl := startCluster(t, func(c *wire.Config) { c.Brokers = 1 })
	c := dial(t, cl.Addrs()[0])
	const unknownTopic, unknownID = int16(3), int16(100)
	id := [16]byte{1, 2, 3}

	commit := func(version int16) int16 {
		req := kmsg.NewPtrOffsetCommitRequest()
		req.Version, req.Group, req.Generation = version, "g", -1
		rt := kmsg.NewOffsetCommitRequestTopic()
		rt.Topic, rt.TopicID = "nope", id
		rt.Partitions = []kmsg.OffsetCommitRequestTopicPartition{{Partition: 0, Offset: 5}}
		req.Topics = append(req.Topics, rt)
		resp := roundTrip(t, c, req).(*kmsg.OffsetCommitResponse)
		require.Len(t, resp.Topics, 1)
		require.Len(t, resp.Topics[0].Partitions, 1)
		return resp.Topics[0].Partitions[0].ErrorCode
	}
	assert.Equal(t, unknownTopic, commit(9), "OffsetCommit v9 by name")
	assert.Equal(t, unknownID, commit(10), "OffsetCommit v10 by id")

	produce := func(version int16) int16 {
		req := kmsg.NewPtrProduceRequest()
		req.Version, req.Acks, req.TimeoutMillis = version, -1, 1000
		rt := kmsg.NewProduceRequestTopic()
		rt.Topic, rt.TopicID = "nope", id
		rt.Partitions = []kmsg.ProduceRequestTopicPartition{{Partition: 0}}
		req.Topics = append(req.Topics, rt)
		resp := roundTrip(t, c, req).(*kmsg.ProduceResponse)
		return resp.Topics[0].Partitions[0].ErrorCode
	}
	assert.Equal(t, unknownTopic, produce(12), "Produce by name")
	assert.Equal(t, unknownID, produce(13), "Produce by id")

	fetch := func(version int16) int16 {
		req := kmsg.NewPtrFetchRequest()
		req.Version, req.MaxBytes = version, 1<<20
		rt := kmsg.NewFetchRequestTopic()
		rt.Topic, rt.TopicID = "nope", id
		rt.Partitions = []kmsg.FetchRequestTopicPartition{{Partition: 0, PartitionMaxBytes: 1 << 20}}
		req.Topics = append(req.Topics, rt)
		resp := roundTrip(t, c, req).(*kmsg.FetchResponse)
		return resp.Topics[0].Partitions[0].ErrorCode
	}
	assert.Equal(t, unknownTopic, fetch(12), "Fetch by name")
	assert.Equal(t, unknownID, fetch(13), "Fetch by id")

	lo := kmsg.NewPtrListOffsetsRequest()
	lo.Version, lo.ReplicaID = 9, -1
	lt := kmsg.NewListOffsetsRequestTopic()
	lt.Topic = "nope"
	lt.Partitions = []kmsg.ListOffsetsRequestTopicPartition{{Partition: 0, Timestamp: -1}}
	lo.Topics = append(lo.Topics, lt)
	loResp := roundTrip(t, c, lo).(*kmsg.ListOffsetsResponse)
	assert.Equal(t, unknownTopic, loResp.Topics[0].Partitions[0].ErrorCode, "ListOffsets")

	of := kmsg.NewPtrOffsetFetchRequest()
	of.Version, of.Group = 7, "g"
	ofResp := roundTrip(t, c, of).(*kmsg.OffsetFetchResponse)
	assert.Empty(t, ofResp.Topics, "the refused commit stored nothing")
}

// TestCreateTopicsDuplicateNames reproduces ControllerApisTest's
// duplicate-name case of testCreateTopics: a name given more than once is
// answered once, after the others, with INVALID_REQUEST "Duplicate topic
// name." and is not created; the other topics of the request are.
func TestCreateTopicsDuplicateNames(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	c := dial(t, cl.Addrs()[0])
	req := kmsg.NewPtrCreateTopicsRequest()
	req.Version = 7
	for _, name := range []string{"foo", "bar", "foo", "baz", "bar", "foo"} {
		rt := kmsg.NewCreateTopicsRequestTopic()
		rt.Topic, rt.NumPartitions, rt.ReplicationFactor = name, 2, 1
		req.Topics = append(req.Topics, rt)
	}
	resp := roundTrip(t, c, req).(*kmsg.CreateTopicsResponse)
	type row struct {
		topic string
		code  int16
		msg   string
	}
	var rows []row
	for _, st := range resp.Topics {
		msg := ""
		if st.ErrorMessage != nil {
			msg = *st.ErrorMessage
		}
		rows = append(rows, row{st.Topic, st.ErrorCode, msg})
	}
	assert.Equal(t, []row{{"baz", 0, ""}, {"foo", 42, "Duplicate topic name."}, {"bar", 42, "Duplicate topic name."}}, rows)

	md := kmsg.NewPtrMetadataRequest()
	md.Version, md.AllowAutoTopicCreation = 12, false
	for _, name := range []string{"foo", "bar", "baz"} {
		mt := kmsg.NewMetadataRequestTopic()
		mt.Topic = kmsg.StringPtr(name)
		md.Topics = append(md.Topics, mt)
	}
	mresp := roundTrip(t, c, md).(*kmsg.MetadataResponse)
	exists := map[string]bool{}
	for _, mt := range mresp.Topics {
		exists[*mt.Topic] = mt.ErrorCode == 0
	}
	assert.Equal(t, map[string]bool{"foo": false, "bar": false, "baz": true}, exists, "only the topic named once is created")
}

// TestShareErrorPlacement proves where ShareFetch and ShareAcknowledge put
// their errors, as Kafka's KafkaApis and SharePartitionManager do: session
// errors are top-level with no partitions (INVALID_SHARE_SESSION_EPOCH,
// SHARE_SESSION_NOT_FOUND); a partition error is the partition's
// (UNKNOWN_TOPIC_ID, UNKNOWN_TOPIC_OR_PARTITION, and for a fetch from a
// broker that does not lead the partition NOT_LEADER_OR_FOLLOWER with the
// leader in CurrentLeader and NodeEndpoints, CurrentLeader staying -1
// elsewhere); a piggy-backed acknowledgement's error goes to
// AcknowledgeErrorCode (UNKNOWN_TOPIC_ID for every partition of an unknown
// topic, UNKNOWN_TOPIC_OR_PARTITION where the broker holds no
// share-partition); a ShareAcknowledge partition without batches answers
// NONE.
func TestShareErrorPlacement(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	c := dial(t, cl.Addrs()[0])
	ct := kmsg.NewPtrCreateTopicsRequest()
	ct.Version = 7
	ct.Topics = []kmsg.CreateTopicsRequestTopic{{Topic: "t", NumPartitions: 3, ReplicationFactor: 1}}
	created := roundTrip(t, c, ct).(*kmsg.CreateTopicsResponse)
	require.Zero(t, created.Topics[0].ErrorCode)
	id, unknown := created.Topics[0].TopicID, [16]byte{9, 9, 9}
	group, member := "g", "AAAAAAAAAAAAAAAAAAAAAA"
	const (
		none, unknownTP, notLeader, unknownID = 0, 3, 6, 100
	)
	type part struct {
		topic [16]byte
		p     int32
		acks  bool
	}
	fetch := func(epoch int32, parts ...part) *kmsg.ShareFetchResponse {
		req := kmsg.NewPtrShareFetchRequest()
		req.Version, req.GroupID, req.MemberID, req.ShareSessionEpoch = 1, &group, &member, epoch
		req.MaxRecords, req.BatchSize, req.MaxBytes = 10, 10, 1<<20
		for _, pt := range parts {
			rt := kmsg.NewShareFetchRequestTopic()
			rt.TopicID = pt.topic
			rp := kmsg.NewShareFetchRequestTopicPartition()
			rp.Partition = pt.p
			if pt.acks {
				b := kmsg.NewShareFetchRequestTopicPartitionAcknowledgementBatch()
				b.FirstOffset, b.LastOffset, b.AcknowledgeTypes = 0, 0, []int8{1}
				rp.AcknowledgementBatches = append(rp.AcknowledgementBatches, b)
			}
			rt.Partitions = append(rt.Partitions, rp)
			req.Topics = append(req.Topics, rt)
		}
		return roundTrip(t, c, req).(*kmsg.ShareFetchResponse)
	}
	type row struct {
		p                 int32
		code, ack, leader int32
	}
	rowsOf := func(resp *kmsg.ShareFetchResponse) map[[16]byte][]row {
		out := map[[16]byte][]row{}
		for _, rt := range resp.Topics {
			for _, rp := range rt.Partitions {
				out[rt.TopicID] = append(out[rt.TopicID], row{rp.Partition, int32(rp.ErrorCode), int32(rp.AcknowledgeErrorCode), rp.CurrentLeader.LeaderID})
			}
		}
		return out
	}

	first := fetch(0, part{id, 0, false}, part{id, 1, false}, part{id, 7, false}, part{unknown, 0, false})
	require.Zero(t, first.ErrorCode)
	assert.Equal(t, map[[16]byte][]row{
		id:      {{0, none, none, -1}, {1, notLeader, none, 1}, {7, unknownTP, none, -1}},
		unknown: {{0, unknownID, none, -1}},
	}, rowsOf(first))
	require.Len(t, first.NodeEndpoints, 1)
	assert.Equal(t, int32(1), first.NodeEndpoints[0].NodeID, "the leader named by CurrentLeader")

	second := fetch(1, part{id, 1, true}, part{unknown, 0, false}, part{unknown, 1, false})
	require.Zero(t, second.ErrorCode)
	assert.Equal(t, map[[16]byte][]row{
		id:      {{1, notLeader, unknownTP, 1}},
		unknown: {{0, unknownID, unknownID, -1}, {1, unknownID, unknownID, -1}},
	}, rowsOf(second), "acknowledgement errors in AcknowledgeErrorCode")

	ack := func(epoch int32, parts ...part) *kmsg.ShareAcknowledgeResponse {
		req := kmsg.NewPtrShareAcknowledgeRequest()
		req.Version, req.GroupID, req.MemberID, req.ShareSessionEpoch = 1, &group, &member, epoch
		for _, pt := range parts {
			rt := kmsg.NewShareAcknowledgeRequestTopic()
			rt.TopicID = pt.topic
			rp := kmsg.NewShareAcknowledgeRequestTopicPartition()
			rp.Partition = pt.p
			if pt.acks {
				b := kmsg.NewShareAcknowledgeRequestTopicPartitionAcknowledgementBatch()
				b.FirstOffset, b.LastOffset, b.AcknowledgeTypes = 0, 0, []int8{1}
				rp.AcknowledgementBatches = append(rp.AcknowledgementBatches, b)
			}
			rt.Partitions = append(rt.Partitions, rp)
			req.Topics = append(req.Topics, rt)
		}
		return roundTrip(t, c, req).(*kmsg.ShareAcknowledgeResponse)
	}
	acked := ack(2, part{id, 0, false}, part{id, 1, true}, part{unknown, 0, true})
	require.Zero(t, acked.ErrorCode)
	got := map[[16]byte][]row{}
	for _, rt := range acked.Topics {
		for _, rp := range rt.Partitions {
			got[rt.TopicID] = append(got[rt.TopicID], row{rp.Partition, int32(rp.ErrorCode), 0, rp.CurrentLeader.LeaderID})
		}
	}
	assert.Equal(t, map[[16]byte][]row{
		id:      {{0, none, 0, -1}, {1, unknownTP, 0, -1}},
		unknown: {{0, unknownID, 0, -1}},
	}, got)
	assert.Empty(t, acked.NodeEndpoints)

	wrongEpoch := ack(7, part{id, 0, true})
	assert.Equal(t, fkerr.InvalidShareSessionEpoch.Code, wrongEpoch.ErrorCode, "INVALID_SHARE_SESSION_EPOCH, top-level")
	assert.Empty(t, wrongEpoch.Topics)
	member = "BBBBBBBBBBBBBBBBBBBBBB"
	noSession := fetch(3, part{id, 0, false})
	assert.Equal(t, fkerr.ShareSessionNotFound.Code, noSession.ErrorCode, "SHARE_SESSION_NOT_FOUND, top-level")
	assert.Empty(t, noSession.Topics)
}

// TestFetchSessions proves KIP-227's incremental fetch sessions as Kafka's
// FetchManager keeps them: a full request (epoch 0) opens a session and is
// answered in full with its id; an incremental request at the session's
// next epoch names only what changed and is answered only with the
// partitions that have something new (records, a high watermark), not the
// others; it can add a partition and forget one; a wrong epoch is
// INVALID_FETCH_SESSION_EPOCH and an unknown id FETCH_SESSION_ID_NOT_FOUND,
// top-level with no partitions; epoch -1 closes the session and is served
// without one.
func TestFetchSessions(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	c := dial(t, cl.Addrs()[0])
	ct := kmsg.NewPtrCreateTopicsRequest()
	ct.Version = 7
	ct.Topics = []kmsg.CreateTopicsRequestTopic{{Topic: "t", NumPartitions: 4, ReplicationFactor: 1}}
	require.Zero(t, roundTrip(t, c, ct).(*kmsg.CreateTopicsResponse).Topics[0].ErrorCode)
	type part struct {
		p      int32
		offset int64
	}
	fetch := func(sessionID, epoch int32, parts []part, forget ...int32) *kmsg.FetchResponse {
		fr := kmsg.NewPtrFetchRequest()
		fr.Version, fr.MaxWaitMillis, fr.MaxBytes, fr.SessionID, fr.SessionEpoch = 12, 0, 1<<20, sessionID, epoch
		rt := kmsg.NewFetchRequestTopic()
		rt.Topic = "t"
		for _, pt := range parts {
			rp := kmsg.NewFetchRequestTopicPartition()
			rp.Partition, rp.FetchOffset, rp.PartitionMaxBytes = pt.p, pt.offset, 1<<20
			rt.Partitions = append(rt.Partitions, rp)
		}
		if len(parts) > 0 {
			fr.Topics = append(fr.Topics, rt)
		}
		if len(forget) > 0 {
			fr.ForgottenTopics = []kmsg.FetchRequestForgottenTopic{{Topic: "t", Partitions: forget}}
		}
		return roundTrip(t, c, fr).(*kmsg.FetchResponse)
	}
	// answered lists the partitions an answer holds, with their high
	// watermark and whether records came.
	type answer struct {
		p       int32
		hwm     int64
		records bool
	}
	answered := func(resp *kmsg.FetchResponse) []answer {
		require.Zero(t, resp.ErrorCode)
		var out []answer
		for _, rt := range resp.Topics {
			for _, rp := range rt.Partitions {
				require.Zero(t, rp.ErrorCode)
				out = append(out, answer{rp.Partition, rp.HighWatermark, len(rp.RecordBatches) > 0})
			}
		}
		return out
	}

	full := fetch(0, 0, []part{{0, 0}})
	id := full.SessionID
	require.NotZero(t, id, "a full request opens a session")
	assert.Equal(t, []answer{{0, 0, false}}, answered(full))
	none := fetch(id, 1, nil)
	assert.Equal(t, id, none.SessionID)
	assert.Empty(t, answered(none), "nothing changed: no partition")

	prod := newClient(t, cl, kgo.DefaultProduceTopic("t"), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	require.NoError(t, prod.ProduceSync(testContext(t), &kgo.Record{Partition: 0, Value: []byte("x")}).FirstErr())
	assert.Equal(t, []answer{{0, 1, true}}, answered(fetch(id, 2, nil)), "new records: the partition, from its cached offset")
	assert.Equal(t, []answer{{0, 1, true}}, answered(fetch(id, 3, []part{{0, 0}})), "the client may name a partition again")
	assert.Empty(t, answered(fetch(id, 4, []part{{0, 1}})), "at the end: nothing new")

	wrong := fetch(id, 4, nil)
	assert.Equal(t, fkerr.InvalidFetchSessionEpoch.Code, wrong.ErrorCode, "an epoch already used")
	assert.Empty(t, wrong.Topics)
	unknown := fetch(id+100, 1, nil)
	assert.Equal(t, fkerr.FetchSessionIDNotFound.Code, unknown.ErrorCode)
	assert.Empty(t, unknown.Topics)

	assert.Equal(t, []answer{{3, 0, false}}, answered(fetch(id, 5, []part{{3, 0}}, 0)), "an added partition is answered once; the forgotten one is gone")
	require.NoError(t, prod.ProduceSync(testContext(t), &kgo.Record{Partition: 0, Value: []byte("y")}).FirstErr())
	assert.Empty(t, answered(fetch(id, 6, nil)), "records on a forgotten partition are not answered")

	closing := fetch(id, -1, []part{{0, 0}})
	assert.Zero(t, closing.SessionID, "epoch -1 is served without a session")
	assert.Equal(t, []answer{{0, 2, true}}, answered(closing))
	assert.Equal(t, fkerr.FetchSessionIDNotFound.Code, fetch(id, 7, nil).ErrorCode, "and closed it")
	again := fetch(0, 0, []part{{0, 2}})
	assert.NotZero(t, again.SessionID)
	assert.NotEqual(t, id, again.SessionID, "a new session, a new id")
}

// TestFindCoordinatorShareKeysAndMessagesAsKafka proves FindCoordinator's
// share keys and messages as the real Kafka 4.4 broker answers them
// (oracle/brokerdiff): a share key is checked as
// SharePartitionKey.getInstance checks it and only at v6; a v4+ key's
// message is "" found or refused; a v3 answer says "NONE" when found and
// INVALID_REQUEST's default message when refused.
func TestFindCoordinatorShareKeysAndMessagesAsKafka(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	c := dial(t, cl.Addrs()[0])
	const id = "AAAAAAAAAAAAAAAAAAAAAQ" // a topic id as Uuid.toString writes it
	find := func(version int16, keyType int8, key string) kmsg.FindCoordinatorResponseCoordinator {
		req := kmsg.NewPtrFindCoordinatorRequest()
		req.Version, req.CoordinatorType, req.CoordinatorKeys = version, keyType, []string{key}
		resp := roundTrip(t, c, req).(*kmsg.FindCoordinatorResponse)
		require.Len(t, resp.Coordinators, 1)
		return resp.Coordinators[0]
	}
	for _, tc := range []struct {
		key  string
		code int16
	}{
		{"g:" + id + ":0", 0},
		{"g:" + id + "==:0", 0}, // padded
		{"g:h:" + id + ":0", 0}, // the group is every part but the last two
		{"g:" + id + ":0:", 0},  // Java's split drops the trailing empty part
		{" :" + id + ":0", 42},  // blank group
		{"g:not-a-uuid:0", 42},  // topic id
		{"g:" + id + ":x", 42},  // partition
		{"g:" + id + ":99999999999", 42},
		{"g", 42},
		{"", 42},
	} {
		got := find(6, 2, tc.key)
		assert.Equal(t, tc.code, got.ErrorCode, "share key %q", tc.key)
		require.NotNil(t, got.ErrorMessage, tc.key)
		assert.Equal(t, "", *got.ErrorMessage, "share key %q: Kafka never sets a v4+ key's message", tc.key)
	}
	assert.Equal(t, int16(42), find(5, 2, "g:"+id+":0").ErrorCode, "a share key below v6")
	assert.Equal(t, "", *find(4, 0, "g").ErrorMessage, "a group key found at v4")

	old := func(keyType int8, key string) *kmsg.FindCoordinatorResponse {
		req := kmsg.NewPtrFindCoordinatorRequest()
		req.Version, req.CoordinatorType, req.CoordinatorKey = 3, keyType, key
		return roundTrip(t, c, req).(*kmsg.FindCoordinatorResponse)
	}
	found := old(0, "g")
	assert.Zero(t, found.ErrorCode)
	assert.Equal(t, "NONE", *found.ErrorMessage, "Errors.NONE.message()")
	for _, keyType := range []int8{2, 9} {
		refused := old(keyType, "g:"+id+":0")
		assert.Equal(t, int16(42), refused.ErrorCode, "type %d at v3", keyType)
		assert.True(t, strings.HasPrefix(*refused.ErrorMessage, "This most likely occurs because of a request being malformed"),
			"type %d at v3: %s", keyType, *refused.ErrorMessage)
	}
}

// TestListGroupsProtocolTypeOfStreamsGroup proves ListGroups lists a
// streams group with protocol type "streams" (Kafka 4.4's
// StreamsGroup.asListedGroup; the real broker answers so, oracle/brokerdiff)
// and a consumer group with "consumer".
func TestListGroupsProtocolTypeOfStreamsGroup(t *testing.T) {
	t.Parallel()
	cl := startCluster(t, func(c *wire.Config) { c.Coordinator.StreamsInitialRebalanceDelay = 0 })
	ctx := testContext(t)
	createTopic(t, ctx, newAdmin(t, cl), "t", 1)
	raw := newClient(t, cl)
	join := kmsg.NewPtrStreamsGroupHeartbeatRequest()
	join.Group, join.MemberID, join.RebalanceTimeoutMillis = "streams-listed", "st1", 30000
	join.ProcessID, join.Topology = kmsg.StringPtr("p"), oneSubtopology("t")
	noOwnedTasks(join)
	resp := coordinatorOf(t, ctx, cl, "streams-listed")(join).(*kmsg.StreamsGroupHeartbeatResponse)
	require.Zero(t, resp.ErrorCode, "%v", resp.ErrorMessage)
	cg := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	cg.Group, cg.MemberID, cg.RebalanceTimeoutMillis = "consumer-listed", "c1", 30000
	cg.SubscribedTopicNames, cg.Topics = []string{"t"}, []kmsg.ConsumerGroupHeartbeatRequestTopic{}
	cresp, err := cg.RequestWith(ctx, raw)
	require.NoError(t, err)
	require.Zero(t, cresp.ErrorCode)
	listed, err := kmsg.NewPtrListGroupsRequest().RequestWith(ctx, raw)
	require.NoError(t, err)
	types := map[string]string{}
	for _, g := range listed.Groups {
		types[g.Group] = g.ProtocolType
	}
	assert.Equal(t, "streams", types["streams-listed"])
	assert.Equal(t, "consumer", types["consumer-listed"])
}
