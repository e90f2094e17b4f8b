package wire_test

import (
	"context"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/wire"
)

// testTimeout bounds every real-client test: a hang fails, it never blocks
// the run.
const testTimeout = 90 * time.Second

// startCluster starts a cluster on ephemeral loopback ports for one test.
func startCluster(t testing.TB, mutate ...func(*wire.Config)) *wire.Cluster {
	t.Helper()
	cfg := wire.DefaultConfig()
	if os.Getenv("WIRE_TEST_LOG") != "" {
		cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	for _, m := range mutate {
		m(&cfg)
	}
	cl, err := wire.Start(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(cl.Close)
	return cl
}

func testContext(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

// newClient is a kgo client seeded with every broker of cl.
func newClient(t testing.TB, cl *wire.Cluster, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	c, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(cl.Addrs()...)}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return c
}

func newAdmin(t testing.TB, cl *wire.Cluster) *kadm.Client {
	return kadm.NewClient(newClient(t, cl))
}

// assertCommittedAtEnd asserts that group has committed every partition of
// topic at its end offset: every record produced was consumed and
// committed. A partition that never had a record needs no commit.
func assertCommittedAtEnd(t testing.TB, ctx context.Context, adm *kadm.Client, group, topic, when string) {
	t.Helper()
	ends, err := adm.ListEndOffsets(ctx, topic)
	require.NoError(t, err)
	committed, err := adm.FetchOffsets(ctx, group)
	require.NoError(t, err)
	require.NoError(t, committed.Error())
	ends.Each(func(o kadm.ListedOffset) {
		c, ok := committed.Lookup(topic, o.Partition)
		if !ok && o.Offset == 0 {
			return
		}
		if assert.True(t, ok, "partition %d has a committed offset %s", o.Partition, when) {
			assert.Equal(t, o.Offset, c.At, "partition %d: committed equals end %s", o.Partition, when)
		}
	})
}

// oneSubtopology is a streams topology at epoch 1 with one subtopology,
// "0", reading source.
func oneSubtopology(source string) *kmsg.StreamsGroupHeartbeatRequestTopology {
	topology := kmsg.NewStreamsGroupHeartbeatRequestTopology()
	topology.Epoch = 1
	sub := kmsg.NewStreamsGroupHeartbeatRequestTopologySubtopology()
	sub.SubtopologyID, sub.SourceTopics = "0", []string{source}
	topology.Subtopologies = append(topology.Subtopologies, sub)
	return &topology
}

// noOwnedTasks sets a streams join's three owned-task lists to empty, as
// Kafka requires of a join (null is refused too).
func noOwnedTasks(req *kmsg.StreamsGroupHeartbeatRequest) {
	req.ActiveTasks, req.StandbyTasks, req.WarmupTasks = []kmsg.TaskIDs{}, []kmsg.TaskIDs{}, []kmsg.TaskIDs{}
}

// createTopic creates a topic through kadm and fails the test on error.
func createTopic(t testing.TB, ctx context.Context, adm *kadm.Client, name string, partitions int32) {
	t.Helper()
	resp, err := adm.CreateTopic(ctx, partitions, 1, nil, name)
	require.NoError(t, err)
	require.NoError(t, resp.Err)
}
