package sharebroker

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/share"
)

// Cases named after Kafka's SharePartitionManagerTest (reference §6 case 24)
// and ShareConsumerTest (cases 16, 17).

// TestAcknowledgeIncorrectMemberId proves that a member acknowledging
// records another member acquired gets INVALID_RECORD_STATE for that
// partition only, and that the records stay with their owner.
func TestAcknowledgeIncorrectMemberId(t *testing.T) {
	for _, typ := range []share.AcknowledgeType{share.AckAccept, share.AckRelease, share.AckReject, share.AckRenew} {
		t.Run(typ.String(), func(t *testing.T) {
			b := newBroker(t, kafkaConfig(), 1, 10, 10)
			c1, c2 := newClient(t, b, grp, m1), newClient(t, b, grp, m2)
			resp := c1.fetch(0, 0, nil, tp0)
			require.Equal(t, []share.AcquiredRecords{ar(0, 9, 1)}, records(resp, tp0))
			c2.fetch(1, 0, nil) // opens member-2's session

			res := c2.ack(2, acksOf(tp0, 5, 9, typ))
			require.Len(t, res, 1)
			assert.ErrorIs(t, res[0].Err, kerr.InvalidRecordState)
			requireRange(t, sp(t, b, grp, tp0), 0, 9, share.Acquired, 1, m1)
			assert.Equal(t, int64(1), b.Stats().AcksRefused)
		})
	}
}

// TestReleaseSessionWithIncorrectMemberId proves that closing or dropping
// the session of a member that has none is SHARE_SESSION_NOT_FOUND and
// releases nothing of the member that does.
func TestReleaseSessionWithIncorrectMemberId(t *testing.T) {
	b := newBroker(t, kafkaConfig(), 1, 10, 10)
	c1 := newClient(t, b, grp, m1)
	c1.fetch(0, 0, nil, tp0)
	before := summary(b)

	for name, call := range map[string]func() error{
		"drop connection": func() error { return b.DropConnection(1, grp, "wrong") },
		"final fetch": func() error {
			_, err := b.ShareFetch(1, FetchRequest{GroupID: grp, MemberID: "wrong", SessionEpoch: FinalEpoch})
			return err
		},
		"final acknowledge": func() error {
			_, err := b.ShareAcknowledge(1, AckRequest{GroupID: grp, MemberID: "wrong", SessionEpoch: FinalEpoch})
			return err
		},
		"other group": func() error { return b.DropConnection(1, "other", m1) },
	} {
		err := call()
		assert.ErrorIs(t, err, kerr.ShareSessionNotFound, name)
		assert.Equal(t, before, summary(b), name)
	}
	requireRange(t, sp(t, b, grp, tp0), 0, 9, share.Acquired, 1, m1)
}

// TestShareSessionCacheFull proves that an epoch-0 request for a new
// (group, member) is SHARE_SESSION_LIMIT_REACHED once the cache holds
// MaxShareSessions sessions, that replacing an existing key's session is
// still allowed, and that a closed session frees a slot.
func TestShareSessionCacheFull(t *testing.T) {
	cfg := kafkaConfig()
	cfg.MaxShareSessions = 2
	b := newBroker(t, cfg, 1, 10, 10)
	c1, c2 := newClient(t, b, grp, m1), newClient(t, b, "g2", m1)
	c1.fetch(0, 0, nil, tp0)
	c2.fetch(0, 0, nil, tp0)

	before := summary(b)
	_, err := b.ShareFetch(1, FetchRequest{GroupID: grp, MemberID: "member-3", Partitions: []TopicPartition{tp0}})
	require.ErrorIs(t, err, kerr.ShareSessionLimitReached)
	assert.Equal(t, before, summary(b))

	c1.epoch = 0 // the client restarts its session: allowed, the key has one
	c1.fetch(1, 0, nil, tp0)
	assert.Equal(t, 2, b.Sessions())

	c2.close(2)
	c3 := newClient(t, b, grp, "member-3")
	c3.fetch(3, 0, nil, tp0)
	assert.Equal(t, 2, b.Sessions())
}

