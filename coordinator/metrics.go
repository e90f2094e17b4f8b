package coordinator

import (
	"fmt"

	"github.com/coordsim/coordsim/metrics"
	"github.com/coordsim/coordsim/shard"
)

// MetricsGroup is Kafka's group constant for the coordinator's metrics
// (kafka.server:type=group-coordinator-metrics).
const MetricsGroup = "group-coordinator-metrics"

// serviceMetrics holds the coordinator's sensors, named and described as
// Kafka's GroupCoordinatorMetrics registers them (sensor names are Kafka's
// *_SENSOR_NAME constants). Offset commits, expirations and deletions record
// the number of offsets, so their rates are offsets per second, as in Kafka;
// every "-count" is the Meter's cumulative total since the coordinator
// started. Gauges are computed at snapshot time from committed state, so a
// deleted group's series disappear with it.
type serviceMetrics struct {
	reg               *metrics.Registry
	offsetCommits     *metrics.Sensor
	offsetExpirations *metrics.Sensor
	offsetDeletions   *metrics.Sensor
	// classicCompletedRebalances is Kafka's "CompletedRebalances" sensor
	// (group-completed-rebalance-rate/-count), recorded by a classic group's
	// SyncGroup completing a generation. coordsim's classic groups are the
	// memberless ones offset commits create (no JoinGroup/SyncGroup), so it
	// is registered, as Kafka registers it, and stays at zero.
	classicCompletedRebalances *metrics.Sensor
	// Heartbeats that bumped a group's epoch, per group type (Kafka's
	// <type>-group-rebalance-rate/-count), see recordHeartbeatRebalance.
	consumerRebalances *metrics.Sensor
	streamsRebalances  *metrics.Sensor
	shareRebalances    *metrics.Sensor
}

// Kafka's sensor names (GroupCoordinatorMetrics.*_SENSOR_NAME).
const (
	offsetCommitsSensor              = "OffsetCommits"
	offsetExpiredSensor              = "OffsetExpired"
	offsetDeletionsSensor            = "OffsetDeletions"
	classicCompletedRebalancesSensor = "CompletedRebalances"
	consumerGroupRebalancesSensor    = "ConsumerGroupRebalances"
	shareGroupRebalancesSensor       = "ShareGroupRebalances"
	streamsGroupRebalancesSensor     = "StreamsGroupRebalances"
)

func newServiceMetrics(c *Coordinator) *serviceMetrics {
	reg, err := metrics.NewRegistry(metrics.DefaultConfig())
	if err != nil {
		panic(err) // the default configuration is valid
	}
	m := &serviceMetrics{reg: reg}
	m.offsetCommits = mustMeterOf(reg, offsetCommitsSensor, "offset-commit", "committed offsets")
	m.offsetExpirations = mustMeterOf(reg, offsetExpiredSensor, "offset-expiration", "expired offsets")
	m.offsetDeletions = mustMeterOf(reg, offsetDeletionsSensor, "offset-deletion", "administrative deleted offsets")
	m.classicCompletedRebalances = mustMeterOf(reg, classicCompletedRebalancesSensor, "group-completed-rebalance", "classic group completed rebalances")
	m.consumerRebalances = mustMeterOf(reg, consumerGroupRebalancesSensor, "consumer-group-rebalance", "consumer group rebalances")
	m.shareRebalances = mustMeterOf(reg, shareGroupRebalancesSensor, "share-group-rebalance", "share group rebalances")
	m.streamsRebalances = mustMeterOf(reg, streamsGroupRebalancesSensor, "streams-group-rebalance", "streams group rebalances")
	if _, err := reg.RegisterCollector(c.collectGauges); err != nil {
		panic(err)
	}
	return m
}

// mustMeter adds a Kafka Meter named base (base-rate and base-count, each
// with Kafka's description) to a new sensor; it panics on a programming
// error (a bad or duplicate name).
func mustMeter(reg *metrics.Registry, sensor, base, rateDesc, countDesc string) *metrics.Sensor {
	s, err := reg.Sensor(sensor)
	if err != nil {
		panic(err)
	}
	name := metrics.MustMetricName(base, MetricsGroup, rateDesc)
	if err := s.AddMeter(name, metrics.NewMeter(metrics.WithDescriptions(rateDesc, countDesc))); err != nil {
		panic(err)
	}
	return s
}

