package sharebroker

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/share"
)

var key0 = share.Key{Group: grp, Topic: topic, Partition: 0}

// TestMoveLeader proves a leader move bumps the partition's leader epoch,
// rebuilds its share-partitions from the persisted state (acquired records
// AVAILABLE again with their persisted counts, accepted ones gone), cancels
// the old locks, and fences the old object: its writes fail and it is not
// the cached one.
func TestMoveLeader(t *testing.T) {
	b := newBroker(t, kafkaConfig(), 1, 10, 1)
	c := newClient(t, b, grp, m1)
	c.fetch(0, 4, nil, tp0)                       // 0..3 count 1
	c.ack(1, acksOf(tp0, 0, 1, share.AckAccept))  // 0..1 ACKNOWLEDGED
	c.ack(2, acksOf(tp0, 2, 2, share.AckRelease)) // 2 AVAILABLE count 1
	r := c.fetch(3, 2, nil, tp0)                  // 2 (count 2), then 4: 3 is held
	require.Equal(t, []share.AcquiredRecords{ar(2, 2, 2), ar(4, 4, 1)}, records(r, tp0))
	old := sp(t, b, grp, tp0)
	statsBefore := b.Stats()

	require.NoError(t, b.MoveLeader(4, tp0))
	require.NoError(t, b.CheckInvariants())
	nu := sp(t, b, grp, tp0)
	require.NotSame(t, old, nu)
	assert.Equal(t, int32(1), nu.LeaderEpoch())
	assert.Equal(t, int64(2), nu.StartOffset())
	requireRange(t, nu, 2, 2, share.Available, 1, "")
	requireRange(t, nu, 3, 3, share.Available, 0, "")
	assert.Equal(t, int64(0), nu.AcquiredCount())
	_, ok := b.NextDeadline()
	assert.False(t, ok, "the old leader's lock timer is gone")
	assert.Equal(t, statsBefore, b.Stats(), "the old object's counters are kept")

	_, err := old.Acknowledge(5, m1, []share.AckBatch{{FirstOffset: 4, LastOffset: 4, Type: share.AckAccept}})
	assert.ErrorIs(t, err, kerr.FencedStateEpoch, "the old leader is fenced")

	// The member's acks against its old acquisition are refused by the new leader.
	res := c.ack(5, acksOf(tp0, 2, 2, share.AckAccept))
	assert.ErrorIs(t, res[0].Err, kerr.InvalidRecordState)
	res = c.ack(5, acksOf(tp0, 4, 4, share.AckAccept))
	assert.ErrorIs(t, res[0].Err, kerr.InvalidRequest, "4's acquisition was never persisted: not cached")
	r = c.fetch(5, 0, nil, tp0)
	assert.Equal(t, []share.AcquiredRecords{ar(2, 2, 2), ar(3, 9, 1)}, records(r, tp0))
}

// dlqBroker has topic "orders" (3 partitions) and a DLQ topic of 2
// partitions, group g writing to it, delay 50 ms, limit 2.
func dlqBroker(t *testing.T) *Broker {
	t.Helper()
	cfg := kafkaConfig()
	cfg.DLQWriteDelayMs = 50
	b, err := New(cfg)
	require.NoError(t, err)
	require.NoError(t, b.CreateTopic(topic, 3))
	require.NoError(t, b.CreateTopic(dlq, 2))
	require.NoError(t, b.SetGroupConfig(grp, GroupConfig{DLQTopic: dlq, MaxDeliveryCount: 2}))
	for p := range int32(3) {
		_, err := b.Produce(0, TopicPartition{topic, p}, 5)
		require.NoError(t, err)
	}
	return b
}

