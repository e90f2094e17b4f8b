package coordtest

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/plugin"
	"github.com/coordsim/coordsim/plugin/faultstore"
	"github.com/coordsim/coordsim/plugin/memstore"
	"github.com/coordsim/coordsim/shard"
)

func parseOp(name string) (plugin.Op, error) {
	switch name {
	case "set":
		return plugin.OpSet, nil
	case "get":
		return plugin.OpGet, nil
	case "delete":
		return plugin.OpDelete, nil
	}
	return 0, fmt.Errorf("op=%q: set, get or delete", name)
}

// RunScenarios runs every scenario file matching glob (for example
// "testdata/*.txt") as a subtest.
func RunScenarios(t *testing.T, glob string) {
	t.Helper()
	files, err := filepath.Glob(glob)
	if err != nil || len(files) == 0 {
		t.Fatalf("coordtest: no scenario files match %q (%v)", glob, err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) { RunScenario(t, f) })
	}
}

// RunScenario runs one scenario file in cockroachdb/datadriven format: prose
// and # comments, then commands with their expected output, regenerated with
// `go test -rewrite`. Every command prints the records it appended. The
// commands are:
//
//	coordinator [kafka.config.key=value ...]   (re)build the harness; values in ms, or minutes for offsets.retention.minutes,
//	                                            a list for group.consumer.assignors=(range,uniform);
//	                                            also partitions=N, commit-delay=DUR, plugin=true,
//	                                            streams-topology-updates=true (ahead of Kafka: see shard.Config), brokers=N (sharing
//	                                            the clock, logs, store and executor; broker 0 hosts every partition)
//	topics foo=3 bar=2                        install the topic metadata image
//	topic-racks foo=(a+b,b+c,)                 the same image with each partition's replica racks
//	consumer-heartbeat group= member= epoch= [topics=(a,b)] [assignor=NAME] [regex=RE2] [rack=R]
//	share-heartbeat    group= member= epoch= [topics=(a,b)] [rack=R]
//	streams-heartbeat  group= member= epoch= [rack=R] [topology-epoch=N subtopologies=(s0:foo+bar,s1:baz)]
//	                   [rebalance-timeout=MS] [owned=(s0-0,s0-1) [standby=(s1-0)] [warmup=()] | no-owned]
//	                   [endpoint=host:port] [endpoint-epoch=N]
//	                                          the user endpoint and the endpoint information epoch the member
//	                                          knows (default 0); with either, or when the response carries
//	                                          endpoints, the line adds endpoint-epoch= and endpoints=
//	                   [process=P] [shutdown]
//	                                          shutdown: ShutdownApplication (KIP-1071's application shutdown)
//	                                          the owned tasks: by default (epoch > 0) a caught-up client's,
//	                                          the tasks its member holds; owned= sends these (standby and
//	                                          warm-up empty unless given); no-owned sends none (Kafka's null)
//	                                          a subtopology may add /repartition=rp@4+rq (repartition source
//	                                          topics, @N fixes the count), /sink=rp (repartition sink topics),
//	                                          /changelog=c1+c2 and /copartition=foo+rp (repeatable)
//	commit group= [member= epoch=] [retention=MS] [version=V] offsets=(foo-0@10,foo-1@20#meta) [metadata=text] [async]
//	                                          #meta: that partition's metadata (metadata=: every partition's)
//	                                          async: do not wait for the commit; its outcome is printed
//	                                          by the command during which it completes
//	txn-commit group= producer= [member= epoch=] offsets=(...)
//	                                          a partition that fails prints its error on its own line
//	end-txn group= producer= (commit|abort)
//	fetch group= [member= epoch=] [partitions=(foo-0,...)] [stable]
//	delete-offsets group= partitions=(foo-0,...)
//	partitions-deleted partitions=(foo-0,...)  the metadata publisher's onPartitionsDeleted: tombstones per shard
//	delete-groups groups=(a,b)
//	alter-share-offsets group= partitions=(foo-0,...)   AlterShareGroupOffsets: prints the bumped group epoch
//	delete-share-offsets group= partitions=(foo-0,...)  DeleteShareGroupOffsets: prints the partitions named
//	describe group=
//	groups                                     list every group with type and state
//	timers group=                              the timer keys of the group's shard
//	advance DURATION                           move virtual time, firing timers in order
//	unload group= / load group=                move the group's shard away / back
//	move group=                                (coordinator brokers=N) move the group's shard to the next broker,
//	                                            which then takes the commands; records print as "record bB pP@O"
//	fail-next-append [error=NOT_ENOUGH_REPLICAS]
//	metrics [prefix]                           non-zero metrics whose name starts with prefix
//	check-replay                               rebuild shards from their logs and compare
//
// KIP-1331 (with coordinator plugin=memstore [protocol=v1|v2] [executor=manual]):
//
//	push group= member= epoch=                 StreamsGroupTopologyDescriptionUpdate with a sample description
//	describe-streams group= [include]          state, stored epoch and topology-description status
//	cleanup-cycle                              run one cleanup cycle now
//	plugin-fail op=set|get|delete group= [fault=transient|permanent] [times=N]
//	executor manual|inline                     park plugin calls from now on, or run them at once
//	plugin-pending / plugin-run op= group=     list / run calls parked by executor=manual
//	plugin-rows                                the store's rows
//	backoff group=                             the group's solicitation back-off
//
// push and describe-streams never advance time: when a plugin call is parked
// they print "pending" and report the outcome when a later command completes it.
func RunScenario(t *testing.T, path string) {
	t.Helper()
	s := &scenario{}
	if err := s.reset(nil); err != nil {
		t.Fatal(err)
	}
	datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
		before := make([]int, len(s.brokers))
		for i, b := range s.brokers {
			before[i] = len(b.Records())
		}
		brokersBefore := s.brokers
		out, err := s.run(d)
		var b strings.Builder
		if err != nil {
			fmt.Fprintf(&b, "error: %v\n", err)
		} else if out != "" {
			b.WriteString(out)
			if !strings.HasSuffix(out, "\n") {
				b.WriteByte('\n')
			}
		}
		b.WriteString(s.reportCompleted())
		for i, br := range s.brokers {
			n := 0
			if len(brokersBefore) == len(s.brokers) && brokersBefore[i] == br {
				n = before[i] // else the command rebuilt the harness
			}
			for _, r := range br.RecordsSince(n) {
				if len(s.brokers) > 1 {
					fmt.Fprintf(&b, "record b%d p%d@%d %s\n", i, r.Partition, r.Offset, shard.Format(r.Record))
				} else {
					fmt.Fprintf(&b, "record p%d@%d %s\n", r.Partition, r.Offset, shard.Format(r.Record))
				}
			}
		}
		if b.Len() == 0 {
			return "ok\n"
		}
		return s.classic.name(b.String())
	})
}

