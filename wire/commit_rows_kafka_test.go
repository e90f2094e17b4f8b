package wire_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/wire"
)

// The rows KafkaApis answers itself in OffsetCommit, TxnOffsetCommit and
// OffsetDelete (an unknown topic id, topic or partition) are put in the
// response builder before the coordinator is called, and the coordinator's
// answer is merged after them (OffsetCommitResponse.Builder.merge and its
// TxnOffsetCommit and OffsetDelete twins): they come first, and they keep
// their own code when the coordinator fails the request as a whole, because
// GroupCoordinatorService answers getErrorResponse of the request it was
// given, which holds only the partitions that passed.

// rowsOf renders per-partition rows as "topic:partition=code", topic by
// topic, in response order.
func rowsOf[T any](topics []T, each func(T) (string, []string)) []string {
	var out []string
	for _, t := range topics {
		name, parts := each(t)
		for _, p := range parts {
			out = append(out, name+":"+p)
		}
	}
	return out
}

func txnCommit(version int16, group, member string, generation int32, topics map[string][]int32, order ...string) *kmsg.TxnOffsetCommitRequest {
	req := kmsg.NewPtrTxnOffsetCommitRequest()
	req.Version, req.TransactionalID, req.Group, req.ProducerID = version, "tx", group, 7
	req.MemberID, req.Generation = member, generation
	for _, name := range order {
		rt := kmsg.NewTxnOffsetCommitRequestTopic()
		rt.Topic = name
		for _, p := range topics[name] {
			rp := kmsg.NewTxnOffsetCommitRequestTopicPartition()
			rp.Partition, rp.Offset, rp.LeaderEpoch = p, 10, -1
			rt.Partitions = append(rt.Partitions, rp)
		}
		req.Topics = append(req.Topics, rt)
	}
	return req
}

func txnRows(resp kmsg.Response) []string {
	return rowsOf(resp.(*kmsg.TxnOffsetCommitResponse).Topics, func(t kmsg.TxnOffsetCommitResponseTopic) (string, []string) {
		var ps []string
		for _, p := range t.Partitions {
			ps = append(ps, fmt.Sprintf("%d=%d", p.Partition, p.ErrorCode))
		}
		return t.Topic, ps
	})
}

// stable reports the RequireStable answer for foo-0 of group: 88
// UNSTABLE_OFFSET_COMMIT while a transactional offset is pending.
func (r *rawCoordinators) stableCode(group string) int16 {
	r.t.Helper()
	req := kmsg.NewPtrOffsetFetchRequest()
	req.Version, req.RequireStable = 9, true
	g := kmsg.NewOffsetFetchRequestGroup()
	g.Group, g.MemberEpoch = group, -1
	gt := kmsg.NewOffsetFetchRequestGroupTopic()
	gt.Topic, gt.Partitions = "foo", []int32{0}
	g.Topics = []kmsg.OffsetFetchRequestGroupTopic{gt}
	req.Groups = []kmsg.OffsetFetchRequestGroup{g}
	resp := r.send(group, req).(*kmsg.OffsetFetchResponse)
	require.Len(r.t, resp.Groups, 1)
	require.Len(r.t, resp.Groups[0].Topics, 1)
	return resp.Groups[0].Topics[0].Partitions[0].ErrorCode
}

// TestHandleTxnOffsetCommitRequestTopicsAndPartitionsValidation reproduces
// KafkaApisTest.testHandleTxnOffsetCommitRequestTopicsAndPartitionsValidation
// over the wire: foo-2 (foo has 2 partitions) and the unknown topic zar are
// answered UNKNOWN_TOPIC_OR_PARTITION ahead of the committed rows ("foo-2 is
// first", "zar is before bar"). A request the coordinator refuses as a whole
// (an unknown member, the empty group id) keeps those rows' code, changes
// nothing, and a request with no known partition never reaches the
// coordinator, so even the empty group id answers UNKNOWN_TOPIC_OR_PARTITION.
func TestHandleTxnOffsetCommitRequestTopicsAndPartitionsValidation(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	ctx := testContext(t)
	adm := newAdmin(t, cl)
	createTopic(t, ctx, adm, "foo", 2)
	createTopic(t, ctx, adm, "bar", 2)
	r := newRawCoordinators(t, cl)
	topics := map[string][]int32{"foo": {0, 1, 2}, "bar": {0, 1}, "zar": {0, 1}}
	tx := r.openTxn("tx", "group", "grp")

	got := txnRows(r.send("group", tx.stamp(txnCommit(3, "group", "", -1, topics, "foo", "bar", "zar"))))
	assert.Equal(t, []string{"foo:2=3", "foo:0=0", "foo:1=0", "zar:0=3", "zar:1=3", "bar:0=0", "bar:1=0"}, got)
	assert.Equal(t, int16(88), r.stableCode("group"), "the accepted commit is pending")

	// Refused as a whole: an unknown member of a consumer group.
	epoch := r.joinConsumer("grp", "m1", "foo")
	got = txnRows(r.send("grp", tx.stamp(txnCommit(3, "grp", "nobody", epoch, topics, "foo", "bar", "zar"))))
	assert.Equal(t, []string{"foo:2=3", "foo:0=25", "foo:1=25", "zar:0=3", "zar:1=3", "bar:0=25", "bar:1=25"}, got)
	assert.Equal(t, int16(0), r.stableCode("grp"), "nothing pending")

	// The empty group id: INVALID_GROUP_ID only on the partitions that
	// reached the coordinator; none at all when none did.
	got = txnRows(r.send("", tx.stamp(txnCommit(3, "", "", -1, topics, "foo", "zar"))))
	assert.Equal(t, []string{"foo:2=3", "foo:0=24", "foo:1=24", "zar:0=3", "zar:1=3"}, got)
	got = txnRows(r.send("", tx.stamp(txnCommit(3, "", "", -1, topics, "zar"))))
	assert.Equal(t, []string{"zar:0=3", "zar:1=3"}, got)
	assert.Equal(t, int16(0), r.stableCode(""), "nothing pending for \"\"")
}