// TestDLQ proves KIP-1191 through the broker: REJECT with a DLQ configured
// leaves the records ARCHIVING (blocking SPSO) until DLQWriteDelayMs
// passes, then ARCHIVED with the records in DLQ partition p % n; a DLQ
// fault still archives them but writes nothing; a delivery count exhausted
// by lock expiry goes the same way.
func TestDLQ(t *testing.T) {
	cases := []struct {
		name      string
		partition int32
		fault     bool
		expire    bool // exhaust the count by lock expiry instead of REJECT
		wantDLQ   [2]int64
	}{
		{"reject p0", 0, false, false, [2]int64{5, 0}},
		{"reject p1", 1, false, false, [2]int64{0, 5}},
		{"reject p2 → 2 % 2", 2, false, false, [2]int64{5, 0}},
		{"fault", 1, true, false, [2]int64{0, 0}},
		{"delivery count exceeded", 1, false, true, [2]int64{0, 5}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := dlqBroker(t)
			var faults []share.DLQWrite
			if tc.fault {
				b.SetDLQFault(func(k share.Key, w share.DLQWrite) bool { faults = append(faults, w); return true })
			}
			src := TopicPartition{topic, tc.partition}
			c := newClient(t, b, grp, m1)
			c.fetch(0, 0, nil, src)
			now := int64(10)
			if tc.expire {
				_, err := b.Poll(100)
				require.NoError(t, err)
				c.fetch(100, 0, nil, src)
				_, err = b.Poll(200)
				require.NoError(t, err)
				now = 200
			} else {
				res := c.ack(now, acksOf(src, 0, 4, share.AckReject))
				require.NoError(t, res[0].Err)
			}
			require.NoError(t, b.CheckInvariants())
			p := sp(t, b, grp, src)
			requireRange(t, p, 0, 4, share.Archiving, map[bool]int32{true: 2, false: 1}[tc.expire], "")
			assert.Equal(t, int64(0), p.StartOffset(), "ARCHIVING blocks SPSO")
			d, ok := b.NextDeadline()
			require.True(t, ok)
			assert.Equal(t, now+50, d)

			n, err := b.Poll(now + 49)
			require.NoError(t, err)
			assert.Zero(t, n)
			assert.Zero(t, b.DLQRecords(dlq))

			n, err = b.Poll(now + 50)
			require.NoError(t, err)
			require.NoError(t, b.CheckInvariants())
			assert.Equal(t, 1, n)
			assert.Equal(t, int64(5), p.StartOffset(), "ARCHIVED: SPSO passes them")
			for q, want := range tc.wantDLQ {
				got, err := b.EndOffset(TopicPartition{dlq, int32(q)})
				require.NoError(t, err)
				assert.Equal(t, want, got, "DLQ partition %d", q)
			}
			st := b.Stats()
			if tc.fault {
				assert.Equal(t, int64(5), st.DLQFailed)
				assert.Equal(t, []share.DLQWrite{{FirstOffset: 0, LastOffset: 4, DeliveryCount: 1, Cause: share.DLQRejected}}, faults)
			} else {
				assert.Equal(t, int64(5), st.DLQWritten)
				assert.Equal(t, st.DLQWritten, b.DLQRecords(dlq))
			}
		})
	}
}

// TestDLQReissuedAfterLeaderMove proves a pending DLQ write of the old
// leader is dropped by a leader move and re-issued by the new leader from
// the persisted ARCHIVING records, written once.
func TestDLQReissuedAfterLeaderMove(t *testing.T) {
	b := dlqBroker(t)
	c := newClient(t, b, grp, m1)
	c.fetch(0, 0, nil, tp0)
	c.ack(10, acksOf(tp0, 0, 4, share.AckReject))
	require.NoError(t, b.MoveLeader(30, tp0))
	require.NoError(t, b.CheckInvariants())
	requireRange(t, sp(t, b, grp, tp0), 0, 4, share.Archiving, 1, "")
	d, ok := b.NextDeadline()
	require.True(t, ok)
	assert.Equal(t, int64(80), d, "re-issued at the move, not at the ack")

	_, err := b.Poll(60)
	require.NoError(t, err)
	assert.Zero(t, b.DLQRecords(dlq), "the old write never completes")
	_, err = b.Poll(80)
	require.NoError(t, err)
	require.NoError(t, b.CheckInvariants())
	assert.Equal(t, int64(5), b.DLQRecords(dlq))
	assert.Equal(t, int64(5), sp(t, b, grp, tp0).StartOffset())
}

