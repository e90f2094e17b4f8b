package loadtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Config is one load: where, how much and how fast.
type Config struct {
	// Addrs are the seed brokers.
	Addrs []string
	// Dial, when set, dials every connection (a test's kill switch).
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// Topic is created with Partitions partitions when it does not exist.
	Topic      string
	Partitions int32
	// Producers is the number of producer clients; they share Rate.
	Producers int
	// Rate is records per second, all producers together.
	Rate int
	// RecordBytes is each record's value size.
	RecordBytes int
	// Group is the consumer group; Consumers its members (0: produce only).
	Group     string
	Consumers int
}

// Limits on a Config: a load is a benchmark's, not an attack's.
const (
	maxClients     = 64
	maxRate        = 1_000_000
	maxRecordBytes = 1 << 20
	maxPartitions  = 100_000
	// tick is how often a producer sends its share of the rate: a
	// constant rate at a granularity kgo batches well.
	tick = 10 * time.Millisecond
	// maxBuffered bounds each producer's unacknowledged records: a slow
	// endpoint slows the producers (Produce blocks) instead of growing
	// the load's memory.
	maxBuffered = 10_000
)

// Validate checks c's bounds.
func (c Config) Validate() error {
	switch {
	case len(c.Addrs) == 0:
		return errors.New("loadtest: no seed broker")
	case c.Topic == "":
		return errors.New("loadtest: no topic")
	case c.Partitions < 1 || c.Partitions > maxPartitions:
		return fmt.Errorf("loadtest: partitions %d is outside [1, %d]", c.Partitions, maxPartitions)
	case c.Producers < 1 || c.Producers > maxClients:
		return fmt.Errorf("loadtest: producers %d is outside [1, %d]", c.Producers, maxClients)
	case c.Consumers < 0 || c.Consumers > maxClients:
		return fmt.Errorf("loadtest: consumers %d is outside [0, %d]", c.Consumers, maxClients)
	case c.Consumers > 0 && c.Group == "":
		return errors.New("loadtest: consumers need a group")
	case c.Rate < 1 || c.Rate > maxRate:
		return fmt.Errorf("loadtest: rate %d is outside [1, %d]", c.Rate, maxRate)
	case c.RecordBytes < 0 || c.RecordBytes > maxRecordBytes:
		return fmt.Errorf("loadtest: record bytes %d is outside [0, %d]", c.RecordBytes, maxRecordBytes)
	}
	return nil
}

// Stats counts a load's records so far.
type Stats struct {
	// Sent records were handed to a producer; Acked were acknowledged,
	// Failed were refused, and Unfinished were still in flight when Stop
	// gave up waiting (each sent record ends as one of them). An
	// unfinished record is not a failure: the endpoint never answered
	// it, so it may or may not be in the log.
	Sent, Acked, Failed, Unfinished int64
	// Consumed records reached a consumer (a record redelivered after a
	// rebalance counts again).
	Consumed int64
	// FirstErr is the first produce failure, if any.
	FirstErr error
}

// Load is a running load.
type Load struct {
	cfg Config
	// stopTicks ends the producers' loops; stopAll also fails records
	// still waiting for buffer room, and ends the consumers.
	stopTicks, stopAll   context.CancelFunc
	producing, consuming sync.WaitGroup
	// answered counts the produced records whose promise has not run:
	// kgo calls every promise, a closed client's with ErrClientClosed,
	// but from its own goroutine, so Stop waits for them before it counts.
	answered             sync.WaitGroup
	producers, consumers []*kgo.Client
	admin                *kgo.Client

	sent, acked, failed, unfinished, consumed atomic.Int64
	// closing is set when Stop has stopped waiting: a record that fails
	// after it, because its client closed, was cut short, not refused.
	closing  atomic.Bool
	errMu    sync.Mutex
	firstErr error
}

// Start creates the topic when missing, then starts the producers and
// consumers; they run until Stop or ctx ends.
func Start(ctx context.Context, cfg Config) (*Load, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	runCtx, stopAll := context.WithCancel(ctx)
	tickCtx, stopTicks := context.WithCancel(runCtx)
	l := &Load{cfg: cfg, stopTicks: stopTicks, stopAll: stopAll}
	admin, err := kgo.NewClient(l.opts()...)
	if err != nil {
		stopAll()
		return nil, fmt.Errorf("loadtest: admin: %w", err)
	}
	l.admin = admin
	if err := l.ensureTopic(ctx); err != nil {
		l.Stop(ctx)
		return nil, err
	}
	for range cfg.Consumers {
		c, err := kgo.NewClient(l.opts(kgo.ConsumerGroup(cfg.Group), kgo.ConsumeTopics(cfg.Topic),
			kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))...)
		if err != nil {
			l.Stop(ctx)
			return nil, fmt.Errorf("loadtest: consumer: %w", err)
		}
		l.consumers = append(l.consumers, c)
		l.consuming.Go(func() { l.consume(runCtx, c) })
	}
	value := make([]byte, cfg.RecordBytes)
	for i := range value {
		value[i] = byte('a' + i%26)
	}
	for i := range cfg.Producers {
		c, err := kgo.NewClient(l.opts(kgo.DefaultProduceTopic(cfg.Topic), kgo.MaxBufferedRecords(maxBuffered),
			// Uncompressed, so that the logs hold RecordBytes a record.
			kgo.ProducerBatchCompression(kgo.NoCompression()))...)
		if err != nil {
			l.Stop(ctx)
			return nil, fmt.Errorf("loadtest: producer: %w", err)
		}
		l.producers = append(l.producers, c)
		l.producing.Go(func() { l.produce(tickCtx, runCtx, c, i, value) })
	}
	return l, nil
}