type scenario struct {
	h *Harness // the broker commands go to: the owner after the last move
	// brokers are the cluster's brokers (one unless brokers=N): they share
	// the clock, the partition logs, the store and the executor.
	brokers []*Harness
	start   time.Time
	pending []pendingWrite
	// With plugin=memstore: the store, the fault wrapper the coordinator
	// sees, and (executor=manual) the executor that parks plugin calls.
	store  *memstore.Store
	faults *faultstore.Store
	exec   *ManualExecutor
	// image is the topic metadata image the last topics/topic-racks
	// command installed.
	image shard.TopicImage
	// classic names the classic members by alias (classic.go).
	classic classicIDs
}

// pendingWrite is a write issued with the async flag: the scenario does not
// wait for it, and reports its outcome when a later command completes it.
type pendingWrite struct {
	label string
	poll  func() (done bool, outcome string)
}

// reportCompleted prints, in issue order, the async writes that completed.
func (s *scenario) reportCompleted() string {
	var b strings.Builder
	kept := s.pending[:0]
	for _, w := range s.pending {
		if done, outcome := w.poll(); done {
			fmt.Fprintf(&b, "completed %s: %s\n", w.label, outcome)
			continue
		}
		kept = append(kept, w)
	}
	s.pending = kept
	return b.String()
}

func (s *scenario) reset(args []datadriven.CmdArg) error {
	cfg := coordinator.DefaultConfig()
	cfg.NumPartitions = 1
	var opts []Option
	brokers := 1
	s.store, s.faults, s.exec = nil, nil, &ManualExecutor{Auto: true}
	s.image = shard.TopicImage{}
	for _, a := range args {
		if a.Key == "group.consumer.assignors" {
			cfg.ConsumerAssignors = slices.Clone(a.Vals)
			continue
		}
		if len(a.Vals) != 1 {
			return fmt.Errorf("argument %s needs one value", a.Key)
		}
		v := a.Vals[0]
		n, _ := strconv.ParseInt(v, 10, 64)
		ms := time.Duration(n) * time.Millisecond
		switch a.Key {
		case "partitions", "offsets.topic.num.partitions":
			cfg.NumPartitions = int32(n)
		case "offsets.retention.minutes":
			cfg.OffsetsRetention = time.Duration(n) * time.Minute
		case "offsets.retention.check.interval.ms":
			cfg.OffsetsRetentionCheckInterval = ms
		case "group.consumer.session.timeout.ms":
			cfg.ConsumerSessionTimeout = ms
		case "group.streams.session.timeout.ms":
			cfg.StreamsSessionTimeout = ms
		case "group.streams.num.standby.replicas":
			cfg.StreamsNumStandbyReplicas = int(n)
		case "group.streams.max.standby.replicas":
			cfg.StreamsMaxStandbyReplicas = int(n)
		case "group.streams.initial.rebalance.delay.ms":
			cfg.StreamsInitialRebalanceDelay = ms
		case "group.share.session.timeout.ms":
			cfg.ShareSessionTimeout = ms
		case "group.consumer.max.size":
			cfg.ConsumerMaxSize = int(n)
		case "group.consumer.migration.policy":
			p, err := shard.ParseMigrationPolicy(v)
			if err != nil {
				return err
			}
			cfg.Classic.MigrationPolicy = p
		case "group.classic.max.size":
			cfg.Classic.MaxSize = int(n)
		case "offset.metadata.max.bytes":
			cfg.OffsetMetadataMaxBytes = int(n)
		case "group.share.max.size":
			cfg.ShareMaxSize = int(n)
		case "group.streams.max.size":
			cfg.StreamsMaxSize = int(n)
		case "commit-delay":
			d, err := time.ParseDuration(v)
			if err != nil {
				return err
			}
			cfg.CommitDelay = d
		case "streams-topology-updates":
			b, err := strconv.ParseBool(v)
			if err != nil {
				return err
			}
			cfg.StreamsTopologyUpdates = b
		case "plugin":
			if v != "memstore" {
				return fmt.Errorf("plugin=%s: only memstore is built in", v)
			}
			s.store = memstore.New()
			f, err := faultstore.New(s.store)
			if err != nil {
				return err
			}
			s.faults = f
			opts = append(opts, WithPlugin(f))
		case "protocol":
			cfg.TopologyCleanupProtocol = coordinator.CleanupProtocol(v)
		case "brokers":
			if n < 1 || n > 8 {
				return fmt.Errorf("brokers=%s: 1 to 8", v)
			}
			brokers = int(n)
		case "executor":
			if v != "manual" && v != "inline" {
				return fmt.Errorf("executor=%s: manual or inline", v)
			}
			s.exec.Auto = v == "inline"
		default:
			return fmt.Errorf("unknown configuration %q", a.Key)
		}
	}
	logs, err := coordinator.NewLogs(cfg.NumPartitions)
	if err != nil {
		return err
	}
	clock := NewClock(Epoch)
	s.brokers = nil
	for i := range brokers {
		bopts := append(slices.Clone(opts), WithConfig(cfg), WithExecutor(s.exec), WithLogs(logs), WithClock(clock), WithBrokerID(int32(i)))
		if i > 0 {
			bopts = append(bopts, WithPartitions()) // broker 0 hosts every partition
		}
		h, err := New(bopts...)
		if err != nil {
			return err
		}
		s.brokers = append(s.brokers, h)
	}
	s.h, s.start, s.pending = s.brokers[0], clock.Now(), nil
	s.classic = classicIDs{}
	return nil
}

