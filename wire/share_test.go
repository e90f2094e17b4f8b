package wire_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	fkerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/wire"
)

// TestShareGroupConsumers proves KIP-932 share groups with real clients:
// a member acquires records and then hangs (its connection open, never
// acknowledging, as a process stopped in a debugger does), two kgo share
// consumers consume and acknowledge the rest, and when the hung member's
// acquisition locks expire its records are delivered to them: every
// produced record is consumed by a live member.
func TestShareGroupConsumers(t *testing.T) {
	t.Parallel()
	cl := startCluster(t, func(c *wire.Config) {
		c.Share.WideBounds = true // a lock of 500 ms, below Kafka's 15 s minimum
		c.Share.Defaults.RecordLockDurationMs = 500
	})
	ctx := testContext(t)
	adm := newAdmin(t, cl)
	const topic, group, n = "jobs", "workers", 200
	createTopic(t, ctx, adm, topic, 3)
	// Kafka's default share.auto.offset.reset is latest: the group reads
	// what was produced before it started only when its config says so,
	// as a real user sets it.
	err, msg := alterGroupConfig(t, ctx, newClient(t, cl), group, false, set("share.auto.offset.reset", "earliest"))
	require.NoError(t, err, msg)
	prod := newClient(t, cl, kgo.DefaultProduceTopic(topic))
	for i := range n {
		prod.Produce(ctx, &kgo.Record{Key: []byte(fmt.Sprint(i)), Value: []byte(fmt.Sprint(i))}, func(_ *kgo.Record, err error) { assert.NoError(t, err) })
	}
	require.NoError(t, prod.Flush(ctx))

	// The hung member: one share session per partition leader, records
	// acquired, then silence.
	topics, err := adm.ListTopics(ctx, topic)
	require.NoError(t, err)
	id := topics[topic].ID
	raw := newClient(t, cl)
	held := 0
	for p := range int32(3) {
		leader := topics[topic].Partitions[p].Leader
		req := kmsg.NewPtrShareFetchRequest()
		g, m := group, "hung-member"
		req.GroupID, req.MemberID, req.ShareSessionEpoch, req.MaxRecords, req.BatchSize = &g, &m, 0, 20, 20
		rt := kmsg.NewShareFetchRequestTopic()
		rt.TopicID = id
		rp := kmsg.NewShareFetchRequestTopicPartition()
		rp.Partition = p
		rt.Partitions = append(rt.Partitions, rp)
		req.Topics = append(req.Topics, rt)
		resp, err := raw.Broker(int(leader)).Request(ctx, req)
		require.NoError(t, err)
		fr := resp.(*kmsg.ShareFetchResponse)
		require.Zero(t, fr.ErrorCode)
		for _, tr := range fr.Topics {
			for _, pr := range tr.Partitions {
				require.Zero(t, pr.ErrorCode)
				for _, a := range pr.AcquiredRecords {
					held += int(a.LastOffset - a.FirstOffset + 1)
				}
			}
		}
	}
	require.Positive(t, held, "the hung member holds records")

	var mu sync.Mutex
	seen := map[string]int{}
	done := make(chan struct{})
	var once sync.Once
	var wg sync.WaitGroup
	for m := range 2 {
		c, err := kgo.NewClient(kgo.SeedBrokers(cl.Addrs()...), kgo.ShareGroup(group), kgo.ConsumeTopics(topic),
			kgo.ClientID(fmt.Sprintf("share-%d", m)))
		require.NoError(t, err)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			for {
				pctx, cancel := context.WithCancel(ctx)
				go func() {
					select {
					case <-done:
					case <-pctx.Done():
					}
					cancel()
				}()
				fs := c.PollFetches(pctx)
				cancel()
				fs.EachRecord(func(r *kgo.Record) {
					r.Ack(kgo.AckAccept) // kgo releases what is not acknowledged when it closes
					mu.Lock()
					seen[string(r.Value)]++
					if len(seen) >= n {
						once.Do(func() { close(done) })
					}
					mu.Unlock()
				})
				select {
				case <-done:
					_ = c.FlushAcks(ctx)
					return
				case <-ctx.Done():
					return
				default:
				}
			}
		}()
	}
	wg.Wait()
	require.NoError(t, ctx.Err(), "consumed %d of %d", len(seen), n)
	assert.Len(t, seen, n, "every record reached a live member, the hung member's after its locks expired")

	// The admin side, once the kgo members have left: the group is Empty,
	// every share-partition's start offset reached its end (all
	// acknowledged), and the start offsets can be moved back.
	described, err := adm.DescribeShareGroups(ctx, group)
	require.NoError(t, err)
	require.NoError(t, described[group].Err)
	assert.Equal(t, "Empty", described[group].GroupState)
	assert.Equal(t, "simple", described[group].Assignor)
	ends, err := adm.ListEndOffsets(ctx, topic)
	require.NoError(t, err)
	offsets, err := adm.DescribeShareGroupOffsets(ctx, group)
	require.NoError(t, err)
	require.NoError(t, offsets[group].Err)
	ends.Each(func(o kadm.ListedOffset) {
		so, ok := offsets[group].Offsets.Lookup(topic, o.Partition)
		if assert.True(t, ok, "partition %d has share state", o.Partition) {
			assert.Equal(t, o.Offset, so.StartOffset, "partition %d: everything acknowledged", o.Partition)
			assert.Zero(t, so.Lag)
		}
	})
	reset := kadm.Offsets{}
	for p := range int32(3) {
		reset.Add(kadm.Offset{Topic: topic, Partition: p, At: 0})
	}
	altered, err := adm.AlterShareGroupOffsets(ctx, group, reset)
	require.NoError(t, err)
	for p := range int32(3) {
		e, ok := altered.Lookup(topic, p)
		assert.True(t, ok)
		assert.NoError(t, e)
	}
	offsets, err = adm.DescribeShareGroupOffsets(ctx, group)
	require.NoError(t, err)
	so, _ := offsets[group].Offsets.Lookup(topic, 0)
	assert.Zero(t, so.StartOffset, "the start offset moved back")
}

