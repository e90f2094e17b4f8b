package live

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/plugin"
	"github.com/coordsim/coordsim/plugin/memstore"
	"github.com/coordsim/coordsim/shard"
)

// These tests run the loop on a *clock.Mock. Virtual time moves only through
// Mock.Add, which fires the loop's timer on a goroutine of its own; the
// tests synchronise through the loop (Do, futures, the onPoll hook), never
// by sleeping. watchdog bounds every wait in wall time so that a bug fails
// the test instead of hanging it.
const watchdog = 10 * time.Second

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func testConfig() coordinator.Config {
	cfg := coordinator.DefaultConfig()
	cfg.NumPartitions = 3 // few shards: few timers for the Mock to sort
	return cfg
}

// newMock builds a driver on a Mock at epoch. setup, if given, runs before
// Start (to install the onPoll hook). The driver is stopped at cleanup.
func newMock(t *testing.T, cfg coordinator.Config, opts Options, setup func(*Driver)) (*Driver, *clock.Mock) {
	t.Helper()
	mock := clock.NewMock()
	mock.Set(epoch)
	opts.Clock = mock
	d, err := New(cfg, opts)
	require.NoError(t, err)
	if setup != nil {
		setup(d)
	}
	require.NoError(t, d.Start(t.Context()))
	t.Cleanup(d.Stop)
	setTestTopics(t, d)
	return d, mock
}

// setTestTopics installs the metadata image the tests commit against: a
// commit to a topic the metadata does not hold is refused, as in Kafka.
func setTestTopics(t *testing.T, d *Driver) {
	t.Helper()
	var err error
	require.NoError(t, d.Do(testCtx(t), func(c *coordinator.Coordinator) { err = c.SetTopics(map[string]int32{"foo": 3}) }))
	require.NoError(t, err)
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), watchdog)
	t.Cleanup(cancel)
	return ctx
}

func await[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(watchdog):
		t.Fatal("timed out waiting for the loop")
		var zero T
		return zero
	}
}

func commitReq(group string, offset int64) shard.OffsetCommitRequest {
	return shard.OffsetCommitRequest{GroupID: group, MemberEpoch: -1, RetentionTimeMs: -1,
		Topics: []shard.OffsetCommitTopic{{Topic: "foo", Partitions: []shard.OffsetCommitPartition{{Partition: 0, Offset: offset, LeaderEpoch: -1}}}}}
}

func joinConsumer(t *testing.T, d *Driver, group, member string) {
	t.Helper()
	r, err := d.ConsumerGroupHeartbeat(testCtx(t), shard.ConsumerGroupHeartbeatRequest{
		GroupID: group, MemberID: member, MemberEpoch: 0, RebalanceTimeoutMs: 300_000, SubscribedTopicNames: []string{"foo"}})
	require.NoError(t, err)
	require.Positive(t, r.MemberEpoch)
}

func describe(t *testing.T, d *Driver, group string) shard.GroupDescription {
	t.Helper()
	gs, err := d.DescribeGroups(testCtx(t), []string{group})
	require.NoError(t, err)
	require.Len(t, gs, 1)
	require.NoError(t, gs[0].Err)
	return gs[0].Description
}

// TestSessionTimeoutFiresFromTheClockTimer proves that the loop's timer, on
// its own, wakes the loop at a member's session deadline: after Mock.Add the
// loop polls and fences the member before any request arrives, and the group
// goes EMPTY.
func TestSessionTimeoutFiresFromTheClockTimer(t *testing.T) {
	fired := make(chan int, 16)
	d, mock := newMock(t, testConfig(), Options{}, func(d *Driver) {
		d.onPoll = func(n int) {
			if n > 0 {
				select {
				case fired <- n:
				default:
				}
			}
		}
	})
	joinConsumer(t, d, "g", "m1")
	g := describe(t, d, "g")
	require.Equal(t, shard.StateStable, g.State)
	require.Len(t, g.Members, 1)
	for len(fired) > 0 { // forget polls made before the clock moved
		<-fired
	}

	mock.Add(46 * time.Second) // group.consumer.session.timeout.ms is 45 s

	assert.Positive(t, await(t, fired), "the timer's wake-up ran the session timeout")
	g = describe(t, d, "g")
	assert.Equal(t, shard.StateEmpty, g.State)
	assert.Empty(t, g.Members)
}

