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
)

// consumeAll runs members kgo KIP-848 consumers of group on topic until
// together they have seen want distinct records, committing after every
// poll, then commits once more and leaves. It returns every value seen.
func consumeAll(t *testing.T, ctx context.Context, cl clusterAddrs, group, topic string, members, want int, balancer kgo.GroupBalancer) map[string]bool {
	t.Helper()
	var mu sync.Mutex
	seen := map[string]bool{}
	done := make(chan struct{})
	var once sync.Once
	var wg sync.WaitGroup
	for m := range members {
		c, err := kgo.NewClient(kgo.SeedBrokers(cl.Addrs()...), kgo.ConsumerGroup(group), kgo.ConsumeTopics(topic),
			kgo.ServerSideBalancer(), kgo.Balancers(balancer), kgo.DisableAutoCommit(),
			kgo.ClientID(fmt.Sprintf("member-%d", m)), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
		require.NoError(t, err)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close() // leaves the group (epoch -1)
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
					mu.Lock()
					seen[string(r.Value)] = true
					if len(seen) >= want {
						once.Do(func() { close(done) })
					}
					mu.Unlock()
				})
				if err := c.CommitUncommittedOffsets(ctx); err != nil && ctx.Err() == nil {
					t.Logf("member %d commit: %v", m, err)
				}
				select {
				case <-done:
					_ = c.CommitUncommittedOffsets(ctx)
					return
				case <-ctx.Done():
					return
				default:
				}
			}
		}()
	}
	wg.Wait()
	return seen
}

type clusterAddrs interface{ Addrs() []string }

// TestConsumerGroup848 proves that kgo's KIP-848 consumers run against the
// coordinator: three members share a six-partition topic, every record a kgo
// producer wrote is consumed, the committed offsets equal the end offsets,
// and the group is then described, listed and deleted through kadm with
// Kafka's answers. It runs with each built-in server assignor kgo asks for.
func TestConsumerGroup848(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		balancer kgo.GroupBalancer
	}{{"range", kgo.RangeBalancer()}, {"uniform", kgo.CooperativeStickyBalancer()}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cl := startCluster(t)
			ctx := testContext(t)
			adm := newAdmin(t, cl)
			const topic, group, n = "events", "g", 600
			createTopic(t, ctx, adm, topic, 6)
			prod := newClient(t, cl, kgo.DefaultProduceTopic(topic))
			for i := range n {
				prod.Produce(ctx, &kgo.Record{Key: []byte(fmt.Sprint(i)), Value: []byte(fmt.Sprint(i))}, func(_ *kgo.Record, err error) {
					assert.NoError(t, err)
				})
			}
			require.NoError(t, prod.Flush(ctx))

			seen := consumeAll(t, ctx, cl, group, topic, 3, n, tc.balancer)
			require.Len(t, seen, n, "every record consumed")

			ends, err := adm.ListEndOffsets(ctx, topic)
			require.NoError(t, err)
			committed, err := adm.FetchOffsets(ctx, group)
			require.NoError(t, err)
			require.NoError(t, committed.Error())
			ends.Each(func(o kadm.ListedOffset) {
				c, ok := committed.Lookup(topic, o.Partition)
				if assert.True(t, ok, "partition %d has a committed offset", o.Partition) {
					assert.Equal(t, o.Offset, c.At, "partition %d: committed equals end", o.Partition)
				}
			})

			listed, err := adm.ListGroups(ctx)
			require.NoError(t, err)
			require.Contains(t, listed, group)
			assert.Equal(t, "consumer", listed[group].ProtocolType)

			described, err := adm.DescribeConsumerGroups(ctx, group)
			require.NoError(t, err)
			require.NoError(t, described.Error())
			assert.Equal(t, "Empty", described[group].State, "every member left")

			deleted, err := adm.DeleteGroups(ctx, group)
			require.NoError(t, err)
			assert.NoError(t, deleted[group].Err)
			listed, err = adm.ListGroups(ctx)
			require.NoError(t, err)
			assert.NotContains(t, listed, group)
		})
	}
}
