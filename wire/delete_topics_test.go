package wire_test

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	fkerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/wire"
)

// TestDeleteTopics deletes a topic that a KIP-848 group consumes and has
// committed, through kadm: its committed offsets go (kept's stay), the
// member loses its partitions at its next heartbeat (ConsumerGroupDescribe),
// ListOffsets and Metadata answer UNKNOWN_TOPIC_OR_PARTITION, and a topic
// created again under the name has a new id and an empty log.
func TestDeleteTopics(t *testing.T) {
	t.Parallel()
	heartbeat := 300 * time.Millisecond
	cl := startCluster(t, func(c *wire.Config) {
		c.Coordinator.ConsumerMinHeartbeatInterval, c.Coordinator.ConsumerHeartbeatInterval = heartbeat, heartbeat
	})
	ctx := testContext(t)
	adm := newAdmin(t, cl)
	const doomed, kept, group, n = "doomed", "kept", "cg", 30
	createTopic(t, ctx, adm, doomed, 3)
	createTopic(t, ctx, adm, kept, 1)
	prod := newClient(t, cl)
	for i := range n {
		for _, topic := range []string{doomed, kept} {
			prod.Produce(ctx, &kgo.Record{Topic: topic, Value: []byte(fmt.Sprint(i))}, func(_ *kgo.Record, err error) { assert.NoError(t, err) })
		}
	}
	require.NoError(t, prod.Flush(ctx))
	topics, err := adm.ListTopics(ctx, doomed)
	require.NoError(t, err)
	oldID := topics[doomed].ID

	consumer := newClient(t, cl, kgo.ConsumerGroup(group), kgo.ConsumeTopics(doomed, kept), kgo.ServerSideBalancer(),
		kgo.DisableAutoCommit(), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	seen := 0
	for seen < 2*n {
		fs := consumer.PollFetches(ctx)
		require.NoError(t, ctx.Err())
		seen += fs.NumRecords()
	}
	require.NoError(t, consumer.CommitUncommittedOffsets(ctx))
	assertCommittedAtEnd(t, ctx, adm, group, doomed, "before the deletion")
	// The member keeps polling (and heartbeating) from here on.
	pollCtx, stopPolling := context.WithCancel(ctx)
	polled := make(chan struct{})
	go func() {
		defer close(polled)
		for pollCtx.Err() == nil {
			consumer.PollFetches(pollCtx)
		}
	}()
	memberTopics := func() []string {
		req := kmsg.NewPtrConsumerGroupDescribeRequest()
		req.Groups = []string{group}
		resp, err := req.RequestWith(ctx, consumer)
		require.NoError(t, err)
		require.Len(t, resp.Groups, 1)
		require.Zero(t, resp.Groups[0].ErrorCode)
		require.Len(t, resp.Groups[0].Members, 1)
		var out []string
		for _, tp := range resp.Groups[0].Members[0].Assignment.TopicPartitions {
			out = append(out, tp.Topic)
		}
		sort.Strings(out)
		return out
	}
	require.Equal(t, []string{doomed, kept}, memberTopics())

	deleted, err := adm.DeleteTopics(ctx, doomed)
	require.NoError(t, err)
	require.NoError(t, deleted.Error())
	assert.Equal(t, oldID, deleted[doomed].ID, "the row names the deleted topic's id")

	committed, err := adm.FetchOffsets(ctx, group)
	require.NoError(t, err)
	require.NoError(t, committed.Error())
	_, has := committed[doomed]
	assert.False(t, has, "no offsets left for the deleted topic")
	o, ok := committed.Lookup(kept, 0)
	require.True(t, ok, "the other topic's offsets stay")
	assert.Equal(t, int64(n), o.At)

	require.Eventually(t, func() bool { return assert.ObjectsAreEqual([]string{kept}, memberTopics()) },
		20*time.Second, 50*time.Millisecond, "the member loses the deleted topic's partitions")

	lo := kmsg.NewPtrListOffsetsRequest()
	lt := kmsg.NewListOffsetsRequestTopic()
	lt.Topic = doomed
	lp := kmsg.NewListOffsetsRequestTopicPartition()
	lp.Partition, lp.Timestamp = 0, -1
	lt.Partitions = append(lt.Partitions, lp)
	lo.Topics = append(lo.Topics, lt)
	raw := newClient(t, cl)
	listed, err := lo.RequestWith(ctx, raw.Broker(0))
	require.NoError(t, err)
	assert.Equal(t, fkerr.UnknownTopicOrPartition.Code, listed.Topics[0].Partitions[0].ErrorCode, "ListOffsets")

	md := kmsg.NewPtrMetadataRequest()
	mt := kmsg.NewMetadataRequestTopic()
	mt.Topic = kmsg.StringPtr(doomed)
	md.Topics = append(md.Topics, mt)
	mdResp, err := md.RequestWith(ctx, raw.Broker(1))
	require.NoError(t, err)
	require.Len(t, mdResp.Topics, 1)
	assert.Equal(t, fkerr.UnknownTopicOrPartition.Code, mdResp.Topics[0].ErrorCode, "Metadata")
	all, err := adm.ListTopics(ctx)
	require.NoError(t, err)
	assert.False(t, all.Has(doomed), "Metadata lists it no more")

	stopPolling()
	<-polled
	consumer.Close()

	createTopic(t, ctx, adm, doomed, 2)
	fresh := newAdmin(t, cl) // a client without the old topic cached
	topics, err = fresh.ListTopics(ctx, doomed)
	require.NoError(t, err)
	assert.NotEqual(t, oldID, topics[doomed].ID, "a new topic, a new id")
	ends, err := fresh.ListEndOffsets(ctx, doomed)
	require.NoError(t, err)
	require.NoError(t, ends.Error())
	assert.Len(t, ends[doomed], 2)
	ends.Each(func(o kadm.ListedOffset) { assert.Zero(t, o.Offset, "partition %d is empty", o.Partition) })
	committed, err = adm.FetchOffsets(ctx, group)
	require.NoError(t, err)
	_, has = committed[doomed]
	assert.False(t, has, "the new topic has no offsets of the old one")
}

// deleteRow is one DeleteTopics answer row, in a comparable form.
type deleteRow struct {
	name string // "<null>" for a null name
	id   [16]byte
	code int16
	msg  string // "<null>" for a null message
}

func deleteRows(resp *kmsg.DeleteTopicsResponse) []deleteRow {
	var out []deleteRow
	for _, rt := range resp.Topics {
		r := deleteRow{name: "<null>", id: rt.TopicID, code: rt.ErrorCode, msg: "<null>"}
		if rt.Topic != nil {
			r.name = *rt.Topic
		}
		if rt.ErrorMessage != nil {
			r.msg = *rt.ErrorMessage
		}
		out = append(out, r)
	}
	return out
}

// topicState is every topic's id and end offsets: what a refused deletion
// must leave as it was.
func topicState(t *testing.T, ctx context.Context, cl *wire.Cluster) map[string]string {
	t.Helper()
	adm := newAdmin(t, cl) // fresh: nothing cached
	topics, err := adm.ListTopics(ctx)
	require.NoError(t, err)
	ends, err := adm.ListEndOffsets(ctx, topics.Names()...)
	require.NoError(t, err)
	out := map[string]string{}
	for name, td := range topics {
		out[name] = fmt.Sprintf("%x", td.ID)
	}
	ends.Each(func(o kadm.ListedOffset) {
		out[fmt.Sprintf("%s-%d", o.Topic, o.Partition)] = fmt.Sprint(o.Offset, o.Err)
	})
	return out
}

// seedTopics creates foo, bar and baz with a record each and returns their
// ids.
func seedTopics(t *testing.T, ctx context.Context, cl *wire.Cluster) map[string][16]byte {
	t.Helper()
	adm := newAdmin(t, cl)
	prod := newClient(t, cl)
	ids := map[string][16]byte{}
	for _, name := range []string{"foo", "bar", "baz"} {
		createTopic(t, ctx, adm, name, 2)
		require.NoError(t, prod.ProduceSync(ctx, &kgo.Record{Topic: name, Value: []byte("v")}).FirstErr())
	}
	topics, err := adm.ListTopics(ctx)
	require.NoError(t, err)
	for name, td := range topics {
		ids[name] = td.ID
	}
	return ids
}

// TestInvalidDeleteTopicsRequest is ControllerApisTest's case of that name:
// every malformed row of a v6 request with Kafka's code, name, id and
// message, and nothing deleted. Kafka shuffles the rows; they come here in
// the order Kafka builds them, so the test compares them as a set.
func TestInvalidDeleteTopicsRequest(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	ctx := testContext(t)
	ids := seedTopics(t, ctx, cl)
	before := topicState(t, ctx, cl)
	name := func(s string) *string { return &s }
	req := kmsg.NewPtrDeleteTopicsRequest()
	req.Version = 6
	req.Topics = []kmsg.DeleteTopicsRequestTopic{
		{Topic: nil},
		{Topic: name("foo"), TopicID: ids["foo"]},
		{Topic: name("bar")},
		{Topic: nil, TopicID: ids["bar"]},
		{Topic: name("quux")}, {Topic: name("quux")}, {Topic: name("quux")},
		{Topic: nil, TopicID: ids["baz"]}, {Topic: nil, TopicID: ids["baz"]}, {Topic: nil, TopicID: ids["baz"]},
	}
	resp := roundTrip(t, dial(t, cl.Addrs()[0]), req).(*kmsg.DeleteTopicsResponse)
	invalid := fkerr.InvalidRequest.Code
	assert.ElementsMatch(t, []deleteRow{
		{"<null>", [16]byte{}, invalid, "Neither topic name nor id were specified."},
		{"foo", ids["foo"], invalid, "You may not specify both topic name and topic id."},
		{"bar", ids["bar"], invalid, "The provided topic name maps to an ID that was already supplied."},
		{"quux", [16]byte{}, invalid, "Duplicate topic name."},
		{"<null>", ids["baz"], invalid, "Duplicate topic id."},
	}, deleteRows(resp))
	assert.Equal(t, before, topicState(t, ctx, cl), "nothing deleted")
}

// TestDeleteTopicsUnknown: an unknown name is UNKNOWN_TOPIC_OR_PARTITION
// (ReplicationControlManager.findTopicIds), an unknown id UNKNOWN_TOPIC_ID
// (findTopicNames), each with Kafka's default message; __consumer_offsets is
// no data topic here. The known topic in the same request is deleted, the
// others stay.
func TestDeleteTopicsUnknown(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	ctx := testContext(t)
	ids := seedTopics(t, ctx, cl)
	before := topicState(t, ctx, cl)
	name := func(s string) *string { return &s }
	unknownID := [16]byte{0xde, 0xad}
	req := kmsg.NewPtrDeleteTopicsRequest()
	req.Version = 6
	req.Topics = []kmsg.DeleteTopicsRequestTopic{
		{Topic: name("nope")}, {TopicID: unknownID}, {Topic: name("__consumer_offsets")}, {TopicID: ids["baz"]},
	}
	resp := roundTrip(t, dial(t, cl.Addrs()[1]), req).(*kmsg.DeleteTopicsResponse)
	assert.Equal(t, []deleteRow{
		{"<null>", unknownID, fkerr.UnknownTopicID.Code, "This server does not host this topic ID."},
		{"nope", [16]byte{}, fkerr.UnknownTopicOrPartition.Code, "This server does not host this topic-partition."},
		{"__consumer_offsets", [16]byte{}, fkerr.UnknownTopicOrPartition.Code, "This server does not host this topic-partition."},
		{"baz", ids["baz"], 0, "<null>"},
	}, deleteRows(resp), "deleted by id: answered with its name")
	after := topicState(t, ctx, cl)
	for k, v := range before {
		if len(k) >= 3 && k[:3] == "baz" {
			assert.NotContains(t, after, k)
			continue
		}
		assert.Equal(t, v, after[k], k)
	}
}

// TestDeleteTopicsV1 is the name-only shape (TopicNames, v1-5): a
// duplicate is INVALID_REQUEST, an unknown name UNKNOWN_TOPIC_OR_PARTITION,
// without messages before v5; a deleted topic is gone from Metadata.
func TestDeleteTopicsV1(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	ctx := testContext(t)
	seedTopics(t, ctx, cl)
	req := kmsg.NewPtrDeleteTopicsRequest()
	req.Version = 1
	req.TopicNames = []string{"foo", "nope", "bar", "foo"}
	resp := roundTrip(t, dial(t, cl.Addrs()[2]), req).(*kmsg.DeleteTopicsResponse)
	assert.Equal(t, []deleteRow{
		{"foo", [16]byte{}, fkerr.InvalidRequest.Code, "<null>"},
		{"nope", [16]byte{}, fkerr.UnknownTopicOrPartition.Code, "<null>"},
		{"bar", [16]byte{}, 0, "<null>"},
	}, deleteRows(resp))
	topics, err := newAdmin(t, cl).ListTopics(ctx)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"foo", "baz"}, topics.Names())
}

