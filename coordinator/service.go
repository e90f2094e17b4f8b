package coordinator

import (
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/google/btree"

	"github.com/coordsim/coordsim/internal/mutant"
	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/plugin"
	"github.com/coordsim/coordsim/shard"
)

// Clock is the one thing the coordinator asks of time. benbjohnson/clock's
// clock.Clock satisfies it for live use; the simulator supplies virtual time.
type Clock interface {
	Now() time.Time
}

// Hooks let a driver inject faults and observe the coordinator. Every hook
// is optional and is called on the coordinator's goroutine.
type Hooks struct {
	// BeforeAppend may fail an append (a full disk, a lost leader). A non-nil
	// error rolls the shard back to its committed state and fails every
	// uncommitted write of that partition. Kafka errors are translated as
	// Kafka's handleOperationException does.
	BeforeAppend func(partition int32, records []shard.Record) error
	// CommitDelay overrides Config.CommitDelay per append.
	CommitDelay func(partition int32) time.Duration
	// AfterReplay sees every record replayed into a hosted shard.
	AfterReplay func(partition int32, offset int64, r shard.Record)
	// OnCommit sees the records a commit made committed (from offset
	// first), before the log may fold them into its snapshot. It must not
	// modify them; the simulator's reference model reads them.
	OnCommit func(partition int32, first int64, records []shard.Record)
	// OnTopologyEvent sees the KIP-1331 engine's notable moments.
	OnTopologyEvent func(TopologyEvent)
	// OnWrite sees every write that has records, before its append: the
	// operation's name (Kafka's, e.g. "expire-group-metadata",
	// "clear-stored-topology-epoch-batch"), the latest state the operation
	// ran against, and its records. It must not modify the shard; the
	// simulator's invariant checker reads it.
	OnWrite func(partition int32, op string, latest *shard.Shard, records []shard.Record)

	// beforeSolicit and beforeCleanupRead let tests inject synchronous
	// failures into the KIP-1331 paths.
	beforeSolicit     func()
	beforeCleanupRead func()
}

// Options are everything New needs besides the configuration.
type Options struct {
	// BrokerID names the broker in logs and metrics.
	BrokerID int32
	// Clock is required.
	Clock Clock
	// Logs are the shared partition logs; nil creates private ones.
	Logs *Logs
	// Logger receives the coordinator's logs; nil discards them.
	Logger *slog.Logger
	Hooks  Hooks

	// TopologyPlugin is the KIP-1331 topology-description store
	// (group.streams.topology.description.plugin.class); nil disables the
	// feature: no solicitation, no cleanup cycle, describe says NOT_STORED.
	TopologyPlugin plugin.Store
	// PluginExecutor runs plugin calls; nil runs them inline.
	PluginExecutor PluginExecutor
	// Rand is the seeded source of the back-off jitter; nil seeds one from
	// the broker id. Never the global generator.
	Rand *rand.Rand

	// Mutants are deliberate bugs for the simulator's own tests (package
	// internal/mutant); the zero value changes nothing.
	Mutants mutant.Set

	// VerifyDueIndex checks the index of the shards' earliest deadlines
	// against a scan of every shard each time it is read, and panics on a
	// difference (due.go). Slow: for tests.
	VerifyDueIndex bool
}

type shardStatus uint8

const (
	statusLoading shardStatus = iota
	statusActive
	statusFailed
)

// pendingRecord is an appended record the committed replica has not replayed.
type pendingRecord struct {
	offset int64
	r      shard.Record
}

type waiter struct {
	end  int64
	done completer
}

type pendingCommit struct {
	atMs int64
	end  int64
}

