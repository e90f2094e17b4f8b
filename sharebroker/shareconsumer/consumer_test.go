package shareconsumer

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/share"
	"github.com/coordsim/coordsim/sharebroker"
)

// Kafka's share-consumer client cases (ShareConsumerTest) as client
// behaviour over the broker model: the share reference's cases 15–18.

var (
	tp0 = sharebroker.TopicPartition{Topic: "t", Partition: 0}
	tp1 = sharebroker.TopicPartition{Topic: "t", Partition: 1} // empty
)

// keeper opens a session of another member on the empty partition: while
// the group has a session, its share-partitions stay cached (the broker
// evicts them when the last one closes, and the records' state would come
// back from the persister instead).
func keeper(t *testing.T, b *sharebroker.Broker) {
	t.Helper()
	k, err := New(b, "g", "keeper", Explicit, []sharebroker.TopicPartition{tp1})
	require.NoError(t, err)
	_, err = k.Poll(0, 0)
	require.NoError(t, err)
}

// setup is a broker with topic t holding records records on partition 0,
// 1 s locks, delivery limit 5, read from the earliest offset.
func setup(t *testing.T, records int32) *sharebroker.Broker {
	t.Helper()
	b, err := sharebroker.New(sharebroker.Config{WideBounds: true, Defaults: share.Config{RecordLockDurationMs: 1000, AutoOffsetReset: share.ResetEarliest}})
	require.NoError(t, err)
	require.NoError(t, b.CreateTopic("t", 2))
	_, err = b.Produce(0, tp0, records)
	require.NoError(t, err)
	return b
}

func consumer(t *testing.T, b *sharebroker.Broker, member string, mode AckMode) *Consumer {
	t.Helper()
	c, err := New(b, "g", member, mode, []sharebroker.TopicPartition{tp0})
	require.NoError(t, err)
	return c
}

func counts(recs []Record) []int32 {
	var out []int32
	for _, r := range recs {
		out = append(out, r.DeliveryCount)
	}
	return out
}

// TestBehaviorOnDeliveryCountBoundary (case 15): poll (count 1), RELEASE and
// commitSync, poll again (count 2), close without acknowledging: a new
// consumer sees the record with count 3.
func TestBehaviorOnDeliveryCountBoundary(t *testing.T) {
	b := setup(t, 1)
	keeper(t, b)
	c := consumer(t, b, "c1", Explicit)
	recs, err := c.Poll(1, 0)
	require.NoError(t, err)
	require.Equal(t, []int32{1}, counts(recs))
	require.NoError(t, c.Acknowledge(recs[0], share.AckRelease))
	require.NoError(t, c.CommitSync(2))
	recs, err = c.Poll(3, 0)
	require.NoError(t, err)
	require.Equal(t, []int32{2}, counts(recs))
	require.NoError(t, c.Close(4))
	c2 := consumer(t, b, "c2", Explicit)
	recs, err = c2.Poll(5, 0)
	require.NoError(t, err)
	assert.Equal(t, []int32{3}, counts(recs))
}

// TestDeliveryCountDifferentBehaviorWhenClosingSessionWithExplicitAcknowledgement
// (case 16): two records; the first RELEASEd, the second left unacknowledged,
// then close: a new consumer receives both with count 2.
func TestDeliveryCountDifferentBehaviorWhenClosingSessionWithExplicitAcknowledgement(t *testing.T) {
	b := setup(t, 2)
	keeper(t, b)
	c := consumer(t, b, "c1", Explicit)
	recs, err := c.Poll(1, 0)
	require.NoError(t, err)
	require.Len(t, recs, 2)
	require.NoError(t, c.Acknowledge(recs[0], share.AckRelease))
	require.NoError(t, c.Close(2))
	c2 := consumer(t, b, "c2", Explicit)
	recs, err = c2.Poll(3, 0)
	require.NoError(t, err)
	assert.Equal(t, []int32{2, 2}, counts(recs))
}

