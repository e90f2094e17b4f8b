package wire_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/wire"
)

// Offset API answers over the wire, compared with Kafka's request tests
// (core's OffsetCommitRequestTest, OffsetFetchRequestTest): raw requests at
// the exact version, each sent to the group's coordinator.

// rawCoordinators sends each request, at its own version, on a raw
// connection to the coordinator of the given group.
type rawCoordinators struct {
	t     *testing.T
	cl    *wire.Cluster
	conns map[int32]func(kmsg.Request) kmsg.Response
}

func newRawCoordinators(t *testing.T, cl *wire.Cluster) *rawCoordinators {
	return &rawCoordinators{t: t, cl: cl, conns: map[int32]func(kmsg.Request) kmsg.Response{}}
}

func (r *rawCoordinators) send(group string, req kmsg.Request) kmsg.Response {
	r.t.Helper()
	node, err := r.cl.CoordinatorFor(coordinator.PartitionFor(group, 50))
	require.NoError(r.t, err)
	send, ok := r.conns[node]
	if !ok {
		c := dial(r.t, r.cl.Addrs()[node])
		send = func(req kmsg.Request) kmsg.Response { return roundTrip(r.t, c, req) }
		r.conns[node] = send
	}
	return send(req)
}

// joinConsumer joins member to group with a ConsumerGroupHeartbeat v1 and
// returns its member epoch.
func (r *rawCoordinators) joinConsumer(group, member string, topics ...string) int32 {
	r.t.Helper()
	hb := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	hb.Version = 1
	hb.Group, hb.MemberID, hb.MemberEpoch = group, member, 0
	hb.RebalanceTimeoutMillis, hb.SubscribedTopicNames = 5000, topics
	hb.Topics = []kmsg.ConsumerGroupHeartbeatRequestTopic{}
	resp := r.send(group, hb).(*kmsg.ConsumerGroupHeartbeatResponse)
	require.Zero(r.t, resp.ErrorCode, "join: %v", resp.ErrorMessage)
	return resp.MemberEpoch
}

// commit sends an OffsetCommit of one partition of foo and returns its code.
func (r *rawCoordinators) commit(version int16, group, member string, generation int32, partition int32, offset int64, metadata string, topicID [16]byte) int16 {
	r.t.Helper()
	req := kmsg.NewPtrOffsetCommitRequest()
	req.Version, req.Group, req.MemberID, req.Generation = version, group, member, generation
	rt := kmsg.NewOffsetCommitRequestTopic()
	rt.Topic, rt.TopicID = "foo", topicID
	rp := kmsg.NewOffsetCommitRequestTopicPartition()
	rp.Partition, rp.Offset, rp.LeaderEpoch, rp.Metadata = partition, offset, -1, &metadata
	rt.Partitions = []kmsg.OffsetCommitRequestTopicPartition{rp}
	req.Topics = []kmsg.OffsetCommitRequestTopic{rt}
	resp := r.send(group, req).(*kmsg.OffsetCommitResponse)
	require.Len(r.t, resp.Topics, 1)
	require.Len(r.t, resp.Topics[0].Partitions, 1)
	return resp.Topics[0].Partitions[0].ErrorCode
}

// fetch sends an OffsetFetch v9 for one group (nil partitions: every
// offset) and returns the group's code and "topic-partition=offset" rows.
func (r *rawCoordinators) fetch(group string, member *string, epoch int32, partitions []int32) (int16, []string) {
	r.t.Helper()
	req := kmsg.NewPtrOffsetFetchRequest()
	req.Version = 9
	g := kmsg.NewOffsetFetchRequestGroup()
	g.Group, g.MemberID, g.MemberEpoch = group, member, epoch
	if partitions != nil {
		gt := kmsg.NewOffsetFetchRequestGroupTopic()
		gt.Topic, gt.Partitions = "foo", partitions
		g.Topics = []kmsg.OffsetFetchRequestGroupTopic{gt}
	}
	req.Groups = []kmsg.OffsetFetchRequestGroup{g}
	resp := r.send(group, req).(*kmsg.OffsetFetchResponse)
	require.Len(r.t, resp.Groups, 1)
	var rows []string
	for _, t := range resp.Groups[0].Topics {
		for _, p := range t.Partitions {
			rows = append(rows, fmt.Sprintf("%s-%d=%d/%d", t.Topic, p.Partition, p.Offset, p.ErrorCode))
		}
	}
	return resp.Groups[0].ErrorCode, rows
}

