package wire

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/coordsim/coordsim/assignor"
	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/coordinator/live"
	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/plugin"
	"github.com/coordsim/coordsim/shard"
	"github.com/coordsim/coordsim/share"
	"github.com/coordsim/coordsim/sharebroker"
	"github.com/coordsim/coordsim/txn"
	"github.com/coordsim/coordsim/txn/txnlive"
)

// Defaults, Kafka's where the setting is Kafka's.
const (
	// DefaultMaxRequestBytes is socket.request.max.bytes (100 MiB).
	DefaultMaxRequestBytes = 100 * 1024 * 1024
	// DefaultIdleTimeout is connections.max.idle.ms (10 minutes).
	DefaultIdleTimeout = 10 * time.Minute
	// DefaultFrameReadTimeout bounds how long the rest of a frame may take
	// once its first byte arrived. Not a Kafka key: Kafka relies on the idle
	// timeout alone; a shorter bound frees a connection stuck mid-frame.
	DefaultFrameReadTimeout = 30 * time.Second
	// DefaultWriteTimeout bounds writing one response. Not a Kafka key.
	DefaultWriteTimeout = 30 * time.Second
	// DefaultNumPartitions is num.partitions, the partition count of an
	// auto-created topic or of CreateTopics with -1.
	DefaultNumPartitions = 1
	// maxConnsPerBroker bounds the open connections of one listener
	// (Kafka's max.connections is unbounded by default; a limit on
	// everything).
	maxConnsPerBroker = 4096
	// maxTopicPartitions bounds one topic's partition count.
	maxTopicPartitions = 10000
	// DefaultRetentionBytes is each data partition's log.retention.bytes
	// here (64 MiB): past it the oldest batches go and the log start
	// offset advances. Kafka's default is -1 (unbounded, on disk); an
	// in-memory log needs a bound.
	DefaultRetentionBytes = 64 << 20
)

