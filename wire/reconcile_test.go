package wire_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

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

func startMember(t *testing.T, cl *wire.Cluster, group, topic, instance string) *member {
	t.Helper()
	opts := []kgo.Opt{kgo.SeedBrokers(cl.Addrs()...), kgo.ConsumerGroup(group), kgo.ConsumeTopics(topic),
		kgo.ServerSideBalancer(), kgo.Balancers(kgo.RangeBalancer()), kgo.ClientID("member-" + instance)}
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
	var mu sync.Mutex
	var violations []string
	samples := 0
	sampleCtx, stopSampling := context.WithCancel(ctx)
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
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
			if err != nil || rows[0].Err != nil {
				continue // not created yet, or the test is ending
			}
			mu.Lock()
			samples++
			for p, o := range owners(rows[0].Description, topic) {
				if len(o) > 1 {
					violations = append(violations, fmt.Sprintf("partition %d owned by %v", p, o))
				}
			}
			mu.Unlock()
		}
	}()

	balanced := func(members int) func() bool {
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
	a := startMember(t, cl, group, topic, "")
	startMember(t, cl, group, topic, "")
	require.Eventually(t, balanced(2), testTimeout/3, 10*time.Millisecond, "two members, three partitions each")
	startMember(t, cl, group, topic, "")
	require.Eventually(t, balanced(3), testTimeout/3, 10*time.Millisecond, "three members, two partitions each")

	a.close() // a dynamic member leaves for good
	if !assert.Eventually(t, balanced(2), testTimeout/3, 10*time.Millisecond, "its partitions went to the others") {
		d := groupState(cl, group)
		for _, m := range d.Members {
			t.Logf("member %s client %s epoch %d assignment %v target %v", m.MemberID, m.ClientID, m.MemberEpoch, m.Assignment, m.TargetAssignment)
		}
	}

	stopSampling()
	<-sampled
	mu.Lock()
	defer mu.Unlock()
	assert.Positive(t, samples, "the coordinator's state was sampled")
	assert.Empty(t, violations, "no partition ever had two owners")
}