// TestDeleteShareGroupOffsets proves DeleteShareGroupOffsets (key 92)
// through kadm and raw kmsg, against Kafka's
// GroupCoordinatorService.deleteShareGroupOffsets: the group errors are
// top-level (INVALID_GROUP_ID, GROUP_ID_NOT_FOUND for a missing group or
// one of another type, NON_EMPTY_GROUP while a member is in it) and delete
// nothing; on an EMPTY share group each topic answers on its own row, the
// deleted ones first, then the refused ones in request order (an unknown
// topic, and a topic the group holds no state for, both
// UNKNOWN_TOPIC_OR_PARTITION with Kafka's two messages); the deleted
// topics vanish from DescribeShareGroupOffsets, the others stay.
func TestDeleteShareGroupOffsets(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	ctx := testContext(t)
	adm := newAdmin(t, cl)
	const group = "sg"
	createTopic(t, ctx, adm, "a", 2)
	createTopic(t, ctx, adm, "b", 1)
	createTopic(t, ctx, adm, "c", 1)
	// AlterShareGroupOffsets creates the EMPTY share group and its state
	// on a and b.
	state := kadm.Offsets{}
	for _, tp := range []struct {
		topic string
		p     int32
	}{{"a", 0}, {"a", 1}, {"b", 0}} {
		state.Add(kadm.Offset{Topic: tp.topic, Partition: tp.p, At: 0})
	}
	altered, err := adm.AlterShareGroupOffsets(ctx, group, state)
	require.NoError(t, err)
	require.NoError(t, altered.Error())
	committed := kadm.Offsets{}
	committed.Add(kadm.Offset{Topic: "a", Partition: 0, At: 0})
	_, err = adm.CommitOffsets(ctx, "simple", committed) // a simple (classic) group
	require.NoError(t, err)

	_, err = adm.DeleteShareGroupOffsets(ctx, "missing", "a")
	assert.ErrorIs(t, err, fkerr.GroupIDNotFound)
	_, err = adm.DeleteShareGroupOffsets(ctx, "simple", "a")
	assert.ErrorIs(t, err, fkerr.GroupIDNotFound, "a group of another type")

	raw := newClient(t, cl)
	hb := kmsg.NewPtrShareGroupHeartbeatRequest()
	hb.GroupID, hb.MemberID, hb.MemberEpoch, hb.SubscribedTopicNames = group, "m1", 0, []string{"a"}
	hbResp, err := hb.RequestWith(ctx, raw)
	require.NoError(t, err)
	require.Zero(t, hbResp.ErrorCode)
	_, err = adm.DeleteShareGroupOffsets(ctx, group, "a")
	assert.ErrorIs(t, err, fkerr.NonEmptyGroup, "a member is in the group")
	hb.MemberEpoch = -1
	hbResp, err = hb.RequestWith(ctx, raw)
	require.NoError(t, err)
	require.Zero(t, hbResp.ErrorCode)

	// A share group that never had share state (its member never fetched)
	// answers no row at all, even for an unknown topic.
	hb.GroupID, hb.MemberEpoch = "stateless", 0
	hbResp, err = hb.RequestWith(ctx, raw)
	require.NoError(t, err)
	require.Zero(t, hbResp.ErrorCode)
	hb.MemberEpoch = -1
	hbResp, err = hb.RequestWith(ctx, raw)
	require.NoError(t, err)
	require.Zero(t, hbResp.ErrorCode)
	stateless, err := adm.DeleteShareGroupOffsets(ctx, "stateless", "a", "nope")
	require.NoError(t, err)
	assert.Empty(t, stateless, "no share state: no row")

	deleted, err := adm.DeleteShareGroupOffsets(ctx, group, "a", "nope", "c")
	require.NoError(t, err)
	for topic, want := range map[string]error{"a": nil, "nope": fkerr.UnknownTopicOrPartition, "c": fkerr.UnknownTopicOrPartition} {
		got, ok := deleted.Lookup(topic)
		if assert.True(t, ok, topic) && want != nil {
			assert.ErrorIs(t, got, want, topic)
		} else {
			assert.NoError(t, got, topic)
		}
	}
	described, err := adm.DescribeShareGroupOffsets(ctx, group)
	require.NoError(t, err)
	require.NoError(t, described[group].Err)
	_, hasA := described[group].Offsets.Lookup("a", 0)
	_, hasB := described[group].Offsets.Lookup("b", 0)
	assert.False(t, hasA, "a's share state is deleted")
	assert.True(t, hasB, "b's share state stays")

	// Kafka's row order and messages, raw.
	req := kmsg.NewPtrDeleteShareGroupOffsetsRequest()
	req.GroupID = group
	for _, name := range []string{"zzz", "c", "b", "b"} {
		rt := kmsg.NewDeleteShareGroupOffsetsRequestTopic()
		rt.Topic = name
		req.Topics = append(req.Topics, rt)
	}
	resp, err := req.RequestWith(ctx, raw)
	require.NoError(t, err)
	require.Zero(t, resp.ErrorCode)
	type row struct {
		topic string
		hasID bool
		code  int16
		msg   string
	}
	var rows []row
	for _, rt := range resp.Topics {
		msg := ""
		if rt.ErrorMessage != nil {
			msg = *rt.ErrorMessage
		}
		rows = append(rows, row{rt.Topic, rt.TopicID != [16]byte{}, rt.ErrorCode, msg})
	}
	unknown := fkerr.UnknownTopicOrPartition.Code
	assert.Equal(t, []row{
		{"b", true, 0, ""},
		{"zzz", false, unknown, "This server does not host this topic-partition."},
		{"c", false, unknown, "There is no offset information to delete."},
	}, rows)

	req.GroupID, req.Topics = "", nil
	resp, err = req.RequestWith(ctx, raw)
	require.NoError(t, err)
	assert.Equal(t, fkerr.InvalidGroupID.Code, resp.ErrorCode)
	assert.Empty(t, resp.Topics)
	req.GroupID = "missing"
	resp, err = req.RequestWith(ctx, raw)
	require.NoError(t, err)
	assert.Equal(t, fkerr.GroupIDNotFound.Code, resp.ErrorCode, "no topic named: the group is still checked")
	req.GroupID = "simple"
	resp, err = req.RequestWith(ctx, raw)
	require.NoError(t, err)
	assert.Equal(t, fkerr.GroupIDNotFound.Code, resp.ErrorCode)
	if assert.NotNil(t, resp.ErrorMessage) {
		assert.Equal(t, "Group simple is not a share group.", *resp.ErrorMessage)
	}
}