// TestInvalidShareSessionEpoch proves that a request whose epoch is not the
// session's next one is INVALID_SHARE_SESSION_EPOCH and changes nothing,
// that acks on an initial ShareFetch are INVALID_REQUEST while
// ShareAcknowledge with epoch 0 is INVALID_SHARE_SESSION_EPOCH (Kafka's
// SharePartitionManager.acknowledgeSessionUpdate), and that a non-zero epoch without a session is
// SHARE_SESSION_NOT_FOUND.
func TestInvalidShareSessionEpoch(t *testing.T) {
	b := newBroker(t, kafkaConfig(), 1, 10, 10)
	c1 := newClient(t, b, grp, m1)
	c1.fetch(0, 5, nil, tp0) // epoch 0 → next 1
	c1.fetch(1, 5, nil, tp0) // epoch 1 → next 2
	require.Equal(t, int32(2), c1.epoch)
	before := summary(b)

	ack := acksOf(tp0, 0, 4, share.AckAccept)
	cases := []struct {
		name string
		call func() error
		want error
	}{
		{"fetch behind", func() error {
			_, err := b.ShareFetch(2, FetchRequest{GroupID: grp, MemberID: m1, SessionEpoch: 1, Partitions: []TopicPartition{tp0}})
			return err
		}, kerr.InvalidShareSessionEpoch},
		{"fetch ahead", func() error {
			_, err := b.ShareFetch(2, FetchRequest{GroupID: grp, MemberID: m1, SessionEpoch: 3, Acks: []PartitionAcks{ack}})
			return err
		}, kerr.InvalidShareSessionEpoch},
		{"acknowledge wrong", func() error {
			_, err := b.ShareAcknowledge(2, AckRequest{GroupID: grp, MemberID: m1, SessionEpoch: 7, Acks: []PartitionAcks{ack}})
			return err
		}, kerr.InvalidShareSessionEpoch},
		{"acknowledge on epoch 0", func() error {
			_, err := b.ShareAcknowledge(2, AckRequest{GroupID: grp, MemberID: m1, SessionEpoch: 0, Acks: []PartitionAcks{ack}})
			return err
		}, kerr.InvalidShareSessionEpoch},
		{"acknowledge on epoch 0 without a session", func() error {
			_, err := b.ShareAcknowledge(2, AckRequest{GroupID: grp, MemberID: m2, SessionEpoch: 0, Acks: []PartitionAcks{ack}})
			return err
		}, kerr.InvalidShareSessionEpoch},
		{"acks on initial fetch", func() error {
			_, err := b.ShareFetch(2, FetchRequest{GroupID: grp, MemberID: m1, SessionEpoch: 0, Acks: []PartitionAcks{ack}})
			return err
		}, kerr.InvalidRequest},
		{"no session", func() error {
			_, err := b.ShareFetch(2, FetchRequest{GroupID: grp, MemberID: m2, SessionEpoch: 1, Partitions: []TopicPartition{tp0}})
			return err
		}, kerr.ShareSessionNotFound},
		{"epoch below final", func() error {
			_, err := b.ShareFetch(2, FetchRequest{GroupID: grp, MemberID: m1, SessionEpoch: -2})
			return err
		}, kerr.InvalidRequest},
	}
	for _, tc := range cases {
		assert.ErrorIs(t, tc.call(), tc.want, tc.name)
		assert.Equal(t, before, summary(b), tc.name)
	}
	// The right epoch still works after all the refusals.
	res := c1.ack(3, ack)
	require.Len(t, res, 1)
	assert.NoError(t, res[0].Err)
}

// TestShareSessionEpochWraps proves the expected epoch goes 1, 2, …,
// MaxInt32, then 1 (Kafka's ShareRequestMetadata.nextEpoch).
func TestShareSessionEpochWraps(t *testing.T) {
	b := newBroker(t, kafkaConfig(), 1, 1, 1)
	c := newClient(t, b, grp, m1)
	c.fetch(0, 0, nil)
	b.sessions[sessionKey{grp, m1}].nextEpoch = 1<<31 - 1
	c.epoch = 1<<31 - 1
	c.fetch(0, 0, nil)
	assert.Equal(t, int32(1), b.sessions[sessionKey{grp, m1}].nextEpoch)
	assert.Equal(t, int32(1), c.epoch)
	c.fetch(0, 0, nil)
	assert.Equal(t, int32(2), b.sessions[sessionKey{grp, m1}].nextEpoch)
}

