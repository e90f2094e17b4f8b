package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/plugin"
	"github.com/coordsim/coordsim/plugin/boltstore"
	"github.com/coordsim/coordsim/plugin/memstore"
	"github.com/coordsim/coordsim/shard"
	"github.com/coordsim/coordsim/txn"
	"github.com/coordsim/coordsim/wire"
)

const serveHelp = `usage: coordsim serve [flags]

Serve Kafka's wire protocol so real Kafka clients run against coordsim's
group coordinator, on the wall clock, until Ctrl-C.

It has NO authentication and NO TLS: it binds to loopback by default and
warns when --listen names any other address. Do not expose it.

flags:
`

// serveCmd runs coordsim serve until SIGINT or SIGTERM.
func serveCmd(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return serve(ctx, args, stdout, stderr)
}

// serveOptions are serve's flags, parsed and checked: what serve opens and
// starts.
type serveOptions struct {
	cfg              wire.Config
	log              *slog.Logger
	store, storePath string
	listen, httpAddr string
	profiles         *profileFlags
}

// serve runs the endpoint until ctx ends. It prints the bootstrap servers
// and the HTTP address on stdout, logs on stderr.
func serve(ctx context.Context, args []string, stdout, stderr io.Writer) (code int) {
	o, code, ok := parseServe(args, stdout, stderr)
	if !ok {
		return code
	}
	// The profiles cover the endpoint from start to shutdown (Ctrl-C).
	prof, err := o.profiles.start()
	if err != nil {
		fmt.Fprintf(stderr, "coordsim serve: %v\n", err)
		return exitIO
	}
	defer func() { code = prof.finish("coordsim serve", stderr, code) }()
	cfg, log := o.cfg, o.log
	topologyStore, cleanup, err := openServeStore(o.store, o.storePath)
	if err != nil {
		fmt.Fprintf(stderr, "coordsim serve: %v\n", err)
		return exitUsage
	}
	defer cleanup()
	cfg.TopologyPlugin = topologyStore
	warnIfExposed(log, "--listen", o.listen)
	warnIfExposed(log, "--http", o.httpAddr)
	return serveUntil(ctx, cfg, o.httpAddr, log, stdout, stderr)
}