// TestHandleOffsetCommitRequestTopicsAndPartitionsValidation is the same for
// OffsetCommit, with v10's unknown topic id (UNKNOWN_TOPIC_ID) among the rows
// KafkaApis answers: the getErrorResponse(exception) of
// handleOffsetCommitRequest only runs when the coordinator's future fails,
// which GroupCoordinatorService.commitOffsets never lets happen (it answers
// OffsetCommitRequest.getErrorResponse of the filtered request), so a request
// failing as a whole keeps UNKNOWN_TOPIC_ID and UNKNOWN_TOPIC_OR_PARTITION.
func TestHandleOffsetCommitRequestTopicsAndPartitionsValidation(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	ctx := testContext(t)
	adm := newAdmin(t, cl)
	createTopic(t, ctx, adm, "foo", 2)
	createTopic(t, ctx, adm, "bar", 2)
	r := newRawCoordinators(t, cl)
	epoch := r.joinConsumer("grp", "m1", "foo", "bar")
	fooID, barID := r.topicID("foo"), r.topicID("bar")
	unknownID := [16]byte{0xde, 0xad}

	commit := func(version int16, member string, generation int32) []string {
		req := kmsg.NewPtrOffsetCommitRequest()
		req.Version, req.Group, req.MemberID, req.Generation = version, "grp", member, generation
		for _, tp := range []struct {
			name       string
			id         [16]byte
			partitions []int32
		}{{"foo", fooID, []int32{0, 5}}, {"zar", unknownID, []int32{0}}, {"bar", barID, []int32{1}}} {
			rt := kmsg.NewOffsetCommitRequestTopic()
			rt.Topic = tp.name
			if version >= 10 {
				rt.Topic, rt.TopicID = "", tp.id
			}
			for _, p := range tp.partitions {
				rp := kmsg.NewOffsetCommitRequestTopicPartition()
				rp.Partition, rp.Offset, rp.LeaderEpoch = p, 10, -1
				rt.Partitions = append(rt.Partitions, rp)
			}
			req.Topics = append(req.Topics, rt)
		}
		resp := r.send("grp", req).(*kmsg.OffsetCommitResponse)
		return rowsOf(resp.Topics, func(t kmsg.OffsetCommitResponseTopic) (string, []string) {
			name := t.Topic
			switch t.TopicID {
			case fooID:
				name = "foo"
			case barID:
				name = "bar"
			case unknownID:
				name = "zar"
			}
			var ps []string
			for _, p := range t.Partitions {
				ps = append(ps, fmt.Sprintf("%d=%d", p.Partition, p.ErrorCode))
			}
			return name, ps
		})
	}
	// Refused as a whole (an unknown member): the rows KafkaApis answered
	// keep their code and lead.
	assert.Equal(t, []string{"foo:5=3", "foo:0=25", "zar:0=100", "bar:1=25"}, commit(10, "nobody", epoch))
	assert.Equal(t, []string{"foo:5=3", "foo:0=25", "zar:0=3", "bar:1=25"}, commit(9, "nobody", epoch))
	code, rows := r.fetch("grp", nil, -1, []int32{0})
	assert.Zero(t, code)
	assert.Equal(t, []string{"foo-0=-1/0"}, rows, "the refused commits wrote nothing")
	// Accepted.
	assert.Equal(t, []string{"foo:5=3", "foo:0=0", "zar:0=100", "bar:1=0"}, commit(10, "m1", epoch))
	_, rows = r.fetch("grp", nil, -1, []int32{0})
	assert.Equal(t, []string{"foo-0=10/0"}, rows)
}

