package wire_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/shard"
	"github.com/coordsim/coordsim/wire"
)

// member is one kgo KIP-848 consumer polling in the background.
type member struct {
	c    *kgo.Client
	stop context.CancelFunc
	done chan struct{}
}

func startMember(t *testing.T, cl *wire.Cluster, group, topic, instance string, extra ...kgo.Opt) *member {
	t.Helper()
	opts := []kgo.Opt{kgo.SeedBrokers(cl.Addrs()...), kgo.ConsumerGroup(group), kgo.ConsumeTopics(topic),
		kgo.ServerSideBalancer(), kgo.Balancers(kgo.RangeBalancer()), kgo.ClientID("member-" + instance)}
	opts = append(opts, extra...)
	if instance != "" {
		opts = append(opts, kgo.InstanceID(instance))
	}
	c, err := kgo.NewClient(opts...)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	m := &member{c: c, stop: cancel, done: make(chan struct{})}
	go func() {
		defer close(m.done)
		for ctx.Err() == nil {
			c.PollFetches(ctx)
		}
	}()
	t.Cleanup(m.close)
	return m
}

// close stops polling and closes the client: a dynamic member leaves with
// epoch -1, a static one with -2 (it may come back).
func (m *member) close() {
	m.stop()
	<-m.done
	m.c.Close()
}

// groupState reads the group from its coordinator's committed state; the
// zero description when it cannot (the group does not exist yet).
func groupState(cl *wire.Cluster, group string) shard.GroupDescription {
	node, err := cl.CoordinatorFor(coordinator.PartitionFor(group, 50))
	if err != nil {
		return shard.GroupDescription{}
	}
	rows, err := cl.Driver(node).DescribeGroups(context.Background(), []string{group})
	if err != nil || rows[0].Err != nil {
		return shard.GroupDescription{}
	}
	return rows[0].Description
}

// owners maps each partition of topic to the members whose current
// assignment holds it.
func owners(d shard.GroupDescription, topic string) map[int32][]string {
	out := map[int32][]string{}
	for _, m := range d.Members {
		for _, tp := range m.Assignment {
			if tp.Topic != topic {
				continue
			}
			for _, p := range tp.Partitions {
				out[p] = append(out[p], m.MemberID)
			}
		}
	}
	return out
}

// balanced reports whether the group has members members that own the
// six partitions of topic evenly, in the coordinator's state.
func balanced(cl *wire.Cluster, group, topic string, members int) func() bool {
	return func() bool {
		d := groupState(cl, group)
		if len(d.Members) != members {
			return false
		}
		o := owners(d, topic)
		if len(o) != 6 {
			return false
		}
		for _, m := range d.Members {
			n := 0
			for _, tp := range m.Assignment {
				n += len(tp.Partitions)
			}
			if n != 6/members {
				return false
			}
		}
		return true
	}
}

// sampleGroup reads group from its coordinator's committed state every
// few milliseconds and hands each description that has members, with the
// time the read returned, to fn (on the sampling goroutine), until the
// returned stop is called; stop waits for the last call of fn.
func sampleGroup(ctx context.Context, cl *wire.Cluster, group string, fn func(d shard.GroupDescription, at time.Time)) (stop func()) {
	sampleCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-sampleCtx.Done():
				return
			case <-tick.C:
			}
			node, _ := cl.CoordinatorFor(coordinator.PartitionFor(group, 50))
			rows, err := cl.Driver(node).DescribeGroups(sampleCtx, []string{group})
			if err != nil || rows[0].Err != nil || len(rows[0].Description.Members) == 0 {
				continue // not created yet, or the test is ending
			}
			fn(rows[0].Description, time.Now())
		}
	}()
	return func() {
		cancel()
		<-done
	}
}

// twoOwners lists the partitions of topic that d gives to more than one
// member.
func twoOwners(d shard.GroupDescription, topic string) []string {
	var out []string
	for p, o := range owners(d, topic) {
		if len(o) > 1 {
			out = append(out, fmt.Sprintf("partition %d owned by %v", p, o))
		}
	}
	return out
}

