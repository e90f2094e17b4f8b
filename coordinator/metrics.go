package coordinator

import (
	"fmt"

	"github.com/coordsim/coordsim/metrics"
	"github.com/coordsim/coordsim/shard"
)

// MetricsGroup is Kafka's group constant for the coordinator's metrics
// (kafka.server:type=group-coordinator-metrics).
const MetricsGroup = "group-coordinator-metrics"

// serviceMetrics holds the coordinator's sensors. Offset commits, expirations
// and deletions record the number of offsets, so their rates are offsets per
// second, as in Kafka. Gauges are computed at snapshot time from committed
// state, so a deleted group's series disappear with it.
type serviceMetrics struct {
	reg               *metrics.Registry
	offsetCommits     *metrics.Sensor
	offsetExpirations *metrics.Sensor
	offsetDeletions   *metrics.Sensor
	// Target-assignment recomputations per group type (Kafka's
	// <type>-group-rebalance-rate/-count), see recordRebalances.
	consumerRebalances *metrics.Sensor
	streamsRebalances  *metrics.Sensor
	shareRebalances    *metrics.Sensor
}

func newServiceMetrics(c *Coordinator) *serviceMetrics {
	reg, err := metrics.NewRegistry(metrics.DefaultConfig())
	if err != nil {
		panic(err) // the default configuration is valid
	}
	m := &serviceMetrics{reg: reg}
	m.offsetCommits = mustMeter(reg, "OffsetCommits", "offset-commit", "committed offsets")
	m.offsetExpirations = mustMeter(reg, "OffsetExpired", "offset-expiration", "expired offsets")
	m.offsetDeletions = mustMeter(reg, "OffsetDeletions", "offset-deletion", "administratively deleted offsets")
	m.consumerRebalances = mustMeter(reg, "ConsumerGroupRebalances", "consumer-group-rebalance", "consumer group rebalances")
	m.streamsRebalances = mustMeter(reg, "StreamsGroupRebalances", "streams-group-rebalance", "streams group rebalances")
	m.shareRebalances = mustMeter(reg, "ShareGroupRebalances", "share-group-rebalance", "share group rebalances")
	if _, err := reg.RegisterCollector(c.collectGauges); err != nil {
		panic(err)
	}
	return m
}

// mustMeter adds a Kafka Meter named base (base-rate and base-count) to a new
// sensor; it panics on a programming error (a bad or duplicate name).
func mustMeter(reg *metrics.Registry, sensor, base, what string) *metrics.Sensor {
	s, err := reg.Sensor(sensor)
	if err != nil {
		panic(err)
	}
	name := metrics.MustMetricName(base, MetricsGroup, "The rate and count of "+what)
	if err := s.AddMeter(name, metrics.NewMeter()); err != nil {
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

func (m *serviceMetrics) recordDeletedOffsets(nowMs int64, records []shard.Record) {
	n := 0
	for _, r := range records {
		if oc, ok := r.(*shard.OffsetCommit); ok && oc.Tombstone {
			n++
		}
	}
	if n > 0 {
		m.offsetDeletions.RecordValue(float64(n), nowMs)
	}
}

// recordRebalances counts the target-assignment recomputations in an
// appended write: one per non-tombstone <type>GroupTargetAssignmentMetadata
// record, which the shard writes exactly when a group's assignment epoch
// advances to its group epoch. Replays of a log (loading a partition) do not
// pass here, so each recomputation is counted once, by the broker that did it.
func (m *serviceMetrics) recordRebalances(nowMs int64, records []shard.Record) {
	for _, r := range records {
		switch r := r.(type) {
		case *shard.ConsumerGroupTargetAssignmentMetadata:
			if !r.Tombstone {
				m.consumerRebalances.Record(nowMs)
			}
		case *shard.StreamsGroupTargetAssignmentMetadata:
			if !r.Tombstone {
				m.streamsRebalances.Record(nowMs)
			}
		case *shard.ShareGroupTargetAssignmentMetadata:
			if !r.Tombstone {
				m.shareRebalances.Record(nowMs)
			}
		}
	}
}

// statesOf lists the states Kafka registers a gauge for, per group type.
var statesOf = map[shard.GroupType][]shard.GroupState{
	shard.Classic:  {shard.StateEmpty},
	shard.Consumer: {shard.StateEmpty, shard.StateAssigning, shard.StateReconciling, shard.StateStable, shard.StateDead},
	shard.Streams:  {shard.StateEmpty, shard.StateNotReady, shard.StateAssigning, shard.StateReconciling, shard.StateStable, shard.StateDead},
	shard.Share:    {shard.StateEmpty, shard.StateStable, shard.StateDead},
}

// collectGauges emits group-count{protocol}, <type>-group-count{state} and
// offset-count from the committed state of the hosted shards, plus per-group
// series when PerGroupMetrics is set.
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
		emit(metrics.MustMetricName("group-count", MetricsGroup, "The number of groups per protocol", "protocol", t.String()), metrics.KindGauge, float64(total))
		if t == shard.Classic {
			continue
		}
		for _, st := range statesOf[t] {
			emit(metrics.MustMetricName(fmt.Sprintf("%s-group-count", t), MetricsGroup,
				"The number of "+t.String()+" groups per state", "state", st.MetricLabel()),
				metrics.KindGauge, float64(counts[ti][st]))
		}
	}
	emit(metrics.MustMetricName("offset-count", MetricsGroup, "The number of committed offsets"), metrics.KindGauge, float64(offsetCount))
	if !c.cfg.PerGroupMetrics {
		return
	}
	for _, r := range shards {
		if r.Err != nil {
			continue
		}
		s := r.Value
		s.ListGroups(func(g shard.GroupListing) bool {
			emit(metrics.MustMetricName("group-offset-count", MetricsGroup, "Committed offsets of one group", "group", g.GroupID),
				metrics.KindGauge, float64(s.GroupOffsetCount(g.GroupID)))
			d, _ := s.DescribeGroup(g.GroupID)
			emit(metrics.MustMetricName("group-member-count", MetricsGroup, "Members of one group", "group", g.GroupID),
				metrics.KindGauge, float64(len(d.Members)))
			return true
		})
	}
}