// TestOffsetDeleteRequest reproduces OffsetDeleteRequestTest.testOffsetDelete
// (useNewProtocol = true), with KafkaApis.handleOffsetDeleteRequest's row
// order: the UNKNOWN_TOPIC_OR_PARTITION rows it answers itself come before
// the coordinator's, and a group error is a top-level error with no topics
// (OffsetDeleteRequest.getErrorResponse), even with unknown topics.
func TestOffsetDeleteRequest(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	ctx := testContext(t)
	adm := newAdmin(t, cl)
	createTopic(t, ctx, adm, "foo", 3)
	createTopic(t, ctx, adm, "bar", 1)
	r := newRawCoordinators(t, cl)
	epoch := r.joinConsumer("grp", "m1", "foo")
	for p := int32(0); p <= 2; p++ {
		require.Equal(t, int16(0), r.commit(10, "grp", "m1", epoch, p, 100+int64(p), "", r.topicID("foo")))
	}
	del := func(group string, topics map[string][]int32, order ...string) (int16, []string) {
		req := kmsg.NewPtrOffsetDeleteRequest()
		req.Group = group
		for _, name := range order {
			rt := kmsg.NewOffsetDeleteRequestTopic()
			rt.Topic = name
			for _, p := range topics[name] {
				rt.Partitions = append(rt.Partitions, kmsg.OffsetDeleteRequestTopicPartition{Partition: p})
			}
			req.Topics = append(req.Topics, rt)
		}
		resp := r.send(group, req).(*kmsg.OffsetDeleteResponse)
		return resp.ErrorCode, rowsOf(resp.Topics, func(t kmsg.OffsetDeleteResponseTopic) (string, []string) {
			var ps []string
			for _, p := range t.Partitions {
				ps = append(ps, fmt.Sprintf("%d=%d", p.Partition, p.ErrorCode))
			}
			return t.Topic, ps
		})
	}
	code, rows := del("grp", map[string][]int32{"foo": {0}}, "foo")
	assert.Zero(t, code)
	assert.Equal(t, []string{"foo:0=86"}, rows, "subscribed: GROUP_SUBSCRIBED_TO_TOPIC")

	// Unsubscribe.
	hb := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	hb.Version, hb.Group, hb.MemberID, hb.MemberEpoch = 1, "grp", "m1", epoch
	hb.SubscribedTopicNames = []string{}
	require.Zero(t, r.send("grp", hb).(*kmsg.ConsumerGroupHeartbeatResponse).ErrorCode)

	code, rows = del("grp", map[string][]int32{"foo": {0, 5}, "zar": {0}, "bar": {0}}, "foo", "zar", "bar")
	assert.Zero(t, code)
	assert.Equal(t, []string{"foo:5=3", "foo:0=0", "zar:0=3", "bar:0=0"}, rows)
	_, fetched := r.fetch("grp", nil, -1, []int32{0, 1})
	assert.Equal(t, []string{"foo-0=-1/0", "foo-1=101/0"}, fetched, "foo-0 deleted, foo-1 kept")

	// A group error is top-level, with no topics, whatever the topics.
	for _, group := range []string{"grp-unknown", ""} {
		want := int16(69)
		if group == "" {
			want = 24
		}
		code, rows = del(group, map[string][]int32{"foo": {1, 5}, "zar": {0}}, "foo", "zar")
		assert.Equal(t, want, code, "group %q", group)
		assert.Empty(t, rows, "group %q", group)
	}
	_, fetched = r.fetch("grp", nil, -1, []int32{1})
	assert.Equal(t, []string{"foo-1=101/0"}, fetched, "the refused deletes changed nothing")
}

// TestTxnOffsetCommitLoadInProgressBeforeV2 reproduces
// KafkaApisTest.shouldReplaceCoordinatorNotAvailableWithLoadInProcessInTxnOffsetCommitWithOlderClient:
// while the group's partition loads, v0 and v1 answer
// COORDINATOR_NOT_AVAILABLE where v2 and later answer
// COORDINATOR_LOAD_IN_PROGRESS, and nothing is written.
func TestTxnOffsetCommitLoadInProgressBeforeV2(t *testing.T) {
	t.Parallel()
	cl := startCluster(t, func(c *wire.Config) { c.Coordinator.LoadDelay = time.Hour })
	ctx := testContext(t)
	createTopic(t, ctx, newAdmin(t, cl), "foo", 1)
	r := newRawCoordinators(t, cl)
	fooID := r.topicID("foo")
	tx := r.openTxn("tx", "group")
	for v := int16(0); v <= 6; v++ {
		req := tx.stamp(txnCommit(v, "group", "", -1, map[string][]int32{"foo": {0}}, "foo"))
		if v >= 6 {
			req.Topics[0].Topic, req.Topics[0].TopicID = "", fooID
		}
		name := "foo"
		if v >= 6 {
			name = "" // v6 answers by id
		}
		want := []string{name + ":0=14"}
		if v < 2 {
			want = []string{name + ":0=15"}
		}
		assert.Equal(t, want, txnRows(r.send("group", req)), "v%d", v)
	}
}