func (r *rawCoordinators) topicID(topic string) [16]byte {
	r.t.Helper()
	md := kmsg.NewPtrMetadataRequest()
	md.Version = 12
	rt := kmsg.NewMetadataRequestTopic()
	rt.Topic = kmsg.StringPtr(topic)
	md.Topics = []kmsg.MetadataRequestTopic{rt}
	resp := r.send(topic, md).(*kmsg.MetadataResponse)
	require.Len(r.t, resp.Topics, 1)
	require.Zero(r.t, resp.Topics[0].ErrorCode)
	return resp.Topics[0].TopicID
}

// TestOffsetCommitRequestNewProtocol reproduces
// OffsetCommitRequestTest.testOffsetCommit(useNewProtocol = true): a
// KIP-848 member commits at every OffsetCommit version. Below v9 its own
// epoch and epoch + 1 are UNSUPPORTED_VERSION (ConsumerGroup.validateOffsetCommit
// checks the version after the member lookup), a group that does not
// exist is ILLEGAL_GENERATION and, from v9, GROUP_ID_NOT_FOUND
// (OffsetMetadataManager.validateOffsetCommit); the empty group id "" is
// such a group. Only the accepted commits write: the refused ones change
// no offset and create no group.
func TestOffsetCommitRequestNewProtocol(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	ctx := testContext(t)
	createTopic(t, ctx, newAdmin(t, cl), "foo", 3)
	r := newRawCoordinators(t, cl)
	epoch := r.joinConsumer("grp", "m1", "foo")
	id := r.topicID("foo")
	for v := int16(2); v <= 10; v++ {
		var topicID [16]byte
		if v >= 10 {
			topicID = id
		}
		want := func(from9, before9 int16) int16 {
			if v >= 9 {
				return from9
			}
			return before9
		}
		assert.Equal(t, want(0, 35), r.commit(v, "grp", "m1", epoch, 0, 100+int64(v), "", topicID), "v%d: own epoch", v)
		assert.Equal(t, want(69, 22), r.commit(v, "unknown", "m1", epoch, 0, 999, "", topicID), "v%d: unknown group", v)
		assert.Equal(t, want(113, 35), r.commit(v, "grp", "m1", epoch+1, 0, 999, "", topicID), "v%d: epoch + 1", v)
		assert.Equal(t, want(69, 22), r.commit(v, "", "m1", epoch, 0, 999, "", topicID), "v%d: the empty group id", v)
	}
	m1 := "m1"
	code, rows := r.fetch("grp", &m1, epoch, []int32{0})
	assert.Zero(t, code)
	assert.Equal(t, []string{"foo-0=110/0"}, rows, "the v10 commit is the last accepted one")
	d := kmsg.NewPtrDescribeGroupsRequest()
	d.Version, d.Groups = 5, []string{"unknown"}
	assert.Equal(t, "Dead", r.send("unknown", d).(*kmsg.DescribeGroupsResponse).Groups[0].State, "no group was created")
	d.Groups = []string{""}
	assert.Equal(t, "Dead", r.send("", d).(*kmsg.DescribeGroupsResponse).Groups[0].State, "no group was created")
}