// TestAlterShareGroupOffsets proves an offset reset re-initialises the
// state with a higher state epoch, evicts the cached share-partition (whose
// writes are now fenced), and that the next fetch starts at the new offset;
// an offset outside the log changes nothing.
func TestAlterShareGroupOffsets(t *testing.T) {
	b := newBroker(t, kafkaConfig(), 1, 10, 1)
	c := newClient(t, b, grp, m1)
	c.fetch(0, 4, nil, tp0)
	c.ack(1, acksOf(tp0, 0, 2, share.AckAccept))
	old := sp(t, b, grp, tp0)
	assert.Equal(t, []PartitionOffset{{TopicPartition: tp0, StartOffset: 3, Lag: 7}}, b.ListShareGroupOffsets(grp))

	before := summary(b)
	for _, bad := range [][]PartitionOffset{
		{{TopicPartition: tp0, StartOffset: 11}},
		{{TopicPartition: tp0, StartOffset: -1}},
		{{TopicPartition: TopicPartition{"nope", 0}, StartOffset: 0}},
		{{TopicPartition: tp0, StartOffset: 1}, {TopicPartition: tp0, StartOffset: 2}},
	} {
		assert.Error(t, b.AlterShareGroupOffsets(grp, bad))
		assert.Equal(t, before, summary(b))
	}

	require.NoError(t, b.AlterShareGroupOffsets(grp, []PartitionOffset{{TopicPartition: tp0, StartOffset: 7}}))
	require.NoError(t, b.CheckInvariants())
	assert.Empty(t, b.Keys())
	assert.Equal(t, int64(1), b.Evictions())
	assert.Equal(t, []PartitionOffset{{TopicPartition: tp0, StartOffset: 7, Lag: 3}}, b.ListShareGroupOffsets(grp))
	_, err := old.Acknowledge(2, m1, []share.AckBatch{{FirstOffset: 3, LastOffset: 3, Type: share.AckAccept}})
	assert.ErrorIs(t, err, kerr.FencedStateEpoch, "the old state epoch is fenced")

	r := c.fetch(3, 0, nil, tp0)
	assert.Equal(t, []share.AcquiredRecords{ar(7, 9, 1)}, records(r, tp0))
	assert.Equal(t, int32(1), sp(t, b, grp, tp0).StateEpoch())

	// Altering a partition never consumed initialises it.
	require.NoError(t, b.CreateTopic("fresh", 1))
	_, err = b.Produce(4, TopicPartition{"fresh", 0}, 4)
	require.NoError(t, err)
	require.NoError(t, b.AlterShareGroupOffsets(grp, []PartitionOffset{{TopicPartition: TopicPartition{"fresh", 0}, StartOffset: 1}}))
	assert.Equal(t, []PartitionOffset{{TopicPartition: TopicPartition{"fresh", 0}, StartOffset: 1, Lag: 3}, {TopicPartition: tp0, StartOffset: 7, Lag: 3}},
		b.ListShareGroupOffsets(grp), "sorted by topic; the live tp0 has 7..9 in flight: lag counts them")
}

// TestDeleteShareGroupState proves deleting a group's state evicts its
// share-partitions and makes the next start use share.auto.offset.reset
// (here latest: nothing of the old log is delivered, new records are),
// and that the listing no longer shows the group.
func TestDeleteShareGroupState(t *testing.T) {
	cfg := kafkaConfig()
	cfg.Defaults.AutoOffsetReset = share.ResetLatest
	b := newBroker(t, cfg, 1, 0, 1)
	c := newClient(t, b, grp, m1)
	c.fetch(0, 0, nil, tp0) // initialises at the log end, 0
	_, err := b.Produce(1, tp0, 5)
	require.NoError(t, err)
	r := c.fetch(1, 0, nil, tp0)
	require.Equal(t, []share.AcquiredRecords{ar(0, 4, 1)}, records(r, tp0))
	c.ack(2, acksOf(tp0, 0, 1, share.AckAccept))
	require.NotEmpty(t, b.ListShareGroupOffsets(grp))

	require.NoError(t, b.DeleteShareGroupState(grp))
	require.NoError(t, b.CheckInvariants())
	assert.Empty(t, b.Keys())
	assert.Empty(t, b.ListShareGroupOffsets(grp))

	r = c.fetch(3, 0, nil, tp0)
	assert.Empty(t, r.Partitions, "latest: 2..4 are not delivered again")
	_, err = b.Produce(4, tp0, 2)
	require.NoError(t, err)
	r = c.fetch(4, 0, nil, tp0)
	assert.Equal(t, []share.AcquiredRecords{ar(5, 6, 1)}, records(r, tp0))
	assert.Equal(t, int32(1), sp(t, b, grp, tp0).StateEpoch())
	assert.NoError(t, b.DeleteShareGroupState("never-seen"))
}

