package wire_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/coordsim/coordsim/coordinator"
)

// TestCoordinatorMoveMidRun proves that clients follow a coordinator move:
// a KIP-848 consumer commits as it goes, the group's __consumer_offsets
// partition moves to another broker mid-run (the old one answers
// NOT_COORDINATOR), the client finds the new coordinator with
// FindCoordinator, keeps its membership (the new broker loaded it from the
// shared log) and no commit is lost: the committed offsets end equal to the
// end offsets.
func TestCoordinatorMoveMidRun(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	ctx := testContext(t)
	adm := newAdmin(t, cl)
	const topic, group = "moves", "mover"
	createTopic(t, ctx, adm, topic, 4)
	prod := newClient(t, cl, kgo.DefaultProduceTopic(topic))
	produce := func(from, to int) {
		for i := from; i < to; i++ {
			require.NoError(t, prod.ProduceSync(ctx, &kgo.Record{Value: []byte(fmt.Sprint(i))}).FirstErr())
		}
	}
	cons := newClient(t, cl, kgo.ConsumerGroup(group), kgo.ConsumeTopics(topic), kgo.ServerSideBalancer(),
		kgo.Balancers(kgo.RangeBalancer()), kgo.DisableAutoCommit(), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	seen := map[string]bool{}
	consumeUntil := func(n int) {
		for len(seen) < n {
			fs := cons.PollFetches(ctx)
			require.NoError(t, ctx.Err(), "consumed %d of %d", len(seen), n)
			fs.EachRecord(func(r *kgo.Record) { seen[string(r.Value)] = true })
			require.NoError(t, cons.CommitUncommittedOffsets(ctx))
		}
	}
	produce(0, 100)
	consumeUntil(100)

	p := coordinator.PartitionFor(group, 50)
	from, err := cl.CoordinatorFor(p)
	require.NoError(t, err)
	to := (from + 1) % 3
	require.NoError(t, cl.MoveCoordinator(ctx, p, to))
	found := adm.FindGroupCoordinators(ctx, group)
	require.NoError(t, found.Error())
	assert.Equal(t, to, found[group].NodeID, "FindCoordinator answers the new leader")

	produce(100, 200)
	consumeUntil(200)
	require.NoError(t, cons.CommitUncommittedOffsets(ctx))

	assertCommittedAtEnd(t, ctx, adm, group, topic, "after the move")
	described, err := adm.DescribeConsumerGroups(ctx, group)
	require.NoError(t, err)
	require.NoError(t, described.Error())
	assert.Len(t, described[group].Members, 1, "the member kept its membership across the move")
	assert.Equal(t, to, described[group].Coordinator.NodeID)
}