// pendingCodes answers RequireStable for partitions of foo in group: 88
// UNSTABLE_OFFSET_COMMIT for each one with a pending transactional offset.
func (r *rawCoordinators) pendingCodes(group string, partitions ...int32) []int16 {
	r.t.Helper()
	req := kmsg.NewPtrOffsetFetchRequest()
	req.Version, req.RequireStable = 9, true
	g := kmsg.NewOffsetFetchRequestGroup()
	g.Group, g.MemberEpoch = group, -1
	gt := kmsg.NewOffsetFetchRequestGroupTopic()
	gt.Topic, gt.Partitions = "foo", partitions
	g.Topics = []kmsg.OffsetFetchRequestGroupTopic{gt}
	req.Groups = []kmsg.OffsetFetchRequestGroup{g}
	resp := r.send(group, req).(*kmsg.OffsetFetchResponse)
	require.Len(r.t, resp.Groups, 1)
	require.Len(r.t, resp.Groups[0].Topics, 1)
	var out []int16
	for _, p := range resp.Groups[0].Topics[0].Partitions {
		out = append(out, p.ErrorCode)
	}
	return out
}

// TestTxnOffsetCommitWithNewConsumerGroupProtocol reproduces
// TxnOffsetCommitRequestTest.testTxnOffsetCommit(useNewProtocol = true)
// against a KIP-848 group with a member: at every version a producer
// without the consumer's metadata (member "", generation -1, no instance
// id) commits; from v3 the member's own id and epoch commit, an unknown
// member is UNKNOWN_MEMBER_ID and a wrong generation ILLEGAL_GENERATION
// (validateTransactionalOffsetCommit turns STALE_MEMBER_EPOCH into it).
// The exemption of ConsumerGroup.validateOffsetCommit needs a null
// instance id: an empty one ("") is looked up as member "" and is
// UNKNOWN_MEMBER_ID. The transaction stays open, so the accepted offsets
// stay pending (RequireStable answers UNSTABLE_OFFSET_COMMIT); a refused
// commit leaves its partition without one.
func TestTxnOffsetCommitWithNewConsumerGroupProtocol(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	ctx := testContext(t)
	createTopic(t, ctx, newAdmin(t, cl), "foo", 8)
	r := newRawCoordinators(t, cl)
	epoch := r.joinConsumer("group", "m1", "foo")
	tx := r.openTxn("tx", "group")
	commit := func(version int16, member string, generation int32, instance *string, partition int32) int16 {
		req := tx.stamp(txnCommit(version, "group", member, generation, map[string][]int32{"foo": {partition}}, "foo"))
		req.InstanceID = instance
		if version >= 6 {
			req.Topics[0].Topic, req.Topics[0].TopicID = "", r.topicID("foo")
		}
		resp := r.send("group", req).(*kmsg.TxnOffsetCommitResponse)
		require.Len(t, resp.Topics, 1)
		require.Len(t, resp.Topics[0].Partitions, 1)
		return resp.Topics[0].Partitions[0].ErrorCode
	}
	empty := ""
	for v := int16(0); v <= 6; v++ {
		assert.Equal(t, int16(0), commit(v, "", -1, nil, 0), "v%d: no group metadata", v)
		if v < 3 {
			continue
		}
		assert.Equal(t, int16(0), commit(v, "m1", epoch, nil, 0), "v%d: the member", v)
		assert.Equal(t, int16(25), commit(v, "non-exist", epoch, nil, 1), "v%d: unknown member", v)
		assert.Equal(t, int16(22), commit(v, "m1", 100, nil, 2), "v%d: wrong generation", v)
		assert.Equal(t, int16(25), commit(v, "", -1, &empty, 3), "v%d: an empty, not null, instance id", v)
	}
	assert.Equal(t, []int16{88, 0, 0, 0}, r.pendingCodes("group", 0, 1, 2, 3), "only partition 0 was committed")

	// OFFSET_METADATA_TOO_LARGE is per partition
	// (OffsetMetadataManager.commitTransactionalOffset): the other
	// partition commits.
	req := tx.stamp(txnCommit(3, "group", "", -1, map[string][]int32{"foo": {4, 5}}, "foo"))
	long := strings.Repeat("x", 4097)
	req.Topics[0].Partitions[0].Metadata = &long
	assert.Equal(t, []string{"foo:4=12", "foo:5=0"}, txnRows(r.send("group", req)))
	assert.Equal(t, []int16{0, 88}, r.pendingCodes("group", 4, 5))
}