// TestDeleteShareGroupOffsets proves the per-topic delete: the named
// topic's share state is forgotten (the next fetch starts from
// share.auto.offset.reset, here earliest, so the acknowledged records come
// again), the other topic's state and another group's are kept, and a
// topic the group holds no state for answers false (Kafka's "There is no
// offset information to delete.").
func TestDeleteShareGroupOffsets(t *testing.T) {
	b := newBroker(t, kafkaConfig(), 1, 3, 3)
	other := TopicPartition{Topic: "other", Partition: 0}
	require.NoError(t, b.CreateTopic(other.Topic, 1))
	require.NoError(t, b.CreateTopic("untouched", 1))
	_, err := b.Produce(0, other, 2)
	require.NoError(t, err)
	c := newClient(t, b, grp, m1)
	r := c.fetch(1, 0, nil, tp0, other)
	require.Equal(t, []share.AcquiredRecords{ar(0, 2, 1)}, records(r, tp0))
	c.ack(2, acksOf(tp0, 0, 2, share.AckAccept), acksOf(other, 0, 1, share.AckAccept))
	c2 := newClient(t, b, "g2", m1)
	c2.fetch(3, 0, nil, tp0)
	require.NoError(t, b.DropConnection(4, grp, m1))
	require.NoError(t, b.DropConnection(4, "g2", m1))
	require.Equal(t, []PartitionOffset{{TopicPartition: tp0, StartOffset: 3}, {TopicPartition: other, StartOffset: 2}}, b.ListShareGroupOffsets(grp))

	deleted, err := b.DeleteShareGroupOffsets(grp, []string{topic, "untouched", topic})
	require.NoError(t, err)
	assert.Equal(t, []bool{true, false, false}, deleted, "a topic without state, and a topic named twice, delete nothing")
	require.NoError(t, b.CheckInvariants())
	assert.Equal(t, []PartitionOffset{{TopicPartition: other, StartOffset: 2}}, b.ListShareGroupOffsets(grp), "only the named topic is forgotten")
	assert.Len(t, b.ListShareGroupOffsets("g2"), 1, "another group keeps its state")

	c = newClient(t, b, grp, m1)
	r = c.fetch(5, 0, nil, tp0, other)
	assert.Equal(t, []share.AcquiredRecords{ar(0, 2, 1)}, records(r, tp0), "earliest again: the deleted state's records are delivered anew")
	assert.Empty(t, records(r, other), "the kept topic resumes at its start offset")

	deleted, err = b.DeleteShareGroupOffsets("never-seen", []string{topic})
	require.NoError(t, err)
	assert.Equal(t, []bool{false}, deleted)
	assert.False(t, b.HasShareGroupState("never-seen"))
	assert.True(t, b.HasShareGroupState(grp), "a group whose state was deleted still had some")

	before := summary(b)
	_, err = b.DeleteShareGroupOffsets(grp, []string{topic, "nope"})
	assert.ErrorIs(t, err, kerr.UnknownTopicOrPartition)
	_, err = b.DeleteShareGroupOffsets("", []string{topic})
	assert.ErrorIs(t, err, kerr.InvalidRequest)
	assert.Equal(t, before, summary(b), "a refused delete changes nothing")
	assert.Len(t, b.ListShareGroupOffsets(grp), 2)
}

// TestDeleteRecordsArchivesAvailable proves moving the log start archives
// AVAILABLE records below it in every cached share-partition (SPSO jumps),
// keeps ACQUIRED ones until released (then ARCHIVED whatever their count),
// never moves back, and that an uncached share-partition catches up on its
// next fetch.
func TestDeleteRecordsArchivesAvailable(t *testing.T) {
	b := newBroker(t, kafkaConfig(), 1, 10, 1)
	c := newClient(t, b, grp, m1)
	other := newClient(t, b, "other", m1)
	c.fetch(0, 2, nil, tp0) // 0..1 ACQUIRED, 2.. not cached yet
	other.fetch(0, 0, nil, tp0)
	other.close(1, acksOf(tp0, 0, 9, share.AckRelease)) // evicted: last session of "other"
	require.Equal(t, []share.Key{key0}, b.Keys())

	require.NoError(t, b.DeleteRecords(2, tp0, 5))
	require.NoError(t, b.CheckInvariants())
	p := sp(t, b, grp, tp0)
	assert.Equal(t, int64(5), p.StartOffset())
	requireRange(t, p, 0, 1, share.Acquired, 1, m1)
	ls, err := b.LogStartOffset(tp0)
	require.NoError(t, err)
	assert.Equal(t, int64(5), ls)

	require.NoError(t, b.DeleteRecords(3, tp0, 2), "never back")
	ls, _ = b.LogStartOffset(tp0)
	assert.Equal(t, int64(5), ls)

	res := c.ack(3, acksOf(tp0, 0, 1, share.AckRelease))
	require.NoError(t, res[0].Err, "acks below SPSO are skipped")
	requireRange(t, p, 0, 1, share.Acquired, 1, m1)
	require.NoError(t, b.DropConnection(4, grp, m1))

	r := other.fetch(5, 0, nil, tp0)
	assert.Equal(t, []share.AcquiredRecords{ar(5, 9, 2)}, records(r, tp0))
	assert.Equal(t, int64(5), sp(t, b, "other", tp0).StartOffset(), "the rebuilt partition archived 0..4 on its first fetch")
	assert.Equal(t, int64(5), b.Stats().ArchivedLogStart, "g had none of 2..4 cached; other had 0..4 AVAILABLE")
}