// Config configures a Cluster. Start with DefaultConfig.
type Config struct {
	// Brokers is the number of brokers (default 3), node ids 0..Brokers-1.
	Brokers int
	// BrokerRacks is each broker's broker.rack, in node order: empty (the
	// default, as Kafka's null broker.rack) for a cluster without racks,
	// else exactly one per broker, each 1 to shard.RackIDMaxBytes bytes of
	// UTF-8. Metadata reports them, and the coordinators' topic image gives
	// each partition the racks of its replicas, as Kafka's
	// SubscribedTopicDescriberImpl.racksForPartition does, so the range
	// assignor places partitions on members in the same rack.
	BrokerRacks []string
	// Listen is the host:port of broker 0; broker i listens on port+i, or
	// on an ephemeral port each when the port is 0. Loopback by default:
	// the endpoint has no authentication.
	Listen string
	// Coordinator is every broker's group-coordinator configuration;
	// NumPartitions is the __consumer_offsets partition count (50).
	Coordinator coordinator.Config
	// Transactions is the transaction coordinator's configuration
	// (transaction.state.log.num.partitions, transaction.max.timeout.ms,
	// the timed-out transaction sweep's interval).
	Transactions txn.Config
	// TopologyPlugin is the KIP-1331 topology-description store, shared by
	// the brokers; nil disables the feature. The cluster closes it once: in
	// Close, after every coordinator has shut down, or in a Start that fails.
	TopologyPlugin plugin.Store
	// MaxRequestBytes is socket.request.max.bytes.
	MaxRequestBytes int32
	// IdleTimeout is connections.max.idle.ms.
	IdleTimeout time.Duration
	// FrameReadTimeout bounds the rest of a frame once it has started.
	FrameReadTimeout time.Duration
	// WriteTimeout bounds writing one response.
	WriteTimeout time.Duration
	// FetchWaitMax bounds how long one Fetch waits for data, whatever its
	// MaxWaitMillis asks (default 30 s). Not a Kafka key: a bound on
	// everything.
	FetchWaitMax time.Duration
	// Share is the share-group broker side (sharebroker): session limit,
	// share-partition defaults (lock duration, delivery limit, reset).
	// Its share.auto.offset.reset is Kafka's default, latest
	// (GroupConfig.SHARE_AUTO_OFFSET_RESET_DEFAULT): a share group starts
	// at the end of each partition and skips what was produced before it.
	// A group reads from the start when its group config says so
	// (IncrementalAlterConfigs on the GROUP resource,
	// share.auto.offset.reset=earliest); SetShareAutoOffsetReset changes
	// the endpoint's default (`coordsim serve --share-auto-offset-reset`).
	Share sharebroker.Config
	// RetentionBytes is log.retention.bytes for every data partition
	// (default DefaultRetentionBytes; -1 keeps everything, as Kafka's
	// default). Past it the oldest record batches are dropped, never the
	// last one, and the log start offset advances: Fetch below it answers
	// OFFSET_OUT_OF_RANGE, ListOffsets earliest answers it, and share
	// groups archive what it passes.
	RetentionBytes int64
	// AutoCreateTopics is auto.create.topics.enable (default true).
	AutoCreateTopics bool
	// NumPartitions is num.partitions.
	NumPartitions int32
	// ClusterID is reported in Metadata.
	ClusterID string
	// Logger receives the endpoint's and coordinators' logs; nil discards.
	Logger *slog.Logger
	// RetentionMs is log.retention.ms for every data topic without its own
	// retention.ms (default Kafka's 7 days; -1 keeps everything): a batch
	// whose max timestamp is older goes at the next retention pass, every
	// second on Clock.
	RetentionMs int64
	// MaxDataBytes caps the record bytes all data partitions hold together
	// (default DefaultMaxDataBytes, a quarter of the machine's memory; -1
	// is no cap): past it the batches appended earliest go first, whatever
	// their partition, and the log start offsets advance, as retention
	// does. Not a Kafka key: the data plane lives in memory.
	MaxDataBytes int64
	// ProducerIDExpiration is producer.id.expiration.ms (default one day,
	// Kafka's): a producer's idempotence state on a partition goes this
	// long after its last batch there, checked every ten minutes.
	ProducerIDExpiration time.Duration
	// Clock is the data plane's clock, read for its time-based rules
	// (producer id expiration); nil is time.Now. Tests set a fake one.
	Clock func() time.Time
}

// DefaultConfig is three brokers on ephemeral loopback ports with Kafka's
// defaults.
func DefaultConfig() Config {
	return Config{
		Brokers:              3,
		Listen:               "127.0.0.1:0",
		Coordinator:          coordinator.DefaultConfig(),
		Transactions:         txn.DefaultConfig(),
		MaxRequestBytes:      DefaultMaxRequestBytes,
		IdleTimeout:          DefaultIdleTimeout,
		FrameReadTimeout:     DefaultFrameReadTimeout,
		WriteTimeout:         DefaultWriteTimeout,
		FetchWaitMax:         30 * time.Second,
		RetentionBytes:       DefaultRetentionBytes,
		ProducerIDExpiration: defaultProducerIDExpirationMs * time.Millisecond,
		RetentionMs:          defaultRetentionMs,
		MaxDataBytes:         DefaultMaxDataBytes(),
		AutoCreateTopics:     true,
		NumPartitions:        DefaultNumPartitions,
		Share:                sharebroker.Config{Defaults: share.Config{AutoOffsetReset: share.ResetLatest}},
		ClusterID:            "coordsim",
	}
}

