package wire_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
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