// TestMaxRecordsBoundsFetch proves a fetch acquires whole log batches until
// MaxRecords is covered (0 → the broker default), and that MaxRecords above
// the default is honoured.
func TestMaxRecordsBoundsFetch(t *testing.T) {
	cases := []struct {
		name       string
		defaults   int32
		maxRecords int32
		want       int64
	}{
		{"default 500", 0, 0, 500},
		{"broker default 20", 20, 0, 20},
		{"request 7 → whole batches", 20, 7, 10},
		{"request above default", 20, 60, 60},
		{"exactly batches", 0, 30, 30},
	}
	// A fetch counts only what it can acquire: records another member holds
	// right past the next fetch offset do not use up MaxRecords.
	t.Run("held records skipped", func(t *testing.T) {
		b := newBroker(t, kafkaConfig(), 1, 100, 5)
		c1, c2 := newClient(t, b, grp, m1), newClient(t, b, grp, m2)
		c1.fetch(0, 10, nil, tp0)
		c1.ack(1, acksOf(tp0, 0, 0, share.AckRelease))
		r := c2.fetch(2, 5, nil, tp0)
		assert.Equal(t, []share.AcquiredRecords{ar(0, 0, 2), ar(10, 14, 1)}, records(r, tp0))
	})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := kafkaConfig()
			cfg.Defaults.BatchSize = tc.defaults
			cfg.Defaults.MaxInFlightRecords = 10_000
			b := newBroker(t, cfg, 1, 1000, 5)
			c := newClient(t, b, grp, m1)
			r := c.fetch(0, tc.maxRecords, nil, tp0)
			var n int64
			for _, a := range records(r, tp0) {
				n += a.LastOffset - a.FirstOffset + 1
			}
			assert.Equal(t, tc.want, n)
		})
	}
}

// TestAutoOffsetReset proves an uninitialised share-partition starts where
// share.auto.offset.reset says, given the window the broker hands it:
// earliest at the log start, latest at the end, by_duration at the first
// batch stamped within the duration.
func TestAutoOffsetReset(t *testing.T) {
	cases := []struct {
		name  string
		gc    GroupConfig
		start int64
	}{
		{"broker default earliest", GroupConfig{}, 2},
		{"latest set over the broker's earliest", GroupConfig{AutoOffsetReset: share.ResetLatest, AutoOffsetResetSet: true}, 20},
		{"earliest set", GroupConfig{AutoOffsetReset: share.ResetEarliest, AutoOffsetResetSet: true}, 2},
		{"by_duration 450 ms", GroupConfig{AutoOffsetReset: share.ResetByDuration, AutoOffsetResetDurationMs: 450}, 8},
		{"by_duration long ago", GroupConfig{AutoOffsetReset: share.ResetByDuration, AutoOffsetResetDurationMs: 10_000}, 2},
		{"by_duration nothing", GroupConfig{AutoOffsetReset: share.ResetByDuration, AutoOffsetResetDurationMs: 1}, 20},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, err := New(kafkaConfig())
			require.NoError(t, err)
			require.NoError(t, b.CreateTopic(topic, 1))
			for i := range int64(5) {
				_, err := b.Produce(i*100, tp0, 4) // [4i, 4i+3] stamped 100 i
				require.NoError(t, err)
			}
			require.NoError(t, b.DeleteRecords(400, tp0, 2))
			require.NoError(t, b.SetGroupConfig(grp, tc.gc))
			c := newClient(t, b, grp, m1)
			c.fetch(600, 0, nil, tp0)
			assert.Equal(t, tc.start, sp(t, b, grp, tp0).StartOffset())
		})
	}
}