// move moves the group's shard from the broker hosting it to the next one,
// as a leader change does: unload there, load here; later commands go to
// the new owner.
func (s *scenario) move(groupID string) (string, error) {
	if len(s.brokers) < 2 {
		return "", fmt.Errorf("move needs coordinator brokers=2 or more")
	}
	p := s.h.Coordinator.PartitionFor(groupID)
	from := slices.IndexFunc(s.brokers, func(b *Harness) bool { return slices.Contains(b.Coordinator.HostedPartitions(), p) })
	if from < 0 {
		return "", fmt.Errorf("no broker hosts partition %d", p)
	}
	to := (from + 1) % len(s.brokers)
	if err := s.brokers[from].Coordinator.UnloadShard(p); err != nil {
		return "", err
	}
	if err := s.brokers[to].Coordinator.LoadShard(p); err != nil {
		return "", err
	}
	s.h = s.brokers[to]
	epoch, _ := s.h.Coordinator.LoadEpoch(p)
	return fmt.Sprintf("p%d: broker %d -> broker %d at load epoch %d", p, from, to, epoch), nil
}

// awaitOrPark returns a future's outcome when it is done; otherwise the
// scenario parks it and reports it when a later command completes it. It
// never advances time, so a parked plugin call cannot make it hang.
func awaitOrPark[T any](s *scenario, label string, f *coordinator.Future[T], describe func(T, error) string) string {
	if f.Done() {
		return describe(f.Result())
	}
	s.pending = append(s.pending, pendingWrite{label: label, poll: func() (bool, string) {
		v, err := f.Result()
		return f.Done(), describe(v, err)
	}})
	return "pending"
}

func (s *scenario) needPlugin() error {
	if s.faults == nil {
		return fmt.Errorf("this command needs coordinator plugin=memstore")
	}
	return nil
}