// AddMeter registers a further Kafka Meter sensor on the coordinator's
// registry (the KIP-1331 engine adds its own). The sensor name must be new.
func (c *Coordinator) AddMeter(sensor, base, description string) (*metrics.Sensor, error) {
	s, err := c.metrics.reg.Sensor(sensor)
	if err != nil {
		return nil, err
	}
	name, err := metrics.NewMetricName(base, MetricsGroup, description)
	if err != nil {
		return nil, err
	}
	if err := s.AddMeter(name, metrics.NewMeter()); err != nil {
		return nil, err
	}
	return s, nil
}

// Metrics returns the coordinator's registry.
func (c *Coordinator) Metrics() *metrics.Registry { return c.metrics.reg }

// MetricsSnapshot measures every metric at the clock's now, sorted.
func (c *Coordinator) MetricsSnapshot() []metrics.Sample {
	return c.metrics.reg.Snapshot(c.nowMs())
}

func (m *serviceMetrics) recordSweep(nowMs int64, _ int32, records []shard.Record) {
	// Kafka records OffsetExpired once per group with its tombstone count.
	group, n := "", 0
	flush := func() {
		if n > 0 {
			m.offsetExpirations.RecordValue(float64(n), nowMs)
		}
	}
	for _, r := range records {
		oc, ok := r.(*shard.OffsetCommit)
		if !ok || !oc.Tombstone {
			continue
		}
		if oc.Group != group {
			flush()
			group, n = oc.Group, 0
		}
		n++
	}
	flush()
}

// recordHeartbeatRebalance records <type>-group-rebalance once when a
// heartbeat's write bumps its group's epoch, where Kafka records it:
// GroupMetadataManager.{consumer,share,streams}GroupHeartbeat call
// metrics.record(<TYPE>_GROUP_REBALANCES_SENSOR_NAME) when bumpGroupEpoch is
// set (a join, a changed subscription or streams member metadata, a changed
// metadata hash, a resolved regex). A leave or a fence also bumps the epoch
// but records nothing (consumerGroupFenceMember and its share and streams
// twins), and neither does the later recomputation of the target, nor the
// streams initial-rebalance timer. before is the group's epoch before the
// heartbeat (existed false for a new group); leaving is a -1/-2 heartbeat.
func (m *serviceMetrics) recordHeartbeatRebalance(nowMs int64, t shard.GroupType, groupID string, before int32, existed, leaving bool, records []shard.Record) {
	if leaving {
		return
	}
	for _, r := range records {
		var group string
		var epoch int32
		var s *metrics.Sensor
		switch r := r.(type) {
		case *shard.ConsumerGroupMetadata:
			if r.Tombstone || t != shard.Consumer {
				continue
			}
			group, epoch, s = r.Group, r.Epoch, m.consumerRebalances
		case *shard.StreamsGroupMetadata:
			if r.Tombstone || t != shard.Streams {
				continue
			}
			group, epoch, s = r.Group, r.Epoch, m.streamsRebalances
		case *shard.ShareGroupMetadata:
			if r.Tombstone || t != shard.Share {
				continue
			}
			group, epoch, s = r.Group, r.Epoch, m.shareRebalances
		default:
			continue
		}
		if group == groupID && (!existed || epoch > before) {
			s.Record(nowMs)
			return
		}
	}
}

// statesOf lists the states Kafka registers a <type>-group-count gauge for,
// per modern group type (GroupCoordinatorMetrics' constructor).
var statesOf = map[shard.GroupType][]shard.GroupState{
	shard.Consumer: {shard.StateEmpty, shard.StateAssigning, shard.StateReconciling, shard.StateStable, shard.StateDead},
	shard.Streams:  {shard.StateEmpty, shard.StateNotReady, shard.StateAssigning, shard.StateReconciling, shard.StateStable, shard.StateDead},
	shard.Share:    {shard.StateEmpty, shard.StateStable, shard.StateDead},
}

// classicStates are Kafka's ClassicGroupState.toString values, the "state"
// tags of classic-group-count, in GroupCoordinatorMetrics' order. coordsim's
// classic groups are the simple ones memberless offset commits create, always
// Empty, so the other four gauges read 0 (Kafka registers all five).
var classicStates = [...]string{"PreparingRebalance", "CompletingRebalance", "Stable", "Dead", "Empty"}

