package wire_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"log/slog"
	"net"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/plugin"
	"github.com/coordsim/coordsim/plugin/memstore"
	"github.com/coordsim/coordsim/wire"
)

// syncBuffer is a log sink safe for the connection goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// rawRequest frames a header (key, version, correlation id, client id,
// tags when flexible) and body by hand, so a test can send what kmsg never
// would.
func rawRequest(key, version int16, corr int32, flexible bool, body []byte) []byte {
	var b []byte
	b = binary.BigEndian.AppendUint16(b, uint16(key))
	b = binary.BigEndian.AppendUint16(b, uint16(version))
	b = binary.BigEndian.AppendUint32(b, uint32(corr))
	b = binary.BigEndian.AppendUint16(b, 4)
	b = append(b, "test"...)
	if flexible {
		b = append(b, 0)
	}
	b = append(b, body...)
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(b))), b...)
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	require.NoError(t, c.SetDeadline(time.Now().Add(10*time.Second)))
	return c
}

// readResponse reads one size-prefixed response.
func readResponse(t *testing.T, c net.Conn) []byte {
	t.Helper()
	var size [4]byte
	_, err := io.ReadFull(c, size[:])
	require.NoError(t, err)
	body := make([]byte, binary.BigEndian.Uint32(size[:]))
	_, err = io.ReadFull(c, body)
	require.NoError(t, err)
	return body
}

// assertClosed proves the server closed c: a read returns EOF (or a
// reset), not a timeout.
func assertClosed(t *testing.T, c net.Conn) {
	t.Helper()
	_, err := c.Read(make([]byte, 1))
	require.Error(t, err)
	var ne net.Error
	if assert.Error(t, err) && errorsAs(err, &ne) {
		assert.False(t, ne.Timeout(), "the server closed the connection before the client's deadline")
	}
}

func errorsAs(err error, target *net.Error) bool {
	ne, ok := err.(net.Error)
	if ok {
		*target = ne
	}
	return ok
}

// apiVersions sends an ApiVersions v3 on c and decodes the answer.
func apiVersions(t *testing.T, c net.Conn) *kmsg.ApiVersionsResponse {
	t.Helper()
	req := kmsg.NewPtrApiVersionsRequest()
	req.Version = 3
	req.ClientSoftwareName, req.ClientSoftwareVersion = "test", "1.0"
	_, err := c.Write(kmsg.NewRequestFormatter(kmsg.FormatterClientID("test")).AppendRequest(nil, req, 1))
	require.NoError(t, err)
	body := readResponse(t, c)
	resp := kmsg.NewPtrApiVersionsResponse()
	resp.Version = 3
	require.NoError(t, resp.ReadFrom(body[4:])) // after the correlation id
	return resp
}

// TestBadInputClosesOnlyThatConnection proves Kafka's SocketServer
// behaviour for each kind of bad input: the connection that sent it is
// closed with a log line, and a well-behaved connection opened before it
// keeps being served.
func TestBadInputClosesOnlyThatConnection(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	cl := startCluster(t, func(c *wire.Config) {
		c.Logger = slog.New(slog.NewTextHandler(&logs, nil))
		c.FrameReadTimeout = 200 * time.Millisecond
		c.MaxRequestBytes = 1 << 20
	})
	addr := cl.Addrs()[0]
	good := dial(t, addr)
	require.Zero(t, apiVersions(t, good).ErrorCode)

	for _, tc := range []struct {
		name, log string
		send      []byte
	}{
		{"oversize length prefix", "larger than 1048576", binary.BigEndian.AppendUint32(nil, 1<<20+1)},
		{"negative length prefix", "invalid receive", binary.BigEndian.AppendUint32(nil, 0xffffffff)},
		{"frame shorter than a header", "shorter than a request header", append(binary.BigEndian.AppendUint32(nil, 3), 0, 3, 0)},
		{"unknown api key", "unknown or unsupported api key 9999", rawRequest(9999, 0, 1, false, nil)},
		{"served key, unsupported version", "unsupported version 99 of Metadata", rawRequest(3, 99, 1, true, nil)},
		{"unserved key", "unknown or unsupported api key 43", rawRequest(43, 2, 1, true, []byte{1, 0, 0, 0, 0, 0})},
		{"truncated body", "malformed Metadata v12", rawRequest(3, 12, 1, true, []byte{5})},
		{"hangs mid-frame", "read deadline passed", []byte{0, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := dial(t, addr)
			_, err := c.Write(tc.send)
			require.NoError(t, err)
			assertClosed(t, c)
			assert.Eventually(t, func() bool { return strings.Contains(logs.String(), tc.log) }, 5*time.Second, 10*time.Millisecond,
				"a log line says why: %q", tc.log)
			require.Zero(t, apiVersions(t, good).ErrorCode, "the other connection is still served")
		})
	}
}