func (s *scenario) run(d *datadriven.TestData) (string, error) {
	h := s.h
	switch d.Cmd {
	case "coordinator":
		return "", s.reset(d.CmdArgs)
	case "topics":
		topics := map[string]int32{}
		for _, a := range d.CmdArgs {
			if len(a.Vals) != 1 {
				return "", fmt.Errorf("topics: %s needs one partition count", a.Key)
			}
			n, err := strconv.Atoi(a.Vals[0])
			if err != nil {
				return "", err
			}
			topics[a.Key] = int32(n)
		}
		return "", s.setImage(shard.TopicImage{Partitions: topics})
	case "topic-racks":
		// topic-racks foo=(a+b,b+c,c) gives each partition of foo its
		// replicas' racks ("" for none), on top of the last topics image.
		img := shard.TopicImage{Partitions: s.image.Partitions, Racks: map[string][][]string{}}
		for _, a := range d.CmdArgs {
			parts := make([][]string, len(a.Vals))
			for i, v := range a.Vals {
				if v != "" {
					parts[i] = strings.Split(v, "+")
				}
			}
			img.Racks[a.Key] = parts
		}
		return "", s.setImage(img)
	case "streams-group-config":
		// streams-group-config group=G num.standby.replicas=N (or =default
		// to remove the group's value) on every broker.
		var gc coordinator.StreamsGroupConfig
		if v := str(d, "num.standby.replicas"); v != "default" {
			n := int32(num(d, "num.standby.replicas", 0))
			gc.NumStandbyReplicas = &n
		}
		for _, b := range s.brokers {
			if err := b.Coordinator.SetStreamsGroupConfig(str(d, "group"), gc); err != nil {
				return "", err
			}
		}
		return "", nil
	case "consumer-heartbeat":
		req := shard.ConsumerGroupHeartbeatRequest{GroupID: str(d, "group"), MemberID: str(d, "member"),
			MemberEpoch: int32(num(d, "epoch", 0)), RebalanceTimeoutMs: int32(num(d, "rebalance-timeout-ms", 0)),
			SubscribedTopicNames: list(d, "topics"), InstanceID: str(d, "instance"), RackID: str(d, "rack")}
		if req.MemberEpoch == 0 && req.RebalanceTimeoutMs == 0 {
			req.RebalanceTimeoutMs = 300_000 // required on a join
		}
		if a, ok := d.Arg("assignor"); ok && len(a.Vals) == 1 {
			req.ServerAssignor = &a.Vals[0]
		}
		if a, ok := d.Arg("regex"); ok && len(a.Vals) == 1 {
			req.SubscribedTopicRegex = &a.Vals[0] // regex=() clears it
		}
		if d.HasArg("owned") {
			// owned=(foo-0,foo-1) is TopicPartitions; owned=() sends it empty.
			owned, err := ownedPartitions(list(d, "owned"))
			if err != nil {
				return "", err
			}
			req.TopicPartitions = owned
		}
		r, err := Await(h, h.Coordinator.ConsumerGroupHeartbeat(req))
		if err != nil {
			return "", err
		}
		return heartbeatLine(r.MemberEpoch, r.HasAssignment, shard.FormatAssignment(r.Assignment), ""), nil
	case "share-heartbeat":
		req := shard.ShareGroupHeartbeatRequest{GroupID: str(d, "group"), MemberID: str(d, "member"),
			MemberEpoch: int32(num(d, "epoch", 0)), SubscribedTopicNames: list(d, "topics"), RackID: str(d, "rack")}
		r, err := Await(h, h.Coordinator.ShareGroupHeartbeat(req))
		if err != nil {
			return "", err
		}
		return heartbeatLine(r.MemberEpoch, r.HasAssignment, shard.FormatAssignment(r.Assignment), ""), nil
	case "streams-heartbeat":
		req := shard.StreamsGroupHeartbeatRequest{GroupID: str(d, "group"), MemberID: str(d, "member"),
			MemberEpoch: int32(num(d, "epoch", 0)), ProcessID: str(d, "process"), RackID: str(d, "rack"),
			RebalanceTimeoutMs: int32(num(d, "rebalance-timeout", 0)), Version: 1, ShutdownApplication: d.HasArg("shutdown")}
		if req.MemberEpoch == 0 && req.RebalanceTimeoutMs == 0 {
			// Required on a join; a client sends it on joins only (Kafka
			// Streams' heartbeat state sends -1 otherwise).
			req.RebalanceTimeoutMs = 300_000
		}
		if d.HasArg("subtopologies") {
			req.Topology = &shard.Topology{Epoch: int32(num(d, "topology-epoch", 0))}
			for _, spec := range list(d, "subtopologies") {
				st, err := parseSubtopology(spec)
				if err != nil {
					return "", err
				}
				req.Topology.Subtopologies = append(req.Topology.Subtopologies, st)
			}
		}
		if err := streamsOwnedTasks(h, d, &req); err != nil {
			return "", err
		}
		if e := str(d, "endpoint"); e != "" {
			host, port, ok := strings.Cut(e, ":")
			n, err := strconv.ParseUint(port, 10, 16)
			if !ok || err != nil {
				return "", fmt.Errorf("endpoint %q is not host:port", e)
			}
			req.UserEndpoint = &shard.Endpoint{Host: host, Port: uint16(n)}
		}
		req.EndpointInformationEpoch = int32(num(d, "endpoint-epoch", 0))
		r, err := Await(h, h.Coordinator.StreamsGroupHeartbeat(req))
		if err != nil {
			return "", err
		}
		var status []string
		for _, st := range r.Status {
			status = append(status, st.String())
		}
		tasks := shard.FormatTasks(r.ActiveTasks)
		if len(r.StandbyTasks) > 0 {
			tasks += " standby=" + shard.FormatTasks(r.StandbyTasks)
		}
		if len(r.WarmupTasks) > 0 {
			tasks += " warmup=" + shard.FormatTasks(r.WarmupTasks)
		}
		line := heartbeatLine(r.MemberEpoch, r.HasAssignment, tasks, strings.Join(status, ","))
		if r.TopologyDescriptionRequired {
			line += " topology-description-required"
		}
		if d.HasArg("endpoint") || d.HasArg("endpoint-epoch") || len(r.PartitionsByUserEndpoint) > 0 {
			line += fmt.Sprintf(" endpoint-epoch=%d", r.EndpointInformationEpoch)
			if r.PartitionsByUserEndpoint != nil {
				line += " endpoints=" + formatEndpoints(r.PartitionsByUserEndpoint)
			}
		}
		if len(r.InternalTopicsToCreate) > 0 {
			var create []string
			for _, ct := range r.InternalTopicsToCreate {
				create = append(create, fmt.Sprintf("%s@%d", ct.Name, ct.NumPartitions))
			}
			line += " create=(" + strings.Join(create, ",") + ")"
		}
		return line, nil
	case "push":
		f := h.Coordinator.StreamsGroupTopologyDescriptionUpdate(coordinator.TopologyDescriptionUpdateRequest{
			GroupID: str(d, "group"), MemberID: str(d, "member"), TopologyEpoch: int32(num(d, "epoch", 0)),
			Description: plugin.SampleTopology(uint64(num(d, "epoch", 0)), 2)})
		return awaitOrPark(s, fmt.Sprintf("push %s@%d", str(d, "group"), num(d, "epoch", 0)), f, func(_ struct{}, err error) string {
			if err != nil {
				return "error: " + err.Error()
			}
			return "stored"
		}), nil
	case "describe-streams":
		f := h.Coordinator.DescribeStreamsGroups([]string{str(d, "group")}, d.HasArg("include"))
		return awaitOrPark(s, "describe "+str(d, "group"), f, func(rows []coordinator.StreamsGroupDescription, err error) string {
			if err != nil {
				return "error: " + err.Error()
			}
			r := rows[0]
			if r.Err != nil {
				return fmt.Sprintf("error: %v (status %s)", r.Err, r.TopologyDescriptionStatus)
			}
			line := fmt.Sprintf("state=%s stored=%d status=%s", r.Group.State, r.Group.StoredDescriptionTopologyEpoch, r.TopologyDescriptionStatus)
			if r.TopologyDescription != nil {
				line += fmt.Sprintf(" nodes=%d", r.TopologyDescription.NodeCount())
			}
			return line
		}), nil
	case "cleanup-cycle":
		before := len(s.h.Records())
		_ = before
		if h.Coordinator.RunTopologyCleanupCycle() {
			return "cycle started", nil
		}
		return "cycle not started", nil
	case "plugin-fail":
		if err := s.needPlugin(); err != nil {
			return "", err
		}
		op, err := parseOp(str(d, "op"))
		if err != nil {
			return "", err
		}
		fault := faultstore.FaultTransient
		if str(d, "fault") == "permanent" {
			fault = faultstore.FaultPermanent
		}
		return "", s.faults.FailGroup(str(d, "group"), op, fault, int(num(d, "times", 1)))
	case "executor":
		switch {
		case d.HasArg("manual"):
			s.exec.Auto = false
		case d.HasArg("inline"):
			s.exec.Auto = true
		default:
			return "", fmt.Errorf("executor manual|inline")
		}
		return "", nil
	case "plugin-pending":
		var b strings.Builder
		for _, pc := range s.exec.Pending() {
			fmt.Fprintf(&b, "%s %s\n", pc.Op, pc.GroupID)
		}
		if b.Len() == 0 {
			return "no parked calls", nil
		}
		return b.String(), nil
	case "plugin-run":
		op, err := parseOp(str(d, "op"))
		if err != nil {
			return "", err
		}
		if !s.exec.Run(op, str(d, "group")) {
			return "", fmt.Errorf("no parked %s call for %q", op, str(d, "group"))
		}
		return "", nil
	case "plugin-rows":
		if err := s.needPlugin(); err != nil {
			return "", err
		}
		var b strings.Builder
		for _, e := range s.store.List() {
			fmt.Fprintf(&b, "%s epoch=%d\n", e.GroupID, e.TopologyEpoch)
		}
		if b.Len() == 0 {
			return "no rows", nil
		}
		return b.String(), nil
	case "backoff":
		e, attempts, next, ok := h.Coordinator.TopologyBackoff().Entry(str(d, "group"))
		if !ok {
			return "no back-off", nil
		}
		return fmt.Sprintf("epoch=%d attempts=%d next-at=%s", e, attempts, time.UnixMilli(next).Sub(s.start)), nil
	case "commit", "txn-commit":
		topics, err := commitTopics(d)
		if err != nil {
			return "", err
		}
		var f *coordinator.Future[shard.OffsetCommitResponse]
		if d.Cmd == "commit" {
			f = h.Coordinator.CommitOffsets(shard.OffsetCommitRequest{GroupID: str(d, "group"), MemberID: s.classic.resolve(str(d, "member")),
				MemberEpoch: int32(num(d, "epoch", -1)), RetentionTimeMs: num(d, "retention", -1),
				APIVersion: int16(num(d, "version", 0)), Topics: topics})
		} else {
			f = h.Coordinator.CommitTransactionalOffsets(shard.TxnOffsetCommitRequest{GroupID: str(d, "group"),
				ProducerID: num(d, "producer", 0), MemberID: str(d, "member"), MemberEpoch: int32(num(d, "epoch", -1)), Topics: topics})
		}
		describe := func(r shard.OffsetCommitResponse, err error) string {
			if err != nil {
				return "error: " + err.Error()
			}
			return fmt.Sprintf("committed %d", r.Committed) + partitionErrors(r.Topics)
		}
		if d.HasArg("async") {
			if f.Done() {
				r, err := f.Result()
				return describe(r, err), nil
			}
			label := fmt.Sprintf("%s %s", d.Cmd, strings.Join(list(d, "offsets"), ","))
			s.pending = append(s.pending, pendingWrite{label: label, poll: func() (bool, string) {
				r, err := f.Result()
				return f.Done(), describe(r, err)
			}})
			return "pending", nil
		}
		r, err := Await(h, f)
		if err != nil {
			return "", err
		}
		return describe(r, nil), nil
	case "end-txn":
		_, err := Await(h, h.Coordinator.EndTransaction(str(d, "group"), num(d, "producer", 0), d.HasArg("commit")))
		return "", err
	case "fetch":
		req := shard.OffsetFetchRequest{GroupID: str(d, "group"), MemberID: str(d, "member"),
			MemberEpoch: int32(num(d, "epoch", -1)), RequireStable: d.HasArg("stable")}
		if d.HasArg("partitions") {
			tps, err := topicPartitions(list(d, "partitions"))
			if err != nil {
				return "", err
			}
			req.Topics = tps
		}
		offs, err := h.Coordinator.OffsetFetch(req)
		if err != nil {
			return "", err
		}
		var b strings.Builder
		for _, o := range offs {
			fmt.Fprintf(&b, "%s-%d offset=%d", o.Topic, o.Partition, o.Offset)
			if o.Err != nil {
				fmt.Fprintf(&b, " error=%s", kerr.Name(o.Err))
			}
			b.WriteString("\n")
		}
		if b.Len() == 0 {
			return "no offsets", nil
		}
		return b.String(), nil
	case "delete-offsets":
		var tps []shard.TopicPartitions
		for _, tp := range list(d, "partitions") {
			topic, p, err := splitTopicPartition(tp)
			if err != nil {
				return "", err
			}
			tps = append(tps, shard.TopicPartitions{Topic: topic, Partitions: []int32{p}})
		}
		r, err := Await(h, h.Coordinator.DeleteOffsets(str(d, "group"), tps))
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("deleted %d", r.Deleted) + partitionErrors(r.Topics), nil
	case "partitions-deleted":
		// partitions-deleted partitions=(foo-0,foo-1) is the metadata
		// publisher's onPartitionsDeleted: the tombstones each hosted shard
		// wrote, one line per shard.
		tps, err := topicPartitions(list(d, "partitions"))
		if err != nil {
			return "", err
		}
		rs, err := Await(h, h.Coordinator.OnPartitionsDeleted(tps))
		if err != nil {
			return "error: " + err.Error(), nil
		}
		var b strings.Builder
		for _, r := range rs {
			if r.Err != nil {
				fmt.Fprintf(&b, "p%d: %s\n", r.Partition, errName(r.Err))
			} else if r.Value > 0 {
				fmt.Fprintf(&b, "p%d: tombstones=%d\n", r.Partition, r.Value)
			}
		}
		if b.Len() == 0 {
			return "no tombstones", nil
		}
		return b.String(), nil
	case "alter-share-offsets", "delete-share-offsets":
		tps, err := topicPartitions(list(d, "partitions"))
		if err != nil {
			return "", err
		}
		if d.Cmd == "alter-share-offsets" {
			epoch, err := Await(h, h.Coordinator.AlterShareGroupOffsets(str(d, "group"), tps))
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("group-epoch=%d", epoch), nil
		}
		n, err := Await(h, h.Coordinator.DeleteShareGroupOffsets(str(d, "group"), tps))
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("partitions=%d", n), nil
	case "delete-groups":
		rs, err := h.DeleteGroups(list(d, "groups")...)
		if err != nil {
			return "", err
		}
		var b strings.Builder
		for _, r := range rs {
			fmt.Fprintf(&b, "%s: %s\n", r.GroupID, errName(r.Err))
		}
		return b.String(), nil
	case "describe":
		g, err := h.Group(str(d, "group"))
		if err != nil {
			return "", err
		}
		return describeText(g), nil
	case "groups":
		gs, _ := h.Coordinator.ListGroups()
		var b strings.Builder
		for _, g := range gs {
			fmt.Fprintf(&b, "%s %s %s\n", g.GroupID, g.Type, g.State)
		}
		if b.Len() == 0 {
			return "no groups", nil
		}
		return b.String(), nil
	case "timers":
		p := h.Coordinator.PartitionFor(str(d, "group"))
		var b strings.Builder
		for _, k := range h.Coordinator.TimerKeys(p) {
			at, _ := h.Coordinator.TimerDeadline(p, k)
			fmt.Fprintf(&b, "%s at %s\n", k, at.Sub(s.start))
		}
		if b.Len() == 0 {
			return "no timers", nil
		}
		return b.String(), nil
	case "advance":
		if len(d.CmdArgs) != 1 {
			return "", fmt.Errorf("advance takes one duration")
		}
		dur, err := time.ParseDuration(d.CmdArgs[0].Key)
		if err != nil {
			return "", err
		}
		h.Advance(dur)
		return fmt.Sprintf("t=%s", h.Now().Sub(s.start)), nil
	case "unload":
		return "", h.Coordinator.UnloadShard(h.Coordinator.PartitionFor(str(d, "group")))
	case "load":
		return "", h.Coordinator.LoadShard(h.Coordinator.PartitionFor(str(d, "group")))
	case "move":
		return s.move(str(d, "group"))
	case "fail-next-append":
		e := kerr.NotEnoughReplicas
		if d.HasArg("error") && str(d, "error") == "NOT_LEADER_OR_FOLLOWER" {
			e = kerr.NotLeaderOrFollower
		}
		h.FailNextAppend(e)
		return "", nil
	case "metrics":
		prefix := ""
		if len(d.CmdArgs) > 0 {
			prefix = d.CmdArgs[0].Key
		}
		var b strings.Builder
		for _, m := range h.Coordinator.MetricsSnapshot() {
			if m.Value != 0 && strings.HasPrefix(m.Name.Name, prefix) {
				fmt.Fprintf(&b, "%s%s %g\n", m.Name.Name, m.Name.Tags, m.Value)
			}
		}
		return b.String(), nil
	case "check-replay":
		if err := h.CheckReplay(); err != nil {
			return "", err
		}
		return "replay ok", nil
	}
	if out, ok, err := s.runClassic(d); ok {
		return out, err
	}
	return "", fmt.Errorf("unknown command %q", d.Cmd)
}