func (l *Load) opts(extra ...kgo.Opt) []kgo.Opt {
	opts := []kgo.Opt{kgo.SeedBrokers(l.cfg.Addrs...)}
	if l.cfg.Dial != nil {
		opts = append(opts, kgo.Dialer(l.cfg.Dial))
	}
	return append(opts, extra...)
}

// ensureTopic creates the topic unless it exists.
func (l *Load) ensureTopic(ctx context.Context) error {
	resp, err := kadm.NewClient(l.admin).CreateTopic(ctx, l.cfg.Partitions, 1, nil, l.cfg.Topic)
	if err == nil {
		err = resp.Err
	}
	if err != nil && !errors.Is(err, kerr.TopicAlreadyExists) {
		return fmt.Errorf("loadtest: create topic %s: %w", l.cfg.Topic, err)
	}
	return nil
}

// produce sends producer i's share of the rate every tick until tickCtx
// ends; a record waits for buffer room until runCtx ends. Each producer's
// share of a second is spread over its ticks exactly, so that all
// producers together send Rate records a second, whatever Rate's
// divisibility.
func (l *Load) produce(tickCtx, runCtx context.Context, c *kgo.Client, i int, value []byte) {
	perSecond := l.cfg.Rate / l.cfg.Producers
	if i < l.cfg.Rate%l.cfg.Producers {
		perSecond++
	}
	ticks := int(time.Second / tick)
	t := time.NewTicker(tick)
	defer t.Stop()
	for n := 0; ; n++ {
		select {
		case <-tickCtx.Done():
			return
		case <-t.C:
		}
		// The records due by the end of this tick of the second, minus
		// those due by its start.
		k := n % ticks
		due := perSecond*(k+1)/ticks - perSecond*k/ticks
		for range due {
			if tickCtx.Err() != nil {
				return
			}
			l.sent.Add(1)
			l.answered.Add(1)
			c.Produce(runCtx, &kgo.Record{Value: value}, l.onAck)
		}
	}
}

func (l *Load) onAck(_ *kgo.Record, err error) {
	defer l.answered.Done()
	switch {
	case err == nil:
		l.acked.Add(1)
		return
	case l.closing.Load() && (errors.Is(err, kgo.ErrClientClosed) || errors.Is(err, context.Canceled)):
		l.unfinished.Add(1)
		return
	}
	l.failed.Add(1)
	l.errMu.Lock()
	defer l.errMu.Unlock()
	if l.firstErr == nil {
		l.firstErr = err
	}
}

func (l *Load) consume(ctx context.Context, c *kgo.Client) {
	for ctx.Err() == nil {
		fs := c.PollFetches(ctx)
		l.consumed.Add(int64(fs.NumRecords()))
	}
}

// Stats reads the counters.
func (l *Load) Stats() Stats {
	l.errMu.Lock()
	defer l.errMu.Unlock()
	return Stats{
		Sent: l.sent.Load(), Acked: l.acked.Load(), Failed: l.failed.Load(), Unfinished: l.unfinished.Load(),
		Consumed: l.consumed.Load(), FirstErr: l.firstErr,
	}
}

// LogBytes is the size of every partition log the brokers hold, all topics,
// as DescribeLogDirs reports it.
func (l *Load) LogBytes(ctx context.Context) (int64, error) {
	dirs, err := kadm.NewClient(l.admin).DescribeAllLogDirs(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("loadtest: describe log dirs: %w", err)
	}
	var total int64
	for _, ds := range dirs {
		if err := ds.Error(); err != nil {
			return 0, fmt.Errorf("loadtest: describe log dirs: %w", err)
		}
		total += ds.Size()
	}
	return total, nil
}

// Stop stops sending and lets what is in flight finish: it waits, until
// ctx ends, for every sent record's acknowledgement and then for the group
// to have consumed as many records as were acknowledged. Then it closes
// every client (consumers commit and leave); a record still unanswered
// counts as Unfinished, not Failed. It returns the final counts, in which
// Sent = Acked + Failed + Unfinished.
func (l *Load) Stop(ctx context.Context) Stats {
	l.stopTicks()
	ticking := make(chan struct{})
	go func() { l.producing.Wait(); close(ticking) }()
	select {
	case <-ticking:
	case <-ctx.Done():
		l.closing.Store(true)
		l.stopAll() // a producer blocked on a full buffer gives up
		<-ticking
	}
	for _, c := range l.producers {
		_ = c.Flush(ctx) // a timeout leaves the rest to Close
	}
	if len(l.consumers) > 0 {
		l.drain(ctx)
	}
	l.closing.Store(true)
	l.stopAll()
	l.consuming.Wait()
	for _, c := range l.producers {
		c.Close()
	}
	l.answered.Wait() // Sent = Acked + Failed + Unfinished
	for _, c := range l.consumers {
		c.Close()
	}
	l.admin.Close()
	l.producers, l.consumers = nil, nil
	return l.Stats()
}

// drainPoll is how often drain looks at the counters.
const drainPoll = 20 * time.Millisecond

// drain waits until the consumers have read as many records as were
// acknowledged, or ctx ends. Consumed can pass Acked (a rebalance
// redelivers), so it waits for at least, not equal.
func (l *Load) drain(ctx context.Context) {
	t := time.NewTicker(drainPoll)
	defer t.Stop()
	for l.consumed.Load() < l.acked.Load() {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
