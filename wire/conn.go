package wire

import (
	"bufio"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"slices"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kbin"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// request is one decoded request on its way through a handler.
type request struct {
	ctx      context.Context
	cl       *Cluster
	b        *broker
	conn     *connState
	clientID string
	kreq     kmsg.Request
}

// connState is what the endpoint remembers of one connection: the share
// sessions opened on it, released when it closes as Kafka's share session
// cache releases them on a disconnect, and closed, closed once the client
// is gone, which wakes a request parked on its behalf (a Fetch or
// ShareFetch waiting for records).
type connState struct {
	mu            sync.Mutex
	shareSessions map[sessionKey]bool
	closed        chan struct{}
	closeOnce     sync.Once
	// host is the client's address as Kafka's ClassicGroupMember.clientHost
	// shows it ("/127.0.0.1").
	host string
}

func newConnState() *connState {
	return &connState{shareSessions: make(map[sessionKey]bool), closed: make(chan struct{})}
}

// markClosed records that the client is gone.
func (c *connState) markClosed() { c.closeOnce.Do(func() { close(c.closed) }) }

func (c *connState) openShareSession(k sessionKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.shareSessions[k] = true
}

func (c *connState) closeShareSession(k sessionKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.shareSessions, k)
}

// sessions lists the open share sessions in a fixed order.
func (c *connState) sessions() []sessionKey {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]sessionKey, 0, len(c.shareSessions))
	for k := range c.shareSessions {
		out = append(out, k)
	}
	slices.SortFunc(out, func(a, b sessionKey) int {
		return cmp.Or(cmp.Compare(a.group, b.group), cmp.Compare(a.member, b.member), cmp.Compare(a.node, b.node))
	})
	return out
}

// wait parks a request (a Fetch or ShareFetch short of records) until
// woken closes or d has passed. It returns false when the request should
// answer at once instead: the cluster is closing, or the client has gone
// (Kafka's purgatory would hold it until its timeout; nobody would read
// the answer).
func (r *request) wait(woken <-chan struct{}, d time.Duration) bool {
	r.cl.parked.Add(1)
	defer r.cl.parked.Add(-1)
	timer := time.NewTimer(max(d, 0))
	defer timer.Stop()
	select {
	case <-woken:
	case <-timer.C:
	case <-r.ctx.Done():
		return false
	case <-r.conn.closed:
		return false
	}
	return true
}

// errNoResponse is a handler's answer for a request Kafka does not answer
// (Produce with acks=0).
var errNoResponse = errors.New("wire: no response")

// frameError is a connection-fatal problem with what the client sent: the
// connection is closed with a log line, as Kafka's SocketServer closes a
// channel on InvalidReceiveException or InvalidRequestException.
type frameError struct{ msg string }

func (e *frameError) Error() string { return e.msg }

func frameErrorf(format string, args ...any) error {
	return &frameError{fmt.Sprintf(format, args...)}
}

// serveConn runs one connection until the client closes it, it sends
// something that cannot be served, or the cluster closes. Like Kafka's
// SocketServer it serves one request at a time and answers in request
// order. One reader goroutine per connection (readFrames) reads frames
// through a buffer while a request is served: a client that goes away is
// noticed at once (its parked Fetch or JoinGroup is woken rather than held
// until its timeout), and a pipelined request costs one frame of buffering.
func (cl *Cluster) serveConn(b *broker, nc net.Conn) {
	log := cl.log.With("broker", b.node, "client", nc.RemoteAddr().String())
	defer nc.Close()
	state := newConnState()
	if addr, ok := nc.RemoteAddr().(*net.TCPAddr); ok {
		state.host = "/" + addr.IP.String()
	}
	defer func() {
		if keys := state.sessions(); len(keys) > 0 {
			cl.share.dropSessions(keys)
		}
	}()
	dl := &readDeadline{nc: nc, idle: cl.cfg.IdleTimeout, frame: cl.cfg.FrameReadTimeout}
	// frames is unbuffered: the reader holds at most one frame while the
	// previous one is served. done releases it once serveConn returns.
	frames := make(chan frame)
	done := make(chan struct{})
	defer close(done)
	go cl.readFrames(bufio.NewReaderSize(nc, connReadBuffer), dl, state, frames, done)
	var out []byte
	for {
		f := <-frames
		if f.err != nil {
			logConnEnd(log, "reading a request", f.err)
			return
		}
		resp, corr, err := cl.handleFrame(b, state, f.body)
		if errors.Is(err, errNoResponse) {
			continue
		}
		if err != nil {
			logConnEnd(log, "handling a request", err)
			return
		}
		out = appendResponse(out[:0], corr, resp)
		if err := nc.SetWriteDeadline(time.Now().Add(cl.cfg.WriteTimeout)); err != nil {
			logConnEnd(log, "writing a response", err)
			return
		}
		if _, err := nc.Write(out); err != nil {
			logConnEnd(log, "writing a response", err)
			return
		}
		// connections.max.idle.ms counts from the last response: extend
		// the wait for the next frame, which is already under way.
		if err := dl.responded(); err != nil {
			logConnEnd(log, "writing a response", err)
			return
		}
	}
}