// hosted is one shard this broker leads.
type hosted struct {
	partition int32
	// loadEpoch is the partition epoch this broker loaded the shard at
	// (Kafka's leader epoch of the load): higher than any earlier load's, on
	// any broker. Protocol v3 hands it to the store as the fencing token.
	loadEpoch int32
	status    shardStatus
	loadAtMs  int64
	log       *Log
	// latest receives every record when it is appended; committed is the
	// state at the high watermark that reads see. They are one object until
	// a write has to wait for its commit (a commit delay); then the shard
	// forks once into two replicas, and each record is replayed into the
	// committed replica when the high watermark passes it. Replaying twice
	// costs less than a copy-on-write snapshot per write, which would make
	// every later write copy the btree paths it touches.
	latest    *shard.Shard
	committed *shard.Shard
	forked    bool
	pending   []pendingRecord
	waiters   []waiter
	commits   []pendingCommit
	timers    *TimerQueue[shard.Task]
	// endpointEpochs is each streams group's endpoint information epoch
	// (Kafka's StreamsGroup.endpointInformationEpoch): soft state, never on
	// the log, shard.InitialEndpointInformationEpoch when absent, lost with
	// the hosted shard as Kafka's is on failover. Only groups with a bumped
	// epoch have an entry.
	endpointEpochs map[string]int32
	// shutdownRequests is the soft state of streams groups' application
	// shutdown: the first requester by group (streams_shutdown.go).
	shutdownRequests map[string]string
	// streamsConfigured holds the streams groups' configured topologies
	// (Kafka's StreamsGroup.configuredTopology, soft state that a
	// heartbeat other than a leave sets and a load forgets;
	// shard.StreamsGroupHeartbeatResponse.ConfiguredTopology).
	streamsConfigured map[string]*shard.ConfiguredTopology
	// taskOffsets holds each streams member's last reported task offsets
	// (soft state: shard.TaskOffsetsBook).
	taskOffsets shard.TaskOffsetsBook
	// configuredUndo remembers what writes without records changed in
	// streamsConfigured since the last append: Kafka's configured topology
	// is timeline state, so a read at the committed offset sees it as it
	// was before them (committedConfiguredTopology).
	configuredUndo []configuredUndo
	// classicWaiters are the parked classic JoinGroup and SyncGroup
	// requests by handle, and classicHandles the last handle's counter
	// (classic.go).
	classicWaiters map[uint64]classicWaiter
	classicHandles uint32

	// dueAtMs is the deadline the coordinator's due index holds for this
	// shard, when dueIndexed (due.go).
	dueAtMs    int64
	dueIndexed bool
}

// endpointEpoch is a streams group's endpoint information epoch, Kafka's
// initial one when the hosted shard has none (or h is nil).
func (h *hosted) endpointEpoch(groupID string) int32 {
	if h == nil {
		return shard.InitialEndpointInformationEpoch
	}
	if e, ok := h.endpointEpochs[groupID]; ok {
		return e
	}
	return shard.InitialEndpointInformationEpoch
}

func (h *hosted) setEndpointEpoch(groupID string, epoch int32) {
	if h == nil {
		return
	}
	if epoch == shard.InitialEndpointInformationEpoch {
		delete(h.endpointEpochs, groupID)
		return
	}
	if h.endpointEpochs == nil {
		h.endpointEpochs = map[string]int32{}
	}
	h.endpointEpochs[groupID] = epoch
}

// configuredUndo is one configured topology to restore.
type configuredUndo struct {
	groupID string
	prev    *shard.ConfiguredTopology
}

// setStreamsConfigured keeps a streams group's configured topology after
// a heartbeat (nil: none); wrote says the heartbeat wrote records.
func (h *hosted) setStreamsConfigured(groupID string, configured *shard.ConfiguredTopology, wrote bool) {
	if h == nil {
		return
	}
	if !wrote {
		h.configuredUndo = append(h.configuredUndo, configuredUndo{groupID, h.streamsConfigured[groupID]})
	}
	h.putStreamsConfigured(groupID, configured)
}

// configuredTopology is a streams group's configured topology, nil for
// none (or h nil).
func (h *hosted) configuredTopology(groupID string) *shard.ConfiguredTopology {
	if h == nil {
		return nil
	}
	return h.streamsConfigured[groupID]
}

// committedConfiguredTopology is a streams group's configured topology as
// a read at the committed offset sees it (Kafka's
// TimelineObject.get(committedOffset)): before the writes without records
// since the last append.
func (h *hosted) committedConfiguredTopology(groupID string) *shard.ConfiguredTopology {
	if h == nil {
		return nil
	}
	for _, u := range h.configuredUndo {
		if u.groupID == groupID {
			return u.prev
		}
	}
	return h.streamsConfigured[groupID]
}

func (h *hosted) putStreamsConfigured(groupID string, configured *shard.ConfiguredTopology) {
	if configured == nil {
		delete(h.streamsConfigured, groupID)
		return
	}
	if h.streamsConfigured == nil {
		h.streamsConfigured = map[string]*shard.ConfiguredTopology{}
	}
	h.streamsConfigured[groupID] = configured
}

func (h *hosted) nextDeadline() (int64, bool) {
	switch h.status {
	case statusLoading:
		return h.loadAtMs, true
	case statusFailed:
		return 0, false
	}
	at, ok := h.timers.NextDeadline()
	if len(h.commits) > 0 && (!ok || h.commits[0].atMs < at) {
		at, ok = h.commits[0].atMs, true
	}
	return at, ok
}

