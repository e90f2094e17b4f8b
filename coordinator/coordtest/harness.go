// Package coordtest is a harness for unit-testing coordinator logic, the role
// Kafka's GroupMetadataManagerTestContext plays: it builds a coordinator over
// N shards with a manual virtual clock, calls operations, fires due timers in
// deadline order as time advances, and lets a test inspect groups, offsets,
// appended records and metrics. It also runs scenario files written in the
// cockroachdb/datadriven format (see RunScenario).
//
// The harness never sleeps and never reads the wall clock; everything it
// does is deterministic. It is not safe for concurrent use.
package coordtest

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"time"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/metrics"
	"github.com/coordsim/coordsim/plugin"
	"github.com/coordsim/coordsim/shard"
)

// Epoch is where a harness clock starts: 2026-01-01T00:00:00Z.
var Epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Clock is a manual virtual clock. It only moves when told to, and never
// backwards.
type Clock struct{ now time.Time }

// NewClock returns a clock at start.
func NewClock(start time.Time) *Clock { return &Clock{now: start} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time { return c.now }

// Set moves the clock to t; moving it backwards is an error.
func (c *Clock) Set(t time.Time) error {
	if t.Before(c.now) {
		return fmt.Errorf("coordtest: clock cannot move back from %s to %s", c.now, t)
	}
	c.now = t
	return nil
}

// AppendedRecord is a record the coordinator appended and replayed.
type AppendedRecord struct {
	Partition int32
	Offset    int64
	Record    shard.Record
}

// Harness is a started coordinator on a manual clock.
type Harness struct {
	Clock       *Clock
	Coordinator *coordinator.Coordinator
	records     []AppendedRecord
	failAppends []error
	hooks       coordinator.Hooks
}

type options struct {
	cfg        coordinator.Config
	start      time.Time
	partitions []int32
	hostSome   bool // WithPartitions was given
	topics     map[string]int32
	hooks      coordinator.Hooks
	store      plugin.Store
	exec       coordinator.PluginExecutor
	seed       uint64
	groups     []*GroupBuilder
	clock      *Clock
	logs       *coordinator.Logs
	brokerID   int32
}

// Option configures New.
type Option func(*options)

// WithConfig sets the coordinator's configuration (default: Kafka's defaults).
func WithConfig(cfg coordinator.Config) Option { return func(o *options) { o.cfg = cfg } }

// WithStart sets the clock's start (default Epoch).
func WithStart(t time.Time) Option { return func(o *options) { o.start = t } }

// WithPartitions hosts only the listed partitions (default: all; with none
// listed, none, for a broker a shard moves to later).
func WithPartitions(ps ...int32) Option {
	return func(o *options) { o.partitions, o.hostSome = ps, true }
}

// WithTopics installs a topic metadata image (topic → partitions).
func WithTopics(topics map[string]int32) Option { return func(o *options) { o.topics = topics } }

// WithHooks adds coordinator hooks. Every hook given is called; the
// harness's own BeforeAppend (FailNextAppend) and AfterReplay (Records) run
// first and then call the caller's.
func WithHooks(h coordinator.Hooks) Option { return func(o *options) { o.hooks = h } }

// WithPlugin configures a KIP-1331 topology-description store.
func WithPlugin(store plugin.Store) Option { return func(o *options) { o.store = store } }

// WithExecutor sets how plugin calls run (default: inline; see ManualExecutor).
func WithExecutor(e coordinator.PluginExecutor) Option { return func(o *options) { o.exec = e } }

// WithClock shares a clock with another harness (default: a new clock at
// the start time), so two brokers of one cluster see the same time.
func WithClock(c *Clock) Option { return func(o *options) { o.clock = c } }

// WithLogs shares partition logs with another harness (default: private
// logs), so a shard can move between two brokers of one cluster.
func WithLogs(l *coordinator.Logs) Option { return func(o *options) { o.logs = l } }

// WithBrokerID names the broker (default 0).
func WithBrokerID(id int32) Option { return func(o *options) { o.brokerID = id } }

// WithSeed seeds the coordinator's back-off jitter (default 1).
func WithSeed(seed uint64) Option { return func(o *options) { o.seed = seed } }

// New builds, starts and loads a coordinator.
func New(opts ...Option) (*Harness, error) {
	o := options{cfg: coordinator.DefaultConfig(), start: Epoch, seed: 1}
	for _, opt := range opts {
		opt(&o)
	}
	h := &Harness{Clock: o.clock, hooks: o.hooks}
	if h.Clock == nil {
		h.Clock = NewClock(o.start)
	}
	// Every hook the caller gave passes through (OnWrite, CommitDelay,
	// OnTopologyEvent and any added later); the two the harness needs
	// itself run first and then call the caller's.
	hooks := o.hooks
	hooks.BeforeAppend = h.beforeAppend
	hooks.AfterReplay = func(p int32, off int64, r shard.Record) {
		h.records = append(h.records, AppendedRecord{p, off, r})
		if o.hooks.AfterReplay != nil {
			o.hooks.AfterReplay(p, off, r)
		}
	}
	c, err := coordinator.New(o.cfg, coordinator.Options{BrokerID: o.brokerID, Clock: h.Clock, Logs: o.logs, TopologyPlugin: o.store, PluginExecutor: o.exec,
		Rand: rand.New(rand.NewPCG(o.seed, 0)), Hooks: hooks, VerifyDueIndex: true})
	if err != nil {
		return nil, err
	}
	h.Coordinator = c
	if err := c.Startup(); err != nil {
		return nil, err
	}
	if o.topics != nil {
		if err := c.SetTopics(o.topics); err != nil {
			return nil, err
		}
	}
	ps := o.partitions
	if !o.hostSome {
		for p := int32(0); p < o.cfg.NumPartitions; p++ {
			ps = append(ps, p)
		}
	}
	for _, p := range ps {
		if err := c.LoadShard(p); err != nil {
			return nil, err
		}
	}
	for _, g := range o.groups {
		if err := g.seed(h); err != nil {
			return nil, err
		}
	}
	return h, nil
}

func (h *Harness) beforeAppend(p int32, records []shard.Record) error {
	if len(h.failAppends) > 0 {
		err := h.failAppends[0]
		h.failAppends = h.failAppends[1:]
		return err
	}
	if h.hooks.BeforeAppend != nil {
		return h.hooks.BeforeAppend(p, records)
	}
	return nil
}

// FailNextAppend makes the next append fail with err (a Kafka error such as
// kerr.NotEnoughReplicas is translated as Kafka does).
func (h *Harness) FailNextAppend(err error) { h.failAppends = append(h.failAppends, err) }

// Now is the harness clock's time.
func (h *Harness) Now() time.Time { return h.Clock.Now() }

// Elapsed is the virtual time since the harness started.
func (h *Harness) Elapsed(start time.Time) time.Duration { return h.Clock.Now().Sub(start) }

// Poll runs what is due now and returns the number of events run.
func (h *Harness) Poll() int { return h.Coordinator.Poll() }

// Advance moves time forward by d, stopping at every deadline on the way so
// each timer fires at its own time, in order. It returns the events run.
func (h *Harness) Advance(d time.Duration) int {
	if d < 0 {
		panic("coordtest: Advance with a negative duration")
	}
	return h.AdvanceTo(h.Clock.Now().Add(d))
}

// AdvanceTo is Advance to an absolute time.
func (h *Harness) AdvanceTo(t time.Time) int {
	n := h.Coordinator.Poll()
	for {
		next, ok := h.Coordinator.NextDeadline()
		if !ok || next.After(t) {
			break
		}
		if next.After(h.Clock.Now()) {
			_ = h.Clock.Set(next)
		}
		n += h.Coordinator.Poll()
	}
	_ = h.Clock.Set(t)
	return n + h.Coordinator.Poll()
}

// ErrNeverCompleted is returned by Await when the future is still pending
// after every scheduled event within the bound ran.
var ErrNeverCompleted = errors.New("coordtest: the operation did not complete")

// Await returns f's outcome, advancing virtual time deadline by deadline (at
// most a day) until it completes.
func Await[T any](h *Harness, f *coordinator.Future[T]) (T, error) {
	limit := h.Clock.Now().Add(24 * time.Hour)
	for !f.Done() {
		next, ok := h.Coordinator.NextDeadline()
		if !ok || next.After(limit) {
			var zero T
			return zero, ErrNeverCompleted
		}
		h.AdvanceTo(next)
	}
	return f.Result()
}

// CleanupCycle runs one KIP-1331 cleanup cycle now, as the broker's timer
// would (Kafka's runOnce), then runs virtual time on, one commit delay at a
// time, until the cycle has settled: its reads, plugin calls and writes
// done, its writes committed.
// It reports whether the cycle started (false: no plugin, not active, or
// a cycle already in flight, which counts as a dropped tick). Plugin calls
// held by a ManualExecutor keep the cycle in flight; it then returns after
// running what is due and leaves the rest to the test.
func (h *Harness) CleanupCycle() bool {
	started := h.Coordinator.RunTopologyCleanupCycle()
	h.Poll()
	// Each step of the cycle waits at most one commit delay for its write;
	// a later deadline belongs to something else (a sweep, a session).
	step := h.Coordinator.Config().CommitDelay
	for {
		if _, _, inFlight := h.Coordinator.CleanupStats(); !inFlight {
			break
		}
		next, ok := h.Coordinator.NextDeadline()
		if !ok || next.After(h.Clock.Now().Add(step)) {
			break
		}
		h.AdvanceTo(next)
	}
	return started
}

// Records returns every record appended since the harness started.
func (h *Harness) Records() []AppendedRecord { return h.records }

// RecordsSince returns the records appended after the first n.
func (h *Harness) RecordsSince(n int) []AppendedRecord {
	if n >= len(h.records) {
		return nil
	}
	return h.records[n:]
}

// Shard returns a snapshot of the committed state of the shard that owns groupID.
func (h *Harness) Shard(groupID string) (*shard.Shard, error) {
	return h.Coordinator.CommittedShard(h.Coordinator.PartitionFor(groupID))
}

// Group describes a group from committed state.
func (h *Harness) Group(groupID string) (shard.GroupDescription, error) {
	d := h.Coordinator.DescribeGroups([]string{groupID})[0]
	return d.Description, d.Err
}

// Offsets fetches every committed offset of a group.
func (h *Harness) Offsets(groupID string) ([]shard.FetchedOffset, error) {
	return h.Coordinator.FetchOffsets(groupID, nil, false)
}

// JoinConsumer joins a consumer-group member subscribed to topics.
func (h *Harness) JoinConsumer(groupID, memberID string, topics ...string) (shard.ConsumerGroupHeartbeatResponse, error) {
	return Await(h, h.Coordinator.ConsumerGroupHeartbeat(shard.ConsumerGroupHeartbeatRequest{
		GroupID: groupID, MemberID: memberID, MemberEpoch: 0, RebalanceTimeoutMs: 300_000, SubscribedTopicNames: topics,
	}))
}

// HeartbeatConsumer sends a consumer heartbeat at epoch (-1 leaves).
func (h *Harness) HeartbeatConsumer(groupID, memberID string, epoch int32) (shard.ConsumerGroupHeartbeatResponse, error) {
	return Await(h, h.Coordinator.ConsumerGroupHeartbeat(shard.ConsumerGroupHeartbeatRequest{RebalanceTimeoutMs: shard.RebalanceTimeoutNotSent,
		GroupID: groupID, MemberID: memberID, MemberEpoch: epoch,
	}))
}

// JoinStreams joins a streams-group member with a topology.
func (h *Harness) JoinStreams(groupID, memberID string, topology shard.Topology) (shard.StreamsGroupHeartbeatResponse, error) {
	return Await(h, h.Coordinator.StreamsGroupHeartbeat(shard.StreamsGroupHeartbeatRequest{
		GroupID: groupID, MemberID: memberID, MemberEpoch: 0, RebalanceTimeoutMs: 300_000, Topology: &topology, Version: 1,
	}))
}

// HeartbeatStreams sends a streams heartbeat at epoch (-1 leaves).
func (h *Harness) HeartbeatStreams(groupID, memberID string, epoch int32) (shard.StreamsGroupHeartbeatResponse, error) {
	return Await(h, h.Coordinator.StreamsGroupHeartbeat(shard.StreamsGroupHeartbeatRequest{RebalanceTimeoutMs: shard.RebalanceTimeoutNotSent,
		GroupID: groupID, MemberID: memberID, MemberEpoch: epoch, Version: 1,
	}))
}

// JoinShare joins a share-group member subscribed to topics.
func (h *Harness) JoinShare(groupID, memberID string, topics ...string) (shard.ShareGroupHeartbeatResponse, error) {
	return Await(h, h.Coordinator.ShareGroupHeartbeat(shard.ShareGroupHeartbeatRequest{
		GroupID: groupID, MemberID: memberID, MemberEpoch: 0, SubscribedTopicNames: topics,
	}))
}

// LeaveShare has a share-group member leave (member epoch -1).
func (h *Harness) LeaveShare(groupID, memberID string) (shard.ShareGroupHeartbeatResponse, error) {
	return Await(h, h.Coordinator.ShareGroupHeartbeat(shard.ShareGroupHeartbeatRequest{
		GroupID: groupID, MemberID: memberID, MemberEpoch: -1,
	}))
}

// Commit commits one offset as a member (or, with "" and -1, as a simple
// consumer or an admin).
// The error is the request's or, when the request succeeded, the
// partition's (UNKNOWN_TOPIC_OR_PARTITION, OFFSET_METADATA_TOO_LARGE).
func (h *Harness) Commit(groupID, memberID string, memberEpoch int32, topic string, partition int32, offset int64) error {
	r, err := Await(h, h.Coordinator.CommitOffsets(shard.OffsetCommitRequest{
		GroupID: groupID, MemberID: memberID, MemberEpoch: memberEpoch, RetentionTimeMs: -1,
		Topics: []shard.OffsetCommitTopic{{Topic: topic, Partitions: []shard.OffsetCommitPartition{{Partition: partition, Offset: offset, LeaderEpoch: -1}}}},
	}))
	if err != nil {
		return err
	}
	return r.Err()
}

// Push pushes a topology description for a member at epoch.
func (h *Harness) Push(groupID, memberID string, epoch int32, d *plugin.TopologyDescription) error {
	_, err := Await(h, h.Coordinator.StreamsGroupTopologyDescriptionUpdate(coordinator.TopologyDescriptionUpdateRequest{
		GroupID: groupID, MemberID: memberID, TopologyEpoch: epoch, Description: d,
	}))
	return err
}

// DescribeStreams describes one streams group with its topology-description
// status.
func (h *Harness) DescribeStreams(groupID string, include bool) (coordinator.StreamsGroupDescription, error) {
	rows, err := Await(h, h.Coordinator.DescribeStreamsGroups([]string{groupID}, include))
	if err != nil {
		return coordinator.StreamsGroupDescription{}, err
	}
	return rows[0], rows[0].Err
}

// DeleteGroups deletes groups and returns each group's error (nil = deleted).
func (h *Harness) DeleteGroups(groupIDs ...string) ([]shard.DeleteGroupResult, error) {
	return Await(h, h.Coordinator.DeleteGroups(groupIDs))
}

// Metric returns the value of a metric of the coordinator's group by name and
// tags ("key", "value" pairs), measured now.
func (h *Harness) Metric(name string, tags ...string) (float64, bool) {
	want, err := metrics.NewMetricName(name, coordinator.MetricsGroup, "", tags...)
	if err != nil {
		return 0, false
	}
	for _, s := range h.Coordinator.MetricsSnapshot() {
		if s.Name.Name == want.Name && s.Name.Group == want.Group && reflect.DeepEqual(s.Name.Tags, want.Tags) {
			return s.Value, true
		}
	}
	return 0, false
}

// CheckReplay rebuilds every hosted shard from its committed log and
// compares it with the committed state the coordinator serves
// (docs/invariants.md, invariant 7). It returns nil when they are identical.
func (h *Harness) CheckReplay() error {
	c := h.Coordinator
	for _, p := range c.HostedPartitions() {
		live, err := c.CommittedShard(p)
		if err != nil {
			continue // loading: nothing to compare yet
		}
		// The log's snapshot plus its committed tail: the whole log when it
		// has no snapshot yet.
		rebuilt, err := c.Logs().Partition(p).Restore(live.Config(), func(s *shard.Shard) error {
			return s.SetTopicImage(live.TopicImage())
		})
		if err != nil {
			return fmt.Errorf("partition %d: replay failed: %w", p, err)
		}
		// The classic rebalances the live shard's load forgot, as Kafka's
		// load does, the replay forgets too (shard/classic_load.go).
		rebuilt.ForgetAsLoaded(live.ForgottenAtLoad())
		if err := DiffSnapshots(live.Snapshot(), rebuilt.Snapshot()); err != nil {
			return fmt.Errorf("partition %d: live state and replayed log differ: %w", p, err)
		}
	}
	return nil
}

// DiffSnapshots returns nil for equal snapshots, or an error naming the
// first difference.
func DiffSnapshots(a, b shard.Snapshot) error { return a.Diff(b) }