// deafClock is a Mock whose AfterFunc timers never fire within a test: with
// it, only the loop's own polling can notice that the clock moved. The
// plugin-call timeouts (Mock.WithTimeout) still fire as usual.
type deafClock struct{ *clock.Mock }

func (c deafClock) AfterFunc(time.Duration, func()) *clock.Timer {
	return c.Mock.AfterFunc(100*365*24*time.Hour, func() {})
}

// TestRequestSeesWorkDueAtNow proves that the loop polls before running a
// request: with a clock whose timers never wake the loop, the first describe
// after the clock passed the session deadline already finds the member
// fenced. So with a live timer no retry is needed either, whichever of the
// timer's wake-up and the request reaches the loop first.
func TestRequestSeesWorkDueAtNow(t *testing.T) {
	mock := clock.NewMock()
	mock.Set(epoch)
	d, err := New(testConfig(), Options{Clock: deafClock{mock}})
	require.NoError(t, err)
	require.NoError(t, d.Start(t.Context()))
	t.Cleanup(d.Stop)
	joinConsumer(t, d, "g", "m1")
	require.Equal(t, shard.StateStable, describe(t, d, "g").State)

	mock.Add(44 * time.Second)
	assert.Equal(t, shard.StateStable, describe(t, d, "g").State, "before the session timeout")
	mock.Add(2 * time.Second)
	assert.Equal(t, shard.StateEmpty, describe(t, d, "g").State, "after the session timeout")
}

// TestOffsetCommitRoundTrip proves a commit made through the driver is
// answered once committed and read back by FetchOffsets; with a commit delay
// the answer waits for the clock, and reads see only committed offsets.
func TestOffsetCommitRoundTrip(t *testing.T) {
	t.Run("commit at once", func(t *testing.T) {
		d, _ := newMock(t, testConfig(), Options{}, nil)
		r, err := d.CommitOffsets(testCtx(t), commitReq("g", 42))
		require.NoError(t, err)
		assert.Equal(t, 1, r.Committed)
		got, err := d.FetchOffsets(testCtx(t), "g", nil, false)
		require.NoError(t, err)
		require.Len(t, got, 1)
		assert.Equal(t, shard.FetchedOffset{Topic: "foo", Partition: 0, Offset: 42, LeaderEpoch: -1}, got[0])
	})
	t.Run("commit delay", func(t *testing.T) {
		cfg := testConfig()
		cfg.CommitDelay = 5 * time.Millisecond
		d, mock := newMock(t, cfg, Options{}, nil)
		done := make(chan outcome[shard.OffsetCommitResponse], 1)
		var pending bool
		require.NoError(t, d.Do(testCtx(t), func(c *coordinator.Coordinator) {
			f := c.CommitOffsets(commitReq("g", 42))
			pending = !f.Done()
			f.OnDone(func(r shard.OffsetCommitResponse, err error) { done <- outcome[shard.OffsetCommitResponse]{r, err} })
		}))
		require.True(t, pending, "the write waits for its commit")
		got, err := d.FetchOffsets(testCtx(t), "g", nil, false)
		require.NoError(t, err)
		assert.Empty(t, got, "reads see committed state only")

		mock.Add(cfg.CommitDelay)

		o := await(t, done)
		require.NoError(t, o.err)
		assert.Equal(t, 1, o.value.Committed)
		got, err = d.FetchOffsets(testCtx(t), "g", nil, false)
		require.NoError(t, err)
		assert.Len(t, got, 1)
	})
}

// TestRealClockCommitRoundTrip proves the driver runs on the wall clock, the
// default: a commit and a fetch round-trip through the loop.
func TestRealClockCommitRoundTrip(t *testing.T) {
	d, err := New(testConfig(), Options{}) // Clock nil: clock.New()
	require.NoError(t, err)
	require.NoError(t, d.Start(t.Context()))
	setTestTopics(t, d)
	defer d.Stop()
	r, err := d.CommitOffsets(testCtx(t), commitReq("g", 7))
	require.NoError(t, err)
	assert.Equal(t, 1, r.Committed)
	got, err := d.FetchOffsets(testCtx(t), "g", nil, false)
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, int64(7), got[0].Offset)
}

