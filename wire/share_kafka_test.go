package wire_test

import (
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	fkerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// shareFixture is a cluster with topic "t" of six partitions, p0 and p3
// led by the same broker and each holding ten one-record log batches
// (offsets 0-9), group "g" reading from the earliest offset, and a raw
// connection to that broker.
type shareFixture struct {
	t      *testing.T
	c      net.Conn
	id     [16]byte
	group  string
	member string
	// batchSize is the BatchSize fetches send; 0 sends MaxRecords.
	batchSize int32
}

// ackRange is one acknowledgement batch of a raw request.
type ackRange struct {
	first, last int64
	types       []int8
}

// sharePart is one partition of a raw request and its batches.
type sharePart struct {
	p    int32
	acks []ackRange
}

func newShareFixture(t *testing.T, groupConfigs ...groupConfigOp) *shareFixture {
	cl := startCluster(t)
	ctx := testContext(t)
	adm := newAdmin(t, cl)
	createTopic(t, ctx, adm, "t", 6)
	ops := append([]groupConfigOp{set("share.auto.offset.reset", "earliest")}, groupConfigs...)
	err, msg := alterGroupConfig(t, ctx, newClient(t, cl), "g", false, ops...)
	require.NoError(t, err, msg)
	topics, err := adm.ListTopics(ctx, "t")
	require.NoError(t, err)
	leader := topics["t"].Partitions[0].Leader
	require.Equal(t, leader, topics["t"].Partitions[3].Leader, "p0 and p3 share a leader")
	prod := newClient(t, cl, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	for _, p := range []int32{0, 3} {
		for range 10 {
			require.NoError(t, prod.ProduceSync(ctx, &kgo.Record{Topic: "t", Partition: p, Value: []byte("v")}).FirstErr())
		}
	}
	return &shareFixture{t: t, c: dial(t, cl.Addrs()[leader]), id: topics["t"].ID, group: "g", member: "AAAAAAAAAAAAAAAAAAAAAA"}
}

// fetch sends a raw ShareFetch.
func (f *shareFixture) fetch(version int16, epoch, maxRecords int32, renew bool, parts ...sharePart) *kmsg.ShareFetchResponse {
	f.t.Helper()
	req := kmsg.NewPtrShareFetchRequest()
	req.Version, req.GroupID, req.MemberID, req.ShareSessionEpoch = version, &f.group, &f.member, epoch
	req.MaxWaitMillis, req.MaxRecords, req.BatchSize, req.MaxBytes, req.IsRenewAck = 10, maxRecords, maxRecords, 1<<20, renew
	if f.batchSize != 0 {
		req.BatchSize = f.batchSize
	}
	rt := kmsg.NewShareFetchRequestTopic()
	rt.TopicID = f.id
	for _, pt := range parts {
		rp := kmsg.NewShareFetchRequestTopicPartition()
		rp.Partition = pt.p
		for _, a := range pt.acks {
			b := kmsg.NewShareFetchRequestTopicPartitionAcknowledgementBatch()
			b.FirstOffset, b.LastOffset, b.AcknowledgeTypes = a.first, a.last, a.types
			rp.AcknowledgementBatches = append(rp.AcknowledgementBatches, b)
		}
		rt.Partitions = append(rt.Partitions, rp)
	}
	if len(parts) > 0 {
		req.Topics = []kmsg.ShareFetchRequestTopic{rt}
	}
	return roundTrip(f.t, f.c, req).(*kmsg.ShareFetchResponse)
}

// ack sends a raw ShareAcknowledge.
func (f *shareFixture) ack(version int16, epoch int32, renew bool, parts ...sharePart) *kmsg.ShareAcknowledgeResponse {
	f.t.Helper()
	req := kmsg.NewPtrShareAcknowledgeRequest()
	req.Version, req.GroupID, req.MemberID, req.ShareSessionEpoch, req.IsRenewAck = version, &f.group, &f.member, epoch, renew
	rt := kmsg.NewShareAcknowledgeRequestTopic()
	rt.TopicID = f.id
	for _, pt := range parts {
		rp := kmsg.NewShareAcknowledgeRequestTopicPartition()
		rp.Partition = pt.p
		for _, a := range pt.acks {
			b := kmsg.NewShareAcknowledgeRequestTopicPartitionAcknowledgementBatch()
			b.FirstOffset, b.LastOffset, b.AcknowledgeTypes = a.first, a.last, a.types
			rp.AcknowledgementBatches = append(rp.AcknowledgementBatches, b)
		}
		rt.Partitions = append(rt.Partitions, rp)
	}
	req.Topics = []kmsg.ShareAcknowledgeRequestTopic{rt}
	return roundTrip(f.t, f.c, req).(*kmsg.ShareAcknowledgeResponse)
}

// acquired lists a ShareFetch answer's AcquiredRecords per partition as
// {first, last, delivery count}.
func acquired(resp *kmsg.ShareFetchResponse) map[int32][][3]int64 {
	out := map[int32][][3]int64{}
	for _, rt := range resp.Topics {
		for _, rp := range rt.Partitions {
			for _, a := range rp.AcquiredRecords {
				out[rp.Partition] = append(out[rp.Partition], [3]int64{a.FirstOffset, a.LastOffset, int64(a.DeliveryCount)})
			}
		}
	}
	return out
}

// total is the number of records acquired.
func total(acq map[int32][][3]int64) int64 {
	n := int64(0)
	for _, rs := range acq {
		for _, r := range rs {
			n += r[1] - r[0] + 1
		}
	}
	return n
}

// TestProcessFetchResponseWithMaxFetchRecords is ShareFetchUtilsTest's case
// over the wire: MaxRecords bounds the whole ShareFetch, not each
// partition. Two partitions on one leader with ten records each, MaxRecords
// 5: five records are acquired, not ten. The partitions are served in the
// order of Kafka's PartitionRotateStrategy.rotateRoundRobin (start at
// epoch % partitions, no rotation at epoch 0), so the budget goes to p0 at
// epoch 0, to p3 at epoch 1 and to p0 again at epoch 2: no partition
// starves.
func TestProcessFetchResponseWithMaxFetchRecords(t *testing.T) {
	t.Parallel()
	f := newShareFixture(t)
	p0, p3 := sharePart{p: 0}, sharePart{p: 3}

	first := f.fetch(1, 0, 5, false, p0, p3)
	require.Zero(t, first.ErrorCode)
	acq := acquired(first)
	assert.Equal(t, int64(5), total(acq), "MaxRecords bounds the request: %v", acq)
	assert.Equal(t, map[int32][][3]int64{0: {{0, 4, 1}}}, acq)

	second := f.fetch(1, 1, 5, false, p0, p3)
	assert.Equal(t, map[int32][][3]int64{3: {{0, 4, 1}}}, acquired(second), "epoch 1 starts at p3")

	third := f.fetch(1, 2, 5, false, p0, p3)
	assert.Equal(t, map[int32][][3]int64{0: {{5, 9, 1}}}, acquired(third), "epoch 2 starts at p0 again")
	for _, resp := range []*kmsg.ShareFetchResponse{first, second, third} {
		for _, rp := range resp.Topics[0].Partitions {
			assert.Zero(t, rp.ErrorCode)
		}
	}
}

// TestShareSessionFetchesItsPartitions is the share session of KIP-932 as
// Kafka's SharePartitionManager keeps it (ShareSession.update): an
// incremental ShareFetch names only the partitions it adds and fetches
// every partition of the session, so records released on p0 by a
// ShareAcknowledge come back to a fetch that names nothing, at delivery
// count 2, with p3's next records; ForgottenTopicsData takes a partition
// out of the session, and an initial fetch starts the list anew.
// (coordsim fetched only the partitions a request named: an idle share
// consumer's incremental fetches got nothing, ever. Found by the real-broker
// diff, share/fetch-acknowledge-deliveries.)
func TestShareSessionFetchesItsPartitions(t *testing.T) {
	t.Parallel()
	f := newShareFixture(t)
	p0, p3 := sharePart{p: 0}, sharePart{p: 3}
	assert.Equal(t, map[int32][][3]int64{0: {{0, 4, 1}}}, acquired(f.fetch(1, 0, 5, false, p0)))
	ack := f.ack(1, 1, false, sharePart{p: 0, acks: []ackRange{{0, 1, []int8{1}}, {2, 4, []int8{2}}}})
	require.Zero(t, ack.ErrorCode)
	require.Zero(t, ack.Topics[0].Partitions[0].ErrorCode)
	assert.Equal(t, map[int32][][3]int64{0: {{2, 4, 2}}}, acquired(f.fetch(1, 2, 3, false)),
		"the session's p0, named by no request since the first")
	assert.Equal(t, map[int32][][3]int64{3: {{0, 4, 1}}}, acquired(f.fetch(1, 3, 5, false, p3)), "p3 joins the session")

	// p0 forgotten: the session fetches p3 alone.
	req := kmsg.NewPtrShareFetchRequest()
	req.Version, req.GroupID, req.MemberID, req.ShareSessionEpoch = 1, &f.group, &f.member, 4
	req.MaxWaitMillis, req.MaxRecords, req.BatchSize, req.MaxBytes = 10, 20, 20, 1<<20
	ft := kmsg.NewShareFetchRequestForgottenTopicsData()
	ft.TopicID, ft.Partitions = f.id, []int32{0}
	req.ForgottenTopicsData = append(req.ForgottenTopicsData, ft)
	resp := roundTrip(t, f.c, req).(*kmsg.ShareFetchResponse)
	require.Zero(t, resp.ErrorCode)
	assert.Equal(t, map[int32][][3]int64{3: {{5, 9, 1}}}, acquired(resp), "p0 (5-9 still available) left the session")

	// A new session (epoch 0) knows only what it names.
	assert.Equal(t, map[int32][][3]int64{0: {{5, 9, 1}}}, acquired(f.fetch(1, 0, 5, false, p0)))
	assert.Empty(t, acquired(f.fetch(1, 1, 5, false)), "p3 was the old session's")
}

// TestValidateAcknowledgementBatches is KafkaApis.validateAcknowledgementBatches
// over the wire, for ShareFetch's piggy-backed acknowledgements
// (AcknowledgeErrorCode) and ShareAcknowledge (the partition's ErrorCode):
// a partition whose batches are malformed is INVALID_REQUEST and none of
// its batches is applied. The member holds offsets 0-9 throughout, so a
// batch applied in part (an ACCEPT or RELEASE of some offsets) would make
// the closing ACCEPT of 0-9 fail.
func TestValidateAcknowledgementBatches(t *testing.T) {
	t.Parallel()
	invalid := fkerr.InvalidRequest.Code
	cases := []struct {
		name    string
		version int16
		renew   bool
		acks    []ackRange
	}{
		{"no type", 1, false, []ackRange{{0, 0, []int8{}}}},
		{"fewer types than offsets", 1, false, []ackRange{{0, 2, []int8{1, 2}}}},
		{"more types than offsets", 1, false, []ackRange{{0, 1, []int8{1, 2, 2}}}},
		{"type 5", 2, true, []ackRange{{0, 0, []int8{5}}}},
		{"negative type", 1, false, []ackRange{{0, 0, []int8{-1}}}},
		{"renew without IsRenewAck", 2, false, []ackRange{{0, 0, []int8{4}}}},
		{"renew at v1", 1, true, []ackRange{{0, 0, []int8{4}}}},
		{"first past last", 1, false, []ackRange{{2, 1, []int8{1}}}},
		{"unsorted", 1, false, []ackRange{{2, 2, []int8{1}}, {0, 0, []int8{2}}}},
		{"overlapping", 1, false, []ackRange{{0, 2, []int8{1}}, {1, 1, []int8{2}}}},
		{"a bad batch after a good one", 1, false, []ackRange{{0, 0, []int8{1}}, {1, 2, []int8{}}}},
	}
	f := newShareFixture(t)
	got := f.fetch(2, 0, 10, false, sharePart{p: 0})
	require.Equal(t, map[int32][][3]int64{0: {{0, 9, 1}}}, acquired(got))
	epoch := int32(1)
	for _, c := range cases {
		// ShareFetch: the acknowledgements fail; the partition is still
		// fetched (nothing is left to acquire).
		resp := f.fetch(c.version, epoch, 10, c.renew, sharePart{p: 0, acks: c.acks})
		epoch++
		require.Zero(t, resp.ErrorCode, c.name)
		require.Len(t, resp.Topics, 1, c.name)
		rp := resp.Topics[0].Partitions[0]
		assert.Equal(t, invalid, rp.AcknowledgeErrorCode, "ShareFetch %s", c.name)
		assert.Zero(t, rp.ErrorCode, "ShareFetch %s: the fetch itself is served", c.name)

		ack := f.ack(c.version, epoch, c.renew, sharePart{p: 0, acks: c.acks})
		epoch++
		require.Zero(t, ack.ErrorCode, c.name)
		assert.Equal(t, invalid, ack.Topics[0].Partitions[0].ErrorCode, "ShareAcknowledge %s", c.name)
	}

	// Nothing was applied: the member still holds 0-9 and accepts them.
	// A well-formed RENEW at v2 with IsRenewAck passes the check too.
	renew := f.ack(2, epoch, true, sharePart{p: 0, acks: []ackRange{{0, 9, []int8{4}}}})
	epoch++
	assert.Zero(t, renew.Topics[0].Partitions[0].ErrorCode, "RENEW with IsRenewAck at v2")
	accept := f.ack(1, epoch, false, sharePart{p: 0, acks: []ackRange{{0, 2, []int8{1, 1, 1}}, {3, 9, []int8{1}}}})
	assert.Zero(t, accept.Topics[0].Partitions[0].ErrorCode, "nothing was applied before")

	// An initial ShareFetch that carries acknowledgements is refused as a
	// whole (SharePartitionManager.newContext), malformed or not.
	f.member = "BBBBBBBBBBBBBBBBBBBBBB"
	initial := f.fetch(1, 0, 3, false, sharePart{p: 0, acks: []ackRange{{0, 0, []int8{}}}})
	assert.Equal(t, invalid, initial.ErrorCode)
	assert.Empty(t, initial.Topics)
}

// TestAcquisitionLockTimeoutMs proves that ShareFetch and ShareAcknowledge
// report the group's lock duration as AcquisitionLockTimeoutMs, the
// duration its records are locked for (Kafka's
// ShareGroupConfigProvider.recordLockDurationMsOrDefault): 20000 for a
// group whose share.record.lock.duration.ms says so, the broker default
// (30000) for one without.
func TestAcquisitionLockTimeoutMs(t *testing.T) {
	t.Parallel()
	f := newShareFixture(t, set("share.record.lock.duration.ms", "20000"))
	fetched := f.fetch(2, 0, 1, false, sharePart{p: 0})
	require.Zero(t, fetched.ErrorCode)
	assert.Equal(t, int32(20000), fetched.AcquisitionLockTimeoutMillis, "ShareFetch")
	acked := f.ack(2, 1, false, sharePart{p: 0, acks: []ackRange{{0, 0, []int8{1}}}})
	require.Zero(t, acked.ErrorCode)
	assert.Equal(t, int32(20000), acked.AcquisitionLockTimeoutMillis, "ShareAcknowledge")

	f.group = "no-config"
	other := f.fetch(2, 0, 1, false, sharePart{p: 0})
	require.Zero(t, other.ErrorCode)
	assert.Equal(t, int32(30000), other.AcquisitionLockTimeoutMillis, "the broker default")
}

// TestShareFetchBatchSize proves SharePartition.createBatches over the
// wire: five one-record log batches fetched with MaxRecords 5 and
// BatchSize 2 come back as three AcquiredRecords entries, [0-1] [2-3]
// [4-4], with the bytes of all five batches; BatchSize 5 keeps one entry.
func TestShareFetchBatchSize(t *testing.T) {
	t.Parallel()
	f := newShareFixture(t)
	f.batchSize = 2
	resp := f.fetch(1, 0, 5, false, sharePart{p: 0})
	require.Zero(t, resp.ErrorCode)
	assert.Equal(t, map[int32][][3]int64{0: {{0, 1, 1}, {2, 3, 1}, {4, 4, 1}}}, acquired(resp))
	require.Len(t, resp.Topics, 1)
	assert.NotEmpty(t, resp.Topics[0].Partitions[0].Records)

	f.batchSize = 5
	resp = f.fetch(1, 1, 5, false, sharePart{p: 0})
	assert.Equal(t, map[int32][][3]int64{0: {{5, 9, 1}}}, acquired(resp))
}
