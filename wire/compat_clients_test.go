package wire_test

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/IBM/sarama"
	kafkago "github.com/segmentio/kafka-go"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"
)

// The matrix's rows: one start function per client and configuration.

var matrixClients = []matrixClient{
	{name: "kgo-eager-range", static: true, migrates: true, start: kgoMember(kgo.RangeBalancer(), false)},
	{name: "kgo-cooperative-sticky", static: true, migrates: true, start: kgoMember(kgo.CooperativeStickyBalancer(), false)},
	// KIP-848's static member that crashed holds its instance id until its
	// session expires (UNRELEASED_INSTANCE_ID to its replacement, then a
	// new epoch), so the static scenario, a classic-protocol promise, is
	// not its.
	{name: "kgo-kip848", kip848: true, start: kgoMember(kgo.RangeBalancer(), true)},
	{name: "sarama-range", static: true, start: saramaMember},
	{name: "kafka-go-range", start: kafkaGoMember},
}

// kgoConsumer is a franz-go group member polling in a goroutine.
type kgoConsumer struct {
	c      *kgo.Client
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func (k *kgoConsumer) stop() {
	k.cancel()
	k.wg.Wait()
	k.c.Close() // commits what it consumed and leaves (a static member does not)
}

// kgoMember starts kgo's group consumer: the classic protocol with
// balancer, or KIP-848 (the server assigns).
func kgoMember(balancer kgo.GroupBalancer, kip848 bool) func(t *testing.T, m memberSpec) matrixMember {
	return func(t *testing.T, m memberSpec) matrixMember {
		opts := []kgo.Opt{
			kgo.SeedBrokers(m.addrs...), kgo.ConsumerGroup(m.group), kgo.ConsumeTopics(m.topic),
			kgo.Dialer(m.dial), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
			kgo.SessionTimeout(m.session), kgo.HeartbeatInterval(200 * time.Millisecond),
			kgo.RebalanceTimeout(5 * time.Second), kgo.AutoCommitInterval(100 * time.Millisecond),
			kgo.Balancers(balancer), kgo.RetryBackoffFn(func(int) time.Duration { return 100 * time.Millisecond }),
			kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, ps map[string][]int32) {
				m.onRebalance()
				m.owners.assign(m.name, ps[m.topic])
			}),
			kgo.OnPartitionsRevoked(func(_ context.Context, _ *kgo.Client, ps map[string][]int32) {
				m.onRebalance()
				m.owners.release(m.name, ps[m.topic])
			}),
			kgo.OnPartitionsLost(func(_ context.Context, _ *kgo.Client, ps map[string][]int32) {
				m.onRebalance()
				m.owners.release(m.name, ps[m.topic])
			}),
		}
		if kip848 {
			opts = append(opts, kgo.ServerSideBalancer())
		}
		if m.instanceID != "" {
			opts = append(opts, kgo.InstanceID(m.instanceID))
		}
		c, err := kgo.NewClient(opts...)
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		k := &kgoConsumer{c: c, cancel: cancel}
		k.wg.Add(1)
		go func() {
			defer k.wg.Done()
			for ctx.Err() == nil {
				c.PollFetches(ctx).EachRecord(func(r *kgo.Record) { m.onRecord(string(r.Value)) })
			}
		}()
		return k
	}
}

// saramaConsumer is an IBM/sarama consumer group member.
type saramaConsumer struct {
	cg     sarama.ConsumerGroup
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func (s *saramaConsumer) stop() {
	s.cancel()
	s.wg.Wait()
	_ = s.cg.Close()
}

// saramaHandler marks every message it hands on; sarama commits the
// marks every AutoCommit.Interval and before a rebalance.
type saramaHandler struct{ m memberSpec }

func (h saramaHandler) Setup(sarama.ConsumerGroupSession) error   { h.m.onRebalance(); return nil }
func (h saramaHandler) Cleanup(sarama.ConsumerGroupSession) error { return nil }
func (h saramaHandler) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for msg := range claim.Messages() {
		h.m.onRecord(string(msg.Value))
		sess.MarkMessage(msg, "")
	}
	return nil
}