// TestShareGroupListener proves that closing a group's sessions keeps its
// share-partitions cached until the last one goes (here by a connection
// drop), then evicts them all, and that the next fetch rebuilds them from
// the persisted state: accepted records are not redelivered, released ones
// come back with their count.
func TestShareGroupListener(t *testing.T) {
	b, err := New(kafkaConfig())
	require.NoError(t, err)
	require.NoError(t, b.CreateTopic(topic, 2))
	tp1 := TopicPartition{Topic: topic, Partition: 1}
	for _, p := range []TopicPartition{tp0, tp1} {
		_, err := b.Produce(0, p, 10)
		require.NoError(t, err)
	}
	c1, c2 := newClient(t, b, grp, m1), newClient(t, b, grp, m2)
	r := c1.fetch(0, 0, nil, tp0)
	require.Equal(t, []share.AcquiredRecords{ar(0, 9, 1)}, records(r, tp0))
	r = c2.fetch(0, 0, nil, tp1)
	require.Equal(t, []share.AcquiredRecords{ar(0, 9, 1)}, records(r, tp1))
	other := newClient(t, b, "other", m1)
	other.fetch(0, 0, nil, tp0)
	c1.ack(1, acksOf(tp0, 0, 4, share.AckAccept))

	c1.close(2)
	assert.Equal(t, []share.Key{{Group: grp, Topic: topic, Partition: 0}, {Group: grp, Topic: topic, Partition: 1}, {Group: "other", Topic: topic, Partition: 0}}, b.Keys())
	assert.Zero(t, b.Evictions())
	requireRange(t, sp(t, b, grp, tp0), 5, 9, share.Available, 1, "")

	require.NoError(t, b.DropConnection(3, grp, m2))
	require.NoError(t, b.CheckInvariants())
	assert.Equal(t, []share.Key{{Group: "other", Topic: topic, Partition: 0}}, b.Keys(), "only the other group's partition stays")
	assert.Equal(t, int64(2), b.Evictions())
	_, ok := b.NextDeadline()
	assert.True(t, ok, "the other group's lock timer survives")

	c3 := newClient(t, b, grp, "member-3")
	r = c3.fetch(4, 0, nil, tp0, tp1)
	assert.Equal(t, []share.AcquiredRecords{ar(5, 9, 2)}, records(r, tp0), "accepted 0..4 not redelivered")
	assert.Equal(t, []share.AcquiredRecords{ar(0, 9, 2)}, records(r, tp1), "released on drop, count kept")
	assert.Equal(t, int64(5), sp(t, b, grp, tp0).StartOffset())
}

// TestDeliveryCountDifferentBehaviorWhenClosingSessionWithExplicitAcknowledgement
// is reference case 16: RELEASE the first of two records, leave the second
// un-acknowledged and close; a new consumer receives both with count 2.
func TestDeliveryCountDifferentBehaviorWhenClosingSessionWithExplicitAcknowledgement(t *testing.T) {
	b := newBroker(t, kafkaConfig(), 1, 2, 1)
	c1 := newClient(t, b, grp, m1)
	r := c1.fetch(0, 0, nil, tp0)
	require.Equal(t, []share.AcquiredRecords{ar(0, 1, 1)}, records(r, tp0))
	res := c1.close(1, acksOf(tp0, 0, 0, share.AckRelease))
	require.NoError(t, res[0].Err)
	assert.Equal(t, int64(1), b.Stats().SessionReleased)
	assert.Zero(t, b.Sessions())

	c2 := newClient(t, b, grp, m2)
	r = c2.fetch(2, 0, nil, tp0)
	assert.Equal(t, []share.AcquiredRecords{ar(0, 1, 2)}, records(r, tp0))
}

// TestFinalFetchClosesAfterAcks proves a FINAL ShareFetch applies its acks
// then releases the member's other records with their counts, in every
// cached share-partition of the group, and removes the session.
func TestFinalFetchClosesAfterAcks(t *testing.T) {
	b := newBroker(t, kafkaConfig(), 1, 10, 1)
	c1, c2 := newClient(t, b, grp, m1), newClient(t, b, grp, m2)
	c1.fetch(0, 5, nil, tp0)
	c2.fetch(0, 5, nil, tp0)
	resp, err := b.ShareFetch(1, FetchRequest{GroupID: grp, MemberID: m1, SessionEpoch: FinalEpoch, Acks: []PartitionAcks{acksOf(tp0, 0, 1, share.AckAccept)}})
	require.NoError(t, err)
	require.NoError(t, b.CheckInvariants())
	require.Len(t, resp.Acks, 1)
	assert.NoError(t, resp.Acks[0].Err)
	assert.Empty(t, resp.Partitions)
	p := sp(t, b, grp, tp0)
	assert.Equal(t, int64(2), p.StartOffset(), "0..1 accepted")
	requireRange(t, p, 2, 4, share.Available, 1, "")
	requireRange(t, p, 5, 9, share.Acquired, 1, m2)
	assert.Equal(t, 1, b.Sessions())
}