// TestDeleteTopicsWakesFetchAndKeepsSession: a fetch parked for data on a
// topic wakes when the topic goes and answers UNKNOWN_TOPIC_ID (v13+; Kafka's
// DelayedFetch completes on a partition that disappeared); the fetch
// session keeps the partition and answers the error on the next
// incremental fetch too, until the client forgets it, as Kafka's
// FetchSession does.
func TestDeleteTopicsWakesFetchAndKeepsSession(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	ctx := testContext(t)
	ids := seedTopics(t, ctx, cl)
	c := dial(t, cl.Addrs()[0]) // leads partition 0
	ends, err := newAdmin(t, cl).ListEndOffsets(ctx, "foo")
	require.NoError(t, err)
	end, ok := ends.Lookup("foo", 0)
	require.True(t, ok)
	fetch := func(sessionID, epoch int32, parts bool, waitMs int32) *kmsg.FetchResponse {
		req := kmsg.NewPtrFetchRequest()
		req.Version, req.MaxWaitMillis, req.MinBytes, req.MaxBytes = 13, waitMs, 1<<20, 1<<20
		req.SessionID, req.SessionEpoch = sessionID, epoch
		if parts {
			rt := kmsg.NewFetchRequestTopic()
			rt.TopicID = ids["foo"]
			rp := kmsg.NewFetchRequestTopicPartition()
			rp.Partition, rp.FetchOffset, rp.PartitionMaxBytes = 0, end.Offset, 1<<20
			rt.Partitions = append(rt.Partitions, rp)
			req.Topics = append(req.Topics, rt)
		}
		return roundTrip(t, c, req).(*kmsg.FetchResponse)
	}
	// Open the session, then park a fetch that waits for a megabyte.
	opened := fetch(0, 0, true, 1)
	require.NotZero(t, opened.SessionID)
	done := make(chan *kmsg.FetchResponse, 1)
	start := time.Now()
	go func() { done <- fetch(opened.SessionID, 1, false, 5000) }()
	time.Sleep(200 * time.Millisecond) // parked
	deleted, err := newAdmin(t, cl).DeleteTopics(ctx, "foo")
	require.NoError(t, err)
	require.NoError(t, deleted.Error())
	var woken *kmsg.FetchResponse
	select {
	case woken = <-done:
	case <-ctx.Done():
		t.Fatal("the parked fetch never returned")
	}
	assert.Less(t, time.Since(start), 4*time.Second, "woken by the deletion, not by MaxWaitMillis")
	require.Len(t, woken.Topics, 1)
	assert.Equal(t, ids["foo"], woken.Topics[0].TopicID)
	assert.Equal(t, fkerr.UnknownTopicID.Code, woken.Topics[0].Partitions[0].ErrorCode)
	again := fetch(opened.SessionID, 2, false, 5000)
	require.Len(t, again.Topics, 1, "the session still holds the partition")
	assert.Equal(t, fkerr.UnknownTopicID.Code, again.Topics[0].Partitions[0].ErrorCode)
}

