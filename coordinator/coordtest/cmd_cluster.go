package coordtest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/plugin/faultstore"
	"github.com/coordsim/coordsim/plugin/memstore"
	"github.com/coordsim/coordsim/shard"
)

// The cluster's commands: the harness, the topic image, time, shard
// placement and what a test inspects.

// coordinator [kafka.config.key=value ...] (re)builds the harness. Values
// are in ms, or minutes for offsets.retention.minutes, a list for
// group.consumer.assignors=(range,uniform). Also:
//
//	partitions=N commit-delay=DUR
//	streams-topology-updates=true   ahead of Kafka: see shard.Config
//	brokers=N                       brokers sharing the clock, logs, store and
//	                                executor; broker 0 hosts every partition
//	plugin=memstore [protocol=v1|v2|v3] [executor=manual|inline]
//	                                KIP-1331's topology description store
func (s *scenario) coordinator(d *datadriven.TestData) (string, error) {
	return "", s.reset(d.CmdArgs)
}

// reset builds the harness the coordinator command describes.
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
		if d, ok := durationKeys(&cfg)[a.Key]; ok {
			*d.field = time.Duration(n) * d.unit
			continue
		}
		if f, ok := intKeys(&cfg)[a.Key]; ok {
			*f = int(n)
			continue
		}
		switch a.Key {
		case "partitions", "offsets.topic.num.partitions":
			cfg.NumPartitions = int32(n)
		case "group.consumer.migration.policy":
			p, err := shard.ParseMigrationPolicy(v)
			if err != nil {
				return err
			}
			cfg.Classic.MigrationPolicy = p
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
	s.classic = classicIDs{byAlias: map[string]string{}}
	return nil
}

// durationKey is a Kafka duration key of the coordinator command: the
// Config field it sets and the unit of its value.
type durationKey struct {
	field *time.Duration
	unit  time.Duration
}

// durationKeys are the coordinator command's duration keys on cfg.
func durationKeys(cfg *coordinator.Config) map[string]durationKey {
	return map[string]durationKey{
		"offsets.retention.minutes":                {&cfg.OffsetsRetention, time.Minute},
		"offsets.retention.check.interval.ms":      {&cfg.OffsetsRetentionCheckInterval, time.Millisecond},
		"group.consumer.session.timeout.ms":        {&cfg.ConsumerSessionTimeout, time.Millisecond},
		"group.streams.session.timeout.ms":         {&cfg.StreamsSessionTimeout, time.Millisecond},
		"group.streams.initial.rebalance.delay.ms": {&cfg.StreamsInitialRebalanceDelay, time.Millisecond},
		"group.share.session.timeout.ms":           {&cfg.ShareSessionTimeout, time.Millisecond},
		"group.consumer.assignment.interval.ms":    {&cfg.ConsumerAssignmentInterval.Interval, time.Millisecond},
		"group.share.assignment.interval.ms":       {&cfg.ShareAssignmentInterval.Interval, time.Millisecond},
		"group.streams.assignment.interval.ms":     {&cfg.StreamsAssignmentInterval.Interval, time.Millisecond},
		"group.streams.task.offset.interval.ms":    {&cfg.StreamsTaskOffsetInterval, time.Millisecond},
	}
}

// intKeys are the coordinator command's whole-number keys on cfg.
func intKeys(cfg *coordinator.Config) map[string]*int {
	return map[string]*int{
		"group.streams.num.standby.replicas": &cfg.StreamsNumStandbyReplicas,
		"group.streams.max.standby.replicas": &cfg.StreamsMaxStandbyReplicas,
		"group.consumer.max.size":            &cfg.ConsumerMaxSize,
		"offset.metadata.max.bytes":          &cfg.OffsetMetadataMaxBytes,
		"group.share.max.size":               &cfg.ShareMaxSize,
		"group.streams.max.size":             &cfg.StreamsMaxSize,
		"group.classic.max.size":             &cfg.Classic.MaxSize,
	}
}

// topics foo=3 bar=2 installs the topic metadata image on every broker.
func (s *scenario) topics(d *datadriven.TestData) (string, error) {
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
}

// topic-racks foo=(a+b,b+c,) gives each partition of foo its replicas'
// racks ("" for none), on top of the last topics image.
func (s *scenario) topicRacks(d *datadriven.TestData) (string, error) {
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
}