// connReadBuffer is the size of a connection's read buffer: a frame that
// fits (every group request a client sends, small produce batches) comes
// in one read; a larger one is read straight into its body.
const connReadBuffer = 16 << 10

// frame is one request frame's body, or why none came.
type frame struct {
	body []byte
	err  error
}

// readDeadline keeps a connection's read deadline in one of two modes,
// shared by the reader and the serving loop: waiting for a frame
// (IdleTimeout, connections.max.idle.ms, extended by each response) or
// inside one (its rest within FrameReadTimeout, which a response must not
// extend).
type readDeadline struct {
	mu          sync.Mutex
	nc          net.Conn
	idle, frame time.Duration
	inFrame     bool
}

// awaitFrame starts the wait for the next frame.
func (d *readDeadline) awaitFrame() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.inFrame = false
	return d.nc.SetReadDeadline(time.Now().Add(d.idle))
}

// startFrame gives the rest of a started frame FrameReadTimeout.
func (d *readDeadline) startFrame() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.inFrame = true
	return d.nc.SetReadDeadline(time.Now().Add(d.frame))
}

// responded extends the wait for the next frame after a response, unless
// the next frame has started.
func (d *readDeadline) responded() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.inFrame {
		return nil
	}
	return d.nc.SetReadDeadline(time.Now().Add(d.idle))
}

// readFrames reads frames from br and sends each on frames, until a read
// fails, a frame is invalid or done closes. A read error means the client
// is gone or idle for too long: the connection's parked request is woken.
// An invalid frame is sent after the frames before it, so they are
// answered first, as Kafka answers what it read before the bad receive.
func (cl *Cluster) readFrames(br *bufio.Reader, dl *readDeadline, state *connState, frames chan<- frame, done <-chan struct{}) {
	for {
		body, err := cl.readFrame(br, dl)
		if err != nil {
			var fe *frameError
			if !errors.As(err, &fe) {
				state.markClosed()
			}
		}
		select {
		case frames <- frame{body, err}:
		case <-done:
			return
		}
		if err != nil {
			return
		}
	}
}

// readFrame reads one size-prefixed request. In the common case the whole
// frame arrives in the read that ends the wait for it, and readFrame sets
// one deadline: IdleTimeout for that wait. Once a frame has started, a
// further read must arrive within FrameReadTimeout.
func (cl *Cluster) readFrame(br *bufio.Reader, dl *readDeadline) ([]byte, error) {
	if br.Buffered() == 0 {
		if err := dl.awaitFrame(); err != nil {
			return nil, err
		}
		if _, err := br.Peek(1); err != nil {
			return nil, err
		}
	}
	started := false
	need := func(n int) error {
		if br.Buffered() >= n || started {
			return nil
		}
		started = true
		return dl.startFrame()
	}
	if err := need(4); err != nil {
		return nil, err
	}
	size, err := br.Peek(4)
	if err != nil {
		return nil, fmt.Errorf("mid-frame: %w", err)
	}
	n := int32(binary.BigEndian.Uint32(size))
	// Kafka's NetworkReceive: a negative size or one above
	// socket.request.max.bytes is an InvalidReceiveException.
	if n < 0 || n > cl.cfg.MaxRequestBytes {
		return nil, frameErrorf("invalid receive (size = %d larger than %d)", n, cl.cfg.MaxRequestBytes)
	}
	if _, err := br.Discard(4); err != nil {
		return nil, fmt.Errorf("mid-frame: %w", err)
	}
	if err := need(int(n)); err != nil {
		return nil, err
	}
	// A fresh body per frame: a decoded request may keep slices of it
	// (a Produce's record batches).
	body := make([]byte, n)
	if _, err := io.ReadFull(br, body); err != nil {
		return nil, fmt.Errorf("mid-frame: %w", err)
	}
	return body, nil
}

