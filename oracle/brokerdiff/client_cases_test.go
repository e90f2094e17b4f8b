package brokerdiff_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Client scenarios: real kgo consumers in a group, on each side, and what
// they observe once the group settles: every record consumed once, the
// committed offsets, the group's state and how many partitions each member
// holds. Epochs, member ids and the number of rebalances on the way
// depend on timing and are not compared.

// clientTopic and clientRecordsPerPartition are the scenarios' topic and
// how many records each of its partitions gets.
const (
	clientTopic               = "events"
	clientRecordsPerPartition = 10
)

// clientHeartbeat is group.consumer.heartbeat.interval.ms on both sides
// (and its minimum): Kafka's 5 s makes a two-member KIP-848 group settle in
// about ten seconds per side.
const clientHeartbeat = time.Second

// kgoGroupScenario runs two kgo consumers of group on the side, KIP-848
// (server-side assignment) or classic (cooperative-sticky), until they
// have consumed every record of clientTopic once and the group settled,
// and records what they observed.
func kgoGroupScenario(group string, kip848 bool) func(s *session) {
	return func(s *session) {
		produceClientRecords(s, group)
		ctx, cancel := context.WithTimeout(s.ctx, 2*time.Minute)
		defer cancel()
		var (
			mu   sync.Mutex
			seen = map[string]int{}
		)
		var consumers []*kgo.Client
		for i := range 2 {
			opts := []kgo.Opt{
				kgo.SeedBrokers(s.side.seeds...), kgo.ConsumerGroup(group), kgo.ConsumeTopics(clientTopic),
				kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.DisableAutoCommit(),
				kgo.HeartbeatInterval(200 * time.Millisecond), kgo.ClientID(fmt.Sprintf("brokerdiff-%d", i)),
			}
			if kip848 {
				opts = append(opts, kgo.ServerSideBalancer())
			} else {
				opts = append(opts, kgo.Balancers(kgo.CooperativeStickyBalancer()))
			}
			c, err := kgo.NewClient(opts...)
			require.NoError(s.t, err)
			consumers = append(consumers, c)
		}
		var wg sync.WaitGroup
		for _, c := range consumers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for ctx.Err() == nil {
					// A short poll, so that a commit a rebalance refused
					// is retried even when no record is left to read.
					pctx, pcancel := context.WithTimeout(ctx, 200*time.Millisecond)
					fs := c.PollFetches(pctx)
					pcancel()
					fs.EachRecord(func(r *kgo.Record) {
						if !strings.HasPrefix(string(r.Value), group+"/") {
							return // an earlier scenario's record on the shared topic
						}
						mu.Lock()
						seen[string(r.Value)]++
						mu.Unlock()
					})
					_ = c.CommitUncommittedOffsets(ctx)
				}
			}()
		}
		total := len(diffTopicsNamed(clientTopic)) * clientRecordsPerPartition
		// Settled also waits for every partition's commit to land: a
		// consumer commits after it has read, so "every record seen" alone
		// races the last commit, which made the committed step flaky.
		settled := waitSettled(ctx, s, group, kip848, func() bool {
			mu.Lock()
			all := len(seen) == total
			mu.Unlock()
			return all && committedToEnd(s, group)
		})
		cancel()
		wg.Wait()
		mu.Lock()
		dups := 0
		for _, n := range seen {
			dups += n - 1
		}
		// Records read twice (a classic rebalance that lands before a
		// member's commit) depend on timing: logged, not compared.
		s.record("consumed", []string{fmt.Sprintf("records = %d", len(seen))})
		s.t.Logf("%s/%s: %d records read twice", s.side.name, group, dups)
		mu.Unlock()
		s.record("settled", settled)
		s.record("committed", withoutMetadata(sortedOffsets(s.send("committed", fetch(group, nil)))))
		for _, c := range consumers {
			c.Close() // leaves the group
		}
		s.record("after-close", groupShape(s, group, kip848))
		s.do("deletegroups", deleteGroups(group))
	}
}

// committedToEnd reports whether group has committed the end offset of
// every partition of clientTopic. The end offset is asked, not assumed:
// every client scenario produces to the same topic.
func committedToEnd(s *session, group string) bool {
	parts := diffTopicsNamed(clientTopic)
	lreq := kmsg.NewPtrListOffsetsRequest()
	lt := kmsg.NewListOffsetsRequestTopic()
	lt.Topic = clientTopic
	for _, p := range parts {
		lp := kmsg.NewListOffsetsRequestTopicPartition()
		lp.Partition, lp.Timestamp = p, -1 // latest
		lt.Partitions = append(lt.Partitions, lp)
	}
	lreq.Topics = append(lreq.Topics, lt)
	end := map[int32]int64{}
	for _, t := range s.send("end-offsets", lreq).(*kmsg.ListOffsetsResponse).Topics {
		for _, p := range t.Partitions {
			end[p.Partition] = p.Offset
		}
	}
	n := 0
	for _, g := range s.send("committed", fetch(group, nil)).(*kmsg.OffsetFetchResponse).Groups {
		for _, t := range g.Topics {
			for _, p := range t.Partitions {
				if t.Topic == clientTopic && p.Offset == end[p.Partition] {
					n++
				}
			}
		}
	}
	return n == len(parts)
}