// TestDeleteTopicsDropsShareState: a share group's state on a deleted topic
// goes with it (DescribeShareGroupOffsets lists it no more; the state on
// another topic stays), and the topic re-created under the name holds no
// state of the old one.
func TestDeleteTopicsDropsShareState(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	ctx := testContext(t)
	adm := newAdmin(t, cl)
	const group = "sg"
	createTopic(t, ctx, adm, "a", 2)
	createTopic(t, ctx, adm, "b", 1)
	state := kadm.Offsets{}
	state.Add(kadm.Offset{Topic: "a", Partition: 0, At: 0})
	state.Add(kadm.Offset{Topic: "a", Partition: 1, At: 0})
	state.Add(kadm.Offset{Topic: "b", Partition: 0, At: 0})
	altered, err := adm.AlterShareGroupOffsets(ctx, group, state)
	require.NoError(t, err)
	require.NoError(t, altered.Error())
	shareTopics := func() []string {
		t.Helper()
		described, err := adm.DescribeShareGroupOffsets(ctx, group)
		require.NoError(t, err)
		require.NoError(t, described[group].Err)
		var out []string
		described[group].Offsets.Each(func(o kadm.ShareOffset) { out = append(out, fmt.Sprintf("%s-%d", o.Topic, o.Partition)) })
		sort.Strings(out)
		return out
	}
	require.Equal(t, []string{"a-0", "a-1", "b-0"}, shareTopics())

	deleted, err := adm.DeleteTopics(ctx, "a")
	require.NoError(t, err)
	require.NoError(t, deleted.Error())
	assert.Equal(t, []string{"b-0"}, shareTopics())
	createTopic(t, ctx, adm, "a", 2)
	assert.Equal(t, []string{"b-0"}, shareTopics(), "the new topic has no share state of the old one")
}
