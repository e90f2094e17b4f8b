package sharebroker

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/share"
)

// TestBadInputChangesNothing proves every entry point refuses bad input
// with its typed Kafka error and leaves the broker exactly as it was
// (summary before and after), on a broker with sessions, locks, a pending
// DLQ write and group configs.
func TestBadInputChangesNothing(t *testing.T) {
	b := dlqBroker(t)
	c := newClient(t, b, grp, m1)
	c.fetch(100, 0, nil, tp0, TopicPartition{topic, 1})
	c.ack(110, acksOf(tp0, 0, 1, share.AckReject))
	const now = 120
	_, err := b.Poll(now) // nothing due: only the clock moves
	require.NoError(t, err)
	require.NoError(t, b.CheckInvariants())
	tooManyParts := make([]TopicPartition, MaxPartitionsPerRequest+1)
	for i := range tooManyParts {
		tooManyParts[i] = TopicPartition{topic, int32(i)}
	}
	nineWithDup := []TopicPartition{tp0, {topic, 1}, {topic, 2}, {"a", 0}, {"b", 0}, {"c", 0}, {"d", 0}, {"e", 0}, {topic, 1}}
	tooManyAcks := []PartitionAcks{{TopicPartition: tp0, Batches: make([]share.AckBatch, share.MaxAckBatches+1)}}
	fetch := func(req FetchRequest) func() error {
		return func() error { _, err := b.ShareFetch(now, req); return err }
	}
	ack := func(req AckRequest) func() error {
		return func() error { _, err := b.ShareAcknowledge(now, req); return err }
	}
	cases := []struct {
		name string
		call func() error
		want *kerr.Error
	}{
		{"create topic bad name", func() error { return b.CreateTopic("a/b", 1) }, kerr.InvalidTopicException},
		{"create topic empty name", func() error { return b.CreateTopic("", 1) }, kerr.InvalidTopicException},
		{"create topic long name", func() error { return b.CreateTopic(strings.Repeat("x", 250), 1) }, kerr.InvalidTopicException},
		{"create topic 0 partitions", func() error { return b.CreateTopic("x", 0) }, kerr.InvalidRequest},
		{"create topic too many partitions", func() error { return b.CreateTopic("x", MaxPartitionsPerTopic+1) }, kerr.InvalidRequest},
		{"create topic duplicate", func() error { return b.CreateTopic(topic, 1) }, kerr.InvalidRequest},
		{"produce unknown", func() error { _, err := b.Produce(now, TopicPartition{"x", 0}, 1); return err }, kerr.UnknownTopicOrPartition},
		{"produce bad partition", func() error { _, err := b.Produce(now, TopicPartition{topic, 3}, 1); return err }, kerr.UnknownTopicOrPartition},
		{"produce 0 records", func() error { _, err := b.Produce(now, tp0, 0); return err }, kerr.InvalidRequest},
		{"produce too many", func() error { _, err := b.Produce(now, tp0, MaxRecordsPerProduce+1); return err }, kerr.InvalidRequest},
		{"produce in the past", func() error { _, err := b.Produce(now-1, tp0, 1); return err }, kerr.InvalidRequest},
		{"end offset unknown", func() error { _, err := b.EndOffset(TopicPartition{"x", 0}); return err }, kerr.UnknownTopicOrPartition},
		{"log start unknown", func() error { _, err := b.LogStartOffset(TopicPartition{topic, -1}); return err }, kerr.UnknownTopicOrPartition},
		{"delete records past end", func() error { return b.DeleteRecords(now, tp0, 6) }, kerr.InvalidRequest},
		{"delete records negative", func() error { return b.DeleteRecords(now, tp0, -1) }, kerr.InvalidRequest},
		{"delete records unknown", func() error { return b.DeleteRecords(now, TopicPartition{"x", 0}, 0) }, kerr.UnknownTopicOrPartition},
		{"delete records in the past", func() error { return b.DeleteRecords(now-1, tp0, 1) }, kerr.InvalidRequest},
		{"group config empty group", func() error { return b.SetGroupConfig("", GroupConfig{}) }, kerr.InvalidRequest},
		{"group config bad limit", func() error { return b.SetGroupConfig(grp, GroupConfig{MaxDeliveryCount: 99}) }, kerr.InvalidRequest},
		{"group config missing DLQ", func() error { return b.SetGroupConfig(grp, GroupConfig{DLQTopic: "x"}) }, kerr.InvalidRequest},
		{"fetch empty group", fetch(FetchRequest{MemberID: m1, SessionEpoch: 1}), kerr.InvalidRequest},
		{"fetch empty member", fetch(FetchRequest{GroupID: grp, SessionEpoch: 1}), kerr.InvalidRequest},
		{"fetch long member", fetch(FetchRequest{GroupID: grp, MemberID: strings.Repeat("m", MaxIDLength+1)}), kerr.InvalidRequest},
		{"fetch in the past", func() error {
			_, err := b.ShareFetch(now-1, FetchRequest{GroupID: grp, MemberID: m1, SessionEpoch: c.epoch})
			return err
		}, kerr.InvalidRequest},
		{"fetch negative max records", fetch(FetchRequest{GroupID: grp, MemberID: m1, SessionEpoch: c.epoch, MaxRecords: -1}), kerr.InvalidRequest},
		{"fetch huge max records", fetch(FetchRequest{GroupID: grp, MemberID: m1, SessionEpoch: c.epoch, MaxRecords: share.MaxBatchSize + 1}), kerr.InvalidRequest},
		{"fetch duplicate partitions", fetch(FetchRequest{GroupID: grp, MemberID: m1, SessionEpoch: c.epoch, Partitions: []TopicPartition{tp0, tp0}}), kerr.InvalidRequest},
		{"fetch duplicate among nine", fetch(FetchRequest{GroupID: grp, MemberID: m1, SessionEpoch: c.epoch, Partitions: nineWithDup}), kerr.InvalidRequest},
		{"fetch too many partitions", fetch(FetchRequest{GroupID: grp, MemberID: m1, SessionEpoch: c.epoch, Partitions: tooManyParts}), kerr.InvalidRequest},
		{"fetch too many acks", fetch(FetchRequest{GroupID: grp, MemberID: m1, SessionEpoch: c.epoch, Acks: tooManyAcks}), kerr.InvalidRequest},
		{"fetch duplicate ack partitions", fetch(FetchRequest{GroupID: grp, MemberID: m1, SessionEpoch: c.epoch, Acks: []PartitionAcks{acksOf(tp0, 2, 2, share.AckAccept), acksOf(tp0, 3, 3, share.AckAccept)}}), kerr.InvalidRequest},
		{"fetch partitions on final", fetch(FetchRequest{GroupID: grp, MemberID: m1, SessionEpoch: FinalEpoch, Partitions: []TopicPartition{tp0}}), kerr.InvalidRequest},
		{"fetch acks on epoch 0", fetch(FetchRequest{GroupID: grp, MemberID: m1, Acks: []PartitionAcks{acksOf(tp0, 2, 2, share.AckAccept)}}), kerr.InvalidRequest},
		{"fetch wrong epoch", fetch(FetchRequest{GroupID: grp, MemberID: m1, SessionEpoch: c.epoch + 1}), kerr.InvalidShareSessionEpoch},
		{"fetch no session", fetch(FetchRequest{GroupID: grp, MemberID: m2, SessionEpoch: 1}), kerr.ShareSessionNotFound},
		{"ack epoch 0", ack(AckRequest{GroupID: grp, MemberID: m1}), kerr.InvalidShareSessionEpoch},
		{"ack epoch -2", ack(AckRequest{GroupID: grp, MemberID: m1, SessionEpoch: -2}), kerr.InvalidRequest},
		{"ack empty member", ack(AckRequest{GroupID: grp, SessionEpoch: 1}), kerr.InvalidRequest},
		{"ack too many", ack(AckRequest{GroupID: grp, MemberID: m1, SessionEpoch: c.epoch, Acks: tooManyAcks}), kerr.InvalidRequest},
		{"ack wrong epoch", ack(AckRequest{GroupID: grp, MemberID: m1, SessionEpoch: c.epoch + 5}), kerr.InvalidShareSessionEpoch},
		{"ack no session", ack(AckRequest{GroupID: "other", MemberID: m1, SessionEpoch: FinalEpoch}), kerr.ShareSessionNotFound},
		{"drop in the past", func() error { return b.DropConnection(now-1, grp, m1) }, kerr.InvalidRequest},
		{"drop empty group", func() error { return b.DropConnection(now, "", m1) }, kerr.InvalidRequest},
		{"drop no session", func() error { return b.DropConnection(now, grp, m2) }, kerr.ShareSessionNotFound},
		{"poll in the past", func() error { _, err := b.Poll(now - 1); return err }, kerr.InvalidRequest},
		{"poll negative", func() error { _, err := b.Poll(-1); return err }, kerr.InvalidRequest},
		{"move leader unknown", func() error { return b.MoveLeader(now, TopicPartition{"x", 0}) }, kerr.UnknownTopicOrPartition},
		{"move leader in the past", func() error { return b.MoveLeader(now-1, tp0) }, kerr.InvalidRequest},
		{"alter empty group", func() error { return b.AlterShareGroupOffsets("", nil) }, kerr.InvalidRequest},
		{"alter past end", func() error {
			return b.AlterShareGroupOffsets(grp, []PartitionOffset{{TopicPartition: tp0, StartOffset: 6}})
		}, kerr.InvalidRequest},
		{"alter unknown", func() error {
			return b.AlterShareGroupOffsets(grp, []PartitionOffset{{TopicPartition: tp0, StartOffset: 0}, {TopicPartition: TopicPartition{"x", 0}}})
		}, kerr.UnknownTopicOrPartition},
		{"delete state empty group", func() error { return b.DeleteShareGroupState("") }, kerr.InvalidRequest},
	}
	for _, tc := range cases {
		before := summary(b)
		err := tc.call()
		assert.ErrorIs(t, err, tc.want, tc.name)
		assert.Equal(t, before, summary(b), tc.name)
	}
	require.NoError(t, b.CheckInvariants())
	// The broker still serves the session after all of that.
	r := c.fetch(now, 0, nil, TopicPartition{topic, 2})
	assert.Len(t, r.Partitions, 1)
}