// Coordinator is one broker's group coordinator service (Kafka's
// GroupCoordinatorService over its CoordinatorRuntime). It hosts the shards
// this broker leads, routes each group to its shard, runs write operations
// against the latest state and releases their responses at commit, runs
// reads against committed state, and owns the shards' keyed timers.
//
// It is single-threaded: every method must be called from one goroutine (the
// simulator's loop or a live driver's loop).
type Coordinator struct {
	cfg      Config
	shardCfg shard.Config
	brokerID int32
	clock    Clock
	logs     *Logs
	log      *slog.Logger
	hooks    Hooks

	active   bool
	shutDown bool
	shards   map[int32]*hosted // iterate via sortedPartitions
	// image is the topic metadata image every shard gets (SetTopicImage),
	// prepared once; replaced, never written in place.
	image *shard.PreparedTopicImage
	// streamsStandbys is the streams groups' streams.num.standby.replicas
	// group configs (streams_config.go); replaced, never written in place.
	streamsStandbys map[string]int32
	// groupTimeouts is the groups' session timeout and heartbeat interval
	// group configs (group_config.go); replaced, never written in place.
	groupTimeouts map[string]shard.GroupTimeouts

	metrics  *serviceMetrics
	topology *topologyManager
	// brokerTimers holds broker-level timers (the KIP-1331 cleanup cycle),
	// which, unlike shard timers, survive unloads.
	brokerTimers *TimerQueue[brokerTask]
	// due orders the hosted shards by their earliest deadline (due.go);
	// verifyDue is Options.VerifyDueIndex.
	due       *btree.BTreeG[*hosted]
	verifyDue bool
	mutants   mutant.Set
}

type brokerTask uint8

const taskTopologyCleanup brokerTask = 1

// CleanupTimerKey is the broker-level timer of the KIP-1331 cleanup cycle.
const CleanupTimerKey = "streams-topology-description-cleanup"

// maxEventsPerPoll bounds one Poll so a timer that reschedules itself at
// "now" cannot spin for ever.
const maxEventsPerPoll = 1 << 22