// groupCountDescription is Kafka's description of group-count per protocol.
var groupCountDescription = map[shard.GroupType]string{
	shard.Classic:  "The total number of groups using the classic rebalance protocol.",
	shard.Consumer: "The total number of groups using the consumer rebalance protocol.",
	shard.Streams:  "The total number of groups using the streams rebalance protocol.",
	shard.Share:    "The total number of share groups.",
}

// stateDescription is Kafka's "in <state> state." wording of the per-state
// gauges ("not ready" for NotReady, "preparing rebalance" and so on).
func stateDescription(t string, state string) string {
	words := map[string]string{
		"Empty": "empty", "NotReady": "not ready", "Assigning": "assigning", "Reconciling": "reconciling",
		"Stable": "stable", "Dead": "dead", "PreparingRebalance": "preparing rebalance", "CompletingRebalance": "completing rebalance",
	}
	return "The number of " + t + " groups in " + words[state] + " state."
}

// collectGauges emits Kafka's gauges, group-count{protocol},
// classic-group-count{state}, <type>-group-count{state} and offset-count,
// from the committed state of the hosted shards (GroupCoordinatorMetrics sums
// its active GroupCoordinatorMetricsShards' committed timeline values), plus
// the coordsim-only per-group series when PerGroupMetrics is set.
func (c *Coordinator) collectGauges(_ int64, emit func(metrics.MetricName, metrics.Kind, float64)) {
	var counts [len(shard.GroupTypes)][len(shard.GroupStates)]int
	offsetCount := 0
	shards := ReadAll(c, func(s *shard.Shard) (*shard.Shard, error) { return s, nil })
	for _, r := range shards {
		if r.Err != nil {
			continue
		}
		for ti, t := range shard.GroupTypes {
			for si, st := range shard.GroupStates {
				counts[ti][si] += r.Value.GroupCount(t, st)
			}
		}
		offsetCount += r.Value.OffsetCount()
	}
	for ti, t := range shard.GroupTypes {
		total := 0
		for si := range shard.GroupStates {
			total += counts[ti][si]
		}
		emit(metrics.MustMetricName("group-count", MetricsGroup, groupCountDescription[t], "protocol", t.String()), metrics.KindGauge, float64(total))
		if t == shard.Classic {
			for _, st := range classicStates {
				n := 0
				if st == "Empty" {
					n = counts[ti][shard.StateEmpty]
				}
				emit(metrics.MustMetricName("classic-group-count", MetricsGroup, stateDescription("classic", st), "state", st),
					metrics.KindGauge, float64(n))
			}
			continue
		}
		for _, st := range statesOf[t] {
			emit(metrics.MustMetricName(fmt.Sprintf("%s-group-count", t), MetricsGroup,
				stateDescription(t.String(), st.MetricLabel()), "state", st.MetricLabel()),
				metrics.KindGauge, float64(counts[ti][st]))
		}
	}
	emit(metrics.MustMetricName("offset-count", MetricsGroup, "The number of offsets currently retained for Classic, Consumer, and Streams Groups."),
		metrics.KindGauge, float64(offsetCount))
	if !c.cfg.PerGroupMetrics {
		return
	}
	for _, r := range shards {
		if r.Err != nil {
			continue
		}
		s := r.Value
		s.ListGroups(func(g shard.GroupListing) bool {
			// coordsim-only (Kafka has no per-group series): see PerGroupMetrics.
			emit(metrics.MustMetricName("group-offset-count", MetricsGroup, "Committed offsets of one group (coordsim only)", "group", g.GroupID),
				metrics.KindGauge, float64(s.GroupOffsetCount(g.GroupID)))
			d, _ := s.DescribeGroup(g.GroupID)
			emit(metrics.MustMetricName("group-member-count", MetricsGroup, "Members of one group (coordsim only)", "group", g.GroupID),
				metrics.KindGauge, float64(len(d.Members)))
			return true
		})
	}
}

// mustMeterOf is mustMeter with descriptions in Kafka's wording, "The rate
// of <what>" and "The total number of <what>".
func mustMeterOf(reg *metrics.Registry, sensor, base, what string) *metrics.Sensor {
	return mustMeter(reg, sensor, base, "The rate of "+what, "The total number of "+what)
}