// parseServe parses and checks serve's flags, opening and starting
// nothing; ok is false when serve should exit with code (0 after -h, whose
// help goes to stdout).
func parseServe(args []string, stdout, stderr io.Writer) (o serveOptions, code int, ok bool) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fs.SetOutput(stdout)
		defer fs.SetOutput(stderr)
		fmt.Fprint(stdout, serveHelp)
		fs.PrintDefaults()
	}
	brokers := fs.Int("brokers", 3, "number of brokers, each on its own port")
	brokerRacks := fs.String("broker-racks", "", "broker.rack of each broker, comma-separated in node order (e.g. a,b,c): one non-empty rack per broker, or none (the default); partitions take their replicas' racks, which the range assignor matches to the consumers' client.rack")
	partitions := fs.Int("partitions", 50, "__consumer_offsets partitions (offsets.topic.num.partitions)")
	listen := fs.String("listen", "127.0.0.1:9092", "host:port of broker 0; broker i listens on port+i (port 0: ephemeral ports)")
	httpAddr := fs.String("http", "127.0.0.1:9644", "host:port of the HTTP server: /metrics (Prometheus text) and /admin/move")
	store := fs.String("store", "memstore", "KIP-1331 topology store: memstore, bolt, or none")
	storePath := fs.String("store-path", "", "bolt file (default: a new temporary directory, removed on exit)")
	protocol := coordinator.CleanupV3
	fs.Var(&protocol, "protocol", coordinator.CleanupProtocolUsage+" (default v3)")
	retentionBytes := fs.Int64("retention-bytes", wire.DefaultRetentionBytes, "log.retention.bytes of every data partition, held in memory: past it the oldest batches go and the log start offset advances; -1 keeps everything")
	logRetentionMs := fs.Int64("log-retention-ms", wire.DefaultConfig().RetentionMs, "log.retention.ms of every data topic without its own retention.ms: older batches go at the next retention pass (every second); -1 keeps everything")
	maxDataBytes := fs.Int64("max-data-bytes", wire.DefaultMaxDataBytes(), "cap on the record bytes all data partitions hold together (default a quarter of this machine's memory): past it the earliest appended batches go first; -1 is no cap")
	producerIDExpirationMs := fs.Int64("producer-id-expiration-ms", wire.DefaultConfig().ProducerIDExpiration.Milliseconds(), "producer.id.expiration.ms: an idempotent producer's sequence state on a partition goes this long after its last batch there")
	numPartitions := fs.Int("num-partitions", int(wire.DefaultNumPartitions), "num.partitions: the partition count of auto-created topics and of CreateTopics without one")
	transactionVersion := fs.Int("transaction-version", int(txn.LatestTransactionVersion), "transaction.version finalized in ApiVersions: 2 (Kafka 4.x's default, KIP-890 part 2: kgo and Java producers bump the epoch on every commit and add partitions by producing), or 1 or 0 to keep clients on the older protocol")
	logLevel := fs.String("log-level", "info", "debug, info, warn or error")
	shareReset := fs.String("share-auto-offset-reset", "latest", "share.auto.offset.reset of every share group without its own group config: latest (Kafka's default), earliest or by_duration:PnDTnHnMn.nS")
	migration := fs.String("consumer-migration-policy", "bidirectional", "group.consumer.migration.policy: the online conversions between classic and consumer groups, bidirectional (Kafka's default: a consumer-protocol member joining a classic group upgrades it, the last one leaving downgrades it), upgrade, downgrade or disabled")
	bounds := sessionBoundsFlags(fs, coordinator.DefaultConfig())
	intervals := assignmentIntervalFlags(fs)
	profiles := addProfileFlags(fs)
	if code, ok := parse(fs, args); !ok {
		return o, code, false
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		fmt.Fprintf(stderr, "coordsim serve: --log-level %q: %v\n", *logLevel, err)
		return o, exitUsage, false
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))

	cfg := wire.DefaultConfig()
	cfg.Brokers, cfg.Listen, cfg.Logger, cfg.RetentionBytes = *brokers, *listen, log, *retentionBytes
	if *brokerRacks != "" {
		cfg.BrokerRacks = strings.Split(*brokerRacks, ",")
	}
	cfg.Coordinator.NumPartitions = int32(*partitions)
	cfg.ProducerIDExpiration = time.Duration(*producerIDExpirationMs) * time.Millisecond
	cfg.RetentionMs, cfg.MaxDataBytes = *logRetentionMs, *maxDataBytes
	cfg.NumPartitions = int32(min(max(*numPartitions, math.MinInt32), math.MaxInt32))
	cfg.Transactions.TransactionVersion = txn.TransactionVersion(min(max(*transactionVersion, math.MinInt16), math.MaxInt16))
	cfg.Coordinator.TopologyCleanupProtocol = protocol
	if err := applySessionBounds(bounds, &cfg.Coordinator); err != nil {
		fmt.Fprintf(stderr, "coordsim serve: %v\n", err)
		return o, exitUsage, false
	}
	if err := applyAssignmentIntervals(intervals, &cfg.Coordinator); err != nil {
		fmt.Fprintf(stderr, "coordsim serve: %v\n", err)
		return o, exitUsage, false
	}
	policy, err := shard.ParseMigrationPolicy(*migration)
	if err != nil {
		fmt.Fprintf(stderr, "coordsim serve: --consumer-migration-policy: %v\n", err)
		return o, exitUsage, false
	}
	cfg.Coordinator.Classic.MigrationPolicy = policy
	if err := cfg.SetShareAutoOffsetReset(*shareReset); err != nil {
		fmt.Fprintf(stderr, "coordsim serve: --share-auto-offset-reset: %v\n", err)
		return o, exitUsage, false
	}
	if *partitions < 1 || *partitions > 1000 {
		fmt.Fprintf(stderr, "coordsim serve: --partitions %d is outside [1, 1000]\n", *partitions)
		return o, exitUsage, false
	}
	if err := cfg.Validate(); err != nil {
		// Before the store opens: a bad configuration starts nothing.
		fmt.Fprintf(stderr, "coordsim serve: %v\n", err)
		return o, exitUsage, false
	}
	return serveOptions{cfg: cfg, log: log, store: *store, storePath: *storePath, listen: *listen, httpAddr: *httpAddr, profiles: profiles}, 0, true
}