// TestAlterShareGroupOffsetsAnswersUnknownPartitionsPerRow proves
// AlterShareGroupOffsets answers a topic not in the metadata and a
// partition outside its topic on their own rows, UNKNOWN_TOPIC_OR_PARTITION
// with Kafka's default message, as the real Kafka 4.4 broker does
// (oracle/brokerdiff): the other partitions of the request are still
// altered, and a request naming only unknown ones is no request error.
func TestAlterShareGroupOffsetsAnswersUnknownPartitionsPerRow(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	ctx := testContext(t)
	createTopic(t, ctx, newAdmin(t, cl), "a", 2)
	raw := newClient(t, cl)
	type row = struct {
		topic     string
		partition int32
	}
	alter := func(rows ...row) *kmsg.AlterShareGroupOffsetsResponse {
		req := kmsg.NewPtrAlterShareGroupOffsetsRequest()
		req.GroupID = "sg-unknown-rows"
		for _, row := range rows {
			rt := kmsg.NewAlterShareGroupOffsetsRequestTopic()
			rt.Topic = row.topic
			rp := kmsg.NewAlterShareGroupOffsetsRequestTopicPartition()
			rp.Partition, rp.StartOffset = row.partition, 0
			rt.Partitions = append(rt.Partitions, rp)
			req.Topics = append(req.Topics, rt)
		}
		resp, err := req.RequestWith(ctx, raw)
		require.NoError(t, err)
		return resp
	}
	for _, tc := range []struct {
		name string
		rows []row
		want []int16
	}{
		{"unknown topic alone", []row{{"nope", 0}}, []int16{fkerr.UnknownTopicOrPartition.Code}},
		{"partition outside the topic alone", []row{{"a", 7}}, []int16{fkerr.UnknownTopicOrPartition.Code}},
		{"with a known partition", []row{{"nope", 0}, {"a", 1}}, []int16{fkerr.UnknownTopicOrPartition.Code, 0}},
	} {
		resp := alter(tc.rows...)
		require.Zero(t, resp.ErrorCode, "%s: %v", tc.name, resp.ErrorMessage)
		require.Len(t, resp.Topics, len(tc.rows), tc.name)
		for i, rt := range resp.Topics {
			assert.Equal(t, tc.want[i], rt.Partitions[0].ErrorCode, "%s: row %d", tc.name, i)
			if tc.want[i] != 0 {
				assert.Equal(t, "This server does not host this topic-partition.", *rt.Partitions[0].ErrorMessage, tc.name)
			}
		}
	}
}

