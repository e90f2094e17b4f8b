package wire_test

import (
	"context"
	"fmt"
	"net"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/coordsim/coordsim/wire"
)

// The client compatibility matrix: real Go clients' consumer groups against
// the endpoint over loopback, each client in each scenario, printed as a
// table (go test ./wire -run TestClientCompatibilityMatrix -v). Short
// session timeouts and initial rebalance delay keep a cell to seconds.
//
// Scenarios:
//   - group-of-3: three members split a six-partition topic; records
//     produced once they own it are each consumed exactly once.
//   - kill-one: one member of the three is killed (its connections cut, no
//     LeaveGroup); the other two take over its partitions after its session
//     times out, from its committed offsets: the next records are each
//     consumed once, and none committed before is consumed again.
//   - static: three static members (group.instance.id); one is killed and
//     restarted with its instance id within its session: it gets its
//     partitions back and the group's generation does not move.
//   - migrate: online migration (KIP-848) of a kgo group, the classic
//     client's rows only. Two classic members share the topic; a KIP-848
//     kgo member joins, which upgrades the group to a consumer group with
//     classic members; it leaves, which downgrades it back. Each phase's
//     records are all consumed, and no partition is ever held by two
//     members at once (the clients' assigned and revoked callbacks).

const (
	matrixPartitions = 6
	matrixBatch      = 60
	matrixSession    = 3 * time.Second // short, yet long enough for a loaded CI machine
	// matrixStaticSession is the static cell's session: its member must be
	// restarted within it, which on a loaded machine can take longer than
	// matrixSession (then Kafka too would rebalance the others).
	matrixStaticSession = 15 * time.Second
)

// matrixClient is one row: how to start a consumer-group member.
type matrixClient struct {
	name   string
	static bool // supports group.instance.id
	// migrates: a classic kgo client, which the migration scenario mixes
	// with KIP-848 kgo members.
	migrates bool
	kip848   bool // a KIP-848 consumer, described by ConsumerGroupDescribe
	start    func(t *testing.T, m memberSpec) matrixMember
}

// memberSpec is what a member is started with.
type memberSpec struct {
	addrs      []string
	group      string
	topic      string
	instanceID string
	// session is the client's session timeout (classic clients; KIP-848
	// sessions are the cluster's).
	session  time.Duration
	dial     func(ctx context.Context, network, addr string) (net.Conn, error)
	onRecord func(value string)
	// onRebalance is called when the client reports partitions assigned,
	// revoked or lost.
	onRebalance func()
	// name and owners (nil: not tracked) record which member holds each
	// partition, from the client's assigned, revoked and lost callbacks
	// (kgo's; the migration scenario's check).
	name   string
	owners *partitionOwners
}

// matrixMember is a running member: stop leaves gracefully, kill cuts its
// connections (see killSwitch) and stops it without a LeaveGroup.
type matrixMember interface {
	stop()
}

// killSwitch dials through net.Dialer and can cut every connection it made
// and refuse new ones: a crashed client, as the coordinator sees it.
type killSwitch struct {
	mu     sync.Mutex
	conns  []net.Conn
	killed bool
}

func (k *killSwitch) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.killed {
		return nil, fmt.Errorf("killed")
	}
	c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err == nil {
		k.conns = append(k.conns, c)
	}
	return c, err
}

func (k *killSwitch) kill() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.killed = true
	for _, c := range k.conns {
		_ = c.Close()
	}
}

// seen counts each record value consumed.
type seen struct {
	mu     sync.Mutex
	counts map[string]int
}

func (s *seen) add(v string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.counts[v]++
}