func heartbeatLine(epoch int32, has bool, assignment, status string) string {
	line := fmt.Sprintf("member-epoch=%d", epoch)
	if has {
		line += " assignment=" + assignment
	}
	if status != "" {
		line += " status=" + status
	}
	return line
}

func describeText(g shard.GroupDescription) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s state=%s epoch=%d assignment-epoch=%d", g.GroupID, g.Type, g.State, g.Epoch, g.AssignmentEpoch)
	if g.Type == shard.Streams {
		fmt.Fprintf(&b, " topology=%s stored=%d failed=%d", shard.FormatTopology(g.Topology), g.StoredDescriptionTopologyEpoch, g.FailedDescriptionTopologyEpoch)
	}
	b.WriteByte('\n')
	for _, m := range g.Members {
		assigned := shard.FormatAssignment(m.Assignment)
		if g.Type == shard.Streams {
			assigned = shard.FormatTasks(m.ActiveTasks)
		}
		fmt.Fprintf(&b, "  member %s epoch=%d assigned=%s", m.MemberID, m.MemberEpoch, assigned)
		if m.SubscribedTopicRegex != "" {
			fmt.Fprintf(&b, " regex=%q", m.SubscribedTopicRegex)
		}
		if m.RackID != "" {
			fmt.Fprintf(&b, " rack=%s", m.RackID)
		}
		if m.UserEndpoint != nil {
			fmt.Fprintf(&b, " endpoint=%s", m.UserEndpoint)
		}
		if g.Type == shard.Consumer {
			if m.State != shard.MemberStable {
				fmt.Fprintf(&b, " state=%s", m.State)
			}
			if len(m.PartitionsPendingRevocation) > 0 {
				fmt.Fprintf(&b, " revoking=%s", shard.FormatAssignment(m.PartitionsPendingRevocation))
			}
			if m.InstanceID != "" {
				fmt.Fprintf(&b, " instance=%s", m.InstanceID)
			}
		}
		b.WriteByte('\n')
	}
	for _, r := range g.RegularExpressions {
		fmt.Fprintf(&b, "  regex %q topics=[%s]\n", r.Regex, strings.Join(r.Topics, ","))
	}
	return b.String()
}