// dialerFunc adapts a context dialer to sarama's proxy.Dialer.
type dialerFunc func(ctx context.Context, network, addr string) (net.Conn, error)

func (d dialerFunc) Dial(network, addr string) (net.Conn, error) {
	return d(context.Background(), network, addr)
}

// saramaMember starts sarama's consumer group (the classic protocol, range).
func saramaMember(t *testing.T, m memberSpec) matrixMember {
	cfg := sarama.NewConfig()
	cfg.Version = sarama.V4_0_0_0
	cfg.ClientID = "sarama"
	cfg.Net.Proxy.Enable, cfg.Net.Proxy.Dialer = true, dialerFunc(m.dial)
	cfg.Consumer.Offsets.Initial = sarama.OffsetOldest
	cfg.Consumer.Offsets.AutoCommit.Interval = 100 * time.Millisecond
	cfg.Consumer.Group.Session.Timeout = m.session
	cfg.Consumer.Group.Heartbeat.Interval = 200 * time.Millisecond
	cfg.Consumer.Group.Rebalance.Timeout = 5 * time.Second
	cfg.Consumer.Group.Rebalance.Retry.Backoff = 100 * time.Millisecond
	cfg.Consumer.Group.Rebalance.GroupStrategies = []sarama.BalanceStrategy{sarama.NewBalanceStrategyRange()}
	cfg.Consumer.Group.InstanceId = m.instanceID
	cfg.Metadata.Retry.Backoff = 100 * time.Millisecond
	cg, err := sarama.NewConsumerGroup(m.addrs, m.group, cfg)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	s := &saramaConsumer{cg: cg, cancel: cancel}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for ctx.Err() == nil {
			if err := cg.Consume(ctx, []string{m.topic}, saramaHandler{m}); err != nil && ctx.Err() == nil {
				time.Sleep(100 * time.Millisecond) // a real client's retry backoff, off any test clock
			}
		}
	}()
	return s
}

// kafkaGoConsumer is a segmentio/kafka-go group reader.
type kafkaGoConsumer struct {
	r      *kafkago.Reader
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func (k *kafkaGoConsumer) stop() {
	k.cancel()
	k.wg.Wait()
	_ = k.r.Close()
}

// kafkaGoMember starts kafka-go's group Reader (the classic protocol,
// range; kafka-go has no static membership).
func kafkaGoMember(t *testing.T, m memberSpec) matrixMember {
	r := kafkago.NewReader(kafkago.ReaderConfig{
		Brokers: m.addrs, GroupID: m.group, Topic: m.topic,
		Dialer:   &kafkago.Dialer{DialFunc: m.dial, Timeout: 5 * time.Second},
		MinBytes: 1, MaxBytes: 1 << 20, MaxWait: 100 * time.Millisecond,
		CommitInterval: 100 * time.Millisecond, HeartbeatInterval: 200 * time.Millisecond,
		SessionTimeout: m.session, RebalanceTimeout: 5 * time.Second, JoinGroupBackoff: 200 * time.Millisecond,
		StartOffset: kafkago.FirstOffset, GroupBalancers: []kafkago.GroupBalancer{kafkago.RangeGroupBalancer{}},
		ReadBackoffMin: 50 * time.Millisecond, ReadBackoffMax: 200 * time.Millisecond,
	})
	ctx, cancel := context.WithCancel(context.Background())
	k := &kafkaGoConsumer{r: r, cancel: cancel}
	k.wg.Add(1)
	go func() {
		defer k.wg.Done()
		for ctx.Err() == nil {
			msg, err := r.ReadMessage(ctx) // commits on CommitInterval
			if err == nil {
				m.onRecord(string(msg.Value))
			}
		}
	}()
	return k
}