// waitBatch waits until every value of batch b has been consumed.
func (s *seen) waitBatch(ctx context.Context, b int) error {
	for {
		s.mu.Lock()
		n := 0
		for i := range matrixBatch {
			if s.counts[batchValue(b, i)] > 0 {
				n++
			}
		}
		s.mu.Unlock()
		if n == matrixBatch {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("batch %d: %d of %d records consumed: %w", b, n, matrixBatch, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// duplicates lists the values consumed more than once.
func (s *seen) duplicates() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for v, n := range s.counts {
		if n > 1 {
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return out
}

func batchValue(b, i int) string { return fmt.Sprintf("b%d-%03d", b, i) }

// matrixEnv is one cell's endpoint, topic and producer.
type matrixEnv struct {
	cl    *wire.Cluster
	adm   *kadm.Client
	prod  *kgo.Client
	topic string
	group string
	seen  *seen
	// rebalances counts each member's assignment callbacks by instance id.
	rebalances *seen
	session    time.Duration
}

func newMatrixEnv(t *testing.T, ctx context.Context, cell string, session time.Duration) *matrixEnv {
	cl := startCluster(t, func(c *wire.Config) {
		c.Coordinator.Classic.MinSessionTimeoutMs = 500
		c.Coordinator.Classic.InitialRebalanceDelayMs = 200
		c.Coordinator.ConsumerMinSessionTimeout, c.Coordinator.ConsumerSessionTimeout = min(session, matrixSession), session
		c.Coordinator.ConsumerMinHeartbeatInterval, c.Coordinator.ConsumerHeartbeatInterval = 200*time.Millisecond, 200*time.Millisecond
	})
	e := &matrixEnv{cl: cl, adm: newAdmin(t, cl), prod: newClient(t, cl), topic: "t-" + cell, group: "g-" + cell,
		seen: &seen{counts: map[string]int{}}, rebalances: &seen{counts: map[string]int{}}, session: session}
	createTopic(t, ctx, e.adm, e.topic, matrixPartitions)
	return e
}

// produce writes batch b, spread over the partitions by the producer's
// default partitioner.
func (e *matrixEnv) produce(ctx context.Context, b int) error {
	var rs []*kgo.Record
	for i := range matrixBatch {
		rs = append(rs, &kgo.Record{Topic: e.topic, Key: []byte(batchValue(b, i)), Value: []byte(batchValue(b, i))})
	}
	return e.prod.ProduceSync(ctx, rs...).FirstErr()
}

// groupView is what the matrix reads of a group, from DescribeGroups
// (classic) or ConsumerGroupDescribe (KIP-848).
type groupView struct {
	state   string
	members map[string]string // instance id ("" for none) by member id
	owned   int               // partitions assigned over all members
}

func (e *matrixEnv) describe(ctx context.Context, kip848 bool) (groupView, error) {
	v := groupView{members: map[string]string{}}
	if kip848 {
		ds, err := e.adm.DescribeConsumerGroups(ctx, e.group)
		if err != nil {
			return v, err
		}
		d := ds[e.group]
		v.state = d.State
		for _, m := range d.Members {
			v.members[m.MemberID] = derefString(m.InstanceID)
			for _, ps := range m.Assignment {
				v.owned += len(ps)
			}
		}
		return v, d.Err
	}
	ds, err := e.adm.DescribeGroups(ctx, e.group)
	if err != nil {
		return v, err
	}
	d := ds[e.group]
	v.state = d.State
	for _, m := range d.Members {
		v.members[m.MemberID] = derefString(m.InstanceID)
		if a, ok := m.Assigned.AsConsumer(); ok {
			for _, t := range a.Topics {
				v.owned += len(t.Partitions)
			}
		}
	}
	return v, d.Err
}

func derefString(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// waitStable waits until the group is Stable with n members owning every
// partition and returns what it saw.
func (e *matrixEnv) waitStable(ctx context.Context, kip848 bool, n int) (groupView, error) {
	var last string
	for {
		v, err := e.describe(ctx, kip848)
		if err == nil {
			if v.state == "Stable" && len(v.members) == n && v.owned == matrixPartitions {
				return v, nil
			}
			last = fmt.Sprintf("%s with %d members owning %d partitions", v.state, len(v.members), v.owned)
		}
		select {
		case <-ctx.Done():
			return groupView{}, fmt.Errorf("group never Stable with %d members owning every partition (last: %s): %w", n, last, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// settledCallbacks waits until each instance has had at least one
// assignment callback and no callback has come for half a second, and
// returns the counts in the order asked.
func (e *matrixEnv) settledCallbacks(ctx context.Context, instances ...string) ([]int, error) {
	last := e.rebalances.snapshot(instances...)
	since := time.Now()
	for {
		now := e.rebalances.snapshot(instances...)
		if !slices.Equal(now, last) {
			last, since = now, time.Now()
		}
		if !slices.Contains(now, 0) && time.Since(since) >= 500*time.Millisecond {
			return now, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("assignment callbacks never settled (last %v for %v): %w", now, instances, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// waitCommitted waits until the group has committed every partition at its
// end offset.
func (e *matrixEnv) waitCommitted(ctx context.Context) error {
	var last string
	for {
		ends, err := e.adm.ListEndOffsets(ctx, e.topic)
		if err == nil {
			got, ferr := e.adm.FetchOffsets(ctx, e.group)
			if ferr == nil {
				done := true
				ends.Each(func(o kadm.ListedOffset) {
					c, ok := got.Lookup(o.Topic, o.Partition)
					if o.Offset > 0 && (!ok || c.At < o.Offset) {
						done = false
						last = fmt.Sprintf("partition %d committed %d (%v), end %d", o.Partition, c.At, c.Err, o.Offset)
					}
				})
				if done {
					return nil
				}
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("offsets never committed at the end (%s): %w", last, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// matrixScenario is one column.
type matrixScenario struct {
	name   string
	static bool
	// migration: the scenario mixes the client with KIP-848 kgo members
	// (matrixClient.migrates).
	migration bool
	run       func(t *testing.T, ctx context.Context, c matrixClient, e *matrixEnv) error
}

func (e *matrixEnv) spec(ks *killSwitch, instanceID string) memberSpec {
	return memberSpec{addrs: e.cl.Addrs(), group: e.group, topic: e.topic, instanceID: instanceID, session: e.session, dial: ks.dial, onRecord: e.seen.add,
		onRebalance: func() { e.rebalances.add(instanceID) }}
}

// startThree starts three members and waits for them to share the topic.
func startThree(t *testing.T, ctx context.Context, c matrixClient, e *matrixEnv, static bool) ([]matrixMember, []*killSwitch, error) {
	var ms []matrixMember
	var kss []*killSwitch
	for i := range 3 {
		ks := &killSwitch{}
		id := ""
		if static {
			id = fmt.Sprintf("instance-%d", i)
		}
		ms = append(ms, c.start(t, e.spec(ks, id)))
		kss = append(kss, ks)
	}
	_, err := e.waitStable(ctx, c.kip848, 3)
	return ms, kss, err
}

func stopAll(ms []matrixMember) {
	var wg sync.WaitGroup
	for _, m := range ms {
		if m != nil {
			wg.Add(1)
			go func() { defer wg.Done(); m.stop() }()
		}
	}
	wg.Wait()
}

var matrixScenarios = []matrixScenario{
	{name: "group-of-3", run: func(t *testing.T, ctx context.Context, c matrixClient, e *matrixEnv) error {
		ms, _, err := startThree(t, ctx, c, e, false)
		defer stopAll(ms)
		if err != nil {
			return err
		}
		if err := e.produce(ctx, 0); err != nil {
			return err
		}
		if err := e.seen.waitBatch(ctx, 0); err != nil {
			return err
		}
		if d := e.seen.duplicates(); len(d) > 0 {
			return fmt.Errorf("%d records consumed twice: %v", len(d), d)
		}
		return e.waitCommitted(ctx)
	}},
	{name: "kill-one", run: func(t *testing.T, ctx context.Context, c matrixClient, e *matrixEnv) error {
		ms, kss, err := startThree(t, ctx, c, e, false)
		defer stopAll(ms)
		if err != nil {
			return err
		}
		if err := e.produce(ctx, 0); err != nil {
			return err
		}
		if err := e.seen.waitBatch(ctx, 0); err != nil {
			return err
		}
		if err := e.waitCommitted(ctx); err != nil {
			return err
		}
		kss[0].kill()
		go ms[0].stop() // returns once the client gives up; it can leave nothing
		ms[0] = nil
		if _, err := e.waitStable(ctx, c.kip848, 2); err != nil {
			return err
		}
		if err := e.produce(ctx, 1); err != nil {
			return err
		}
		if err := e.seen.waitBatch(ctx, 1); err != nil {
			return err
		}
		if d := e.seen.duplicates(); len(d) > 0 {
			return fmt.Errorf("%d records consumed twice: %v", len(d), d)
		}
		return e.waitCommitted(ctx)
	}},
	{name: "static", static: true, run: func(t *testing.T, ctx context.Context, c matrixClient, e *matrixEnv) error {
		ms, kss, err := startThree(t, ctx, c, e, true)
		defer stopAll(ms)
		if err != nil {
			return err
		}
		before, err := e.waitStable(ctx, c.kip848, 3)
		if err != nil {
			return err
		}
		// The server calls the group Stable as soon as it answers the
		// SyncGroups; a client's assignment callback runs a little later.
		// Take the others' counts only once every member has had its
		// callback and none has come for a while, or a late first callback
		// reads as a rebalance caused by the restart.
		settled, err := e.settledCallbacks(ctx, "instance-0", "instance-1", "instance-2")
		if err != nil {
			return err
		}
		restarted, others := settled[0], settled[1:]
		kss[0].kill()
		go ms[0].stop()
		ks := &killSwitch{}
		ms[0] = c.start(t, e.spec(ks, "instance-0"))
		// The restarted member takes its place (a new member id on
		// instance-0) and gets partitions back, while the others see no
		// rebalance.
		for {
			d, err := e.waitStable(ctx, c.kip848, 3)
			if err != nil {
				return err
			}
			if replacedInstance(before, d, "instance-0") && e.rebalances.snapshot("instance-0")[0] > restarted {
				break
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("instance-0 never came back: %w", ctx.Err())
			case <-time.After(50 * time.Millisecond):
			}
		}
		if now := e.rebalances.snapshot("instance-1", "instance-2"); !slices.Equal(now, others) {
			return fmt.Errorf("the static member's restart rebalanced the others: assignment callbacks %v, then %v", others, now)
		}
		if err := e.produce(ctx, 0); err != nil {
			return err
		}
		if err := e.seen.waitBatch(ctx, 0); err != nil {
			return err
		}
		if d := e.seen.duplicates(); len(d) > 0 {
			return fmt.Errorf("%d records consumed twice: %v", len(d), d)
		}
		return e.waitCommitted(ctx)
	}},
	{name: "migrate", migration: true, run: runMigration},
}

// TestClientCompatibilityMatrix runs every client in every scenario and
// prints the table; any failed cell fails the test.
func TestClientCompatibilityMatrix(t *testing.T) {
	if testing.Short() {
		t.Skip("real clients over loopback")
	}
	results := map[string]string{}
	for _, c := range matrixClients {
		for _, sc := range matrixScenarios {
			cell := c.name + "/" + sc.name
			if sc.static && !c.static || sc.migration && !c.migrates {
				results[cell] = "n/a"
				continue
			}
			t.Run(cell, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
				defer cancel()
				start := time.Now()
				session := matrixSession
				if sc.static {
					session = matrixStaticSession
				}
				e := newMatrixEnv(t, ctx, strings.NewReplacer("/", "-").Replace(cell), session)
				err := sc.run(t, ctx, c, e)
				if err != nil {
					results[cell] = "FAIL"
					t.Error(err)
					return
				}
				results[cell] = fmt.Sprintf("ok %.1fs", time.Since(start).Seconds())
			})
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-24s", "client")
	for _, sc := range matrixScenarios {
		fmt.Fprintf(&b, " %-12s", sc.name)
	}
	b.WriteString("\n")
	for _, c := range matrixClients {
		fmt.Fprintf(&b, "%-24s", c.name)
		for _, sc := range matrixScenarios {
			r := results[c.name+"/"+sc.name]
			if r == "" {
				r = "skipped"
			}
			fmt.Fprintf(&b, " %-12s", r)
		}
		b.WriteString("\n")
	}
	t.Log("client compatibility matrix:\n" + b.String())
	require.False(t, t.Failed())
}

// snapshot returns the counts of values, in order.
func (s *seen) snapshot(values ...string) []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]int, len(values))
	for i, v := range values {
		out[i] = s.counts[v]
	}
	return out
}

// replacedInstance reports whether instanceID is held by another member id
// in after than in before.
func replacedInstance(before, after groupView, instanceID string) bool {
	id := func(v groupView) string {
		for m, inst := range v.members {
			if inst == instanceID {
				return m
			}
		}
		return ""
	}
	a := id(after)
	return a != "" && a != id(before)
}