// TestAcquisitionLockTimeoutOnConsumer is reference case 17 through the
// broker: an un-acknowledged record comes back when Poll reaches its lock
// deadline (not before), and is redelivered with count 2; an ack after the
// expiry is INVALID_RECORD_STATE.
func TestAcquisitionLockTimeoutOnConsumer(t *testing.T) {
	b := newBroker(t, kafkaConfig(), 1, 3, 3)
	c := newClient(t, b, grp, m1)
	r := c.fetch(0, 0, nil, tp0)
	require.Len(t, r.Partitions, 1)
	assert.Equal(t, int64(100), r.Partitions[0].LockDeadlineMs)
	d, ok := b.NextDeadline()
	require.True(t, ok)
	require.Equal(t, int64(100), d)

	n, err := b.Poll(99)
	require.NoError(t, err)
	assert.Zero(t, n)
	requireRange(t, sp(t, b, grp, tp0), 0, 2, share.Acquired, 1, m1)

	n, err = b.Poll(100)
	require.NoError(t, err)
	require.NoError(t, b.CheckInvariants())
	assert.Equal(t, 1, n)
	requireRange(t, sp(t, b, grp, tp0), 0, 2, share.Available, 1, "")
	_, ok = b.NextDeadline()
	assert.False(t, ok)
	assert.Equal(t, int64(3), b.Stats().LockExpired)

	res := c.ack(101, acksOf(tp0, 0, 2, share.AckAccept))
	assert.ErrorIs(t, res[0].Err, kerr.InvalidRecordState)
	r = c.fetch(101, 0, nil, tp0)
	assert.Equal(t, []share.AcquiredRecords{ar(0, 2, 2)}, records(r, tp0))
}

// TestAcknowledgeEmptyPartitionCacheMap proves acknowledging a
// share-partition the broker has not loaded (never fetched, or another
// group's) answers UNKNOWN_TOPIC_OR_PARTITION for it and creates nothing.
func TestAcknowledgeEmptyPartitionCacheMap(t *testing.T) {
	b := newBroker(t, kafkaConfig(), 1, 10, 10)
	newClient(t, b, "other", m1).fetch(0, 0, nil, tp0)
	c := newClient(t, b, grp, m1)
	c.fetch(0, 0, nil)
	res := c.ack(1, acksOf(tp0, 0, 9, share.AckAccept))
	require.Len(t, res, 1)
	assert.ErrorIs(t, res[0].Err, kerr.UnknownTopicOrPartition)
	assert.Equal(t, []share.Key{{Group: "other", Topic: topic, Partition: 0}}, b.Keys())
}

// TestReleaseSessionReleasesOnlyItsPartitions follows Kafka's
// SharePartitionManager.releaseSession: closing a share session releases the
// member's records in that session's partitions only. Records the member
// acquired on tp0 in an earlier session, which an epoch-0 request replaced
// with a session fetching tp1 alone, stay ACQUIRED after the close and come
// back by lock expiry.
func TestReleaseSessionReleasesOnlyItsPartitions(t *testing.T) {
	b := newBroker(t, kafkaConfig(), 2, 0, 1)
	tp1 := TopicPartition{topic, 1}
	for _, p := range []TopicPartition{tp0, tp1} {
		_, err := b.Produce(0, p, 3)
		require.NoError(t, err)
	}
	newClient(t, b, grp, m2).fetch(0, 0, nil) // keeps the group's partitions cached
	c := newClient(t, b, grp, m1)
	c.fetch(0, 0, nil, tp0)
	c.epoch = 0 // a new session replaces the old one without releasing
	c.fetch(1, 0, nil, tp1)
	c.close(2)
	requireRange(t, sp(t, b, grp, tp0), 0, 2, share.Acquired, 1, m1)
	requireRange(t, sp(t, b, grp, tp1), 0, 2, share.Available, 1, "")
	_, err := b.Poll(100)
	require.NoError(t, err)
	requireRange(t, sp(t, b, grp, tp0), 0, 2, share.Available, 1, "")
}