// TestPersistFaults proves a failed persister write rolls an ack back and
// is that partition's error (others apply), a failed lock-expiry write
// stands and is only counted, and a fenced write drops the share-partition
// from the cache, to be rebuilt on next use.
func TestPersistFaults(t *testing.T) {
	b, err := New(kafkaConfig())
	require.NoError(t, err)
	require.NoError(t, b.CreateTopic(topic, 2))
	tp1 := TopicPartition{topic, 1}
	for _, p := range []TopicPartition{tp0, tp1} {
		_, err := b.Produce(0, p, 4)
		require.NoError(t, err)
	}
	c := newClient(t, b, grp, m1)
	c.fetch(0, 0, nil, tp0, tp1)
	var fail error
	b.SetPersistFault(func(k share.Key) error {
		if k.Partition == 0 {
			return fail
		}
		return nil
	})

	fail = kerr.KafkaStorageError
	writes := b.Persister().Writes()
	res := c.ack(1, acksOf(tp0, 0, 3, share.AckAccept), acksOf(tp1, 0, 3, share.AckAccept))
	assert.ErrorIs(t, res[0].Err, kerr.KafkaStorageError)
	assert.NoError(t, res[1].Err)
	requireRange(t, sp(t, b, grp, tp0), 0, 3, share.Acquired, 1, m1)
	assert.Equal(t, writes+1, b.Persister().Writes(), "only partition 1's write landed")

	n, err := b.Poll(100)
	require.NoError(t, err)
	require.NoError(t, b.CheckInvariants())
	assert.Equal(t, 1, n)
	requireRange(t, sp(t, b, grp, tp0), 0, 3, share.Available, 1, "")
	assert.Equal(t, int64(2), b.Stats().PersistFailures)

	fail = kerr.FencedStateEpoch.WithMessage("injected")
	c.fetch(100, 0, nil, tp0)
	res = c.ack(101, acksOf(tp0, 0, 3, share.AckAccept))
	assert.ErrorIs(t, res[0].Err, kerr.FencedStateEpoch)
	require.NoError(t, b.CheckInvariants())
	_, ok := b.Partition(key0)
	assert.False(t, ok, "a fenced share-partition leaves the cache")
	assert.Equal(t, int64(1), b.Evictions())

	fail = nil
	r := c.fetch(102, 0, nil, tp0)
	assert.Equal(t, []share.AcquiredRecords{ar(0, 3, 1)}, records(r, tp0), "rebuilt from what was persisted: nothing")
	b.SetPersistFault(nil)
}

// TestUnknownPartitions proves unknown topics and partitions are
// per-partition UNKNOWN_TOPIC_OR_PARTITION, as are acks for a
// share-partition that is not cached, while the rest of the request works.
func TestUnknownPartitions(t *testing.T) {
	b := newBroker(t, kafkaConfig(), 1, 3, 3)
	c := newClient(t, b, grp, m1)
	r := c.fetch(0, 0, nil, TopicPartition{"nope", 0}, tp0, TopicPartition{topic, 1}, TopicPartition{topic, -1})
	require.Len(t, r.Partitions, 4)
	for i, p := range r.Partitions {
		if i == 1 {
			assert.NoError(t, p.Err)
			continue
		}
		assert.ErrorIs(t, p.Err, kerr.UnknownTopicOrPartition, "partition %d", i)
	}
	require.NoError(t, b.CreateTopic("idle", 1))
	res := c.ack(1, acksOf(TopicPartition{"idle", 0}, 0, 0, share.AckAccept), acksOf(tp0, 0, 2, share.AckAccept))
	assert.ErrorIs(t, res[0].Err, kerr.UnknownTopicOrPartition)
	assert.NoError(t, res[1].Err)
	assert.Equal(t, []TopicPartition{{"idle", 0}, tp0}, []TopicPartition{res[0].TopicPartition, res[1].TopicPartition})
}

