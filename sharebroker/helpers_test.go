package sharebroker

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/share"
)

const (
	grp   = "g"
	m1    = "member-1"
	m2    = "member-2"
	topic = "orders"
	dlq   = "dlq.orders"
)

var tp0 = TopicPartition{Topic: topic, Partition: 0}

// kafkaConfig is SharePartitionManagerTest's setup: 100 ms locks, limit 5,
// 200 in flight, fetches of 500, read from the log start.
func kafkaConfig() Config {
	return Config{Defaults: share.Config{MaxDeliveryCount: 5, RecordLockDurationMs: 100, MaxInFlightRecords: 200, AutoOffsetReset: share.ResetEarliest}, WideBounds: true}
}

// newBroker returns a broker with topic (partitions partitions) holding
// records records in batches of batchLen on partition 0.
func newBroker(t testing.TB, cfg Config, partitions int32, records, batchLen int32) *Broker {
	t.Helper()
	b, err := New(cfg)
	require.NoError(t, err)
	require.NoError(t, b.CreateTopic(topic, partitions))
	for records > 0 {
		n := min(records, batchLen)
		_, err := b.Produce(0, tp0, n)
		require.NoError(t, err)
		records -= n
	}
	return b
}

// client is one share consumer's view of its session: the epoch its next
// request carries.
type client struct {
	t      testing.TB
	b      *Broker
	group  string
	member string
	epoch  int32
}

func newClient(t testing.TB, b *Broker, group, member string) *client {
	return &client{t: t, b: b, group: group, member: member}
}

func (c *client) advance() {
	c.epoch = NextSessionEpoch(c.epoch)
}

// fetch sends a ShareFetch at the client's epoch and requires success.
func (c *client) fetch(nowMs int64, maxRecords int32, acks []PartitionAcks, parts ...TopicPartition) FetchResponse {
	c.t.Helper()
	resp, err := c.b.ShareFetch(nowMs, FetchRequest{GroupID: c.group, MemberID: c.member, SessionEpoch: c.epoch, Partitions: parts, MaxRecords: maxRecords, Acks: acks})
	require.NoError(c.t, err)
	c.advance()
	require.NoError(c.t, c.b.CheckInvariants())
	return resp
}

// ack sends a ShareAcknowledge at the client's epoch and requires success.
func (c *client) ack(nowMs int64, acks ...PartitionAcks) []AckResult {
	c.t.Helper()
	res, err := c.b.ShareAcknowledge(nowMs, AckRequest{GroupID: c.group, MemberID: c.member, SessionEpoch: c.epoch, Acks: acks})
	require.NoError(c.t, err)
	c.advance()
	require.NoError(c.t, c.b.CheckInvariants())
	return res
}

// close sends a FINAL ShareAcknowledge carrying acks.
func (c *client) close(nowMs int64, acks ...PartitionAcks) []AckResult {
	c.t.Helper()
	res, err := c.b.ShareAcknowledge(nowMs, AckRequest{GroupID: c.group, MemberID: c.member, SessionEpoch: FinalEpoch, Acks: acks})
	require.NoError(c.t, err)
	c.epoch = 0
	require.NoError(c.t, c.b.CheckInvariants())
	return res
}

func acksOf(tp TopicPartition, first, last int64, typ share.AcknowledgeType) PartitionAcks {
	return PartitionAcks{TopicPartition: tp, Batches: []share.AckBatch{{FirstOffset: first, LastOffset: last, Type: typ}}}
}

func ar(first, last int64, count int32) share.AcquiredRecords {
	return share.AcquiredRecords{FirstOffset: first, LastOffset: last, DeliveryCount: count}
}

// records flattens a response's records of tp.
func records(resp FetchResponse, tp TopicPartition) []share.AcquiredRecords {
	for _, p := range resp.Partitions {
		if p.TopicPartition == tp {
			return p.Records
		}
	}
	return nil
}

func sp(t testing.TB, b *Broker, group string, tp TopicPartition) *share.SharePartition {
	t.Helper()
	p, ok := b.Partition(share.Key{Group: group, Topic: tp.Topic, Partition: tp.Partition})
	require.True(t, ok, "share-partition of %s %v not cached", group, tp)
	return p
}

// requireRange checks every offset of [first, last] has state s, count and
// owner.
func requireRange(t testing.TB, p *share.SharePartition, first, last int64, s share.RecordState, count int32, member string) {
	t.Helper()
	for off := first; off <= last; off++ {
		info, ok := p.Record(off)
		require.True(t, ok, "offset %d not cached", off)
		require.Equal(t, s, info.State, "offset %d", off)
		require.Equal(t, count, info.DeliveryCount, "offset %d", off)
		require.Equal(t, member, info.MemberID, "offset %d", off)
	}
}

// summary renders everything observable about b, so a refused call can be
// shown to have changed nothing.
func summary(b *Broker) string {
	var s strings.Builder
	fmt.Fprintf(&s, "now=%d evictions=%d writes=%d retired=%+v\n", b.lastNowMs, b.evictions, b.persister.Writes(), b.retired)
	names := make([]string, 0, len(b.topics))
	for n := range b.topics {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		for p, l := range b.topics[n] {
			fmt.Fprintf(&s, "log %s-%d [%d,%d) epoch=%d batches=%v\n", n, p, l.logStart, l.logEnd, l.leaderEpoch, l.batches)
		}
	}
	var sess []string
	for k, v := range b.sessions {
		sess = append(sess, fmt.Sprintf("%s/%s@%d", k.group, k.member, v.nextEpoch))
	}
	sort.Strings(sess)
	fmt.Fprintf(&s, "sessions=%v\n", sess)
	var gcs []string
	for g, c := range b.groupConfigs {
		gcs = append(gcs, fmt.Sprintf("%s=%+v", g, c))
	}
	sort.Strings(gcs)
	fmt.Fprintf(&s, "groupConfigs=%v\n", gcs)
	b.known.Ascend(func(k share.Key) bool { fmt.Fprintf(&s, "known %+v\n", k); return true })
	for _, k := range b.Keys() {
		e := b.entries[k]
		p := e.sp
		fmt.Fprintf(&s, "sp %+v spso=%d speo=%d next=%d dcc=%d stats=%+v pending=%v state=%+v\n  ",
			k, p.StartOffset(), p.EndOffset(), p.NextFetchOffset(), p.DeliveryCompleteCount(), p.Stats(), e.pending, p.WriteState())
		end := b.topics[k.Topic][k.Partition].logEnd
		for off := int64(0); off < end; off++ {
			if r, ok := p.Record(off); ok {
				fmt.Fprintf(&s, "%d:%s/%d/%s/%d ", off, r.State, r.DeliveryCount, r.MemberID, r.LockDeadlineMs)
			}
		}
		s.WriteString("\n")
	}
	for _, k := range b.timers.Keys() {
		d, _ := b.timers.Deadline(k)
		fmt.Fprintf(&s, "timer %s@%d\n", k, d)
	}
	return s.String()
}

// fetchBudget sends a ShareFetch whose MaxRecords bounds the whole request
// (RequestMaxRecords), as the wire endpoint does, and requires success.
func (c *client) fetchBudget(nowMs int64, maxRecords int32, parts ...TopicPartition) FetchResponse {
	c.t.Helper()
	resp, err := c.b.ShareFetch(nowMs, FetchRequest{GroupID: c.group, MemberID: c.member, SessionEpoch: c.epoch, Partitions: parts, MaxRecords: maxRecords, RequestMaxRecords: maxRecords})
	require.NoError(c.t, err)
	c.advance()
	require.NoError(c.t, c.b.CheckInvariants())
	return resp
}