// TestConsumerGroupOneOwner proves KIP-848's reconciliation with real
// clients, reading the coordinator's state throughout: while a third
// member joins two and partitions move to it, no partition is ever in two
// members' current assignments (a partition moves only after its owner
// revoked it), and when a member leaves its partitions go to the others,
// still with one owner each.
//
// A static member's return is not tested with kgo: kgo v1.22.3 sends its
// static leave (epoch -2) without the instance id, which Kafka refuses
// (GroupMetadataManager.throwIfConsumerGroupHeartbeatRequestIsInvalid:
// "InstanceId can't be null.") and so does coordsim; see docs/wire.md.
func TestConsumerGroupOneOwner(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	ctx := testContext(t)
	adm := newAdmin(t, cl)
	const topic, group = "owned", "owners"
	createTopic(t, ctx, adm, topic, 6)

	// Sample the coordinator's state until the test ends; every sample
	// must have one owner per partition.
	var violations []string
	samples := 0
	stopSampling := sampleGroup(ctx, cl, group, func(d shard.GroupDescription, _ time.Time) {
		samples++
		violations = append(violations, twoOwners(d, topic)...)
	})

	a := startMember(t, cl, group, topic, "")
	startMember(t, cl, group, topic, "")
	require.Eventually(t, balanced(cl, group, topic, 2), testTimeout/3, 10*time.Millisecond, "two members, three partitions each")
	startMember(t, cl, group, topic, "")
	require.Eventually(t, balanced(cl, group, topic, 3), testTimeout/3, 10*time.Millisecond, "three members, two partitions each")

	a.close() // a dynamic member leaves for good
	if !assert.Eventually(t, balanced(cl, group, topic, 2), testTimeout/3, 10*time.Millisecond, "its partitions went to the others") {
		d := groupState(cl, group)
		for _, m := range d.Members {
			t.Logf("member %s client %s epoch %d assignment %v target %v", m.MemberID, m.ClientID, m.MemberEpoch, m.Assignment, m.TargetAssignment)
		}
	}

	stopSampling()
	assert.Positive(t, samples, "the coordinator's state was sampled")
	assert.Empty(t, violations, "no partition ever had two owners")
}

// TestStaticMemberReturn proves static membership over the wire with a
// raw-kmsg client that, unlike kgo v1.22.3, sends its instance id on
// leave: a static member that leaves with epoch -2 and comes back under a
// new member id with the same instance id gets its partitions back at the
// same member epoch, without a rebalance (KIP-848, Kafka's
// GroupMetadataManagerTest static-member replacement cases).
func TestStaticMemberReturn(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	ctx := testContext(t)
	adm := newAdmin(t, cl)
	const topic, group = "statics", "static-group"
	createTopic(t, ctx, adm, topic, 4)
	topics, err := adm.ListTopics(ctx, topic)
	require.NoError(t, err)
	id := topics[topic].ID
	node, err := cl.CoordinatorFor(coordinator.PartitionFor(group, 50))
	require.NoError(t, err)
	coord := newClient(t, cl).Broker(int(node))
	instance := "static-1"
	heartbeat := func(memberID string, epoch int32, owned []int32, leave bool) *kmsg.ConsumerGroupHeartbeatResponse {
		t.Helper()
		req := kmsg.NewPtrConsumerGroupHeartbeatRequest()
		req.Group, req.MemberID, req.MemberEpoch, req.InstanceID = group, memberID, epoch, &instance
		if !leave {
			req.RebalanceTimeoutMillis, req.SubscribedTopicNames = 30000, []string{topic}
			tp := kmsg.NewConsumerGroupHeartbeatRequestTopic()
			tp.TopicID, tp.Partitions = id, owned
			req.Topics = []kmsg.ConsumerGroupHeartbeatRequestTopic{}
			if owned != nil {
				req.Topics = append(req.Topics, tp)
			}
		}
		resp, err := coord.Request(ctx, req)
		require.NoError(t, err)
		r := resp.(*kmsg.ConsumerGroupHeartbeatResponse)
		require.Zero(t, r.ErrorCode, "heartbeat (epoch %d): %v", epoch, r.ErrorMessage)
		return r
	}
	assigned := func(r *kmsg.ConsumerGroupHeartbeatResponse) []int32 {
		require.NotNil(t, r.Assignment)
		var out []int32
		for _, tp := range r.Assignment.Topics {
			out = append(out, tp.Partitions...)
		}
		return out
	}

	joined := heartbeat("member-first-0000000", 0, nil, false)
	partitions := assigned(joined)
	require.Len(t, partitions, 4, "the only member gets every partition")
	acked := heartbeat("member-first-0000000", joined.MemberEpoch, partitions, false)
	epoch := acked.MemberEpoch

	left := heartbeat("member-first-0000000", -2, nil, true)
	assert.Equal(t, int32(-2), left.MemberEpoch, "a static leave answers epoch -2")

	back := heartbeat("member-second-000000", 0, nil, false)
	assert.Equal(t, epoch, back.MemberEpoch, "the returning static member resumes at its epoch")
	assert.ElementsMatch(t, partitions, assigned(back), "and keeps its partitions")
	d := groupState(cl, group)
	require.Len(t, d.Members, 1)
	assert.Equal(t, "member-second-000000", d.Members[0].MemberID, "under its new member id")
}