// TestGroupConfigAppliesToLivePartitions proves a group config change
// reaches a live share-partition at once (trunk reads the group config on
// every use) and applies to rebuilt ones too, and that invalid configs are
// refused and change nothing.
func TestGroupConfigAppliesToLivePartitions(t *testing.T) {
	b := newBroker(t, kafkaConfig(), 1, 3, 3)
	c := newClient(t, b, grp, m1)
	c.fetch(0, 0, nil, tp0)
	require.NoError(t, b.SetGroupConfig(grp, GroupConfig{MaxDeliveryCount: 3, RecordLockDurationMs: 15_000, MaxRecordLocks: 150}))
	cfg := sp(t, b, grp, tp0).Config()
	assert.Equal(t, int64(150), cfg.MaxInFlightRecords, "share.partition.max.record.locks, live")
	require.NoError(t, b.SetGroupConfig(grp, GroupConfig{MaxDeliveryCount: 3, RecordLockDurationMs: 15_000}))
	cfg = sp(t, b, grp, tp0).Config()
	assert.Equal(t, kafkaConfig().Defaults.MaxInFlightRecords, cfg.MaxInFlightRecords, "removed: the broker's")
	assert.Equal(t, int64(15_000), cfg.RecordLockDurationMs, "live")
	assert.Equal(t, int32(3), cfg.MaxDeliveryCount)
	require.NoError(t, b.MoveLeader(1, tp0))
	cfg = sp(t, b, grp, tp0).Config()
	assert.Equal(t, int64(15_000), cfg.RecordLockDurationMs, "rebuilt")
	assert.Equal(t, int32(3), cfg.MaxDeliveryCount)
	assert.Equal(t, GroupConfig{MaxDeliveryCount: 3, RecordLockDurationMs: 15_000}, b.GroupConfig(grp))

	for _, bad := range []GroupConfig{
		{MaxDeliveryCount: 1},
		{MaxDeliveryCount: 26},
		{RecordLockDurationMs: -1},
		{DLQTopic: "missing"},
		{AutoOffsetReset: share.ResetByDuration},
		{AutoOffsetResetDurationMs: 5},
		{AutoOffsetReset: 9},
	} {
		assert.ErrorIs(t, b.SetGroupConfig(grp, bad), kerr.InvalidRequest, "%+v", bad)
	}
	assert.Equal(t, GroupConfig{MaxDeliveryCount: 3, RecordLockDurationMs: 15_000}, b.GroupConfig(grp))
	assert.Equal(t, int32(3), sp(t, b, grp, tp0).Config().MaxDeliveryCount)
}

// TestGroupConfigKafkaBounds proves Kafka's bounds are the default:
// share.delivery.count.limit within [2, 10] and
// share.record.lock.duration.ms within [15000, 60000] for a group, the
// broker's group.share.* within their ranges; outside them INVALID_CONFIG
// (a group's with groupconfig's message, as IncrementalAlterConfigs
// answers), nothing changed. WideBounds lifts them to share's own.
func TestGroupConfigKafkaBounds(t *testing.T) {
	b, err := New(Config{})
	require.NoError(t, err)
	for _, bad := range []GroupConfig{
		{MaxDeliveryCount: 11},
		{RecordLockDurationMs: 14_999},
		{RecordLockDurationMs: 60_001},
		{MaxRecordLocks: 99},
		{MaxRecordLocks: 10_001},
	} {
		assert.ErrorIs(t, b.SetGroupConfig(grp, bad), kerr.InvalidConfig, "%+v", bad)
	}
	assert.Equal(t, GroupConfig{}, b.GroupConfig(grp))
	assert.EqualError(t, b.SetGroupConfig(grp, GroupConfig{MaxDeliveryCount: 11}),
		"INVALID_CONFIG: share.delivery.count.limit must be in the range 2 to 10 inclusive.", "groupconfig's rule, Kafka's words")
	require.NoError(t, b.SetGroupConfig(grp, GroupConfig{MaxDeliveryCount: 10, RecordLockDurationMs: 15_000}))
	for _, bad := range []share.Config{
		{MaxDeliveryCount: 11},
		{RecordLockDurationMs: 999},
		{MaxInFlightRecords: 99},
		{MaxInFlightRecords: 10_001},
	} {
		_, err := New(Config{Defaults: bad})
		assert.ErrorIs(t, err, kerr.InvalidConfig, "%+v", bad)
	}
	wide, err := New(Config{WideBounds: true, Defaults: share.Config{RecordLockDurationMs: 100, MaxInFlightRecords: 20}})
	require.NoError(t, err)
	require.NoError(t, wide.SetGroupConfig(grp, GroupConfig{MaxDeliveryCount: 25, RecordLockDurationMs: 100}))
}

