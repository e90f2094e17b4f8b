package brokerdiff

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// ClasspathEnv names the environment variable that hands Start a ready
// classpath (the broker's jars, colon-separated), for a machine where the
// repository's Maven module is not built.
const ClasspathEnv = "COORDSIM_KAFKA_CLASSPATH"

// ErrUnavailable is returned by Classpath when no broker can be started
// here: java is missing, or neither ClasspathEnv nor a resolved
// oracle/broker module gives the jars. Callers must say so loudly: the
// comparison did not happen.
var ErrUnavailable = errors.New("brokerdiff: no Kafka broker: needs java on PATH and either " +
	ClasspathEnv + " or the resolved oracle/broker module (make broker-oracle, which runs " +
	"mvn -q -f oracle/broker/pom.xml dependency:build-classpath)")

// Classpath returns the broker's classpath: ClasspathEnv when set, else
// oracle/broker/target/classpath.txt under the repository root repo, which
// `make broker-oracle` writes (Maven resolves kafka_2.13 and its runtime
// dependencies; its cache in ~/.m2 is reused, so only a first run
// downloads). It does not run Maven itself: a test that finds no
// classpath skips, so go test ./... on a fresh clone starts no JVM.
func Classpath(repo string) (string, error) {
	if _, err := exec.LookPath("java"); err != nil {
		return "", ErrUnavailable
	}
	if cp := os.Getenv(ClasspathEnv); cp != "" {
		return cp, nil
	}
	pom := filepath.Join(repo, "oracle", "broker", "pom.xml")
	file := filepath.Join(repo, "oracle", "broker", "target", "classpath.txt")
	if _, err := os.Stat(file); err != nil {
		return "", ErrUnavailable
	}
	if !newer(file, pom) {
		return "", fmt.Errorf("brokerdiff: %s is older than %s: run make broker-oracle again", file, pom)
	}
	cp, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("brokerdiff: %w", err)
	}
	return strings.TrimSpace(string(cp)), nil
}

// newer reports whether file exists and is newer than than.
func newer(file, than string) bool {
	f, err := os.Stat(file)
	if err != nil {
		return false
	}
	t, err := os.Stat(than)
	return err != nil || f.ModTime().After(t.ModTime())
}

// Config is how Start runs the broker.
type Config struct {
	// Classpath is the broker's jars (Classpath's answer).
	Classpath string
	// Nice is the niceness the JVM runs at (default 10: the JVM is heavy
	// and the machine is shared); negative runs it at the caller's.
	Nice int
	// Props are broker properties added to (or replacing) the defaults of
	// serverProperties.
	Props map[string]string
	// StartTimeout bounds formatting, startup and the group coordinator's
	// readiness (default 2 minutes).
	StartTimeout time.Duration
}

// Broker is a running single-node KRaft broker.
type Broker struct {
	cmd  *exec.Cmd
	dir  string
	addr string
	done chan struct{}
	// StartupTime is how long Start took, formatting included.
	StartupTime time.Duration
}

// Start formats a temporary log directory and starts kafka.Kafka on two
// free loopback ports (the broker's and the controller's), then waits
// until the group coordinator answers FindCoordinator and ListGroups: the
// __consumer_offsets topic exists and its partitions are loaded. Close
// stops the JVM and removes the directory; on Linux the JVM also dies
// with the calling process.
func Start(ctx context.Context, cfg Config) (*Broker, error) {
	if cfg.Classpath == "" {
		return nil, errors.New("brokerdiff: Config.Classpath is empty")
	}
	if cfg.Nice == 0 {
		cfg.Nice = 10
	}
	if cfg.StartTimeout <= 0 {
		cfg.StartTimeout = 2 * time.Minute
	}
	began := time.Now()
	ctx, cancel := context.WithTimeout(ctx, cfg.StartTimeout)
	defer cancel()
	dir, err := os.MkdirTemp("", "coordsim-kafka-")
	if err != nil {
		return nil, fmt.Errorf("brokerdiff: %w", err)
	}
	b, err := start(ctx, cfg, dir)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	b.StartupTime = time.Since(began)
	return b, nil
}