// TestAcquisitionLockTimeoutOnConsumer (case 17): a record the consumer
// never acknowledges is redelivered to the same consumer once its lock
// expires; and in testConsumerCloseInGroupSequential's shape, the records
// of one consumer's last poll are consumed by the next consumer after it
// closes, every record exactly once in sum.
func TestAcquisitionLockTimeoutOnConsumer(t *testing.T) {
	b := setup(t, 1)
	c := consumer(t, b, "c1", Implicit)
	recs, err := c.Poll(0, 0)
	require.NoError(t, err)
	require.Equal(t, []int32{1}, counts(recs))
	c.batch, c.acked, c.sent = nil, nil, nil // the application never acknowledges (a stuck poll loop)
	recs, err = c.Poll(500, 0)
	require.NoError(t, err)
	assert.Empty(t, recs, "still locked")
	recs, err = c.Poll(1000, 0)
	require.NoError(t, err)
	assert.Equal(t, []int32{2}, counts(recs), "redelivered to the same consumer after the lock expired")
}

func TestConsumerCloseInGroupSequential(t *testing.T) {
	b := setup(t, 30)
	got := map[int64]int{}
	c1 := consumer(t, b, "c1", Explicit)
	recs, err := c1.Poll(0, 10)
	require.NoError(t, err)
	for _, r := range recs[:5] { // processes half of its last poll, then closes
		got[r.Offset]++
		require.NoError(t, c1.Acknowledge(r, share.AckAccept))
	}
	c2 := consumer(t, b, "c2", Implicit)
	_, err = c2.Poll(1, 0) // joins before c1 closes, keeping the partition cached
	require.NoError(t, err)
	require.NoError(t, c1.Close(2))
	for now := int64(3); now < 10; now++ {
		recs, err := c2.Poll(now, 0)
		require.NoError(t, err)
		for _, r := range recs {
			got[r.Offset]++
		}
	}
	require.NoError(t, c2.Close(20))
	assert.Len(t, got, 30, "every record consumed")
	for off, n := range got {
		assert.Equal(t, 1, n, "offset %d exactly once in sum", off)
	}
}

// TestImplicitAcknowledgeFailsExplicit (case 18): acknowledge() in implicit
// mode is an IllegalStateException.
func TestImplicitAcknowledgeFailsExplicit(t *testing.T) {
	b := setup(t, 1)
	c := consumer(t, b, "c1", Implicit)
	recs, err := c.Poll(0, 0)
	require.NoError(t, err)
	var ise *IllegalStateError
	assert.True(t, errors.As(c.Acknowledge(recs[0], share.AckAccept), &ise))
}

// TestExplicitAcknowledgeThrowsNotInBatch (case 18): acknowledging a record
// twice, or one that is not in the latest poll (acknowledging after the
// next poll), is an IllegalStateException; and in explicit mode a poll with
// unacknowledged records of the previous one is too, sending nothing.
func TestExplicitAcknowledgeThrowsNotInBatch(t *testing.T) {
	b := setup(t, 2)
	c := consumer(t, b, "c1", Explicit)
	recs, err := c.Poll(0, 1)
	require.NoError(t, err)
	require.Len(t, recs, 2) // whole log batches
	var ise *IllegalStateError
	_, err = c.Poll(1, 0)
	require.True(t, errors.As(err, &ise), "poll before every record is acknowledged")
	require.NoError(t, c.Acknowledge(recs[0], share.AckAccept))
	assert.True(t, errors.As(c.Acknowledge(recs[0], share.AckAccept), &ise), "twice")
	require.NoError(t, c.Acknowledge(recs[1], share.AckAccept))
	_, err = c.Poll(2, 0)
	require.NoError(t, err)
	assert.True(t, errors.As(c.Acknowledge(recs[1], share.AckRelease), &ise), "after the next poll")
	p, ok := b.Partition(share.Key{Group: "g", Topic: "t", Partition: 0})
	require.True(t, ok)
	assert.EqualValues(t, 2, p.StartOffset(), "both ACCEPTs were sent with the poll")
}

// TestNewBadInput proves New refuses what it cannot work with.
func TestNewBadInput(t *testing.T) {
	b := setup(t, 1)
	for _, f := range []func() (*Consumer, error){
		func() (*Consumer, error) { return New(nil, "g", "m", Implicit, []sharebroker.TopicPartition{tp0}) },
		func() (*Consumer, error) { return New(b, "", "m", Implicit, []sharebroker.TopicPartition{tp0}) },
		func() (*Consumer, error) { return New(b, "g", "m", Implicit, nil) },
		func() (*Consumer, error) { return New(b, "g", "m", 7, []sharebroker.TopicPartition{tp0}) },
	} {
		c, err := f()
		assert.Error(t, err)
		assert.Nil(t, c)
	}
}