func errName(err error) string {
	if err == nil {
		return "deleted"
	}
	return kerr.Name(err)
}

func str(d *datadriven.TestData, key string) string {
	a, ok := d.Arg(key)
	if !ok || len(a.Vals) == 0 {
		return ""
	}
	return a.Vals[0]
}

// num returns a numeric argument, or def when it is absent. A malformed
// number is a broken scenario file: it panics with the file position, which
// fails the test loudly instead of running with a default.
func num(d *datadriven.TestData, key string, def int64) int64 {
	a, ok := d.Arg(key)
	if !ok || len(a.Vals) == 0 {
		return def
	}
	n, err := strconv.ParseInt(a.Vals[0], 10, 64)
	if err != nil {
		panic(fmt.Sprintf("%s: %s=%s is not a number", d.Pos, key, a.Vals[0]))
	}
	return n
}

// list returns a list argument: nil when absent, empty (not nil) for "()".
// parseSubtopology reads "id:src1+src2[/repartition=rp@4+rq][/sink=rp]
// [/changelog=c][/copartition=src1+rp]...": an empty source list is
// allowed ("s1:/repartition=rp").
func parseSubtopology(spec string) (shard.Subtopology, error) {
	segs := strings.Split(spec, "/")
	id, sources, ok := strings.Cut(segs[0], ":")
	if !ok {
		return shard.Subtopology{}, fmt.Errorf("subtopology %q: want id:topics", spec)
	}
	st := shard.Subtopology{ID: id}
	if sources != "" {
		st.SourceTopics = strings.Split(sources, "+")
	}
	var copartitions [][]string
	for _, seg := range segs[1:] {
		key, val, _ := strings.Cut(seg, "=")
		names := strings.Split(val, "+")
		switch key {
		case "repartition":
			for _, n := range names {
				name, parts, fixed := strings.Cut(n, "@")
				ti := shard.TopicInfo{Name: name}
				if fixed {
					p, err := strconv.Atoi(parts)
					if err != nil {
						return st, fmt.Errorf("subtopology %q: partitions of %q: %w", spec, n, err)
					}
					ti.Partitions = int32(p)
				}
				st.RepartitionSourceTopics = append(st.RepartitionSourceTopics, ti)
			}
		case "sink":
			st.RepartitionSinkTopics = append(st.RepartitionSinkTopics, names...)
		case "changelog":
			for _, n := range names {
				st.StateChangelogTopics = append(st.StateChangelogTopics, shard.TopicInfo{Name: n})
			}
		case "copartition":
			copartitions = append(copartitions, names)
		default:
			return st, fmt.Errorf("subtopology %q: unknown part %q", spec, key)
		}
	}
	// Copartition groups name topics; the model holds indexes.
	for _, names := range copartitions {
		var cg shard.CopartitionGroup
		for _, n := range names {
			if i := slices.Index(st.SourceTopics, n); i >= 0 {
				cg.SourceTopics = append(cg.SourceTopics, int16(i))
			} else if i := slices.Index(st.RepartitionSourceTopicNames(), n); i >= 0 {
				cg.RepartitionSourceTopics = append(cg.RepartitionSourceTopics, int16(i))
			} else {
				return st, fmt.Errorf("subtopology %q: copartitioned topic %q is not read", spec, n)
			}
		}
		st.CopartitionGroups = append(st.CopartitionGroups, cg)
	}
	return st, nil
}