// serveUntil starts the endpoint and its HTTP server and serves until ctx
// ends.
func serveUntil(ctx context.Context, cfg wire.Config, httpAddr string, log *slog.Logger, stdout, stderr io.Writer) int {
	cl, err := wire.Start(ctx, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "coordsim serve: %v\n", err)
		return exitUsage
	}
	defer cl.Close()
	ln, err := net.Listen("tcp", httpAddr)
	if err != nil {
		fmt.Fprintf(stderr, "coordsim serve: --http: %v\n", err)
		return exitUsage
	}
	srv := &http.Server{Handler: cl.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("HTTP server stopped", "err", err)
		}
	}()
	fmt.Fprintf(stdout, "bootstrap servers: %s\n", strings.Join(cl.Addrs(), ","))
	fmt.Fprintf(stdout, "metrics:           http://%s/metrics\n", ln.Addr())
	fmt.Fprintf(stdout, "move a partition:  curl -X POST 'http://%s/admin/move?partition=0&broker=1'\n", ln.Addr())
	fmt.Fprintln(stdout, "no authentication, no TLS; Ctrl-C stops")

	<-ctx.Done()
	log.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = srv.Shutdown(shutdownCtx)
	cl.Close()
	return exitOK
}

// sessionBounds are the serve flags of one group type's session and
// heartbeat settings (Kafka's group.consumer.*, group.share.* and
// group.streams.* broker keys), as durations.
type sessionBounds struct {
	kind                                  string // consumer, share or streams
	session, minSession, maxSession       *time.Duration
	heartbeat, minHeartbeat, maxHeartbeat *time.Duration
}

// sessionKinds are the group types with session bounds, and where each
// keeps them in coordinator.Config (session, min, max, heartbeat, min,
// max), so one table serves the flags, their defaults and apply.
var sessionKinds = []struct {
	kind   string
	fields func(c *coordinator.Config) [6]*time.Duration
}{
	{"consumer", func(c *coordinator.Config) [6]*time.Duration {
		return [6]*time.Duration{&c.ConsumerSessionTimeout, &c.ConsumerMinSessionTimeout, &c.ConsumerMaxSessionTimeout,
			&c.ConsumerHeartbeatInterval, &c.ConsumerMinHeartbeatInterval, &c.ConsumerMaxHeartbeatInterval}
	}},
	{"share", func(c *coordinator.Config) [6]*time.Duration {
		return [6]*time.Duration{&c.ShareSessionTimeout, &c.ShareMinSessionTimeout, &c.ShareMaxSessionTimeout,
			&c.ShareHeartbeatInterval, &c.ShareMinHeartbeatInterval, &c.ShareMaxHeartbeatInterval}
	}},
	{"streams", func(c *coordinator.Config) [6]*time.Duration {
		return [6]*time.Duration{&c.StreamsSessionTimeout, &c.StreamsMinSessionTimeout, &c.StreamsMaxSessionTimeout,
			&c.StreamsHeartbeatInterval, &c.StreamsMinHeartbeatInterval, &c.StreamsMaxHeartbeatInterval}
	}},
}

// sessionBoundsFlags defines --KIND-session-timeout,
// --KIND-min-session-timeout, --KIND-max-session-timeout and the three
// heartbeat-interval flags for each group type, with def's values.
func sessionBoundsFlags(fs *flag.FlagSet, def coordinator.Config) []sessionBounds {
	var out []sessionBounds
	for _, k := range sessionKinds {
		d := k.fields(&def)
		key := "group." + k.kind + "."
		b := sessionBounds{kind: k.kind}
		b.session = fs.Duration(k.kind+"-session-timeout", *d[0], key+"session.timeout.ms: a "+k.kind+" group member's session unless its group config sets "+k.kind+".session.timeout.ms")
		b.minSession = fs.Duration(k.kind+"-min-session-timeout", *d[1], key+"min.session.timeout.ms: the lowest "+k.kind+" session timeout, of the broker and of a group config")
		b.maxSession = fs.Duration(k.kind+"-max-session-timeout", *d[2], key+"max.session.timeout.ms: the highest "+k.kind+" session timeout, of the broker and of a group config")
		b.heartbeat = fs.Duration(k.kind+"-heartbeat-interval", *d[3], key+"heartbeat.interval.ms: the interval "+k.kind+" heartbeats answer unless the group config sets "+k.kind+".heartbeat.interval.ms")
		b.minHeartbeat = fs.Duration(k.kind+"-min-heartbeat-interval", *d[4], key+"min.heartbeat.interval.ms: the lowest "+k.kind+" heartbeat interval, of the broker and of a group config")
		b.maxHeartbeat = fs.Duration(k.kind+"-max-heartbeat-interval", *d[5], key+"max.heartbeat.interval.ms: the highest "+k.kind+" heartbeat interval, of the broker and of a group config")
		out = append(out, b)
	}
	return out
}