// TestOffsetRequestsWithEmptyGroupID reproduces the empty group id cases of
// OffsetCommitRequestTest and OffsetFetchRequestTest.testSingleGroupOffsetFetch
// ("Fetch with empty group id"), and the DescribeGroups and DeleteGroups
// answers that follow from GroupCoordinatorService refusing only a null id
// there: "" is an ordinary group that a commit with generation -1 creates,
// a fetch reads, DescribeGroups describes and DeleteGroups deletes.
// TxnOffsetCommit, OffsetDelete and ConsumerGroupDescribe still refuse ""
// with INVALID_GROUP_ID (isGroupIdNotEmpty) and change nothing.
func TestOffsetRequestsWithEmptyGroupID(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	ctx := testContext(t)
	createTopic(t, ctx, newAdmin(t, cl), "foo", 3)
	r := newRawCoordinators(t, cl)
	epoch := r.joinConsumer("grp", "m1", "foo")
	m1 := "m1"

	code, rows := r.fetch("", &m1, epoch, []int32{0, 1, 5})
	assert.Zero(t, code, "fetch with empty group id")
	assert.Equal(t, []string{"foo-0=-1/0", "foo-1=-1/0", "foo-5=-1/0"}, rows)

	// Refused: TxnOffsetCommit and OffsetDelete of "".
	txn := kmsg.NewPtrTxnOffsetCommitRequest()
	txn.Version, txn.TransactionalID, txn.Group, txn.ProducerID, txn.Generation = 3, "tx", "", 5, -1
	tt := kmsg.NewTxnOffsetCommitRequestTopic()
	tt.Topic = "foo"
	tp := kmsg.NewTxnOffsetCommitRequestTopicPartition()
	tp.Partition, tp.Offset = 0, 999
	tt.Partitions = []kmsg.TxnOffsetCommitRequestTopicPartition{tp}
	txn.Topics = []kmsg.TxnOffsetCommitRequestTopic{tt}
	assert.Equal(t, int16(24), r.send("", txn).(*kmsg.TxnOffsetCommitResponse).Topics[0].Partitions[0].ErrorCode)
	del := kmsg.NewPtrOffsetDeleteRequest()
	del.Group = ""
	dt := kmsg.NewOffsetDeleteRequestTopic()
	dt.Topic, dt.Partitions = "foo", []kmsg.OffsetDeleteRequestTopicPartition{{Partition: 0}}
	del.Topics = []kmsg.OffsetDeleteRequestTopic{dt}
	assert.Equal(t, int16(24), r.send("", del).(*kmsg.OffsetDeleteResponse).ErrorCode)
	cgd := kmsg.NewPtrConsumerGroupDescribeRequest()
	cgd.Groups = []string{""}
	assert.Equal(t, int16(24), r.send("", cgd).(*kmsg.ConsumerGroupDescribeResponse).Groups[0].ErrorCode)
	describe := func(version int16) kmsg.DescribeGroupsResponseGroup {
		d := kmsg.NewPtrDescribeGroupsRequest()
		d.Version, d.Groups = version, []string{""}
		groups := r.send("", d).(*kmsg.DescribeGroupsResponse).Groups
		require.Len(t, groups, 1)
		return groups[0]
	}
	assert.Equal(t, "Dead", describe(5).State, "nothing created \"\"")
	g := describe(6)
	assert.Equal(t, int16(69), g.ErrorCode)
	if assert.NotNil(t, g.ErrorMessage) {
		assert.Equal(t, "Group  not found.", *g.ErrorMessage)
	}

	// Accepted: an admin commit creates the simple group "".
	assert.Equal(t, int16(0), r.commit(9, "", "", -1, 0, 42, "", [16]byte{}))
	code, rows = r.fetch("", nil, -1, nil)
	assert.Zero(t, code)
	assert.Equal(t, []string{"foo-0=42/0"}, rows, "only the accepted commit wrote")
	g = describe(5)
	assert.Equal(t, int16(0), g.ErrorCode)
	assert.Equal(t, "Empty", g.State)
	v1 := kmsg.NewPtrOffsetFetchRequest()
	v1.Version, v1.Group = 1, ""
	ft := kmsg.NewOffsetFetchRequestTopic()
	ft.Topic, ft.Partitions = "foo", []int32{0}
	v1.Topics = []kmsg.OffsetFetchRequestTopic{ft}
	v1resp := r.send("", v1).(*kmsg.OffsetFetchResponse)
	require.Len(t, v1resp.Topics, 1)
	assert.Equal(t, int64(42), v1resp.Topics[0].Partitions[0].Offset, "OffsetFetch v1 of \"\"")

	deleteGroup := func() int16 {
		dg := kmsg.NewPtrDeleteGroupsRequest()
		dg.Version, dg.Groups = 2, []string{""}
		groups := r.send("", dg).(*kmsg.DeleteGroupsResponse).Groups
		require.Len(t, groups, 1)
		return groups[0].ErrorCode
	}
	assert.Equal(t, int16(0), deleteGroup())
	code, rows = r.fetch("", nil, -1, []int32{0})
	assert.Zero(t, code)
	assert.Equal(t, []string{"foo-0=-1/0"}, rows, "DeleteGroups deleted the offsets of \"\"")
	assert.Equal(t, int16(69), deleteGroup(), "already deleted")
}