// TestApiVersionsUnsupportedVersion proves KIP-511's answer: an
// ApiVersions version above ours gets a v0 response with
// UNSUPPORTED_VERSION and our ApiVersions range, and the connection stays
// open for the retry.
func TestApiVersionsUnsupportedVersion(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	c := dial(t, cl.Addrs()[0])
	_, err := c.Write(rawRequest(18, 42, 7, true, []byte{0}))
	require.NoError(t, err)
	body := readResponse(t, c)
	assert.Equal(t, uint32(7), binary.BigEndian.Uint32(body[:4]), "correlation id")
	resp := kmsg.NewPtrApiVersionsResponse()
	resp.Version = 0
	require.NoError(t, resp.ReadFrom(body[4:]))
	assert.Equal(t, int16(35), resp.ErrorCode, "UNSUPPORTED_VERSION")
	require.Len(t, resp.ApiKeys, 1)
	assert.Equal(t, kmsg.ApiVersionsResponseApiKey{ApiKey: 18, MinVersion: 0, MaxVersion: 5}, resp.ApiKeys[0])
	assert.Zero(t, apiVersions(t, c).ErrorCode, "the connection is still open")
}

// TestSoakConnections proves that connections leave nothing behind: a few
// hundred loopback connections opened, used and closed (some mid-frame)
// return the goroutine count and the heap to their baseline.
func TestSoakConnections(t *testing.T) {
	cl := startCluster(t, func(c *wire.Config) { c.FrameReadTimeout = time.Second })
	addrs := cl.Addrs()
	measure := func() (int, uint64) {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return runtime.NumGoroutine(), m.HeapAlloc
	}
	// Warm up: one connection per broker, so lazily built state exists.
	for _, a := range addrs {
		c := dial(t, a)
		apiVersions(t, c)
		c.Close()
	}
	g0, h0 := measure()
	const conns = 300
	for i := range conns {
		c := dial(t, addrs[i%len(addrs)])
		switch i % 3 {
		case 0:
			apiVersions(t, c)
		case 1:
			_, _ = c.Write([]byte{0, 0, 1}) // mid-frame, then gone
		}
		c.Close()
	}
	var g int
	var h uint64
	deadline := time.Now().Add(10 * time.Second)
	for {
		g, h = measure()
		if g <= g0 || time.Now().After(deadline) {
			break
		}
		runtime.Gosched()
		time.Sleep(10 * time.Millisecond) // polling the count, bounded by the deadline
	}
	assert.LessOrEqual(t, g, g0, "goroutines return to the baseline")
	assert.Less(t, h, h0+8<<20, "the heap returns to within 8 MiB of the baseline (was %d, now %d)", h0, h)
}