// TestDescribeShareGroupOffsetsOfNoShareGroup proves DescribeShareGroupOffsets
// reads share state without looking the group up, as the real Kafka 4.4
// broker answers (oracle/brokerdiff): a group that does not exist, or a
// consumer group, is answered with no error, each named partition at start
// offset -1, leader epoch 0 and lag -1, and no partition for null topics.
func TestDescribeShareGroupOffsetsOfNoShareGroup(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	ctx := testContext(t)
	adm := newAdmin(t, cl)
	createTopic(t, ctx, adm, "a", 2)
	committed := kadm.Offsets{}
	committed.Add(kadm.Offset{Topic: "a", Partition: 0, At: 3})
	_, err := adm.CommitOffsets(ctx, "a-consumer-group", committed)
	require.NoError(t, err)
	raw := newClient(t, cl)
	for _, group := range []string{"no-such-group", "a-consumer-group"} {
		req := kmsg.NewPtrDescribeShareGroupOffsetsRequest()
		rg := kmsg.NewDescribeShareGroupOffsetsRequestGroup()
		rg.GroupID = group
		rt := kmsg.NewDescribeShareGroupOffsetsRequestGroupTopic()
		rt.Topic, rt.Partitions = "a", []int32{0, 1}
		rg.Topics = append(rg.Topics, rt)
		all := rg
		all.Topics = nil
		req.Groups = append(req.Groups, rg, all)
		resp, err := req.RequestWith(ctx, raw)
		require.NoError(t, err)
		require.Len(t, resp.Groups, 2)
		named, none := resp.Groups[0], resp.Groups[1]
		assert.Zero(t, named.ErrorCode, "%s: %v", group, named.ErrorMessage)
		require.Len(t, named.Topics, 1, group)
		for _, p := range named.Topics[0].Partitions {
			assert.Equal(t, [3]int64{-1, 0, -1}, [3]int64{p.StartOffset, int64(p.LeaderEpoch), p.Lag}, "%s partition %d", group, p.Partition)
		}
		assert.Zero(t, none.ErrorCode, "%s, null topics: %v", group, none.ErrorMessage)
		assert.Empty(t, none.Topics, "%s, null topics", group)
	}
}