// TestOffsetFetchOfShareGroup reproduces OffsetMetadataManager.fetchOffsets
// and fetchAllOffsets on a share group (ShareGroup.validateOffsetFetch's
// GroupIdNotFoundException is caught): no error, offset -1 for each listed
// partition and no topics for "all".
func TestOffsetFetchOfShareGroup(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	ctx := testContext(t)
	createTopic(t, ctx, newAdmin(t, cl), "foo", 3)
	r := newRawCoordinators(t, cl)
	hb := kmsg.NewPtrShareGroupHeartbeatRequest()
	hb.Version = 1
	hb.GroupID, hb.MemberID, hb.MemberEpoch, hb.SubscribedTopicNames = "sg", "m1", 0, []string{"foo"}
	require.Zero(t, r.send("sg", hb).(*kmsg.ShareGroupHeartbeatResponse).ErrorCode)

	code, rows := r.fetch("sg", nil, -1, []int32{0, 1})
	assert.Zero(t, code)
	assert.Equal(t, []string{"foo-0=-1/0", "foo-1=-1/0"}, rows)
	code, rows = r.fetch("sg", nil, -1, nil)
	assert.Zero(t, code)
	assert.Empty(t, rows)
	// A commit to the share group is still GROUP_ID_NOT_FOUND.
	assert.Equal(t, int16(69), r.commit(9, "sg", "", -1, 0, 1, "", [16]byte{}))
}

// TestSimpleGroupOffsetCommit reproduces ClassicGroup.validateOffsetCommit
// on a simple group over the wire: a negative generation commits whatever
// the member id, any other generation is UNKNOWN_MEMBER_ID and writes
// nothing.
func TestSimpleGroupOffsetCommit(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	ctx := testContext(t)
	createTopic(t, ctx, newAdmin(t, cl), "foo", 3)
	r := newRawCoordinators(t, cl)
	assert.Equal(t, int16(0), r.commit(9, "simple", "", -1, 0, 1, "", [16]byte{}), "admin commit")
	assert.Equal(t, int16(0), r.commit(9, "simple", "foo", -1, 0, 2, "", [16]byte{}), "member id with generation -1")
	assert.Equal(t, int16(25), r.commit(9, "simple", "", 5, 0, 999, "", [16]byte{}), "generation 5")
	assert.Equal(t, int16(25), r.commit(8, "simple", "foo", 0, 0, 999, "", [16]byte{}), "member and generation 0 at v8")
	_, rows := r.fetch("simple", nil, -1, []int32{0})
	assert.Equal(t, []string{"foo-0=2/0"}, rows)
}

// TestOffsetCommitMetadataSizeInJavaChars reproduces
// OffsetMetadataManager.isMetadataInvalid (metadata.length() >
// offset.metadata.max.bytes): 4096 "é" are 4096 Java chars and fit; 4097
// ASCII chars are OFFSET_METADATA_TOO_LARGE and write nothing.
func TestOffsetCommitMetadataSizeInJavaChars(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	ctx := testContext(t)
	createTopic(t, ctx, newAdmin(t, cl), "foo", 3)
	r := newRawCoordinators(t, cl)
	assert.Equal(t, int16(0), r.commit(9, "g", "", -1, 0, 1, strings.Repeat("é", 4096), [16]byte{}))
	assert.Equal(t, int16(12), r.commit(9, "g", "", -1, 1, 1, strings.Repeat("x", 4097), [16]byte{}))
	_, rows := r.fetch("g", nil, -1, []int32{0, 1})
	assert.Equal(t, []string{"foo-0=1/0", "foo-1=-1/0"}, rows)
}