// TestCloseEndsEveryGoroutine proves Close stops everything it started and
// returns promptly: listeners, coordinators, an idle connection, one
// stalled mid-frame and one parked in a Fetch that would wait a minute all
// end, and the goroutine count returns to what it was before Start.
func TestCloseEndsEveryGoroutine(t *testing.T) {
	g0 := runtime.NumGoroutine()
	cfg := wire.DefaultConfig()
	cfg.FetchWaitMax = time.Minute
	cl, err := wire.Start(context.Background(), cfg)
	require.NoError(t, err)
	addr := cl.Addrs()[0]

	idle := dial(t, addr)
	require.Zero(t, apiVersions(t, idle).ErrorCode)
	stalled := dial(t, addr)
	_, err = stalled.Write([]byte{0, 0})
	require.NoError(t, err)
	ct := kmsg.NewPtrCreateTopicsRequest()
	ct.Version = 7
	ct.Topics = []kmsg.CreateTopicsRequestTopic{{Topic: "t", NumPartitions: 1, ReplicationFactor: 1}}
	require.Zero(t, roundTrip(t, idle, ct).(*kmsg.CreateTopicsResponse).Topics[0].ErrorCode)
	fetching := dial(t, addr)
	fr := kmsg.NewPtrFetchRequest()
	fr.Version, fr.MaxWaitMillis, fr.MinBytes, fr.MaxBytes = 12, 60000, 1, 1<<20
	fr.Topics = []kmsg.FetchRequestTopic{{Topic: "t", Partitions: []kmsg.FetchRequestTopicPartition{{Partition: 0, PartitionMaxBytes: 1 << 20}}}}
	_, err = fetching.Write(kmsg.NewRequestFormatter(kmsg.FormatterClientID("test")).AppendRequest(nil, fr, 2))
	require.NoError(t, err)

	closed := make(chan struct{})
	go func() {
		cl.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(20 * time.Second):
		t.Fatal("Close did not return within 20 s")
	}
	for _, c := range []net.Conn{idle, stalled} {
		assertClosed(t, c)
	}
	// The parked Fetch may be answered before its connection closes: read
	// to the end, which must come before the client's deadline.
	_, err = io.Copy(io.Discard, fetching)
	var ne net.Error
	if errorsAs(err, &ne) {
		assert.False(t, ne.Timeout(), "the server closed the fetching connection")
	}
	var g int
	deadline := time.Now().Add(10 * time.Second)
	for {
		g = runtime.NumGoroutine()
		if g <= g0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond) // polling the count, bounded by the deadline
	}
	if g > g0 {
		buf := make([]byte, 1<<20)
		t.Logf("goroutines left:\n%s", buf[:runtime.Stack(buf, true)])
	}
	assert.LessOrEqual(t, g, g0, "goroutines return to their count before Start")
}

// closeCounter is a topology store that counts its Close calls.
type closeCounter struct {
	plugin.Store
	closes atomic.Int32
}

func (c *closeCounter) Close() error {
	c.closes.Add(1)
	return nil
}

// TestStartFailureClosesTheTopologyStore proves Start owns the topology
// store from the call on: a Start refused for its configuration closes the
// store once (nothing else will), and a running cluster closes it once, in
// Close.
func TestStartFailureClosesTheTopologyStore(t *testing.T) {
	bad := &closeCounter{Store: memstore.New()}
	cfg := wire.DefaultConfig()
	cfg.Brokers, cfg.TopologyPlugin = 0, bad
	_, err := wire.Start(context.Background(), cfg)
	require.Error(t, err)
	assert.Equal(t, int32(1), bad.closes.Load(), "a refused Start closes the store")

	good := &closeCounter{Store: memstore.New()}
	cfg = wire.DefaultConfig()
	cfg.TopologyPlugin = good
	cl, err := wire.Start(context.Background(), cfg)
	require.NoError(t, err)
	assert.Zero(t, good.closes.Load(), "a running cluster keeps its store open")
	cl.Close()
	cl.Close()
	assert.Equal(t, int32(1), good.closes.Load(), "Close closes it once")
}