// TestDynamicDeliveryCountDecreaseCausesArchival is trunk's case through the
// broker: records released twice under limit 5 stay AVAILABLE; lowering
// the group's share.delivery.count.limit to 2 archives them at once, and
// the member's acquired records are archived on their release, not
// redelivered.
func TestDynamicDeliveryCountDecreaseCausesArchival(t *testing.T) {
	b := newBroker(t, kafkaConfig(), 1, 10, 10)
	c := newClient(t, b, grp, m1)
	c.fetch(0, 10, nil, tp0)
	res := c.ack(1, acksOf(tp0, 0, 9, share.AckRelease))
	require.NoError(t, res[0].Err)
	c.fetch(2, 10, nil, tp0)
	res = c.ack(3, acksOf(tp0, 0, 4, share.AckRelease)) // 0..4 AVAILABLE at count 2, 5..9 ACQUIRED
	require.NoError(t, res[0].Err)
	require.NoError(t, b.SetGroupConfig(grp, GroupConfig{MaxDeliveryCount: 2}))
	p := sp(t, b, grp, tp0)
	for off := int64(0); off <= 4; off++ {
		r, ok := p.Record(off)
		if ok {
			assert.Equal(t, share.Archived, r.State, "offset %d", off)
		}
	}
	assert.EqualValues(t, 5, p.StartOffset(), "0..4 archived at the change")
	res = c.ack(4, acksOf(tp0, 5, 9, share.AckRelease))
	require.NoError(t, res[0].Err)
	assert.EqualValues(t, 10, p.StartOffset(), "released at the new limit: archived")
	require.NoError(t, b.CheckInvariants())
}

// TestSessionReplacementKeepsRecords proves an epoch-0 request on a key
// that has a session replaces it without releasing the member's records
// (Kafka's newContext): they come back by lock expiry.
func TestSessionReplacementKeepsRecords(t *testing.T) {
	b := newBroker(t, kafkaConfig(), 1, 4, 4)
	c := newClient(t, b, grp, m1)
	c.fetch(0, 0, nil, tp0)
	c.epoch = 0
	r := c.fetch(1, 0, nil, tp0)
	assert.Empty(t, r.Partitions)
	requireRange(t, sp(t, b, grp, tp0), 0, 3, share.Acquired, 1, m1)
	_, err := b.Poll(100)
	require.NoError(t, err)
	requireRange(t, sp(t, b, grp, tp0), 0, 3, share.Available, 1, "")
}

// TestRenewThroughBroker proves a RENEW ack moves the partition's lock
// timer to the new deadline.
func TestRenewThroughBroker(t *testing.T) {
	b := newBroker(t, kafkaConfig(), 1, 4, 4)
	c := newClient(t, b, grp, m1)
	c.fetch(0, 0, nil, tp0)
	res := c.ack(60, acksOf(tp0, 0, 3, share.AckRenew))
	require.NoError(t, res[0].Err)
	d, ok := b.NextDeadline()
	require.True(t, ok)
	assert.Equal(t, int64(160), d)
	n, err := b.Poll(100)
	require.NoError(t, err)
	assert.Zero(t, n)
	requireRange(t, sp(t, b, grp, tp0), 0, 3, share.Acquired, 1, m1)
}

// TestCheckInvariantsCatchesDrift proves CheckInvariants can fail: a lost
// lock timer, a session count out of step and an orphan timer are each
// reported.
func TestCheckInvariantsCatchesDrift(t *testing.T) {
	cases := []struct {
		name   string
		break_ func(b *Broker)
	}{
		{"lost lock timer", func(b *Broker) { b.timers.Cancel(b.entries[key0].timerKey) }},
		{"session count", func(b *Broker) { b.groupSessions[grp]++ }},
		{"orphan timer", func(b *Broker) { b.timers.Schedule("stray", 5, timerPayload{}) }},
		{"epoch drift", func(b *Broker) { b.topics[topic][0].leaderEpoch++ }},
		{"log gap", func(b *Broker) { b.topics[topic][0].batches[0].LastOffset-- }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := newBroker(t, kafkaConfig(), 1, 4, 4)
			newClient(t, b, grp, m1).fetch(0, 0, nil, tp0)
			require.NoError(t, b.CheckInvariants())
			tc.break_(b)
			assert.Error(t, b.CheckInvariants())
		})
	}
}

// TestNew proves bad broker configs are refused and defaults applied.
func TestNew(t *testing.T) {
	for _, bad := range []Config{
		{MaxShareSessions: -1},
		{MaxShareSessions: MaxMaxShareSessions + 1},
		{DLQWriteDelayMs: -1},
		{Defaults: share.Config{DLQEnabled: true}},
		{Defaults: share.Config{MaxDeliveryCount: 1}},
		{Defaults: share.Config{BatchSize: -1}},
	} {
		_, err := New(bad)
		assert.True(t, errors.Is(err, kerr.InvalidRequest), "%+v: %v", bad, err)
	}
	b, err := New(Config{})
	require.NoError(t, err)
	assert.Equal(t, DefaultMaxShareSessions, b.cfg.MaxShareSessions)
	assert.Equal(t, share.DefaultBatchSize, b.cfg.Defaults.BatchSize)
}