func start(ctx context.Context, cfg Config, dir string) (*Broker, error) {
	ports, err := freePorts(2)
	if err != nil {
		return nil, err
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(ports[0]))
	props := serverProperties(filepath.Join(dir, "logs"), ports[0], ports[1])
	for k, v := range cfg.Props {
		props[k] = v
	}
	propsFile := filepath.Join(dir, "server.properties")
	if err := os.WriteFile(propsFile, []byte(renderProperties(props)), 0o600); err != nil {
		return nil, fmt.Errorf("brokerdiff: %w", err)
	}
	logFile, err := os.Create(filepath.Join(dir, "broker.log"))
	if err != nil {
		return nil, fmt.Errorf("brokerdiff: %w", err)
	}
	defer logFile.Close()
	format := javaCommand(ctx, cfg, "kafka.tools.StorageTool", "format", "-t", clusterID, "-c", propsFile)
	if out, err := format.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("brokerdiff: formatting %s: %w\n%s", dir, err, tail(out))
	}
	// The broker outlives ctx (Start's deadline): only Close stops it.
	cmd := javaCommand(context.Background(), cfg, "kafka.Kafka", propsFile)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	dieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("brokerdiff: starting the broker: %w", err)
	}
	b := &Broker{cmd: cmd, dir: dir, addr: addr, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(b.done) }()
	if err := b.waitReady(ctx); err != nil {
		b.stop()
		log, _ := os.ReadFile(filepath.Join(dir, "broker.log"))
		return nil, fmt.Errorf("brokerdiff: the broker at %s did not become ready: %w\n%s", addr, err, tail(log))
	}
	return b, nil
}

// clusterID is the formatted cluster's id: fixed, so a broker's answers
// do not depend on a random id (the comparison ignores it anyway).
const clusterID = "Y29vcmRzaW0tb3JhY2xlAA"

// serverProperties is a single-node KRaft broker on loopback that enables
// every group type: share and streams groups are on by default in Kafka
// 4.4 through the share.version and streams.version features the format
// command writes; group.coordinator.rebalance.protocols still lists them,
// as the brief of the oracle asks (Kafka 4.4 logs it as deprecated). One
// replica and one __consumer_offsets partition keep startup short; the
// group-coordinator defaults (session and heartbeat intervals, assignors)
// are Kafka's, as coordsim's endpoint's are, except the assignment
// interval and offloading (docs/fidelity.md, assignment-batching): with an
// interval of 0, coordsim's endpoint's default, and no offload Kafka
// computes a target inside the heartbeat that needs one, as coordsim does.
// The in-process oracle runs Kafka's default interval on both sides
// (internal/difftest).
func serverProperties(logDir string, port, controllerPort int) map[string]string {
	props := map[string]string{
		"process.roles":                                    "broker,controller",
		"node.id":                                          "1",
		"controller.quorum.voters":                         fmt.Sprintf("1@127.0.0.1:%d", controllerPort),
		"listeners":                                        fmt.Sprintf("PLAINTEXT://127.0.0.1:%d,CONTROLLER://127.0.0.1:%d", port, controllerPort),
		"advertised.listeners":                             fmt.Sprintf("PLAINTEXT://127.0.0.1:%d", port),
		"controller.listener.names":                        "CONTROLLER",
		"listener.security.protocol.map":                   "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
		"inter.broker.listener.name":                       "PLAINTEXT",
		"log.dirs":                                         logDir,
		"offsets.topic.replication.factor":                 "1",
		"offsets.topic.num.partitions":                     "1",
		"transaction.state.log.replication.factor":         "1",
		"transaction.state.log.min.isr":                    "1",
		"transaction.state.log.num.partitions":             "1",
		"share.coordinator.state.topic.replication.factor": "1",
		"share.coordinator.state.topic.min.isr":            "1",
		"share.coordinator.state.topic.num.partitions":     "1",
		"group.initial.rebalance.delay.ms":                 "0",
		"group.coordinator.rebalance.protocols":            "classic,consumer,streams,share",
	}
	for _, typ := range []string{"consumer", "share", "streams"} {
		props["group."+typ+".assignment.interval.ms"] = "0"
		props["group."+typ+".min.assignment.interval.ms"] = "0"
		props["group."+typ+".assignor.offload.enable"] = "false"
	}
	return props
}

