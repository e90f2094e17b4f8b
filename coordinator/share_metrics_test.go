package coordinator_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/coordinator/coordtest"
	"github.com/coordsim/coordsim/shard"
)

// share-group-rebalance-rate/-count (and the consumer and streams
// counterparts) count the heartbeats that bump a group's epoch, as Kafka's
// shareGroupHeartbeat records the sensor: none for plain heartbeats, leaves
// or the tombstones of a deleted group.
func TestShareGroupRebalanceMetrics(t *testing.T) {
	h, err := coordtest.New(coordtest.WithTopics(map[string]int32{"foo": 2, "bar": 3}))
	require.NoError(t, err)
	count := func(name string) float64 {
		t.Helper()
		v, ok := h.Metric(name)
		require.True(t, ok, "metric %s missing", name)
		return v
	}
	for _, n := range []string{"share-group-rebalance", "consumer-group-rebalance", "streams-group-rebalance"} {
		require.Zero(t, count(n+"-count"), n)
		require.Zero(t, count(n+"-rate"), n)
	}

	// Each join bumps the group epoch and recomputes the target. The
	// first finds no share state initialised, so it is assigned nothing;
	// once the initialisation (due now) has run, m1's next heartbeat bumps
	// the epoch again and gets foo's partitions.
	r1, err := h.JoinShare("sg", "m1", "foo")
	require.NoError(t, err)
	require.Equal(t, int32(2), r1.MemberEpoch)
	require.Empty(t, r1.Assignment)
	require.Equal(t, 1.0, count("share-group-rebalance-count"))
	h.Advance(0)
	r1, err = coordtest.Await(h, h.Coordinator.ShareGroupHeartbeat(shard.ShareGroupHeartbeatRequest{
		GroupID: "sg", MemberID: "m1", MemberEpoch: 2,
	}))
	require.NoError(t, err)
	require.Equal(t, int32(3), r1.MemberEpoch)
	require.Equal(t, []shard.TopicPartitions{{Topic: "foo", Partitions: []int32{0, 1}}}, r1.Assignment)
	require.Equal(t, 2.0, count("share-group-rebalance-count"))
	_, err = h.JoinShare("sg", "m2", "foo")
	require.NoError(t, err)
	r3, err := h.JoinShare("sg", "m3", "foo")
	require.NoError(t, err)
	require.Equal(t, 4.0, count("share-group-rebalance-count"))
	require.Positive(t, count("share-group-rebalance-rate"))
	// Three members on two partitions: the simple assignor shares them.
	d, err := h.Group("sg")
	require.NoError(t, err)
	require.Len(t, d.Members, 3)
	holders := map[int32]int{}
	for _, m := range d.Members {
		for _, tp := range m.TargetAssignment {
			for _, p := range tp.Partitions {
				holders[p]++
			}
		}
	}
	require.Equal(t, map[int32]int{0: 2, 1: 2}, holders) // sharing ceil(3/2) = 2
	require.Len(t, r3.Assignment, 1)
	require.Equal(t, "foo", r3.Assignment[0].Topic)
	require.NotEmpty(t, r3.Assignment[0].Partitions)

	// A steady heartbeat recomputes nothing.
	_, err = coordtest.Await(h, h.Coordinator.ShareGroupHeartbeat(shard.ShareGroupHeartbeatRequest{
		GroupID: "sg", MemberID: "m1", MemberEpoch: 3,
	}))
	require.NoError(t, err)
	h.Advance(time.Second)
	require.Equal(t, 4.0, count("share-group-rebalance-count"))

	// A subscription change recomputes; a leave only bumps the group epoch
	// (the next heartbeat would compute the target), so it counts nothing,
	// as Kafka records the rebalance sensor with the heartbeat's epoch bump.
	_, err = coordtest.Await(h, h.Coordinator.ShareGroupHeartbeat(shard.ShareGroupHeartbeatRequest{
		GroupID: "sg", MemberID: "m1", MemberEpoch: 5, SubscribedTopicNames: []string{"foo", "bar"},
	}))
	require.NoError(t, err)
	require.Equal(t, 5.0, count("share-group-rebalance-count"))
	for i, m := range []string{"m1", "m2", "m3"} {
		_, err = coordtest.Await(h, h.Coordinator.ShareGroupHeartbeat(shard.ShareGroupHeartbeatRequest{
			GroupID: "sg", MemberID: m, MemberEpoch: -1,
		}))
		require.NoError(t, err, "leave %s", m)
		require.Equal(t, 5.0, count("share-group-rebalance-count"), "leave %d", i)
	}

	// Deleting the empty group writes tombstones only.
	res, err := h.DeleteGroups("sg")
	require.NoError(t, err)
	require.NoError(t, res[0].Err)
	require.Equal(t, 5.0, count("share-group-rebalance-count"))

	// Other group types have their own meters.
	require.Zero(t, count("consumer-group-rebalance-count"))
	_, err = h.JoinConsumer("cg", "c1", "foo")
	require.NoError(t, err)
	_, err = h.JoinStreams("app", "s1", shard.Topology{Epoch: 1, Subtopologies: []shard.Subtopology{{ID: "s0", SourceTopics: []string{"bar"}}}})
	require.NoError(t, err)
	// The streams group's first target waits for the initial rebalance
	// delay (3 s); its timer computes it.
	h.Advance(3 * time.Second)
	require.Equal(t, 1.0, count("consumer-group-rebalance-count"))
	require.Equal(t, 1.0, count("streams-group-rebalance-count"))
	require.Equal(t, 5.0, count("share-group-rebalance-count"))
	require.NoError(t, h.CheckReplay())
}