// logConnEnd logs why a connection ended: quietly when the client simply
// went away, with a warning when it sent something we cannot serve.
func logConnEnd(log *slog.Logger, during string, err error) {
	var fe *frameError
	var ne net.Error
	switch {
	case errors.As(err, &fe):
		log.Warn("closing the connection: bad request", "during", during, "reason", fe.msg)
	case errors.As(err, &ne) && ne.Timeout():
		log.Warn("closing the connection: read deadline passed", "during", during, "err", err)
	case errors.Is(err, io.EOF), errors.Is(err, net.ErrClosed):
		log.Debug("connection closed", "during", during)
	default:
		log.Info("closing the connection", "during", during, "err", err)
	}
}

// handleFrame decodes one request frame, dispatches it and returns the
// response and correlation id. An error closes the connection.
func (cl *Cluster) handleFrame(b *broker, state *connState, body []byte) (kmsg.Response, int32, error) {
	// The request header (v1, or v2 for flexible versions): api key, api
	// version, correlation id, client id, [tagged fields].
	if len(body) < 10 {
		return nil, 0, frameErrorf("request of %d bytes is shorter than a request header", len(body))
	}
	rd := kbin.Reader{Src: body}
	key := rd.Int16()
	version := rd.Int16()
	corr := rd.Int32()
	clientID := rd.NullableString()
	if err := rd.Complete(); err != nil {
		return nil, corr, frameErrorf("malformed request header: %v", err)
	}
	a := cl.apis.lookup(key)
	kreq := kmsg.RequestForKey(key)
	if a == nil || kreq == nil {
		return nil, corr, frameErrorf("unknown or unsupported api key %d (%s)", key, kmsg.NameForKey(key))
	}
	if version < a.min || version > a.max {
		if key == apiVersionsKey {
			// KIP-511: an ApiVersions version we do not know is answered
			// at v0 with UNSUPPORTED_VERSION and our own range, so the
			// client can retry at a version we speak.
			return unsupportedApiVersions(a), corr, nil
		}
		return nil, corr, frameErrorf("unsupported version %d of %s (supported %d-%d)", version, kmsg.NameForKey(key), a.min, a.max)
	}
	kreq.SetVersion(version)
	if kreq.IsFlexible() {
		kmsg.SkipTags(&rd)
		if err := rd.Complete(); err != nil {
			return nil, corr, frameErrorf("malformed request header tags: %v", err)
		}
	}
	if err := kreq.ReadFrom(rd.Src); err != nil {
		return nil, corr, frameErrorf("malformed %s v%d: %v", kmsg.NameForKey(key), version, err)
	}
	var cid string
	if clientID != nil {
		cid = *clientID // Kafka treats a null client id as ""
	}
	resp, err := a.handle(&request{ctx: cl.ctx, cl: cl, b: b, conn: state, clientID: cid, kreq: kreq})
	if err != nil {
		return nil, corr, err
	}
	resp.SetVersion(version)
	return resp, corr, nil
}

// appendResponse frames resp: size, correlation id, the response header's
// tagged fields for flexible versions (never for ApiVersions, whose
// response header is always v0), then the body.
func appendResponse(dst []byte, corr int32, resp kmsg.Response) []byte {
	dst = append(dst, 0, 0, 0, 0)
	dst = binary.BigEndian.AppendUint32(dst, uint32(corr))
	if resp.IsFlexible() && resp.Key() != apiVersionsKey {
		dst = append(dst, 0)
	}
	dst = resp.AppendTo(dst)
	binary.BigEndian.PutUint32(dst[:4], uint32(len(dst)-4))
	return dst
}