// assignmentIntervalFlags defines --consumer-assignment-interval and its
// share and streams twins (Kafka's group.<type>.assignment.interval.ms),
// by group type.
func assignmentIntervalFlags(fs *flag.FlagSet) map[string]*time.Duration {
	def := coordinator.DefaultConfig()
	defaults := map[string]time.Duration{"consumer": def.ConsumerAssignmentInterval.Interval,
		"share": def.ShareAssignmentInterval.Interval, "streams": def.StreamsAssignmentInterval.Interval}
	out := map[string]*time.Duration{}
	for _, kind := range []string{"consumer", "share", "streams"} {
		out[kind] = fs.Duration(kind+"-assignment-interval", defaults[kind], "group."+kind+".assignment.interval.ms: a "+kind+
			" group computes a new target assignment at most once per interval unless its group config sets "+kind+
			".assignment.interval.ms (0, coordsim's default, computes one whenever the group epoch moves; Kafka's default is 1s, with the computation offloaded, which coordsim does not do)")
	}
	return out
}

// applyAssignmentIntervals sets the assignment intervals on cfg after
// checking them as Kafka does (within the bounds, 0 to 15s, whole
// milliseconds); cfg is unchanged on error.
func applyAssignmentIntervals(intervals map[string]*time.Duration, cfg *coordinator.Config) error {
	next := *cfg
	next.ConsumerAssignmentInterval.Interval = *intervals["consumer"]
	next.ShareAssignmentInterval.Interval = *intervals["share"]
	next.StreamsAssignmentInterval.Interval = *intervals["streams"]
	if err := next.Validate(); err != nil {
		return fmt.Errorf("the assignment interval flags: %w", err)
	}
	*cfg = next
	return nil
}

// applySessionBounds sets every group type's bounds on cfg after checking
// them as Kafka's GroupCoordinatorConfig does (coordinator.Config.Validate:
// min <= value <= max, heartbeat below session, whole milliseconds); the
// error names the flag or the Kafka key, and cfg is unchanged.
func applySessionBounds(bounds []sessionBounds, cfg *coordinator.Config) error {
	next := *cfg
	for _, b := range bounds {
		vals := [6]time.Duration{*b.session, *b.minSession, *b.maxSession, *b.heartbeat, *b.minHeartbeat, *b.maxHeartbeat}
		names := [6]string{"session-timeout", "min-session-timeout", "max-session-timeout", "heartbeat-interval", "min-heartbeat-interval", "max-heartbeat-interval"}
		for i, v := range vals {
			if v < time.Millisecond || v%time.Millisecond != 0 || v.Milliseconds() > 1<<31-1 {
				return fmt.Errorf("--%s-%s %v: must be a whole number of milliseconds, at least 1ms and at most 2147483647ms", b.kind, names[i], v)
			}
		}
		var fields [6]*time.Duration
		for _, k := range sessionKinds {
			if k.kind == b.kind {
				fields = k.fields(&next)
			}
		}
		for i, f := range fields {
			*f = vals[i]
		}
		if err := next.Validate(); err != nil {
			return fmt.Errorf("the %s session flags: %w", b.kind, err)
		}
	}
	*cfg = next
	return nil
}

// openServeStore opens the topology store serve was asked for; cleanup
// removes a temporary bolt directory (the cluster closes the store, even when it fails to start).
func openServeStore(kind, path string) (plugin.Store, func(), error) {
	switch kind {
	case "none":
		return nil, func() {}, nil
	case "memstore":
		return memstore.New(), func() {}, nil
	case "bolt":
		cleanup := func() {}
		if path == "" {
			dir, err := os.MkdirTemp("", "coordsim-serve-")
			if err != nil {
				return nil, nil, err
			}
			path = filepath.Join(dir, "topology.db")
			cleanup = func() { os.RemoveAll(dir) }
		}
		s, err := boltstore.Open(path)
		if err != nil {
			cleanup()
			return nil, nil, err
		}
		return s, cleanup, nil
	}
	return nil, nil, fmt.Errorf("--store %q: memstore, bolt or none", kind)
}

// warnIfExposed warns when addr is not a loopback address: the endpoint
// has no authentication.
func warnIfExposed(log *slog.Logger, flagName, addr string) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return // Start reports the bad address
	}
	if ip := net.ParseIP(host); host == "localhost" || (ip != nil && ip.IsLoopback()) {
		return
	}
	log.Warn("listening on a non-loopback address: coordsim serve has no authentication and no TLS; anyone who can reach it can read and change every group", "flag", flagName, "addr", addr)
}
