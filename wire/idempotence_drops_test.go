package wire_test

import (
	"context"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"
)

// droppingConn closes itself on every dropEvery-th read of its own, after its request
// went out and before the answer is read: the broker has appended the
// batch, the producer never hears so, and retries it on a new connection.
// A connection is dropped only once it has read its first answers
// (ApiVersions among them): kgo takes a close during that handshake for a
// broker demanding TLS or SASL and gives up instead of retrying. The drop
// reads as ECONNRESET, a reset by the peer, which kgo retries; an error of
// the test's own making would not be (the flake seen under load).
type droppingConn struct {
	net.Conn
	reads, drops *atomic.Int64
	dropEvery    int64
	own          int64 // reads on this connection
}

func (c *droppingConn) Read(p []byte) (int, error) {
	c.own++
	c.reads.Add(1)
	if c.own%c.dropEvery == 0 {
		c.drops.Add(1)
		c.Conn.Close()
		return 0, syscall.ECONNRESET
	}
	return c.Conn.Read(p)
}

// TestIdempotentProducersWithConnectionDrops proves that idempotent
// producers whose connections drop between a produce and its answer lose
// nothing and duplicate nothing: each retry of an appended batch is
// answered with its original offset (Kafka's duplicate detection over the
// producer's last five batches), so every acknowledged record is consumed
// exactly once. The drops are counted, not random.
func TestIdempotentProducersWithConnectionDrops(t *testing.T) {
	ctx := testContext(t)
	cl := startCluster(t)
	createTopic(t, ctx, newAdmin(t, cl), "drops", 3)
	const producers, perProducer = 3, 300
	var reads atomic.Int64
	var drops atomic.Int64
	dialer := func(ctx context.Context, network, host string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, host)
		if err != nil {
			return nil, err
		}
		return &droppingConn{Conn: c, reads: &reads, drops: &drops, dropEvery: 7}, nil
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	acked := map[string]int{}
	for p := range producers {
		prod := newClient(t, cl, kgo.DefaultProduceTopic("drops"), kgo.Dialer(dialer),
			kgo.RecordPartitioner(kgo.RoundRobinPartitioner()), kgo.MaxBufferedRecords(50),
			kgo.ProducerLinger(0), kgo.RequestRetries(1000), kgo.RecordRetries(1000),
			kgo.MetadataMinAge(10*time.Millisecond), kgo.RetryBackoffFn(func(int) time.Duration { return 5 * time.Millisecond }))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perProducer {
				v := fmt.Sprintf("p%d-%d", p, i)
				prod.Produce(ctx, kgo.StringRecord(v), func(r *kgo.Record, err error) {
					mu.Lock()
					defer mu.Unlock()
					if err == nil {
						acked[string(r.Value)]++
					} else {
						t.Logf("%s not acknowledged: %v", r.Value, err)
					}
				})
			}
			assert.NoError(t, prod.Flush(ctx))
		}()
	}
	wg.Wait()
	t.Logf("%d reads, %d connections dropped", reads.Load(), drops.Load())
	require.GreaterOrEqual(t, drops.Load(), int64(5), "connections dropped many times")
	require.Equal(t, producers*perProducer, len(acked), "every record was acknowledged")

	cons := newClient(t, cl, kgo.ConsumeTopics("drops"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	got := map[string]int{}
	for n := 0; n < producers*perProducer; {
		fs := cons.PollFetches(ctx)
		require.NoError(t, ctx.Err(), "consumed %d of %d", n, producers*perProducer)
		fs.EachError(func(_ string, _ int32, err error) { require.NoError(t, err) })
		fs.EachRecord(func(r *kgo.Record) { got[string(r.Value)]++; n++ })
	}
	assert.Equal(t, acked, got, "every acknowledged record, each exactly once")
}