// renderProperties writes props in key order, one per line.
func renderProperties(props map[string]string) string {
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var s strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&s, "%s=%s\n", k, props[k])
	}
	return s.String()
}

// javaCommand runs class main on the broker's classpath, under nice when
// cfg asks and nice exists. The heap is bounded: the machine is shared.
func javaCommand(ctx context.Context, cfg Config, main string, args ...string) *exec.Cmd {
	argv := append([]string{"java", "-Xms256m", "-Xmx768m",
		"-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
		"-cp", cfg.Classpath, main}, args...)
	if _, err := exec.LookPath("nice"); err == nil && cfg.Nice > 0 {
		argv = append([]string{"nice", "-n", strconv.Itoa(cfg.Nice)}, argv...)
	}
	return exec.CommandContext(ctx, argv[0], argv[1:]...)
}

// freePorts returns n distinct loopback ports that were free a moment
// ago. Kafka's controller quorum needs its port before the broker starts,
// so port 0 will not do.
func freePorts(n int) ([]int, error) {
	var ports []int
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			_ = l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("brokerdiff: %w", err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// waitReady polls until the group coordinator answers FindCoordinator
// and ListGroups with no error, or ctx ends, or the JVM exits.
func (b *Broker) waitReady(ctx context.Context) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.addr))
	if err != nil {
		return err
	}
	defer cl.Close()
	for {
		req := kmsg.NewPtrFindCoordinatorRequest()
		req.CoordinatorKey = "coordsim-ready"
		req.CoordinatorKeys = []string{"coordsim-ready"}
		resp, err := req.RequestWith(ctx, cl)
		if err == nil && findCoordinatorOK(resp) {
			// The partition is known; ListGroups answers 0 once every
			// __consumer_offsets partition has loaded (not
			// COORDINATOR_LOAD_IN_PROGRESS).
			lg, err := kmsg.NewPtrListGroupsRequest().RequestWith(ctx, cl)
			if err == nil && lg.ErrorCode == 0 {
				return nil
			}
		}
		select {
		case <-b.done:
			return errors.New("the JVM exited")
		case <-ctx.Done():
			return fmt.Errorf("%w (last answer: %v)", ctx.Err(), err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func findCoordinatorOK(resp *kmsg.FindCoordinatorResponse) bool {
	if len(resp.Coordinators) > 0 {
		return resp.Coordinators[0].ErrorCode == 0
	}
	return resp.ErrorCode == 0
}

// Addr is the broker's host:port.
func (b *Broker) Addr() string { return b.addr }

// Close stops the JVM (SIGTERM, then SIGKILL after 15 s) and removes the
// broker's directory.
func (b *Broker) Close() error {
	b.stop()
	return os.RemoveAll(b.dir)
}

func (b *Broker) stop() {
	_ = b.cmd.Process.Signal(os.Interrupt)
	select {
	case <-b.done:
	case <-time.After(15 * time.Second):
		_ = b.cmd.Process.Kill()
		<-b.done
	}
}

// tail is the last 4 KiB of a log, for an error message.
func tail(out []byte) string {
	if len(out) > 4096 {
		out = out[len(out)-4096:]
	}
	return string(bytes.TrimSpace(out))
}