// Validate checks c as Start does, so a caller can refuse a bad
// configuration before it opens anything. BrokerRacks faults are
// INVALID_CONFIG (kerr).
func (c Config) Validate() error {
	switch {
	case c.Brokers < 1 || c.Brokers > 64:
		return fmt.Errorf("wire: brokers %d is outside [1, 64]", c.Brokers)
	case c.MaxRequestBytes < 1024:
		return fmt.Errorf("wire: socket.request.max.bytes %d is below 1024", c.MaxRequestBytes)
	case c.IdleTimeout <= 0 || c.FrameReadTimeout <= 0 || c.WriteTimeout <= 0 || c.FetchWaitMax < 0:
		return errors.New("wire: timeouts must be positive")
	case c.ProducerIDExpiration < time.Millisecond:
		return fmt.Errorf("wire: producer.id.expiration.ms %d is below 1", c.ProducerIDExpiration.Milliseconds())
	case c.RetentionMs < -1:
		return fmt.Errorf("wire: log.retention.ms %d is below -1", c.RetentionMs)
	case c.MaxDataBytes == 0 || c.MaxDataBytes < -1:
		return fmt.Errorf("wire: the data cap %d must be positive, or -1 for none", c.MaxDataBytes)
	case c.RetentionBytes == 0 || c.RetentionBytes < -1:
		return fmt.Errorf("wire: log.retention.bytes %d must be positive, or -1 for no limit", c.RetentionBytes)
	case c.NumPartitions < 1 || c.NumPartitions > maxTopicPartitions:
		return fmt.Errorf("wire: num.partitions %d is outside [1, %d]", c.NumPartitions, maxTopicPartitions)
	}
	if err := c.Transactions.Validate(); err != nil {
		return fmt.Errorf("wire: %w", err)
	}
	if err := c.validateBrokerRacks(); err != nil {
		return err
	}
	if _, _, err := net.SplitHostPort(c.Listen); err != nil {
		return fmt.Errorf("wire: listen address %q: %w", c.Listen, err)
	}
	return c.Coordinator.Validate()
}

// validateBrokerRacks checks BrokerRacks: none, or one valid rack per
// broker. A fault is INVALID_CONFIG (Kafka refuses a bad broker config at
// startup).
func (c Config) validateBrokerRacks() error {
	if len(c.BrokerRacks) == 0 {
		return nil
	}
	if len(c.BrokerRacks) != c.Brokers {
		return kerr.InvalidConfig.WithMessage("broker.rack: %d racks for %d brokers; give one per broker, or none", len(c.BrokerRacks), c.Brokers)
	}
	for node, rack := range c.BrokerRacks {
		switch {
		case rack == "":
			return kerr.InvalidConfig.WithMessage("broker.rack of broker %d is empty", node)
		case len(rack) > shard.RackIDMaxBytes:
			return kerr.InvalidConfig.WithMessage("broker.rack of broker %d is %d bytes, over %d", node, len(rack), shard.RackIDMaxBytes)
		case !utf8.ValidString(rack):
			return kerr.InvalidConfig.WithMessage("broker.rack of broker %d is not valid UTF-8", node)
		}
	}
	return nil
}

// Cluster is a running endpoint: its brokers, their coordinators and the
// data plane. Close it to stop.
type Cluster struct {
	cfg     Config
	log     *slog.Logger
	apis    apiTable
	logs    *coordinator.Logs
	brokers []*broker
	data    *dataPlane
	share   *sharePlane
	// assignors is group.consumer.assignors, for naming a group's
	// preferred assignor in ConsumerGroupDescribe.
	assignors *assignor.Registry

	ctx    context.Context
	cancel context.CancelFunc
	conns  sync.WaitGroup

	// placement is the node leading each __consumer_offsets partition.
	placeMu   sync.Mutex
	placement []int32
	// offsetsTopicID is __consumer_offsets' topic id, drawn at Start
	// (internal_topics.go).
	offsetsTopicID [16]byte
	moveMu         sync.Mutex // one move at a time

	// producerIDs allocates every broker's producer ids (producer_ids.go).
	producerIDs producerIDManager
	// txn is the transaction coordinator's driver (txn.go).
	txn *txnlive.Driver
	// parked counts the requests waiting for records (request.wait).
	parked    atomic.Int64
	closeOnce sync.Once
	// imageMu orders topic-image installs, so a newer image is never
	// overwritten by an older one.
	imageMu sync.Mutex
	// topicsMu serialises topic creation and deletion (lockTopics).
	topicsMu sync.Mutex
	// groupConfigs is the cluster's group configs (groupconfig.go).
	groupConfigs groupConfigStore
}