// streamsFixture is a one-shard driver with a topology store and a streams
// group "g" whose member "m" joined at topology epoch 3.
func streamsFixture(t *testing.T, store plugin.Store, timeout time.Duration) (*Driver, *clock.Mock) {
	t.Helper()
	cfg := testConfig()
	cfg.NumPartitions = 1
	d, mock := newMock(t, cfg, Options{TopologyPlugin: store, PluginCallTimeout: timeout}, nil)
	var setErr error
	require.NoError(t, d.Do(testCtx(t), func(c *coordinator.Coordinator) { setErr = c.SetTopics(map[string]int32{"in": 2}) }))
	require.NoError(t, setErr)
	topo := shard.Topology{Epoch: 3, Subtopologies: []shard.Subtopology{{ID: "0", SourceTopics: []string{"in"}}}}
	r, err := d.StreamsGroupHeartbeat(testCtx(t), shard.StreamsGroupHeartbeatRequest{
		GroupID: "g", MemberID: "m", MemberEpoch: 0, RebalanceTimeoutMs: 300_000, Topology: &topo, Version: 1})
	require.NoError(t, err)
	require.True(t, r.TopologyDescriptionRequired, "the coordinator solicits the description")
	return d, mock
}

// push sends StreamsGroupTopologyDescriptionUpdate for "g" at epoch 3
// through Do; it returns the channel of its outcome and whether the future
// was still pending when Do returned.
func push(t *testing.T, d *Driver) (<-chan error, bool) {
	t.Helper()
	got := make(chan error, 1)
	var pending bool
	require.NoError(t, d.Do(testCtx(t), func(c *coordinator.Coordinator) {
		f := c.StreamsGroupTopologyDescriptionUpdate(coordinator.TopologyDescriptionUpdateRequest{
			GroupID: "g", MemberID: "m", TopologyEpoch: 3, Description: plugin.SampleTopology(3, 2)})
		pending = !f.Done()
		f.OnDone(func(_ struct{}, err error) { got <- err })
	}))
	return got, pending
}

// TestTopologyPushCompletesThroughGoroutineExecutor proves a KIP-1331 push
// runs setTopology off the loop (the future is still pending when Do
// returns) and completes on the loop: the store holds the description and
// the group records its stored epoch.
func TestTopologyPushCompletesThroughGoroutineExecutor(t *testing.T) {
	store := memstore.New()
	d, _ := streamsFixture(t, store, 0)

	got, pending := push(t, d)
	assert.True(t, pending, "setTopology runs on a goroutine, not inline")
	require.NoError(t, await(t, got))

	assert.Equal(t, []memstore.Entry{{GroupID: "g", TopologyEpoch: 3}}, store.List())
	assert.Equal(t, int32(3), describe(t, d, "g").StoredDescriptionTopologyEpoch)
}

// blockingStore is a memstore whose SetTopology blocks, ignoring its
// context, until released: the store that hangs.
type blockingStore struct {
	*memstore.Store
	entered chan struct{}
	release chan struct{}
	once    sync.Once
}

func newBlockingStore(t *testing.T) *blockingStore {
	s := &blockingStore{Store: memstore.New(), entered: make(chan struct{}), release: make(chan struct{})}
	t.Cleanup(func() { close(s.release) })
	return s
}

func (s *blockingStore) SetTopology(ctx context.Context, groupID string, epoch int32, d *plugin.TopologyDescription) error {
	s.once.Do(func() { close(s.entered) })
	<-s.release
	return s.Store.SetTopology(ctx, groupID, epoch, d)
}

// SetTopologyFenced blocks the same way: protocol v3 calls it.
func (s *blockingStore) SetTopologyFenced(ctx context.Context, groupID string, epoch int32, d *plugin.TopologyDescription, token int32) error {
	s.once.Do(func() { close(s.entered) })
	<-s.release
	return s.Store.SetTopologyFenced(ctx, groupID, epoch, d, token)
}

// TestPluginCallPastTimeoutFailsUpdate proves a store that blocks past the
// plugin call timeout (measured on the driver's clock) fails the push with
// STREAMS_TOPOLOGY_DESCRIPTION_UPDATE_FAILED, leaving the v2 uncertain
// marker, while the store's call is abandoned. The timeout is longer than
// the watchdog, so only virtual time can end the call in time, and shorter
// than the session timeout, so the member is still there.
func TestPluginCallPastTimeoutFailsUpdate(t *testing.T) {
	store := newBlockingStore(t)
	const timeout = 30 * time.Second
	d, mock := streamsFixture(t, store, timeout)

	got, pending := push(t, d)
	require.True(t, pending)
	await(t, store.entered) // the call is inside the store, not refused up front
	mock.Add(timeout)

	err := await(t, got)
	assert.ErrorIs(t, err, kerr.StreamsTopologyDescriptionUpdateFailed)
	assert.Equal(t, shard.EpochUncertain, describe(t, d, "g").StoredDescriptionTopologyEpoch)
	assert.Empty(t, store.List())
}