// setImage installs img on every broker.
func (s *scenario) setImage(img shard.TopicImage) error {
	for _, b := range s.brokers {
		if err := b.Coordinator.SetTopicImage(img); err != nil {
			return err
		}
	}
	s.image = img
	return nil
}

func list(d *datadriven.TestData, key string) []string {
	if a, ok := d.Arg(key); ok {
		if len(a.Vals) == 1 && a.Vals[0] == "" {
			return []string{}
		}
		return slices.Clone(a.Vals)
	}
	return nil
}

// ownedPartitions groups "topic-partition" strings into TopicPartitions,
// sorted; never nil.
// streamsOwnedTasks fills a streams heartbeat's owned tasks (see
// RunScenario's streams-heartbeat).
func streamsOwnedTasks(h *Harness, d *datadriven.TestData, req *shard.StreamsGroupHeartbeatRequest) error {
	if d.HasArg("no-owned") {
		return nil
	}
	if d.HasArg("owned") {
		var sets [3][]shard.TaskIDs
		for i, key := range [3]string{"owned", "standby", "warmup"} {
			sets[i] = []shard.TaskIDs{}
			if !d.HasArg(key) {
				continue
			}
			tps, err := ownedPartitions(list(d, key))
			if err != nil {
				return err
			}
			for _, tp := range tps {
				sets[i] = append(sets[i], shard.TaskIDs{SubtopologyID: tp.Topic, Partitions: tp.Partitions})
			}
		}
		req.ActiveTasks, req.StandbyTasks, req.WarmupTasks = sets[0], sets[1], sets[2]
		return nil
	}
	if req.MemberEpoch <= 0 {
		return nil
	}
	req.ActiveTasks, req.StandbyTasks, req.WarmupTasks = []shard.TaskIDs{}, []shard.TaskIDs{}, []shard.TaskIDs{}
	g, err := h.Group(req.GroupID)
	if err != nil {
		return nil // the heartbeat answers for a missing group
	}
	for _, m := range g.Members {
		if m.MemberID == req.MemberID {
			req.ActiveTasks = append(req.ActiveTasks, m.ActiveTasks...)
			req.StandbyTasks = append(req.StandbyTasks, m.StandbyTasks...)
			req.WarmupTasks = append(req.WarmupTasks, m.WarmupTasks...)
		}
	}
	return nil
}