// waitSettled polls until done reports every record consumed and the
// group is stable with two members, then returns the group's shape; after
// ctx's deadline it fails the test and returns the shape as it is.
func waitSettled(ctx context.Context, s *session, group string, kip848 bool, done func() bool) []string {
	for {
		shape := groupShape(s, group, kip848)
		if done() && slices.Contains(shape, `state = "Stable"`) && slices.Contains(shape, "members = 2") {
			return shape
		}
		select {
		case <-ctx.Done():
			// Both sides timing out the same way is no agreement.
			s.t.Errorf("%s: group %s did not settle: %v", s.side.name, group, shape)
			return append(shape, "timed out before settling")
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// groupShape is what the describe says once timing is taken out: the
// state, the member count and how many partitions each member holds
// (sorted), and for a KIP-848 group whether every member is at the group's
// epoch with its target assignment.
func groupShape(s *session, group string, kip848 bool) []string {
	if !kip848 {
		g := s.send("describe", describeGroups(group)).(*kmsg.DescribeGroupsResponse).Groups[0]
		return []string{fmt.Sprintf("state = %q", g.State), fmt.Sprintf("members = %d", len(g.Members)),
			fmt.Sprintf("protocol = %q", g.Protocol)}
	}
	g := s.send("describe", cgDescribe(group)).(*kmsg.ConsumerGroupDescribeResponse).Groups[0]
	var sizes []int
	reconciled := true
	for _, m := range g.Members {
		n := 0
		for _, tp := range m.Assignment.TopicPartitions {
			n += len(tp.Partitions)
		}
		sizes = append(sizes, n)
		reconciled = reconciled && m.MemberEpoch == g.Epoch && slices.EqualFunc(m.Assignment.TopicPartitions,
			m.TargetAssignment.TopicPartitions, func(a, b kmsg.AssignmentTopicPartition) bool {
				return a.TopicID == b.TopicID && slices.Equal(a.Partitions, b.Partitions)
			})
	}
	slices.Sort(sizes)
	state := g.State
	if state == "Stable" && !reconciled {
		state = "Stable, members not reconciled"
	}
	return []string{fmt.Sprintf("state = %q", state), fmt.Sprintf("members = %d", len(g.Members)),
		fmt.Sprintf("partitions per member = %v", sizes), fmt.Sprintf("assignor = %q", g.AssignorName)}
}

// produceClientRecords writes clientRecordsPerPartition records to each
// partition of clientTopic, each value unique on the side.
func produceClientRecords(s *session, group string) {
	p, err := kgo.NewClient(kgo.SeedBrokers(s.side.seeds...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	require.NoError(s.t, err)
	defer p.Close()
	var rs []*kgo.Record
	for _, part := range diffTopicsNamed(clientTopic) {
		for i := range clientRecordsPerPartition {
			rs = append(rs, &kgo.Record{Topic: clientTopic, Partition: part, Value: fmt.Appendf(nil, "%s/%d-%d", group, part, i)})
		}
	}
	require.NoError(s.t, p.ProduceSync(s.ctx, rs...).FirstErr())
}

// diffTopicsNamed returns the partition numbers of the diffTopics entry
// named name.
func diffTopicsNamed(name string) []int32 {
	for _, tp := range diffTopics {
		if tp.name == name {
			parts := make([]int32, tp.partitions)
			for i := range parts {
				parts[i] = int32(i)
			}
			return parts
		}
	}
	panic("brokerdiff: no diff topic " + name)
}

// withoutMetadata clears each committed offset's metadata: kgo writes its
// member id there, which each side generated.
func withoutMetadata(r kmsg.Response) kmsg.Response {
	resp := r.(*kmsg.OffsetFetchResponse)
	for i := range resp.Groups {
		for j := range resp.Groups[i].Topics {
			for k := range resp.Groups[i].Topics[j].Partitions {
				resp.Groups[i].Topics[j].Partitions[k].Metadata = nil
			}
		}
	}
	for j := range resp.Topics {
		for k := range resp.Topics[j].Partitions {
			resp.Topics[j].Partitions[k].Metadata = nil
		}
	}
	return resp
}
