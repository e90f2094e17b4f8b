package wire_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	fkerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// groupRun is members kgo KIP-848 consumers of one group, polling and
// committing after every poll, with each member's current assignment as
// its OnPartitionsAssigned/Revoked callbacks report it.
type groupRun struct {
	mu       sync.Mutex
	seen     map[string]bool
	owned    []map[int32]bool
	want     int
	done     chan struct{}
	doneOnce sync.Once
	balanced chan struct{}
	balOnce  sync.Once
	wg       sync.WaitGroup
}

// startGroup starts members consumers; balanced closes once every member
// owns exactly partitions/members partitions, done once they have seen
// want distinct records. Members then commit once more and leave.
func startGroup(t *testing.T, ctx context.Context, cl clusterAddrs, group, topic string, members, partitions, want int, balancer kgo.GroupBalancer) *groupRun {
	t.Helper()
	g := &groupRun{seen: map[string]bool{}, want: want, done: make(chan struct{}), balanced: make(chan struct{})}
	for range members {
		g.owned = append(g.owned, map[int32]bool{})
	}
	for m := range members {
		checkBalanced := func() {
			for _, o := range g.owned {
				if len(o) != partitions/members {
					return
				}
			}
			g.balOnce.Do(func() { close(g.balanced) })
		}
		c, err := kgo.NewClient(kgo.SeedBrokers(cl.Addrs()...), kgo.ConsumerGroup(group), kgo.ConsumeTopics(topic),
			kgo.ServerSideBalancer(), kgo.Balancers(balancer), kgo.DisableAutoCommit(),
			kgo.ClientID(fmt.Sprintf("member-%d", m)), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
			kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, a map[string][]int32) {
				g.mu.Lock()
				defer g.mu.Unlock()
				for _, p := range a[topic] {
					g.owned[m][p] = true
				}
				checkBalanced()
			}),
			kgo.OnPartitionsRevoked(func(_ context.Context, _ *kgo.Client, r map[string][]int32) {
				g.mu.Lock()
				defer g.mu.Unlock()
				for _, p := range r[topic] {
					delete(g.owned[m], p)
				}
			}))
		require.NoError(t, err)
		g.wg.Add(1)
		go func() {
			defer g.wg.Done()
			defer c.Close() // leaves the group (epoch -1)
			for {
				pctx, cancel := context.WithCancel(ctx)
				go func() {
					select {
					case <-g.done:
					case <-pctx.Done():
					}
					cancel()
				}()
				fs := c.PollFetches(pctx)
				cancel()
				fs.EachRecord(func(r *kgo.Record) {
					g.mu.Lock()
					g.seen[string(r.Value)] = true
					if len(g.seen) >= g.want {
						g.doneOnce.Do(func() { close(g.done) })
					}
					g.mu.Unlock()
				})
				if err := c.CommitUncommittedOffsets(ctx); err != nil && ctx.Err() == nil {
					t.Logf("member %d commit: %v", m, err)
				}
				select {
				case <-g.done:
					_ = c.CommitUncommittedOffsets(ctx)
					return
				case <-ctx.Done():
					return
				default:
				}
			}
		}()
	}
	return g
}

// wait waits for every member to have left and returns the values seen.
func (g *groupRun) wait() map[string]bool {
	g.wg.Wait()
	return g.seen
}

type clusterAddrs interface{ Addrs() []string }

// TestConsumerGroup848 proves that kgo's KIP-848 consumers run against the
// coordinator: three members share a six-partition topic (each owns two
// before anything is produced, and the coordinator assigns no partition
// twice), every record a kgo
// producer wrote is consumed, the committed offsets equal the end offsets,
// and the group is described, listed and deleted through kadm with Kafka's
// answers (NON_EMPTY_GROUP while it has members). It runs with each built-in server assignor kgo asks for.
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
			run := startGroup(t, ctx, cl, group, topic, 3, 6, n, tc.balancer)
			select {
			case <-run.balanced:
			case <-ctx.Done():
				t.Fatal("the three members never each owned two partitions")
			}
			// The coordinator's view at that point: three members, and no
			// partition assigned to two of them.
			described, err := adm.DescribeConsumerGroups(ctx, group)
			require.NoError(t, err)
			require.NoError(t, described.Error())
			assert.Len(t, described[group].Members, 3)
			owners := map[int32]string{}
			for _, m := range described[group].Members {
				for p := range m.Assignment[topic] {
					assert.NotContains(t, owners, p, "partition %d has one owner", p)
					owners[p] = m.MemberID
				}
			}
			refused, err := adm.DeleteGroups(ctx, group)
			require.NoError(t, err)
			assert.ErrorIs(t, refused[group].Err, fkerr.NonEmptyGroup, "a group with members is not deleted")

			prod := newClient(t, cl, kgo.DefaultProduceTopic(topic))
			for i := range n {
				prod.Produce(ctx, &kgo.Record{Key: []byte(fmt.Sprint(i)), Value: []byte(fmt.Sprint(i))}, func(_ *kgo.Record, err error) {
					assert.NoError(t, err)
				})
			}
			require.NoError(t, prod.Flush(ctx))

			seen := run.wait()
			require.Len(t, seen, n, "every record consumed")

			assertCommittedAtEnd(t, ctx, adm, group, topic, "after the run")

			listed, err := adm.ListGroups(ctx)
			require.NoError(t, err)
			require.Contains(t, listed, group)
			assert.Equal(t, "consumer", listed[group].ProtocolType)

			described, err = adm.DescribeConsumerGroups(ctx, group)
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