// New builds a coordinator. It is inactive until Startup and hosts no shard
// until LoadShard.
func New(cfg Config, opts Options) (*Coordinator, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if opts.Clock == nil {
		return nil, errors.New("coordinator: Options.Clock is required")
	}
	logs := opts.Logs
	if logs == nil {
		var err error
		if logs, err = NewLogs(cfg.NumPartitions); err != nil {
			return nil, err
		}
	}
	if logs.NumPartitions() != cfg.NumPartitions {
		return nil, &ConfigError{Key: "offsets.topic.num.partitions", Value: cfg.NumPartitions,
			Reason: fmt.Sprintf("the shared logs have %d partitions", logs.NumPartitions())}
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	c := &Coordinator{
		cfg: cfg, shardCfg: cfg.shardConfig(), brokerID: opts.BrokerID, clock: opts.Clock,
		logs: logs, log: logger.With("broker", opts.BrokerID), hooks: opts.Hooks,
		shards: map[int32]*hosted{}, brokerTimers: NewTimerQueue[brokerTask](),
	}
	c.due, c.verifyDue = newDueIndex(), opts.VerifyDueIndex
	c.image, _ = shard.PrepareTopicImage(shard.TopicImage{}) // the empty image is valid
	c.shardCfg.TopologyPluginConfigured = opts.TopologyPlugin != nil
	c.shardCfg.Mutants = opts.Mutants
	c.mutants = opts.Mutants
	c.metrics = newServiceMetrics(c)
	c.topology = newTopologyManager(c, opts.TopologyPlugin, opts.PluginExecutor, opts.Rand, cfg.TopologyCleanupProtocol)
	return c, nil
}

// Config returns the coordinator's configuration.
func (c *Coordinator) Config() Config { return c.cfg }

// BrokerID is the broker this coordinator runs on.
func (c *Coordinator) BrokerID() int32 { return c.brokerID }

// Logs returns the partition logs the coordinator writes.
func (c *Coordinator) Logs() *Logs { return c.logs }

func (c *Coordinator) nowMs() int64 { return c.clock.Now().UnixMilli() }

// Startup makes the service active (Kafka's GroupCoordinatorService.startup).
func (c *Coordinator) Startup() error {
	if c.shutDown {
		return kerr.CoordinatorNotAvailable.WithMessage("the coordinator was shut down and cannot restart; build a new one")
	}
	c.active = true
	if c.topology.configured() {
		// Kafka arms the self-rescheduling cleanup task after isActive=true,
		// only when a plugin is configured.
		c.topology.running = true
		c.brokerTimers.Schedule(CleanupTimerKey, c.nowMs()+c.cfg.OffsetsRetentionCheckInterval.Milliseconds(), taskTopologyCleanup)
	}
	return nil
}

// Shutdown stops the cleanup harness (a cycle in flight schedules no further
// plugin call or write), cancels its timer, closes the plugin, then
// deactivates the service and unloads every shard: pending writes fail with
// NOT_COORDINATOR and later calls get COORDINATOR_NOT_AVAILABLE.
func (c *Coordinator) Shutdown() {
	if c.shutDown {
		return
	}
	c.topology.running = false
	c.brokerTimers.Cancel(CleanupTimerKey)
	if c.topology.configured() {
		if err := plugin.SafeClose(c.topology.store); err != nil {
			c.log.Warn("closing the topology description plugin failed", "err", err)
		}
	}
	for _, p := range c.sortedPartitions() {
		c.unload(p)
	}
	c.active, c.shutDown = false, true
}

// IsActive reports whether the service is started and not shut down.
func (c *Coordinator) IsActive() bool { return c.active }

// PartitionFor routes a group id to its __consumer_offsets partition.
func (c *Coordinator) PartitionFor(groupID string) int32 {
	if c.mutants.PlainAbsPartitionFor {
		// Java's Math.abs: Integer.MIN_VALUE stays negative.
		h := JavaStringHashCode(groupID)
		if h < 0 {
			h = -h
		}
		return h % c.cfg.NumPartitions
	}
	return PartitionFor(groupID, c.cfg.NumPartitions)
}

// sortedPartitions lists the hosted partitions in order (nil when none):
// what iterates c.shards must not depend on map order.
func (c *Coordinator) sortedPartitions() []int32 { return slices.Sorted(maps.Keys(c.shards)) }

// HostedPartitions lists the partitions this broker hosts (loading or active).
func (c *Coordinator) HostedPartitions() []int32 { return c.sortedPartitions() }

// LoadEpoch is the partition epoch at which this broker loaded partition p;
// ok is false when p is not hosted. It is the fencing token of p's plugin
// calls under protocol v3.
func (c *Coordinator) LoadEpoch(p int32) (epoch int32, ok bool) {
	h := c.shards[p]
	if h == nil {
		return 0, false
	}
	return h.loadEpoch, true
}

// IsHosting reports whether partition p is hosted and active.
func (c *Coordinator) IsHosting(p int32) bool {
	h := c.shards[p]
	return h != nil && h.status == statusActive
}

// SetTopics installs the topic metadata image (topic → partition count),
// without racks, on every hosted shard and on shards loaded later. A nil or
// empty map is the empty image: no topic exists (see shard.Shard.SetTopics).
func (c *Coordinator) SetTopics(topics map[string]int32) error {
	return c.SetTopicImage(shard.TopicImage{Partitions: topics})
}

// SetTopicImage installs the topic metadata image, partition racks included
// (shard.TopicImage), on every hosted shard and on shards loaded later. Bad
// input changes nothing.
func (c *Coordinator) SetTopicImage(img shard.TopicImage) error {
	// Prepared from the image the shards hold, so they re-derive only the
	// groups on the topics that changed.
	prepared, err := shard.PrepareTopicImageFrom(c.image, img)
	if err != nil {
		return err // validated before anything changes
	}
	c.SetPreparedTopicImage(prepared)
	return nil
}

// SetPreparedTopicImage is SetTopicImage with an image already prepared
// (shard.PrepareTopicImage), which many coordinators may share: the
// simulator prepares each image once for all its brokers.
func (c *Coordinator) SetPreparedTopicImage(prepared *shard.PreparedTopicImage) {
	c.image = prepared
	for _, p := range c.sortedPartitions() {
		h := c.shards[p]
		if h.status != statusActive {
			continue
		}
		h.latest.SetPreparedTopicImage(c.image)
		if h.committed != h.latest {
			h.committed.SetPreparedTopicImage(c.image)
		}
	}
}

// LoadShard starts hosting partition p at the next partition epoch (see
// LoadEpoch): it replays the partition's committed log (after LoadDelay) and
// arms the shard's timers. Meanwhile operations on p get
// COORDINATOR_LOAD_IN_PROGRESS.
func (c *Coordinator) LoadShard(p int32) error {
	if !c.active {
		return kerr.CoordinatorNotAvailable.WithMessage("the coordinator is not active")
	}
	l := c.logs.Partition(p)
	if l == nil {
		return kerr.InvalidRequest.WithMessage("partition %d is out of range [0, %d)", p, c.cfg.NumPartitions)
	}
	if _, ok := c.shards[p]; ok {
		return kerr.InvalidRequest.WithMessage("partition %d is already hosted", p)
	}
	// Every load is a new partition epoch, as a leader change in Kafka is:
	// the shared log carries the counter, so it grows across brokers.
	l.loadEpoch++
	h := &hosted{partition: p, loadEpoch: l.loadEpoch, status: statusLoading, loadAtMs: c.nowMs() + c.cfg.LoadDelay.Milliseconds(), log: l}
	c.shards[p] = h
	c.reindexDue(h)
	if c.cfg.LoadDelay == 0 {
		c.finishLoad(h)
	}
	return nil
}

func (c *Coordinator) finishLoad(h *hosted) {
	// A new leader starts from the committed prefix; an uncommitted tail
	// left by the previous leader is gone, as after a leader change.
	h.log.truncate()
	s, err := h.log.Restore(c.shardCfg, c.prepareShard)
	if err != nil {
		h.status = statusFailed
		c.reindexDue(h)
		c.log.Error("failed to load shard", "partition", h.partition, "err", err)
		return
	}
	if c.snapshots() && h.log.snapshotDue() {
		// The loaded shard is the log replayed and nothing else yet: its
		// copy is the snapshot for free.
		h.log.setSnapshot(s.Clone())
	}
	h.latest, h.committed = s, s
	h.timers = NewTimerQueue[shard.Task]()
	c.watchTimers(h)
	h.status = statusActive
	c.reindexDue(h)
	c.applyTimers(h, s.OnLoaded(c.nowMs()))
	c.log.Debug("loaded shard", "partition", h.partition, "records", h.log.HighWatermark())
}

// UnloadShard stops hosting partition p: its state and timers are dropped,
// its uncommitted writes fail with NOT_COORDINATOR and the uncommitted tail
// of its log is truncated. Broker-level state is untouched.
func (c *Coordinator) UnloadShard(p int32) error {
	if _, ok := c.shards[p]; !ok {
		return kerr.NotCoordinator.WithMessage("partition %d is not hosted by broker %d", p, c.brokerID)
	}
	c.unload(p)
	return nil
}

func (c *Coordinator) unload(p int32) {
	h := c.shards[p]
	delete(c.shards, p)
	c.reindexDue(h)
	err := kerr.NotCoordinator.WithMessage("partition %d was unloaded", p)
	h.log.truncate()
	c.failWaiters(h, err)
	h.failClassicWaiters(err)
	h.status = statusFailed
}

// shardFor returns the active shard hosting p, or Kafka's error for why not.
func (c *Coordinator) shardFor(p int32) (*hosted, error) {
	if !c.active {
		return nil, kerr.CoordinatorNotAvailable.WithMessage("the coordinator is not active")
	}
	h := c.shards[p]
	switch {
	case h == nil:
		return nil, kerr.NotCoordinator.WithMessage("broker %d does not host partition %d", c.brokerID, p)
	case h.status == statusLoading:
		return nil, kerr.CoordinatorLoadInProgress.WithMessage("partition %d is loading", p)
	case h.status == statusFailed:
		return nil, kerr.NotCoordinator.WithMessage("partition %d failed to load", p)
	}
	return h, nil
}

// write runs op against the latest state of partition p, appends and
// replays its records, and completes the future at commit (Kafka's
// scheduleWriteOperation).
func write[R any](c *Coordinator, name string, p int32, op func(s *shard.Shard, nowMs int64) (shard.Result[R], error)) *Future[R] {
	var zero R
	h, err := c.shardFor(p)
	if err != nil {
		return completed(zero, err)
	}
	// An operation that fails keeps what writes without records changed of
	// the soft state before it (the configured topologies): Kafka's runtime
	// completes a write that throws exceptionally and reverts its timeline
	// only when an append fails.
	res, err := op(h.latest, c.nowMs())
	if err != nil {
		if len(res.Records) > 0 {
			// A heartbeat that failed after an online upgrade began: its
			// error is answered now, the classic group's parked requests
			// the upgrade answered once the state clearing them commits.
			cs := res.Completions
			c.appendRecords(h, name, res.Records, res.Timers, doneFunc(func(err error) {
				if err == nil {
					h.deliverCompletions(cs)
				}
			}))
		}
		return completed(zero, err)
	}
	f := &Future[R]{staged: res.Response}
	if cs := res.Completions; len(cs) > 0 {
		// An online upgrade answers the classic group's parked requests
		// once its records are committed.
		c.appendRecords(h, name, res.Records, res.Timers, doneFunc(func(err error) {
			f.settle(err)
			if err == nil {
				h.deliverCompletions(cs)
			}
		}))
		return f
	}
	c.appendRecords(h, name, res.Records, res.Timers, f)
	return f
}

// read runs fn against the committed state of the shard hosting p (Kafka's
// scheduleReadOperation).
func read[R any](c *Coordinator, p int32, fn func(s *shard.Shard) (R, error)) (R, error) {
	return readFrom(c, p, c.mutants.ReadsSeeUncommitted, fn)
}

// readDescribe is read for the describe APIs (DescribeGroups,
// ConsumerGroupDescribe, ShareGroupDescribe, StreamsGroupDescribe): its own
// path only so a mutant can break describes alone.
func readDescribe[R any](c *Coordinator, p int32, fn func(s *shard.Shard) (R, error)) (R, error) {
	return readFrom(c, p, c.mutants.ReadsSeeUncommitted || c.mutants.DescribeSeesUncommitted, fn)
}

func readFrom[R any](c *Coordinator, p int32, latest bool, fn func(s *shard.Shard) (R, error)) (R, error) {
	h, err := c.shardFor(p)
	if err != nil {
		var zero R
		return zero, err
	}
	if latest {
		return fn(h.latest)
	}
	return fn(h.committed)
}

// PartitionResult is one hosted partition's answer to a read-all operation.
type PartitionResult[R any] struct {
	Partition int32
	Value     R
	Err       error
}

// ReadAll runs fn against the committed state of every hosted shard, in
// partition order; a shard that is not active answers with its error
// (Kafka's scheduleReadAllOperation).
func ReadAll[R any](c *Coordinator, fn func(s *shard.Shard) (R, error)) []PartitionResult[R] {
	if !c.active {
		return nil
	}
	ps := c.sortedPartitions()
	out := make([]PartitionResult[R], 0, len(ps))
	for _, p := range ps {
		r := PartitionResult[R]{Partition: p}
		var h *hosted
		if h, r.Err = c.shardFor(p); r.Err == nil {
			r.Value, r.Err = fn(h.committed)
		}
		out = append(out, r)
	}
	return out
}

// appendRecords is the write path: append, replay, arm timers, and wait for
// the high watermark. A write with no records still waits for the writes
// before it, so a response never overtakes an uncommitted earlier write.
func (c *Coordinator) appendRecords(h *hosted, name string, records []shard.Record, timers []shard.TimerOp, done completer) {
	if len(records) == 0 {
		c.applyTimers(h, timers)
		c.await(h, h.log.EndOffset(), done)
		return
	}
	h.configuredUndo = nil // a new last written offset to revert to
	if c.hooks.OnWrite != nil {
		c.hooks.OnWrite(h.partition, name, h.latest, records)
	}
	if c.hooks.BeforeAppend != nil {
		if err := c.hooks.BeforeAppend(h.partition, records); err != nil {
			err = translateAppendError(err)
			c.log.Warn("append failed; rolling back to the committed state", "op", name, "partition", h.partition, "err", err)
			c.rollback(h, err)
			done.settle(err)
			return
		}
	}
	delay := c.cfg.CommitDelay
	if c.hooks.CommitDelay != nil {
		delay = max(c.hooks.CommitDelay(h.partition), 0)
	}
	if delay > 0 && !h.forked {
		h.committed, h.forked = h.latest.Clone(), true
	}
	first, end := h.log.append(records)
	for i, r := range records {
		if err := h.latest.Replay(first+int64(i), r); err != nil {
			// The shard produced a record it cannot replay: a coordsim bug.
			panic(fmt.Sprintf("coordinator: %s produced an unreplayable record: %v", name, err))
		}
		if h.forked {
			h.pending = append(h.pending, pendingRecord{offset: first + int64(i), r: records[i]})
		}
		if c.hooks.AfterReplay != nil {
			c.hooks.AfterReplay(h.partition, first+int64(i), r)
		}
		// Record by record: a write that empties the group and fills it
		// again (a static member replacing itself) clears the request.
		c.forgetReplayedEmptyShutdownRequests(h, records[i:i+1])
	}
	h.taskOffsets.ForgetReplayed(records)
	c.applyTimers(h, timers)
	if delay == 0 {
		// Committing now releases every earlier waiter first, then this write.
		c.commit(h, end)
		done.settle(nil)
		return
	}
	c.await(h, end, done)
	h.commits = append(h.commits, pendingCommit{atMs: c.nowMs() + delay.Milliseconds(), end: end})
	slices.SortStableFunc(h.commits, func(a, b pendingCommit) int { return int(a.atMs - b.atMs) })
	c.reindexDue(h)
}

func (c *Coordinator) await(h *hosted, end int64, done completer) {
	if end <= h.log.HighWatermark() {
		done.settle(nil)
		return
	}
	h.waiters = append(h.waiters, waiter{end: end, done: done})
}

// commit advances the high watermark to end, moves the committed view
// forward and releases the responses waiting for it.
func (c *Coordinator) commit(h *hosted, end int64) {
	old := h.log.HighWatermark()
	h.log.commit(end)
	hw := h.log.HighWatermark()
	if c.hooks.OnCommit != nil && hw > old {
		start := h.log.StartOffset()
		c.hooks.OnCommit(h.partition, old, h.log.Committed()[old-start:hw-start])
	}
	if h.forked {
		i := 0
		for ; i < len(h.pending) && h.pending[i].offset < hw; i++ {
			if err := h.committed.Replay(h.pending[i].offset, h.pending[i].r); err != nil {
				panic(fmt.Sprintf("coordinator: committed replica refused record %d: %v", h.pending[i].offset, err))
			}
		}
		clear(h.pending[:i])
		h.pending = append(h.pending[:0], h.pending[i:]...)
	}
	c.maybeSnapshot(h.log)
	n := 0
	for n < len(h.waiters) && h.waiters[n].end <= hw {
		n++
	}
	if n == 0 {
		return
	}
	ready := slices.Clone(h.waiters[:n])
	h.waiters = append(h.waiters[:0], h.waiters[n:]...) // keep the capacity
	for _, w := range ready {
		w.done.settle(nil)
	}
}

// rollback returns a shard to its committed state after a failed append:
// the uncommitted tail is truncated and every write waiting on it fails.
func (c *Coordinator) rollback(h *hosted, err error) {
	h.log.truncate()
	if h.forked {
		h.latest = h.committed.Clone()
	}
	h.pending, h.commits = nil, nil
	c.reindexDue(h)
	c.forgetEmptyShutdownRequests(h)
	c.reconcileSessionTimers(h)
	c.failWaiters(h, err)
}

// reconcileSessionTimers makes the timers the group state decides
// (shard.Task.FromState: sessions, rebalance timeouts, a classic group's
// heartbeats, join and sync) match the rolled-back state: a rolled-back
// leave had cancelled a timer the restored member needs, a rolled-back join
// had armed one for a member that is gone, and a rolled-back rebalance had
// re-armed a classic group's join or sync timer for a phase that is undone.
// An existing timer keeps its deadline unless it would run another task or
// fence another epoch (a sync timer of a generation the rollback undid, a
// rebalance timer of an undone member epoch, which would fence no one).
func (c *Coordinator) reconcileSessionTimers(h *hosted) {
	want := h.latest.SessionTimers(c.nowMs())
	for _, key := range h.timers.Keys() {
		t, _ := h.timers.Payload(key)
		if _, ok := want[key]; !ok && t.FromState() {
			h.timers.Cancel(key)
		}
	}
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	slices.Sort(keys) // scheduling order decides ties: keep it deterministic
	for _, k := range keys {
		op := want[k]
		if t, ok := h.timers.Payload(op.Key); ok && (t.Kind != op.Task.Kind || t.MemberEpoch != op.Task.MemberEpoch) {
			h.timers.Schedule(op.Key, op.DeadlineMs, op.Task)
			continue
		}
		h.timers.ScheduleIfAbsent(op.Key, op.DeadlineMs, op.Task)
	}
}

func (c *Coordinator) failWaiters(h *hosted, err error) {
	ws := h.waiters
	h.waiters = nil
	for _, w := range ws {
		w.done.settle(err)
	}
}

func (c *Coordinator) applyTimers(h *hosted, ops []shard.TimerOp) {
	for _, op := range ops {
		switch {
		case op.Cancel:
			h.timers.Cancel(op.Key)
		case op.IfAbsent:
			h.timers.ScheduleIfAbsent(op.Key, op.DeadlineMs, op.Task)
		default:
			h.timers.Schedule(op.Key, op.DeadlineMs, op.Task)
		}
	}
}

// timerScheduled reports whether the shard hosting p has a timer of key.
func (c *Coordinator) timerScheduled(p int32, key string) bool {
	h, err := c.shardFor(p)
	return err == nil && h.timers.Has(key)
}

// translateAppendError is Kafka's handleOperationException for append
// failures (docs/kip1331.md §4.2).
func translateAppendError(err error) error {
	var to *kerr.Error
	switch kerr.As(err) {
	case nil:
		to = kerr.UnknownServerError
	case kerr.UnknownTopicOrPartition, kerr.NotEnoughReplicas, kerr.RequestTimedOut:
		to = kerr.CoordinatorNotAvailable
	case kerr.NotLeaderOrFollower, kerr.KafkaStorageError:
		to = kerr.NotCoordinator
	case kerr.MessageTooLarge, kerr.RecordListTooLarge:
		to = kerr.UnknownServerError
	case kerr.NetworkException:
		to = kerr.CoordinatorLoadInProgress
	default:
		return err
	}
	return to.WithMessage("append failed: %v", err)
}

// NextDeadline is the earliest moment at which Poll has work: a timer, a
// pending commit or a shard load. ok is false when there is none.
func (c *Coordinator) NextDeadline() (time.Time, bool) {
	best, ok := c.brokerTimers.NextDeadline()
	if h := c.earliestDue(); h != nil && (!ok || h.dueAtMs < best) {
		best, ok = h.dueAtMs, true
	}
	if !ok {
		return time.Time{}, false
	}
	return time.UnixMilli(best), true
}

// Poll runs everything due at the clock's now, earliest first: shard loads,
// commits, then timers, ties going to the lower partition; broker timers run
// after shard work due at the same instant. Work a due event schedules for
// now runs in the same Poll. It returns the number of events run.
func (c *Coordinator) Poll() int {
	now := c.nowMs()
	n := 0
	for ; n < maxEventsPerPoll; n++ {
		h, hAt := c.nextDue(now)
		if h != nil {
			if at, ok := c.brokerTimers.NextDeadline(); ok && at < hAt {
				h = nil // an earlier broker timer goes first
			}
		}
		if h != nil {
			c.runDue(h, now)
			continue
		}
		if _, task, ok := c.brokerTimers.PopDue(now); ok {
			c.runBrokerTask(task, now)
			continue
		}
		return n
	}
	panic(fmt.Sprintf("coordinator: more than %d events due at %d ms; a timer reschedules itself at now", maxEventsPerPoll, now))
}

// nextDue returns the hosted shard with the earliest due work and that
// work's deadline, or nil.
func (c *Coordinator) nextDue(now int64) (*hosted, int64) {
	h := c.earliestDue()
	if h == nil || h.dueAtMs > now {
		return nil, 0
	}
	return h, h.dueAtMs
}

func (c *Coordinator) runBrokerTask(task brokerTask, now int64) {
	if task == taskTopologyCleanup {
		// Self-rescheduling first, so a panicking cycle still re-arms.
		c.brokerTimers.Schedule(CleanupTimerKey, now+c.cfg.OffsetsRetentionCheckInterval.Milliseconds(), task)
		c.RunTopologyCleanupCycle()
	}
}

// BrokerTimerKeys lists the broker-level timer keys (the cleanup cycle's).
func (c *Coordinator) BrokerTimerKeys() []string { return c.brokerTimers.Keys() }

func (c *Coordinator) runDue(h *hosted, now int64) {
	if h.status == statusLoading {
		c.finishLoad(h)
		return
	}
	at, _ := h.nextDeadline()
	if len(h.commits) > 0 && h.commits[0].atMs == at {
		pc := h.commits[0]
		h.commits = h.commits[1:]
		c.reindexDue(h)
		c.commit(h, pc.end)
		return
	}
	_, task, ok := h.timers.PopDue(now)
	if !ok {
		return
	}
	c.runTimer(h, now, task)
}

func (c *Coordinator) runTimer(h *hosted, now int64, task shard.Task) {
	if task.Kind == shard.TaskStreamsInitialRebalance {
		task.StreamsConfigured = h.configuredTopology(task.GroupID)
		task.StreamsTaskOffsets = h.taskOffsets.Group(task.GroupID)
	}
	res := h.latest.RunTimer(now, task)
	if task.Kind == shard.TaskSweep {
		c.metrics.recordSweep(now, h.partition, res.Records)
	}
	p := h.partition
	name := "session-timeout"
	switch task.Kind {
	case shard.TaskSweep:
		name = shard.SweepTimerKey // Kafka's "expire-group-metadata"
	case shard.TaskRebalanceTimeout:
		name = "rebalance-timeout"
	case shard.TaskClassicJoin, shard.TaskClassicInitialJoin, shard.TaskClassicSync, shard.TaskClassicHeartbeat,
		shard.TaskClassicMemberJoin, shard.TaskClassicMemberSync:
		name = task.Key()
	}
	c.appendRecords(h, name, res.Records, res.Timers, doneFunc(func(err error) {
		if err == nil {
			h.deliverCompletions(res.Completions)
			return
		}
		// Kafka retries a failed timer operation after its retry backoff:
		// the sweep's is the check interval, other timers' 500 ms.
		h2 := c.shards[p]
		if h2 != h || h.status != statusActive {
			return
		}
		backoff, key := int64(500), task.Key()
		if task.Kind == shard.TaskSweep {
			backoff = c.shardCfg.OffsetsRetentionCheckIntervalMs
		}
		c.log.Warn("timer operation failed; retrying", "partition", p, "key", key, "err", err)
		h.timers.Schedule(key, c.nowMs()+backoff, task)
	}))
}

// TimerKeys lists partition p's scheduled timer keys, sorted (for tests and
// inspection).
func (c *Coordinator) TimerKeys(p int32) []string {
	h := c.shards[p]
	if h == nil || h.timers == nil {
		return nil
	}
	return h.timers.Keys()
}

// TimerDeadline returns when partition p's timer key fires.
func (c *Coordinator) TimerDeadline(p int32, key string) (time.Time, bool) {
	h := c.shards[p]
	if h == nil || h.timers == nil {
		return time.Time{}, false
	}
	ms, ok := h.timers.Deadline(key)
	return time.UnixMilli(ms), ok
}

// ReadShard runs fn against partition p's committed state without copying
// it: the cheap way to inspect a shard. fn must not modify or retain s.
func (c *Coordinator) ReadShard(p int32, fn func(s *shard.Shard)) error {
	h, err := c.shardFor(p)
	if err != nil {
		return err
	}
	fn(h.committed)
	return nil
}

// CommittedShard returns a copy-on-write snapshot of partition p's committed
// state, for inspection. Changing it changes nothing in the coordinator. It
// makes later writes to p copy what they touch once; prefer ReadShard for
// frequent inspection.
func (c *Coordinator) CommittedShard(p int32) (*shard.Shard, error) {
	h, err := c.shardFor(p)
	if err != nil {
		return nil, err
	}
	return h.committed.Clone(), nil
}

// LatestShard is CommittedShard for the latest (uncommitted) state.
func (c *Coordinator) LatestShard(p int32) (*shard.Shard, error) {
	h, err := c.shardFor(p)
	if err != nil {
		return nil, err
	}
	return h.latest.Clone(), nil
}
