package wire_test

import (
	"context"
	"fmt"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// observation is what one client script sees of a cluster.
type observation struct {
	consumed     int
	committed    map[int32]int64
	ends         map[int32]int64
	stateDuring  string
	stateAfter   string
	members      int
	memberEpoch  int32
	assignor     string
	assignedDur  int
	listedType   string
	deleteNonEmp string
	deleteAfter  string
}

// peerScript is the same client script for both peers: create a topic,
// produce, consume it all with one KIP-848 member committing as it goes,
// describe the group while the member is in it and after it left, list
// it, try to delete it while it has a member, delete it once empty.
func peerScript(t *testing.T, ctx context.Context, seeds []string) observation {
	t.Helper()
	const topic, group, n = "peer", "peer-group", 120
	newCl := func(opts ...kgo.Opt) *kgo.Client {
		c, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(seeds...)}, opts...)...)
		require.NoError(t, err)
		t.Cleanup(c.Close)
		return c
	}
	adm := kadm.NewClient(newCl())
	createTopic(t, ctx, adm, topic, 6)
	prod := newCl(kgo.DefaultProduceTopic(topic))
	for i := range n {
		require.NoError(t, prod.ProduceSync(ctx, &kgo.Record{Key: []byte(fmt.Sprint(i)), Value: []byte(fmt.Sprint(i))}).FirstErr())
	}
	cons, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.ConsumerGroup(group), kgo.ConsumeTopics(topic),
		kgo.ServerSideBalancer(), kgo.Balancers(kgo.RangeBalancer()), kgo.DisableAutoCommit(),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	require.NoError(t, err)
	seen := map[string]bool{}
	for len(seen) < n {
		fs := cons.PollFetches(ctx)
		require.NoError(t, ctx.Err(), "consumed %d of %d", len(seen), n)
		fs.EachRecord(func(r *kgo.Record) { seen[string(r.Value)] = true })
		require.NoError(t, cons.CommitUncommittedOffsets(ctx))
	}
	var o observation
	o.consumed = len(seen)
	d, err := adm.DescribeConsumerGroups(ctx, group)
	require.NoError(t, err)
	require.NoError(t, d.Error())
	o.stateDuring, o.members, o.assignor = d[group].State, len(d[group].Members), d[group].AssignorName
	if o.members == 1 {
		o.memberEpoch = d[group].Members[0].MemberEpoch
		o.assignedDur = len(d[group].Members[0].Assignment[topic])
	}
	del, err := adm.DeleteGroups(ctx, group)
	require.NoError(t, err)
	o.deleteNonEmp = fmt.Sprint(del[group].Err)
	listed, err := adm.ListGroups(ctx)
	require.NoError(t, err)
	o.listedType = listed[group].ProtocolType
	cons.Close() // leaves the group

	committed, err := adm.FetchOffsets(ctx, group)
	require.NoError(t, err)
	o.committed = map[int32]int64{}
	committed.Each(func(r kadm.OffsetResponse) { o.committed[r.Partition] = r.At })
	ends, err := adm.ListEndOffsets(ctx, topic)
	require.NoError(t, err)
	o.ends = map[int32]int64{}
	ends.Each(func(l kadm.ListedOffset) { o.ends[l.Partition] = l.Offset })
	d, err = adm.DescribeConsumerGroups(ctx, group)
	require.NoError(t, err)
	o.stateAfter = d[group].State
	del, err = adm.DeleteGroups(ctx, group)
	require.NoError(t, err)
	o.deleteAfter = fmt.Sprint(del[group].Err)
	return o
}

// TestPeerComparisonKfake runs one client script against coordsim and
// against franz-go's kfake and compares what the client observes. Fields
// that must agree are asserted; the known differences (docs/wire.md, with
// the Kafka source that decides each) are asserted as they are, so a
// change on either side shows up here.
func TestPeerComparisonKfake(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	cl := startCluster(t)
	kf, err := kfake.NewCluster(kfake.NumBrokers(3))
	require.NoError(t, err)
	t.Cleanup(kf.Close)

	ours := peerScript(t, ctx, cl.Addrs())
	theirs := peerScript(t, ctx, kf.ListenAddrs())

	keys := func(m map[int32]int64) []int32 {
		out := make([]int32, 0, len(m))
		for k := range m {
			out = append(out, k)
		}
		sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
		return out
	}
	assert.Equal(t, theirs.consumed, ours.consumed, "records consumed")
	assert.Equal(t, keys(theirs.committed), keys(ours.committed), "committed partitions")
	assert.Equal(t, ours.ends, ours.committed, "coordsim: committed offsets equal end offsets")
	assert.Equal(t, theirs.ends, theirs.committed, "kfake: committed offsets equal end offsets")
	assert.Equal(t, theirs.stateDuring, ours.stateDuring, "state with a member")
	assert.Equal(t, theirs.stateAfter, ours.stateAfter, "state after the member left")
	assert.Equal(t, theirs.members, ours.members, "members")
	// Known differences, docs/wire.md "Compared with kfake".
	// Both peers bump the epoch once for the one member's join and never
	// again; they differ only in where a new group starts.
	assert.Equal(t, int32(2), ours.memberEpoch, "a new group is at epoch 1 (Kafka's ModernGroup), so the member's join lands on 2")
	assert.Equal(t, ours.memberEpoch-1, theirs.memberEpoch, "kfake starts a new group at epoch 0, one below Kafka")
	assert.Equal(t, 6, ours.assignedDur, "coordsim names the assigned topics in ConsumerGroupDescribe, as Kafka does")
	assert.Equal(t, 0, theirs.assignedDur, "kfake sends topic ids only, so kadm finds no partitions by name")
	assert.Equal(t, "consumer", ours.listedType, "coordsim lists a consumer group with protocol type consumer, as Kafka does")
	assert.Equal(t, "", theirs.listedType, "kfake lists it with no protocol type")
	assert.Equal(t, theirs.assignor, ours.assignor, "the assignor the member asked for")
	assert.Equal(t, theirs.deleteNonEmp, ours.deleteNonEmp, "DeleteGroups of a group with a member")
	assert.Equal(t, theirs.deleteAfter, ours.deleteAfter, "DeleteGroups of the empty group")
	t.Logf("coordsim: %+v", ours)
	t.Logf("kfake:    %+v", theirs)
}