// TestProcessFetchResponseWithMaxFetchRecords is ShareFetchUtilsTest's case:
// RequestMaxRecords bounds the whole request, each partition getting what
// the partitions before it left (soft: whole log batches), and a partition
// served once the budget is spent acquires nothing though its
// share-partition is created. Without RequestMaxRecords, MaxRecords stays
// per partition (the simulator's share sink).
func TestProcessFetchResponseWithMaxFetchRecords(t *testing.T) {
	tp1, tp2 := TopicPartition{Topic: topic, Partition: 1}, TopicPartition{Topic: topic, Partition: 2}
	setup := func() *Broker {
		b := newBroker(t, kafkaConfig(), 3, 4, 1) // p0: four 1-record batches
		_, err := b.Produce(0, tp1, 4)            // p1: one 4-record batch
		require.NoError(t, err)
		_, err = b.Produce(0, tp2, 3)
		require.NoError(t, err)
		return b
	}

	b := setup()
	c := newClient(t, b, grp, m1)
	resp, err := b.ShareFetch(1, FetchRequest{GroupID: grp, MemberID: m1, Partitions: []TopicPartition{tp0, tp1, tp2}, MaxRecords: 3, RequestMaxRecords: 3})
	require.NoError(t, err)
	c.advance()
	assert.Equal(t, []share.AcquiredRecords{ar(0, 2, 1)}, records(resp, tp0), "p0 takes the budget, whole batches")
	assert.Empty(t, records(resp, tp1), "nothing left for p1")
	assert.Empty(t, records(resp, tp2))
	_, ok := b.Partition(share.Key{Group: grp, Topic: tp2.Topic, Partition: tp2.Partition})
	assert.True(t, ok, "the share-partition of a partition served with no budget is still created")

	// 1 left after p0's last record: p1's 4-record batch comes whole.
	resp = c.fetchBudget(2, 2, tp0, tp1, tp2)
	assert.Equal(t, []share.AcquiredRecords{ar(3, 3, 1)}, records(resp, tp0))
	assert.Equal(t, []share.AcquiredRecords{ar(0, 3, 1)}, records(resp, tp1), "soft: the whole log batch")
	assert.Empty(t, records(resp, tp2))

	// The old per-partition bound, kept for callers that do not set one.
	b = setup()
	resp, err = b.ShareFetch(1, FetchRequest{GroupID: grp, MemberID: m1, Partitions: []TopicPartition{tp0, tp1, tp2}, MaxRecords: 3})
	require.NoError(t, err)
	assert.Equal(t, []share.AcquiredRecords{ar(0, 2, 1)}, records(resp, tp0))
	assert.Equal(t, []share.AcquiredRecords{ar(0, 3, 1)}, records(resp, tp1))
	assert.Equal(t, []share.AcquiredRecords{ar(0, 2, 1)}, records(resp, tp2))

	// A bad budget is INVALID_REQUEST and opens no session.
	b = setup()
	for _, bad := range []int32{-1, share.MaxBatchSize + 1} {
		_, err = b.ShareFetch(1, FetchRequest{GroupID: grp, MemberID: m1, Partitions: []TopicPartition{tp0}, RequestMaxRecords: bad})
		assert.ErrorIs(t, err, kerr.InvalidRequest, "%d", bad)
	}
	assert.Zero(t, b.Sessions())
}

// TestRecordLockDurationMsOrDefault is ShareGroupConfigProviderTest's pair
// (WithGroupConfig, WithoutGroupConfig): a group's
// share.record.lock.duration.ms when set, else the broker default, and
// share.DefaultRecordLockDurationMs when the broker sets none.
func TestRecordLockDurationMsOrDefault(t *testing.T) {
	b := newBroker(t, kafkaConfig(), 1, 0, 1)
	require.NoError(t, b.SetGroupConfig(grp, GroupConfig{RecordLockDurationMs: 1000}))
	assert.Equal(t, int64(1000), b.RecordLockDurationMs(grp), "with group config")
	assert.Equal(t, int64(100), b.RecordLockDurationMs("other"), "without: the broker default")
	c := newClient(t, b, grp, m1)
	_, err := b.Produce(0, tp0, 1)
	require.NoError(t, err)
	resp := c.fetch(0, 0, nil, tp0)
	assert.Equal(t, int64(1000), resp.Partitions[0].LockDeadlineMs, "the records are locked for it")

	plain, err := New(Config{})
	require.NoError(t, err)
	assert.Equal(t, share.DefaultRecordLockDurationMs, plain.RecordLockDurationMs(grp))
}
