package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
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

// serve runs the endpoint until ctx ends. It prints the bootstrap servers
// and the HTTP address on stdout, logs on stderr.
func serve(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, serveHelp)
		fs.PrintDefaults()
	}
	brokers := fs.Int("brokers", 3, "number of brokers, each on its own port")
	brokerRacks := fs.String("broker-racks", "", "broker.rack of each broker, comma-separated in node order (e.g. a,b,c): one non-empty rack per broker, or none (the default); partitions take their replicas' racks, which the range assignor matches to the consumers' client.rack")
	partitions := fs.Int("partitions", 50, "__consumer_offsets partitions (offsets.topic.num.partitions)")
	listen := fs.String("listen", "127.0.0.1:9092", "host:port of broker 0; broker i listens on port+i (port 0: ephemeral ports)")
	httpAddr := fs.String("http", "127.0.0.1:9644", "host:port of the HTTP server: /metrics (Prometheus text) and /admin/move")
	store := fs.String("store", "memstore", "KIP-1331 topology store: memstore, bolt, or none")
	storePath := fs.String("store-path", "", "bolt file (default: a new temporary directory, removed on exit)")
	protocol := fs.String("protocol", string(coordinator.CleanupV3), "KIP-1331 cleanup protocol: v1, v2 or v3")
	retentionBytes := fs.Int64("retention-bytes", wire.DefaultRetentionBytes, "log.retention.bytes of every data partition, held in memory: past it the oldest batches go and the log start offset advances; -1 keeps everything")
	logLevel := fs.String("log-level", "info", "debug, info, warn or error")
	shareReset := fs.String("share-auto-offset-reset", "latest", "share.auto.offset.reset of every share group without its own group config: latest (Kafka's default), earliest or by_duration:PnDTnHnMn.nS")
	consumer := consumerBoundsFlags(fs, coordinator.DefaultConfig())
	if code, ok := parse(fs, args); !ok {
		return code
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		fmt.Fprintf(stderr, "coordsim serve: --log-level %q: %v\n", *logLevel, err)
		return exitUsage
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))

	cfg := wire.DefaultConfig()
	cfg.Brokers, cfg.Listen, cfg.Logger, cfg.RetentionBytes = *brokers, *listen, log, *retentionBytes
	if *brokerRacks != "" {
		cfg.BrokerRacks = strings.Split(*brokerRacks, ",")
	}
	cfg.Coordinator.NumPartitions = int32(*partitions)
	cfg.Coordinator.TopologyCleanupProtocol = coordinator.CleanupProtocol(*protocol)
	if err := consumer.apply(&cfg.Coordinator); err != nil {
		fmt.Fprintf(stderr, "coordsim serve: %v\n", err)
		return exitUsage
	}
	if err := cfg.SetShareAutoOffsetReset(*shareReset); err != nil {
		fmt.Fprintf(stderr, "coordsim serve: --share-auto-offset-reset: %v\n", err)
		return exitUsage
	}
	if *partitions < 1 || *partitions > 1000 {
		fmt.Fprintf(stderr, "coordsim serve: --partitions %d is outside [1, 1000]\n", *partitions)
		return exitUsage
	}
	if err := cfg.Validate(); err != nil {
		// Before the store opens: a bad configuration starts nothing.
		fmt.Fprintf(stderr, "coordsim serve: %v\n", err)
		return exitUsage
	}
	topologyStore, cleanup, err := openServeStore(*store, *storePath)
	if err != nil {
		fmt.Fprintf(stderr, "coordsim serve: %v\n", err)
		return exitUsage
	}
	defer cleanup()
	cfg.TopologyPlugin = topologyStore
	warnIfExposed(log, "--listen", *listen)
	warnIfExposed(log, "--http", *httpAddr)

	cl, err := wire.Start(ctx, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "coordsim serve: %v\n", err)
		return exitUsage
	}
	defer cl.Close()
	ln, err := net.Listen("tcp", *httpAddr)
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

// consumerBounds are the serve flags of the consumer group session and
// heartbeat settings (Kafka's group.consumer.* broker keys), as durations.
type consumerBounds struct {
	session, minSession, maxSession       *time.Duration
	heartbeat, minHeartbeat, maxHeartbeat *time.Duration
}

func consumerBoundsFlags(fs *flag.FlagSet, def coordinator.Config) consumerBounds {
	return consumerBounds{
		session:    fs.Duration("consumer-session-timeout", def.ConsumerSessionTimeout, "group.consumer.session.timeout.ms: a consumer group member's session unless its group config sets consumer.session.timeout.ms"),
		minSession: fs.Duration("consumer-min-session-timeout", def.ConsumerMinSessionTimeout, "group.consumer.min.session.timeout.ms: the lowest session timeout, of the broker and of a group config"),
		maxSession: fs.Duration("consumer-max-session-timeout", def.ConsumerMaxSessionTimeout, "group.consumer.max.session.timeout.ms: the highest session timeout, of the broker and of a group config"),
		heartbeat:  fs.Duration("consumer-heartbeat-interval", def.ConsumerHeartbeatInterval, "group.consumer.heartbeat.interval.ms: the interval consumer heartbeats answer unless the group config sets consumer.heartbeat.interval.ms"),
		minHeartbeat: fs.Duration("consumer-min-heartbeat-interval", def.ConsumerMinHeartbeatInterval,
			"group.consumer.min.heartbeat.interval.ms: the lowest heartbeat interval, of the broker and of a group config"),
		maxHeartbeat: fs.Duration("consumer-max-heartbeat-interval", def.ConsumerMaxHeartbeatInterval,
			"group.consumer.max.heartbeat.interval.ms: the highest heartbeat interval, of the broker and of a group config"),
	}
}

// apply sets the bounds on cfg after checking them as Kafka's
// GroupCoordinatorConfig does (coordinator.Config.Validate: min <= value
// <= max, heartbeat below session, whole milliseconds); the error names
// the flag and the Kafka key.
func (b consumerBounds) apply(cfg *coordinator.Config) error {
	for _, f := range []struct {
		flag string
		v    time.Duration
	}{
		{"--consumer-session-timeout", *b.session}, {"--consumer-min-session-timeout", *b.minSession},
		{"--consumer-max-session-timeout", *b.maxSession}, {"--consumer-heartbeat-interval", *b.heartbeat},
		{"--consumer-min-heartbeat-interval", *b.minHeartbeat}, {"--consumer-max-heartbeat-interval", *b.maxHeartbeat},
	} {
		if f.v < time.Millisecond || f.v%time.Millisecond != 0 || f.v.Milliseconds() > 1<<31-1 {
			return fmt.Errorf("%s %v: must be a whole number of milliseconds, at least 1ms and at most 2147483647ms", f.flag, f.v)
		}
	}
	next := *cfg
	next.ConsumerSessionTimeout, next.ConsumerMinSessionTimeout, next.ConsumerMaxSessionTimeout = *b.session, *b.minSession, *b.maxSession
	next.ConsumerHeartbeatInterval, next.ConsumerMinHeartbeatInterval, next.ConsumerMaxHeartbeatInterval = *b.heartbeat, *b.minHeartbeat, *b.maxHeartbeat
	if err := next.Validate(); err != nil {
		return fmt.Errorf("the consumer session flags: %w", err)
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
