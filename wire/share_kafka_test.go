package wire_test

import (
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	req.Topics = []kmsg.ShareFetchRequestTopic{rt}
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