// streams-group-config group=G num.standby.replicas=N|default sets (or, with
// default, removes) the group's value on every broker.
func (s *scenario) streamsGroupConfig(d *datadriven.TestData) (string, error) {
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
}

// advance DURATION moves virtual time, firing timers in deadline order, and
// prints the time since the harness was built.
func (s *scenario) advance(d *datadriven.TestData) (string, error) {
	if len(d.CmdArgs) != 1 {
		return "", fmt.Errorf("advance takes one duration")
	}
	dur, err := time.ParseDuration(d.CmdArgs[0].Key)
	if err != nil {
		return "", err
	}
	s.h.Advance(dur)
	return fmt.Sprintf("t=%s", s.h.Now().Sub(s.start)), nil
}

// unload group=G moves the group's shard away from the broker.
func (s *scenario) unload(d *datadriven.TestData) (string, error) {
	return "", s.h.Coordinator.UnloadShard(s.h.Coordinator.PartitionFor(str(d, "group")))
}

// load group=G loads the group's shard back from its log.
func (s *scenario) load(d *datadriven.TestData) (string, error) {
	return "", s.h.Coordinator.LoadShard(s.h.Coordinator.PartitionFor(str(d, "group")))
}

// move group=G (coordinator brokers=N) moves the group's shard from the
// broker hosting it to the next one, as a leader change does: unload there,
// load here. Later commands go to the new owner, and records print as
// "record bB pP@O".
func (s *scenario) move(d *datadriven.TestData) (string, error) {
	if len(s.brokers) < 2 {
		return "", fmt.Errorf("move needs coordinator brokers=2 or more")
	}
	p := s.h.Coordinator.PartitionFor(str(d, "group"))
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

// fail-next-append [error=NOT_ENOUGH_REPLICAS|NOT_LEADER_OR_FOLLOWER] fails
// the next log append with that error (NOT_ENOUGH_REPLICAS by default).
func (s *scenario) failNextAppend(d *datadriven.TestData) (string, error) {
	e := kerr.NotEnoughReplicas
	if d.HasArg("error") && str(d, "error") == "NOT_LEADER_OR_FOLLOWER" {
		e = kerr.NotLeaderOrFollower
	}
	s.h.FailNextAppend(e)
	return "", nil
}

// describe group=G prints the group and its members.
func (s *scenario) describe(d *datadriven.TestData) (string, error) {
	g, err := s.h.Group(str(d, "group"))
	if err != nil {
		return "", err
	}
	return describeText(g), nil
}

// groups lists every group with its type and state.
func (s *scenario) groups(*datadriven.TestData) (string, error) {
	gs, _ := s.h.Coordinator.ListGroups()
	var b strings.Builder
	for _, g := range gs {
		fmt.Fprintf(&b, "%s %s %s\n", g.GroupID, g.Type, g.State)
	}
	return orNone(&b, "no groups"), nil
}

// timers group=G prints the timer keys of the group's shard and their
// deadlines.
func (s *scenario) timers(d *datadriven.TestData) (string, error) {
	h := s.h
	p := h.Coordinator.PartitionFor(str(d, "group"))
	var b strings.Builder
	for _, k := range h.Coordinator.TimerKeys(p) {
		at, _ := h.Coordinator.TimerDeadline(p, k)
		fmt.Fprintf(&b, "%s at %s\n", k, at.Sub(s.start))
	}
	return orNone(&b, "no timers"), nil
}

// metrics [prefix] prints the non-zero metrics whose name starts with
// prefix.
func (s *scenario) metrics(d *datadriven.TestData) (string, error) {
	prefix := ""
	if len(d.CmdArgs) > 0 {
		prefix = d.CmdArgs[0].Key
	}
	var b strings.Builder
	for _, m := range s.h.Coordinator.MetricsSnapshot() {
		if m.Value != 0 && strings.HasPrefix(m.Name.Name, prefix) {
			fmt.Fprintf(&b, "%s%s %g\n", m.Name.Name, m.Name.Tags, m.Value)
		}
	}
	return b.String(), nil
}

// check-replay rebuilds the shards from their logs and compares them with
// the live ones.
func (s *scenario) checkReplay(*datadriven.TestData) (string, error) {
	if err := s.h.CheckReplay(); err != nil {
		return "", err
	}
	return "replay ok", nil
}

// describeText prints a group description: one line for the group, one per
// member with what its type shows, one per regular expression.
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