// TestFetchWokenByClientClose proves a Fetch parked for records does not
// outlive its client: a Fetch that would wait a minute (MaxWaitMillis
// 60000, nothing to read) is woken when its connection closes, and the
// goroutine count returns to its baseline long before the wait would have
// expired. A pipelined request behind a parked Fetch is still served in
// order once the Fetch answers.
func TestFetchWokenByClientClose(t *testing.T) {
	cl := startCluster(t, func(c *wire.Config) { c.FetchWaitMax = time.Minute })
	addr := cl.Addrs()[0]
	admin := dial(t, addr)
	ct := kmsg.NewPtrCreateTopicsRequest()
	ct.Version = 7
	ct.Topics = []kmsg.CreateTopicsRequestTopic{{Topic: "t", NumPartitions: 1, ReplicationFactor: 1}}
	require.Zero(t, roundTrip(t, admin, ct).(*kmsg.CreateTopicsResponse).Topics[0].ErrorCode)
	fetch := func(waitMs int32) []byte {
		fr := kmsg.NewPtrFetchRequest()
		fr.Version, fr.MaxWaitMillis, fr.MinBytes, fr.MaxBytes = 12, waitMs, 1, 1<<20
		fr.Topics = []kmsg.FetchRequestTopic{{Topic: "t", Partitions: []kmsg.FetchRequestTopicPartition{{Partition: 0, PartitionMaxBytes: 1 << 20}}}}
		return kmsg.NewRequestFormatter(kmsg.FormatterClientID("test")).AppendRequest(nil, fr, 2)
	}
	waitParked := func(n int64) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for cl.Parked() != n && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond) // polling the count, bounded by the deadline
		}
		require.Equal(t, n, cl.Parked(), "parked fetches")
	}

	// Pipelined: a short fetch, then ApiVersions; both answered, in order.
	pipelined := dial(t, addr)
	av := kmsg.NewPtrApiVersionsRequest()
	av.Version, av.ClientSoftwareName, av.ClientSoftwareVersion = 3, "test", "1.0"
	req := append(fetch(200), kmsg.NewRequestFormatter(kmsg.FormatterClientID("test")).AppendRequest(nil, av, 9)...)
	_, err := pipelined.Write(req)
	require.NoError(t, err)
	assert.Equal(t, uint32(2), binary.BigEndian.Uint32(readResponse(t, pipelined)[:4]), "the fetch answers first")
	assert.Equal(t, uint32(9), binary.BigEndian.Uint32(readResponse(t, pipelined)[:4]), "then the pipelined request")
	waitParked(0)

	measure := func() int {
		runtime.GC()
		return runtime.NumGoroutine()
	}
	g0 := measure()
	start := time.Now()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	require.NoError(t, err)
	_, err = c.Write(fetch(60000))
	require.NoError(t, err)
	waitParked(1)
	require.NoError(t, c.Close())
	waitParked(0)
	var g int
	deadline := time.Now().Add(10 * time.Second)
	for {
		g = measure()
		if g <= g0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond) // polling the count, bounded by the deadline
	}
	assert.LessOrEqual(t, g, g0, "the connection's goroutines ended")
	assert.Less(t, time.Since(start), 30*time.Second, "long before the fetch's minute")
}

// TestRequestsBeforeAnInvalidFrameAreAnswered proves the buffered reader
// keeps Kafka's order: requests pipelined in one write ahead of an
// oversize length prefix are each answered, in order, before the
// connection is closed for the invalid receive.
func TestRequestsBeforeAnInvalidFrameAreAnswered(t *testing.T) {
	t.Parallel()
	cl := startCluster(t, func(c *wire.Config) { c.MaxRequestBytes = 1 << 20 })
	c := dial(t, cl.Addrs()[0])
	av := kmsg.NewPtrApiVersionsRequest()
	av.Version, av.ClientSoftwareName, av.ClientSoftwareVersion = 3, "test", "1.0"
	f := kmsg.NewRequestFormatter(kmsg.FormatterClientID("test"))
	var send []byte
	for corr := range int32(3) {
		send = append(send, f.AppendRequest(nil, av, corr)...)
	}
	send = binary.BigEndian.AppendUint32(send, 1<<20+1)
	_, err := c.Write(send)
	require.NoError(t, err)
	for corr := range uint32(3) {
		assert.Equal(t, corr, binary.BigEndian.Uint32(readResponse(t, c)[:4]), "answered in order")
	}
	assertClosed(t, c)
}