// broker is one node: a listener and a coordinator on its live driver.
type broker struct {
	node int32
	// rack is broker.rack ("" for none).
	rack   string
	host   string
	port   int32
	ln     net.Listener
	driver *live.Driver
	// fetchSessions is the broker's KIP-227 fetch session cache.
	fetchSessions fetchSessions

	mu    sync.Mutex
	conns map[net.Conn]struct{}
}

// Start listens on every broker's address, starts every coordinator and
// serves until Close or the end of ctx.
func Start(ctx context.Context, cfg Config) (*Cluster, error) {
	// Start owns cfg.TopologyPlugin from the call on: Close closes it, and
	// so does a Start that fails before the Cluster exists (later failures
	// close it through Close).
	closeStore := cfg.TopologyPlugin != nil
	defer func() {
		if closeStore {
			_ = plugin.SafeClose(cfg.TopologyPlugin)
		}
	}()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.BrokerRacks = slices.Clone(cfg.BrokerRacks) // the caller's slice may change
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	logs, err := coordinator.NewLogs(cfg.Coordinator.NumPartitions)
	if err != nil {
		return nil, fmt.Errorf("wire: %w", err)
	}
	sp, err := newSharePlane(cfg.Share)
	if err != nil {
		return nil, fmt.Errorf("wire: %w", err)
	}
	assignors, err := assignor.FromNames(cfg.Coordinator.ConsumerAssignors)
	if err != nil {
		return nil, fmt.Errorf("wire: %w", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cl := &Cluster{share: sp, assignors: assignors,
		cfg: cfg, log: logger.With("component", "wire"), apis: newAPITable(served),
		logs: logs, data: newDataPlane(), ctx: cctx, cancel: cancel,
		placement: make([]int32, cfg.Coordinator.NumPartitions), offsetsTopicID: newTopicID(),
	}
	closeStore = false // cl.Close closes it from here on
	for p := range cl.placement {
		cl.placement[p] = int32(p % cfg.Brokers)
	}
	cl.data.onCreate, cl.data.onAppend, cl.data.onTrim, cl.data.onDelete = sp.createTopic, sp.appended, sp.trimmed, sp.deleteTopic
	cl.data.onGrow = sp.createPartitions
	cl.data.retentionBytes = cfg.RetentionBytes
	cl.data.producerIDExpirationMs = cfg.ProducerIDExpiration.Milliseconds()
	cl.data.retentionMs, cl.data.maxDataBytes = cfg.RetentionMs, cfg.MaxDataBytes
	if err := cl.startBrokers(); err != nil {
		cl.Close()
		return nil, err
	}
	if err := cl.startTransactions(); err != nil {
		cl.Close()
		return nil, err
	}
	for _, b := range cl.brokers {
		cl.conns.Add(1)
		go cl.accept(b)
	}
	cl.conns.Add(1)
	go cl.retentionLoop()
	go func() {
		<-cctx.Done()
		cl.Close()
	}()
	return cl, nil
}

func (cl *Cluster) startBrokers() error {
	host, portText, _ := net.SplitHostPort(cl.cfg.Listen)
	basePort, err := strconv.Atoi(portText)
	if err != nil || basePort < 0 || basePort+cl.cfg.Brokers > 65536 {
		return fmt.Errorf("wire: bad listen port %q", portText)
	}
	for i := range cl.cfg.Brokers {
		node := int32(i)
		port := 0
		if basePort != 0 {
			port = basePort + i
		}
		ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
		if err != nil {
			return fmt.Errorf("wire: broker %d: %w", node, err)
		}
		addr := ln.Addr().(*net.TCPAddr)
		b := &broker{node: node, rack: cl.rackOf(node), host: host, port: int32(addr.Port), ln: ln, conns: make(map[net.Conn]struct{})}
		cl.brokers = append(cl.brokers, b)
		var hosted []int32
		for p, owner := range cl.placement {
			if owner == node {
				hosted = append(hosted, int32(p))
			}
		}
		if hosted == nil {
			hosted = []int32{}
		}
		var store plugin.Store
		if cl.cfg.TopologyPlugin != nil {
			store = shareStore(cl.cfg.TopologyPlugin)
		}
		b.driver, err = live.New(cl.cfg.Coordinator, live.Options{
			BrokerID: node, TopologyPlugin: store, Logger: cl.cfg.Logger, // live names its component and broker itself: no key twice
			Partitions: hosted, Logs: cl.logs,
		})
		if err != nil {
			return err
		}
		if err := b.driver.Start(cl.ctx); err != nil {
			return err
		}
	}
	return nil
}

// accept serves one listener until it is closed.
func (cl *Cluster) accept(b *broker) {
	defer cl.conns.Done()
	for {
		nc, err := b.ln.Accept()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				cl.log.Error("accept failed; the listener stops", "broker", b.node, "err", err)
			}
			return
		}
		b.mu.Lock()
		if cl.ctx.Err() != nil || len(b.conns) >= maxConnsPerBroker {
			b.mu.Unlock()
			cl.log.Warn("refusing a connection", "broker", b.node, "open", maxConnsPerBroker)
			nc.Close()
			continue
		}
		b.conns[nc] = struct{}{}
		cl.conns.Add(1)
		b.mu.Unlock()
		go func() {
			defer cl.conns.Done()
			defer func() {
				b.mu.Lock()
				delete(b.conns, nc)
				b.mu.Unlock()
			}()
			cl.serveConn(b, nc)
		}()
	}
}

