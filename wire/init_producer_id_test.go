package wire_test

import (
	"fmt"
	"net"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	fkerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// initProducerID sends req on c and decodes the answer.
func initProducerID(t *testing.T, c net.Conn, req *kmsg.InitProducerIDRequest) *kmsg.InitProducerIDResponse {
	t.Helper()
	_, err := c.Write(kmsg.NewRequestFormatter(kmsg.FormatterClientID("test")).AppendRequest(nil, req, 1))
	require.NoError(t, err)
	body := readResponse(t, c)
	resp := req.ResponseKind().(*kmsg.InitProducerIDResponse)
	skip := 4 // the correlation id
	if req.IsFlexible() {
		skip++ // the response header's empty tags
	}
	require.NoError(t, resp.ReadFrom(body[skip:]))
	return resp
}

// TestInitProducerIDAlwaysFresh proves that an InitProducerId without a
// transactional id always gets a new producer id at epoch 0, on any
// broker, even when it carries the id and epoch it had, as Kafka's
// TransactionCoordinator.handleInitProducerId "blindly" answers it: two
// producers that re-initialise with the same (id, epoch) must never end up
// sharing one id, or the partition leader drops one's batches as the
// other's duplicates.
func TestInitProducerIDAlwaysFresh(t *testing.T) {
	cl := startCluster(t)
	seen := map[int64]bool{}
	for i, carried := range []struct {
		id    int64
		epoch int16
	}{{-1, -1}, {-1, -1}, {0, 0}, {0, 0}, {1, 5}, {7, 32767}} {
		c := dial(t, cl.Addrs()[i%len(cl.Addrs())])
		req := kmsg.NewPtrInitProducerIDRequest()
		req.Version, req.TransactionTimeoutMillis = 5, 60000
		req.ProducerID, req.ProducerEpoch = carried.id, carried.epoch
		resp := initProducerID(t, c, req)
		require.Zero(t, resp.ErrorCode, "request %d", i)
		assert.Zero(t, resp.ProducerEpoch, "request %d starts at epoch 0", i)
		assert.False(t, seen[resp.ProducerID], "request %d got producer id %d twice", i, resp.ProducerID)
		seen[resp.ProducerID] = true
	}
}

// TestInitProducerIDHalfSet proves KafkaApis.handleInitProducerIdRequest's
// check: exactly one of producer id and epoch set is INVALID_REQUEST, with
// id -1 and epoch -1 (InitProducerIdRequest.getErrorResponse).
func TestInitProducerIDHalfSet(t *testing.T) {
	cl := startCluster(t)
	c := dial(t, cl.Addrs()[0])
	for _, tc := range []struct {
		id    int64
		epoch int16
	}{{-1, 0}, {-1, 3}, {4, -1}, {-7, -1}} {
		req := kmsg.NewPtrInitProducerIDRequest()
		req.Version, req.TransactionTimeoutMillis = 4, 60000
		req.ProducerID, req.ProducerEpoch = tc.id, tc.epoch
		resp := initProducerID(t, c, req)
		assert.Equal(t, fkerr.InvalidRequest.Code, resp.ErrorCode, "id %d epoch %d", tc.id, tc.epoch)
		assert.Equal(t, int64(-1), resp.ProducerID)
		assert.Equal(t, int16(-1), resp.ProducerEpoch)
	}
}

// TestConcurrentIdempotentProducers proves that several idempotent kgo
// producers writing at once to the same partitions lose nothing: every
// acknowledged record is consumed exactly once.
func TestConcurrentIdempotentProducers(t *testing.T) {
	ctx := testContext(t)
	cl := startCluster(t)
	createTopic(t, ctx, newAdmin(t, cl), "idem", 3)
	const producers, perProducer = 3, 300
	var wg sync.WaitGroup
	var mu sync.Mutex
	acked := map[string]int{}
	for p := range producers {
		prod := newClient(t, cl, kgo.DefaultProduceTopic("idem"), kgo.RecordPartitioner(kgo.RoundRobinPartitioner()))
		wg.Add(1)
		go func() {
			defer wg.Done()
			var inner sync.WaitGroup
			for i := range perProducer {
				inner.Add(1)
				prod.Produce(ctx, kgo.StringRecord(fmt.Sprintf("p%d-%d", p, i)), func(r *kgo.Record, err error) {
					defer inner.Done()
					if err == nil {
						mu.Lock()
						acked[string(r.Value)]++
						mu.Unlock()
					}
				})
			}
			inner.Wait()
		}()
	}
	wg.Wait()
	require.Equal(t, producers*perProducer, len(acked), "every record was acknowledged")

	cons := newClient(t, cl, kgo.ConsumeTopics("idem"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	got := map[string]int{}
	for n := 0; n < producers*perProducer; {
		fs := cons.PollFetches(ctx)
		require.NoError(t, ctx.Err())
		fs.EachError(func(_ string, _ int32, err error) { require.NoError(t, err) })
		fs.EachRecord(func(r *kgo.Record) { got[string(r.Value)]++; n++ })
	}
	assert.Equal(t, acked, got, "every acknowledged record, each exactly once")
}