// TestStopAbandonsBlockedPluginCall proves Stop does not wait for a store
// that ignores its context: the call in flight is cancelled, its outcome is
// delivered before Stop returns, and the push fails.
func TestStopAbandonsBlockedPluginCall(t *testing.T) {
	store := newBlockingStore(t)
	d, _ := streamsFixture(t, store, 0)
	got, pending := push(t, d)
	require.True(t, pending)
	await(t, store.entered)

	stopped := make(chan struct{})
	go func() { d.Stop(); close(stopped) }()
	await(t, stopped)

	select {
	case err := <-got:
		assert.ErrorIs(t, err, kerr.StreamsTopologyDescriptionUpdateFailed)
	default:
		assert.Fail(t, "the push's outcome was not delivered before Stop returned")
	}
}

// TestStopIsIdempotentAndLaterCallsFail proves the driver's lifecycle: calls
// before Start and after Stop fail with typed errors, Stop can be called
// again, and a write pending at Stop fails with NOT_COORDINATOR.
func TestStopIsIdempotentAndLaterCallsFail(t *testing.T) {
	noop := func(*coordinator.Coordinator) {}

	t.Run("stop after start", func(t *testing.T) {
		d, err := New(testConfig(), Options{Clock: clock.NewMock()})
		require.NoError(t, err)
		assert.ErrorIs(t, d.Do(testCtx(t), noop), ErrNotStarted)
		require.NoError(t, d.Start(t.Context()))
		assert.ErrorIs(t, d.Start(t.Context()), ErrAlreadyStarted)
		require.NoError(t, d.Do(testCtx(t), noop))

		d.Stop()
		d.Stop()
		select {
		case <-d.Done():
		default:
			assert.Fail(t, "Done is not closed after Stop")
		}
		assert.ErrorIs(t, d.Do(testCtx(t), noop), ErrStopped)
		_, err = d.CommitOffsets(testCtx(t), commitReq("g", 1))
		assert.ErrorIs(t, err, ErrStopped)
		_, err = d.FetchOffsets(testCtx(t), "g", nil, false)
		assert.ErrorIs(t, err, ErrStopped)
		_, err = d.DescribeGroups(testCtx(t), []string{"g"})
		assert.ErrorIs(t, err, ErrStopped)
		assert.ErrorIs(t, d.Start(t.Context()), ErrStopped)
	})
	t.Run("stop before start", func(t *testing.T) {
		d, err := New(testConfig(), Options{Clock: clock.NewMock()})
		require.NoError(t, err)
		d.Stop()
		d.Stop()
		assert.ErrorIs(t, d.Start(t.Context()), ErrStopped)
		assert.ErrorIs(t, d.Do(testCtx(t), noop), ErrStopped)
	})
	t.Run("pending write fails at stop", func(t *testing.T) {
		cfg := testConfig()
		cfg.CommitDelay = time.Minute // the Mock never gets there
		d, _ := newMock(t, cfg, Options{}, nil)
		done := make(chan error, 1)
		require.NoError(t, d.Do(testCtx(t), func(c *coordinator.Coordinator) {
			c.CommitOffsets(commitReq("g", 1)).OnDone(func(_ shard.OffsetCommitResponse, err error) { done <- err })
		}))
		d.Stop()
		select {
		case err := <-done:
			assert.ErrorIs(t, err, kerr.NotCoordinator)
		default:
			assert.Fail(t, "the pending write did not complete at Stop")
		}
	})
}

// TestStartContextEndStopsTheLoop proves that ending Start's context shuts
// the driver down like Stop.
func TestStartContextEndStopsTheLoop(t *testing.T) {
	d, err := New(testConfig(), Options{Clock: clock.NewMock()})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	require.NoError(t, d.Start(ctx))
	cancel()
	await(t, d.Done())
	assert.ErrorIs(t, d.Do(testCtx(t), func(*coordinator.Coordinator) {}), ErrStopped)
	d.Stop() // still fine
}