// Close stops listening, closes every connection, waits for their
// goroutines and stops every coordinator. It is idempotent.
func (cl *Cluster) Close() {
	cl.closeOnce.Do(func() {
		cl.cancel()
		for _, b := range cl.brokers {
			b.ln.Close()
			b.mu.Lock()
			for nc := range b.conns {
				nc.Close()
			}
			b.mu.Unlock()
		}
		cl.data.wakeAll()
		cl.conns.Wait()
		if cl.txn != nil {
			cl.txn.Stop() // before the group coordinators its markers call
		}
		for _, b := range cl.brokers {
			if b.driver != nil {
				b.driver.Stop()
			}
		}
		if cl.cfg.TopologyPlugin != nil {
			if err := plugin.SafeClose(cl.cfg.TopologyPlugin); err != nil {
				cl.log.Warn("closing the topology store failed", "err", err)
			}
		}
	})
}

// sharedStore is the one topology store as each broker's coordinator sees
// it: every coordinator closes its store at shutdown, and the shared one
// must be closed once, by the cluster.
type sharedStore struct{ plugin.Store }

func (sharedStore) Close() error { return nil }

// sharedFencedStore is sharedStore for a store that enforces fencing
// tokens: it keeps the FencedStore methods visible, without which protocol
// v3 would run as v2 (plugin.AsFenced would not find them).
type sharedFencedStore struct{ plugin.FencedStore }

func (sharedFencedStore) Close() error { return nil }

// shareStore wraps the cluster's store for one broker, keeping its fencing.
func shareStore(s plugin.Store) plugin.Store {
	if f, ok := plugin.AsFenced(s); ok {
		return sharedFencedStore{f}
	}
	return sharedStore{s}
}

// Addrs returns every broker's host:port, in node order.
func (cl *Cluster) Addrs() []string {
	out := make([]string, len(cl.brokers))
	for i, b := range cl.brokers {
		out[i] = net.JoinHostPort(b.host, strconv.Itoa(int(b.port)))
	}
	return out
}