// ownedPartitions parses topic-partition specs as topicPartitions does,
// sorted by topic and partition and never nil: owned=() is an empty list
// (the member owns nothing), not a missing one.
func ownedPartitions(specs []string) ([]shard.TopicPartitions, error) {
	out, err := topicPartitions(specs)
	if err != nil {
		return nil, err
	}
	if out == nil {
		out = []shard.TopicPartitions{}
	}
	for i := range out {
		slices.Sort(out[i].Partitions)
	}
	slices.SortFunc(out, func(a, b shard.TopicPartitions) int { return strings.Compare(a.Topic, b.Topic) })
	return out, nil
}

func splitTopicPartition(s string) (string, int32, error) {
	i := strings.LastIndexByte(s, '-')
	if i > 0 && s[i-1] == '-' {
		i-- // "foo--1" is topic foo, partition -1
	}
	if i <= 0 {
		return "", 0, fmt.Errorf("%q is not topic-partition", s)
	}
	p, err := strconv.Atoi(s[i+1:])
	if err != nil {
		return "", 0, fmt.Errorf("%q is not topic-partition", s)
	}
	return s[:i], int32(p), nil
}

// topicPartitions parses topic-partition specs into request topics, one
// entry per topic in first-seen order; "()" names none.
func topicPartitions(specs []string) ([]shard.TopicPartitions, error) {
	var out []shard.TopicPartitions
	for _, spec := range specs {
		if spec == "" {
			continue
		}
		topic, p, err := splitTopicPartition(spec)
		if err != nil {
			return nil, err
		}
		i := slices.IndexFunc(out, func(tp shard.TopicPartitions) bool { return tp.Topic == topic })
		if i < 0 {
			out = append(out, shard.TopicPartitions{Topic: topic})
			i = len(out) - 1
		}
		out[i].Partitions = append(out[i].Partitions, p)
	}
	return out, nil
}

// partitionErrors prints the partitions of a per-partition response that
// failed, one line each, in response order.
func partitionErrors(topics []shard.TopicResults) string {
	var b strings.Builder
	for _, t := range topics {
		for _, p := range t.Partitions {
			if p.Err != nil {
				fmt.Fprintf(&b, "\n%s-%d: %v", t.Topic, p.Partition, p.Err)
			}
		}
	}
	return b.String()
}

func commitTopics(d *datadriven.TestData) ([]shard.OffsetCommitTopic, error) {
	var topics []shard.OffsetCommitTopic
	for _, o := range list(d, "offsets") {
		tp, off, ok := strings.Cut(o, "@")
		if !ok {
			return nil, fmt.Errorf("%q is not topic-partition@offset[#metadata]", o)
		}
		metadata := str(d, "metadata")
		if o, m, ok := strings.Cut(off, "#"); ok {
			off, metadata = o, m
		}
		topic, p, err := splitTopicPartition(tp)
		if err != nil {
			return nil, err
		}
		offset, err := strconv.ParseInt(off, 10, 64)
		if err != nil {
			return nil, err
		}
		part := shard.OffsetCommitPartition{Partition: p, Offset: offset, LeaderEpoch: -1, Metadata: metadata}
		if n := len(topics); n > 0 && topics[n-1].Topic == topic {
			topics[n-1].Partitions = append(topics[n-1].Partitions, part)
		} else {
			topics = append(topics, shard.OffsetCommitTopic{Topic: topic, Partitions: []shard.OffsetCommitPartition{part}})
		}
	}
	return topics, nil
}

// formatEndpoints prints PartitionsByUserEndpoint as
// (host:port{foo:0,1|standby foo:2},...).
func formatEndpoints(eps []shard.EndpointPartitions) string {
	var parts []string
	for _, e := range eps {
		p := e.UserEndpoint.String() + "{" + shard.FormatAssignment(e.ActivePartitions)
		if len(e.StandbyPartitions) > 0 {
			p += "|standby " + shard.FormatAssignment(e.StandbyPartitions)
		}
		parts = append(parts, p+"}")
	}
	return "(" + strings.Join(parts, ",") + ")"
}