// TestContextCancellation proves a caller's context bounds its wait: a call
// with an ended context does nothing; a call whose context ends while its
// future is pending returns ctx.Err() while the write still completes; and
// a Do abandoned while queued never runs its function.
func TestContextCancellation(t *testing.T) {
	t.Run("ended before the call", func(t *testing.T) {
		d, _ := newMock(t, testConfig(), Options{}, nil)
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		_, err := d.CommitOffsets(ctx, commitReq("g", 1))
		assert.ErrorIs(t, err, context.Canceled)
		got, err := d.FetchOffsets(testCtx(t), "g", nil, false)
		require.NoError(t, err)
		assert.Empty(t, got, "nothing was committed")
	})
	t.Run("ended while the future is pending", func(t *testing.T) {
		cfg := testConfig()
		cfg.CommitDelay = time.Second
		d, mock := newMock(t, cfg, Options{}, nil)
		ctx, cancel := context.WithCancel(t.Context())
		_, err := Call(ctx, d, func(c *coordinator.Coordinator) *coordinator.Future[shard.OffsetCommitResponse] {
			f := c.CommitOffsets(commitReq("g", 1))
			cancel() // on the loop, after the write started: the caller gives up waiting
			return f
		})
		assert.ErrorIs(t, err, context.Canceled)

		mock.Add(cfg.CommitDelay)
		got, err := d.FetchOffsets(testCtx(t), "g", nil, false)
		require.NoError(t, err)
		assert.Len(t, got, 1, "the write the caller stopped waiting for still commits")
	})
	t.Run("abandoned while queued", func(t *testing.T) {
		d, _ := newMock(t, testConfig(), Options{}, nil)
		entered, release := make(chan struct{}), make(chan struct{})
		go func() {
			// Holds the loop (a function given to Do must not block; this
			// one does, on purpose, so the next request stays queued).
			_ = d.Do(t.Context(), func(*coordinator.Coordinator) { close(entered); <-release })
		}()
		await(t, entered)

		ctx, cancel := context.WithCancel(t.Context())
		ran := make(chan struct{})
		result := make(chan error, 1)
		go func() { result <- d.Do(ctx, func(*coordinator.Coordinator) { close(ran) }) }()
		for i := 0; d.loop.Queued() == 0 && i < 1_000_000; i++ {
			runtime.Gosched()
		}
		require.Equal(t, 1, d.loop.Queued(), "the second request is queued")
		cancel()
		assert.ErrorIs(t, await(t, result), context.Canceled)

		close(release)
		require.NoError(t, d.Do(testCtx(t), func(*coordinator.Coordinator) {}))
		select {
		case <-ran:
			assert.Fail(t, "an abandoned request ran")
		default:
		}
	})
}

// TestHostsOnlyListedPartitions proves Options.Partitions limits what the
// driver hosts: a group routed elsewhere gets NOT_COORDINATOR.
func TestHostsOnlyListedPartitions(t *testing.T) {
	cfg := testConfig()
	var hosted, other string
	for i := 0; i < 100 && (hosted == "" || other == ""); i++ {
		id := "g" + string(rune('a'+i%26)) + string(rune('a'+i/26))
		if coordinator.PartitionFor(id, cfg.NumPartitions) == 0 {
			hosted = id
		} else {
			other = id
		}
	}
	require.NotEmpty(t, hosted)
	require.NotEmpty(t, other)
	d, _ := newMock(t, cfg, Options{Partitions: []int32{0}}, nil)
	_, err := d.CommitOffsets(testCtx(t), commitReq(hosted, 1))
	assert.NoError(t, err)
	_, err = d.CommitOffsets(testCtx(t), commitReq(other, 1))
	assert.ErrorIs(t, err, kerr.NotCoordinator)
}

// TestNewRejectsBadOptions proves New checks its arguments up front.
func TestNewRejectsBadOptions(t *testing.T) {
	bad := testConfig()
	bad.NumPartitions = 0
	cases := []struct {
		name string
		cfg  coordinator.Config
		opts Options
	}{
		{"invalid config", bad, Options{}},
		{"partition out of range", testConfig(), Options{Partitions: []int32{3}}},
		{"negative partition", testConfig(), Options{Partitions: []int32{-1}}},
		{"duplicate partition", testConfig(), Options{Partitions: []int32{1, 1}}},
		{"negative plugin timeout", testConfig(), Options{PluginCallTimeout: -time.Second}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.cfg, tc.opts)
			assert.Error(t, err)
		})
	}
}