// Driver returns broker node's coordinator driver, for inspection.
func (cl *Cluster) Driver(node int32) *live.Driver {
	if node < 0 || int(node) >= len(cl.brokers) {
		return nil
	}
	return cl.brokers[node].driver
}

// CoordinatorFor returns the node leading __consumer_offsets partition p.
func (cl *Cluster) CoordinatorFor(p int32) (int32, error) {
	cl.placeMu.Lock()
	defer cl.placeMu.Unlock()
	if p < 0 || int(p) >= len(cl.placement) {
		return -1, fmt.Errorf("wire: __consumer_offsets partition %d is out of range [0, %d)", p, len(cl.placement))
	}
	return cl.placement[p], nil
}

// MoveCoordinator moves __consumer_offsets partition p to broker to: the
// old leader unloads the shard (its pending writes fail with
// NOT_COORDINATOR, later requests get NOT_COORDINATOR), then the new one
// loads it from the shared log. Clients follow with FindCoordinator.
func (cl *Cluster) MoveCoordinator(ctx context.Context, p, to int32) error {
	if to < 0 || int(to) >= len(cl.brokers) {
		return fmt.Errorf("wire: broker %d does not exist", to)
	}
	cl.moveMu.Lock()
	defer cl.moveMu.Unlock()
	from, err := cl.CoordinatorFor(p)
	if err != nil {
		return err
	}
	if from == to {
		return nil
	}
	var unloadErr, loadErr error
	if err := cl.brokers[from].driver.Do(ctx, func(c *coordinator.Coordinator) { unloadErr = c.UnloadShard(p) }); err != nil {
		return err
	}
	if unloadErr != nil {
		return unloadErr
	}
	cl.placeMu.Lock()
	cl.placement[p] = to
	cl.placeMu.Unlock()
	if err := cl.brokers[to].driver.Do(ctx, func(c *coordinator.Coordinator) { loadErr = c.LoadShard(p) }); err != nil {
		return err
	}
	cl.log.Info("moved a __consumer_offsets partition", "partition", p, "from", from, "to", to)
	return loadErr
}

// broadcastTopics installs the topic image on every coordinator: each
// topic's partition count and, when the brokers have racks, each
// partition's replica racks (topicImage).
func (cl *Cluster) broadcastTopics(ctx context.Context) {
	cl.imageMu.Lock()
	defer cl.imageMu.Unlock()
	image := cl.topicImage()
	for _, b := range cl.brokers {
		var err error
		if doErr := b.driver.Do(ctx, func(c *coordinator.Coordinator) { err = c.SetTopicImage(image) }); doErr != nil {
			err = doErr
		}
		if err != nil {
			cl.log.Warn("installing the topic image failed", "broker", b.node, "err", err)
		}
	}
}

// lockTopics serialises topic creation and deletion, held from the data
// plane's change to the coordinators' last write about it. A deletion's
// offset tombstones (Coordinator.OnPartitionsDeleted) name topics, not
// topic ids, so a topic re-created under the name before they are written
// would lose its new offsets; Kafka's trunk compares the topic id stored
// with each offset instead (OffsetMetadataManager.onTopicsDeleted).
func (cl *Cluster) lockTopics() (unlock func()) {
	cl.topicsMu.Lock()
	return cl.topicsMu.Unlock
}

// nowMs is the data plane's clock (Config.Clock) in Unix milliseconds.
func (cl *Cluster) nowMs() int64 {
	if cl.cfg.Clock != nil {
		return cl.cfg.Clock().UnixMilli()
	}
	return time.Now().UnixMilli()
}

// retentionLoop runs a retention pass (time retention, compaction, the
// cap: retention.go) every retentionCheckIntervalMs until Close.
func (cl *Cluster) retentionLoop() {
	defer cl.conns.Done()
	tick := time.NewTicker(retentionCheckIntervalMs * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-cl.ctx.Done():
			return
		case <-tick.C:
			cl.data.retainAll(cl.nowMs())
		}
	}
}
