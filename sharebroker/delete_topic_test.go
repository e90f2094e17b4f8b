package sharebroker

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/share"
)

// TestDeleteTopic proves a deleted topic takes every share group's state of
// it along: cached share-partitions and their lock timers, the persisted
// state and the known keys, the sessions' partitions. Another topic's state
// stays; a topic re-created under the name starts from nothing, at
// share.auto.offset.reset (earliest here: the re-created log's offset 0).
func TestDeleteTopic(t *testing.T) {
	b := newBroker(t, kafkaConfig(), 2, 5, 5)
	other := TopicPartition{Topic: "other", Partition: 0}
	require.NoError(t, b.CreateTopic(other.Topic, 1))
	_, err := b.Produce(0, other, 3)
	require.NoError(t, err)
	c := newClient(t, b, grp, m1)
	r := c.fetch(0, 0, nil, tp0, other)
	require.Equal(t, []share.AcquiredRecords{ar(0, 4, 1)}, records(r, tp0))
	c.ack(1, acksOf(tp0, 0, 1, share.AckAccept)) // 2..4 stay acquired, locked
	c2 := newClient(t, b, "g2", m1)
	c2.fetch(1, 0, nil, tp0)
	_, locked := b.NextDeadline()
	require.True(t, locked)
	persisted, err := b.Persister().Read(share.Key{Group: grp, Topic: topic, Partition: 0}, 0)
	require.NoError(t, err)
	require.Equal(t, int64(2), persisted.StartOffset)

	require.NoError(t, b.DeleteTopic(topic))
	require.NoError(t, b.CheckInvariants())
	for _, k := range b.Keys() {
		assert.NotEqual(t, topic, k.Topic, "no cached share-partition of the deleted topic: %+v", k)
	}
	assert.Equal(t, []PartitionOffset{{TopicPartition: other, StartOffset: 0, Lag: 3}}, b.ListShareGroupOffsets(grp))
	assert.False(t, b.HasShareGroupState("g2"), "g2 had state on the deleted topic only")
	_, err = b.Persister().Read(share.Key{Group: grp, Topic: topic, Partition: 0}, 0)
	assert.ErrorIs(t, err, kerr.InvalidRequest, "the persisted state is gone")
	_, err = b.EndOffset(tp0)
	assert.ErrorIs(t, err, kerr.UnknownTopicOrPartition)
	_, err = c.b.ShareFetch(2, FetchRequest{GroupID: grp, MemberID: m1, SessionEpoch: c.epoch, Partitions: []TopicPartition{tp0}})
	require.NoError(t, err, "an unknown partition is answered per partition")
	c.advance()
	_, stillLocked := b.NextDeadline()
	assert.True(t, stillLocked, "other's records are still acquired")

	// Re-created: empty, and the group starts over.
	require.NoError(t, b.CreateTopic(topic, 1))
	_, err = b.Produce(3, tp0, 2)
	require.NoError(t, err)
	r = c.fetch(3, 0, nil, tp0)
	assert.Equal(t, []share.AcquiredRecords{ar(0, 1, 1)}, records(r, tp0))
	assert.Equal(t, int32(0), sp(t, b, grp, tp0).StateEpoch(), "a new state, not a bumped one")

	// Closing the sessions releases only what they hold now.
	_, err = b.ShareFetch(4, FetchRequest{GroupID: grp, MemberID: m1, SessionEpoch: FinalEpoch})
	require.NoError(t, err)
	_, err = b.ShareFetch(4, FetchRequest{GroupID: "g2", MemberID: m1, SessionEpoch: FinalEpoch})
	require.NoError(t, err)
	require.NoError(t, b.CheckInvariants())
}

// TestDeleteTopicBadInput: an unknown topic is refused and changes nothing.
func TestDeleteTopicBadInput(t *testing.T) {
	b := newBroker(t, kafkaConfig(), 1, 3, 3)
	c := newClient(t, b, grp, m1)
	c.fetch(0, 0, nil, tp0)
	before := b.Keys()
	assert.ErrorIs(t, b.DeleteTopic("nope"), kerr.UnknownTopicOrPartition)
	assert.ErrorIs(t, b.DeleteTopic(""), kerr.UnknownTopicOrPartition)
	assert.Equal(t, before, b.Keys())
	assert.NotEmpty(t, b.ListShareGroupOffsets(grp))
	require.NoError(t, b.CheckInvariants())
}

// TestDeleteTopicFailsPendingDLQWrites: a DLQ topic deleted while a
// dead-letter write is in flight fails the write; the records are archived
// all the same, and nothing panics.
func TestDeleteTopicFailsPendingDLQWrites(t *testing.T) {
	b := dlqBroker(t)
	c := newClient(t, b, grp, m1)
	c.fetch(0, 0, nil, tp0)
	c.ack(10, acksOf(tp0, 0, 4, share.AckReject))
	require.NoError(t, b.DeleteTopic(dlq))
	_, err := b.Poll(60)
	require.NoError(t, err)
	require.NoError(t, b.CheckInvariants())
	st := b.Stats()
	assert.Equal(t, int64(5), st.DLQFailed)
	assert.Zero(t, st.DLQWritten)
	assert.Equal(t, int64(5), sp(t, b, grp, tp0).StartOffset(), "archived")
}
