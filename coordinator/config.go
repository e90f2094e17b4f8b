package coordinator

import (
	"fmt"
	"slices"
	"time"

	"github.com/coordsim/coordsim/assignor"
	"github.com/coordsim/coordsim/offsets"
	"github.com/coordsim/coordsim/shard"
)

// Config is one broker's group-coordinator configuration. Each field names
// the Kafka configuration key it stands for; defaults and bounds are Kafka's.
type Config struct {
	// NumPartitions is offsets.topic.num.partitions (default 50, >= 1).
	NumPartitions int32
	// OffsetsRetention is offsets.retention.minutes (default 10080 min, >= 1 min).
	OffsetsRetention time.Duration
	// OffsetsRetentionCheckInterval is offsets.retention.check.interval.ms
	// (default 600000, >= 1 ms).
	OffsetsRetentionCheckInterval time.Duration
	// OffsetMetadataMaxBytes is offset.metadata.max.bytes (default 4096).
	OffsetMetadataMaxBytes int

	// ConsumerSessionTimeout is group.consumer.session.timeout.ms (45000,
	// within [ConsumerMinSessionTimeout, ConsumerMaxSessionTimeout]).
	ConsumerSessionTimeout time.Duration
	// ConsumerMinSessionTimeout and ConsumerMaxSessionTimeout are
	// group.consumer.min.session.timeout.ms (45000) and
	// group.consumer.max.session.timeout.ms (60000). Kafka's integration
	// tests lower the minimum to run a session timeout in seconds; so do
	// the wire endpoint's.
	ConsumerMinSessionTimeout, ConsumerMaxSessionTimeout time.Duration
	// ConsumerHeartbeatInterval is group.consumer.heartbeat.interval.ms
	// (5000, within [ConsumerMinHeartbeatInterval,
	// ConsumerMaxHeartbeatInterval], and below the session timeout).
	ConsumerHeartbeatInterval time.Duration
	// ConsumerMinHeartbeatInterval and ConsumerMaxHeartbeatInterval are
	// group.consumer.min.heartbeat.interval.ms (5000) and
	// group.consumer.max.heartbeat.interval.ms (15000).
	ConsumerMinHeartbeatInterval, ConsumerMaxHeartbeatInterval time.Duration
	// ConsumerMaxSize is group.consumer.max.size (default Integer.MAX_VALUE).
	ConsumerMaxSize int
	// ConsumerAssignors is group.consumer.assignors: the server assignors
	// consumer members may name (default uniform, range); the first is the
	// default. Names of package assignor's built-in assignors.
	ConsumerAssignors []string
	// StreamsSessionTimeout is group.streams.session.timeout.ms (45000,
	// within [StreamsMinSessionTimeout, StreamsMaxSessionTimeout]).
	StreamsSessionTimeout time.Duration
	// StreamsMinSessionTimeout and StreamsMaxSessionTimeout are
	// group.streams.min.session.timeout.ms (45000) and
	// group.streams.max.session.timeout.ms (60000): the bounds of the
	// broker's and of a group config's streams.session.timeout.ms.
	StreamsMinSessionTimeout, StreamsMaxSessionTimeout time.Duration
	// StreamsHeartbeatInterval is group.streams.heartbeat.interval.ms
	// (5000, within [StreamsMinHeartbeatInterval,
	// StreamsMaxHeartbeatInterval], and below the session timeout).
	StreamsHeartbeatInterval time.Duration
	// StreamsMinHeartbeatInterval and StreamsMaxHeartbeatInterval are
	// group.streams.min.heartbeat.interval.ms (5000) and
	// group.streams.max.heartbeat.interval.ms (15000).
	StreamsMinHeartbeatInterval, StreamsMaxHeartbeatInterval time.Duration
	// StreamsMaxSize is group.streams.max.size (default Integer.MAX_VALUE).
	StreamsMaxSize int
	// StreamsNumStandbyReplicas is group.streams.num.standby.replicas, the
	// standby replicas per stateful task of a streams group (default 0,
	// >= 0, at most StreamsMaxStandbyReplicas).
	StreamsNumStandbyReplicas int
	// StreamsMaxStandbyReplicas is group.streams.max.standby.replicas, the
	// largest num.standby.replicas a group may have (default 2, >= 0).
	StreamsMaxStandbyReplicas int
	// StreamsInitialRebalanceDelay is group.streams.initial.rebalance.delay.ms
	// (3000, at least 0): how long a streams group that a member joins
	// while empty waits before its first target assignment
	// (ASSIGNMENT_DELAYED meanwhile). 0 disables it.
	StreamsInitialRebalanceDelay time.Duration
	// ConsumerAssignmentInterval, ShareAssignmentInterval and
	// StreamsAssignmentInterval are group.<type>.assignment.interval.ms
	// with their group.<type>.min/max.assignment.interval.ms bounds: a
	// group computes a new target assignment at most once per interval.
	// Kafka's default interval is 1000 ms, with the computation offloaded
	// to a background thread; coordsim computes inline and defaults to 0
	// (a target whenever the group epoch moves). Bounds 0 and 15000.
	ConsumerAssignmentInterval, ShareAssignmentInterval, StreamsAssignmentInterval AssignmentInterval
	// StreamsTaskOffsetInterval is group.streams.task.offset.interval.ms
	// (60000, at least StreamsMinTaskOffsetInterval,
	// group.streams.min.task.offset.interval.ms, 15000) and
	// StreamsAcceptableRecoveryLag group.streams.acceptable.recovery.lag
	// (10000, >= 0): what a streams heartbeat's answer tells its member.
	StreamsTaskOffsetInterval, StreamsMinTaskOffsetInterval time.Duration
	StreamsAcceptableRecoveryLag                            int64
	// StreamsTopologyUpdates lets a streams member joining with a higher
	// topology epoch replace the group's topology, ahead of Kafka, which
	// answers INVALID_REQUEST "Topology updates are not supported yet.".
	// Off by default. Not a Kafka key.
	StreamsTopologyUpdates bool
	// ShareSessionTimeout is group.share.session.timeout.ms (45000, within
	// [ShareMinSessionTimeout, ShareMaxSessionTimeout]).
	ShareSessionTimeout time.Duration
	// ShareMinSessionTimeout and ShareMaxSessionTimeout are
	// group.share.min.session.timeout.ms (45000) and
	// group.share.max.session.timeout.ms (60000): the bounds of the
	// broker's and of a group config's share.session.timeout.ms.
	ShareMinSessionTimeout, ShareMaxSessionTimeout time.Duration
	// ShareHeartbeatInterval is group.share.heartbeat.interval.ms (5000,
	// within [ShareMinHeartbeatInterval, ShareMaxHeartbeatInterval], and
	// below the session timeout).
	ShareHeartbeatInterval time.Duration
	// ShareMinHeartbeatInterval and ShareMaxHeartbeatInterval are
	// group.share.min.heartbeat.interval.ms (5000) and
	// group.share.max.heartbeat.interval.ms (15000).
	ShareMinHeartbeatInterval, ShareMaxHeartbeatInterval time.Duration
	// ShareMaxSize is group.share.max.size (default 200, within [1, 1000]).
	ShareMaxSize int
	// Classic is the classic protocol's group.classic.min/max.session.timeout.ms,
	// group.classic.max.size and group.initial.rebalance.delay.ms
	// (milliseconds; a zero field is Kafka's default, see shard.ClassicConfig),
	// and group.consumer.migration.policy (BIDIRECTIONAL by default).
	Classic shard.ClassicConfig

	// TopologyCleanupProtocol is the KIP-1331 cleanup protocol, CleanupV3 by
	// default (v2 with fenced plugin calls; coordsim's proposal); CleanupV2 is
	// PR #22777 and CleanupV1 reproduces apache/kafka#22622 and its race. Not
	// a Kafka key.
	TopologyCleanupProtocol CleanupProtocol

	// CommitDelay is how long after an append the partition's high watermark
	// passes it (replication, in Kafka). 0 commits at once. Not a Kafka key.
	CommitDelay time.Duration
	// LoadDelay is how long loading a shard takes; meanwhile its operations
	// get COORDINATOR_LOAD_IN_PROGRESS. 0 loads at once. Not a Kafka key.
	LoadDelay time.Duration
	// PerGroupMetrics adds per-group gauges (offset and member counts) that
	// disappear when the group is deleted. Off by default: a million groups
	// would make a million series. Not a Kafka key.
	PerGroupMetrics bool
}

// AssignmentInterval is one group type's assignment interval and the
// bounds of its group config.
type AssignmentInterval struct {
	Interval, Min, Max time.Duration
}

// defaultAssignmentInterval is coordsim's default: no interval, within
// Kafka's default bounds.
var defaultAssignmentInterval = AssignmentInterval{Max: 15 * time.Second}

// DefaultConfig returns Kafka's defaults, but for the assignment intervals
// (0, see ConsumerAssignmentInterval).
func DefaultConfig() Config {
	return Config{
		NumPartitions:                 50,
		OffsetsRetention:              10080 * time.Minute,
		OffsetsRetentionCheckInterval: 600_000 * time.Millisecond,
		OffsetMetadataMaxBytes:        offsets.MetadataMaxBytes,
		ConsumerSessionTimeout:        45 * time.Second,
		ConsumerMinSessionTimeout:     45 * time.Second,
		ConsumerMaxSessionTimeout:     60 * time.Second,
		ConsumerHeartbeatInterval:     5 * time.Second,
		ConsumerMinHeartbeatInterval:  5 * time.Second,
		ConsumerMaxHeartbeatInterval:  15 * time.Second,
		ConsumerMaxSize:               1<<31 - 1,
		ConsumerAssignors:             slices.Clone(assignor.DefaultNames),
		StreamsSessionTimeout:         45 * time.Second,
		StreamsMinSessionTimeout:      45 * time.Second,
		StreamsMaxSessionTimeout:      60 * time.Second,
		StreamsHeartbeatInterval:      5 * time.Second,
		StreamsMinHeartbeatInterval:   5 * time.Second,
		StreamsMaxHeartbeatInterval:   15 * time.Second,
		StreamsMaxSize:                1<<31 - 1,
		StreamsMaxStandbyReplicas:     2,
		StreamsInitialRebalanceDelay:  3 * time.Second,
		ConsumerAssignmentInterval:    defaultAssignmentInterval,
		ShareAssignmentInterval:       defaultAssignmentInterval,
		StreamsAssignmentInterval:     defaultAssignmentInterval,
		StreamsTaskOffsetInterval:     60 * time.Second,
		StreamsMinTaskOffsetInterval:  15 * time.Second,
		StreamsAcceptableRecoveryLag:  10_000,
		ShareSessionTimeout:           45 * time.Second,
		ShareMinSessionTimeout:        45 * time.Second,
		ShareMaxSessionTimeout:        60 * time.Second,
		ShareHeartbeatInterval:        5 * time.Second,
		ShareMinHeartbeatInterval:     5 * time.Second,
		ShareMaxHeartbeatInterval:     15 * time.Second,
		ShareMaxSize:                  200,
		Classic:                       shard.DefaultClassicConfig(),
		TopologyCleanupProtocol:       CleanupV3,
	}
}

// ConfigError names the Kafka configuration key whose value is invalid.
type ConfigError struct {
	Key    string
	Value  any
	Reason string
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("invalid value %v for configuration %s: %s", e.Value, e.Key, e.Reason)
}

func atLeast[T int | int32 | int64 | time.Duration](key string, v, min T) error {
	if v < min {
		return &ConfigError{Key: key, Value: v, Reason: fmt.Sprintf("value must be at least %v", min)}
	}
	return nil
}

func within[T int | time.Duration](key string, v, min, max T) error {
	if v < min || v > max {
		return &ConfigError{Key: key, Value: v, Reason: fmt.Sprintf("value must be in [%v, %v]", min, max)}
	}
	return nil
}

// below is Kafka's GroupCoordinatorConfig rule that a heartbeat interval
// is less than the session timeout.
func below(key string, v, limit time.Duration, limitKey string) error {
	if v >= limit {
		return &ConfigError{Key: key, Value: v, Reason: fmt.Sprintf("value must be less than %s (%v)", limitKey, limit)}
	}
	return nil
}

func wholeMillis(key string, d time.Duration) error {
	if d%time.Millisecond != 0 {
		return &ConfigError{Key: key, Value: d, Reason: "value must be a whole number of milliseconds"}
	}
	return nil
}

// groupLiveness checks a group type's session timeout and heartbeat
// interval (the keys group.<group>.[min.|max.]session.timeout.ms and
// group.<group>.[min.|max.]heartbeat.interval.ms) as GroupCoordinatorConfig
// does for consumer, streams and share groups alike: each bound at least a
// millisecond, the value within its bounds and in whole milliseconds, and
// the heartbeat below the session timeout.
func groupLiveness(group string, session, minSession, maxSession, heartbeat, minHeartbeat, maxHeartbeat time.Duration) []error {
	key := func(k string) string { return "group." + group + "." + k }
	return []error{
		atLeast(key("min.session.timeout.ms"), minSession, time.Millisecond),
		atLeast(key("max.session.timeout.ms"), maxSession, minSession),
		within(key("session.timeout.ms"), session, minSession, maxSession),
		wholeMillis(key("session.timeout.ms"), session),
		atLeast(key("min.heartbeat.interval.ms"), minHeartbeat, time.Millisecond),
		atLeast(key("max.heartbeat.interval.ms"), maxHeartbeat, minHeartbeat),
		within(key("heartbeat.interval.ms"), heartbeat, minHeartbeat, maxHeartbeat),
		wholeMillis(key("heartbeat.interval.ms"), heartbeat),
		below(key("heartbeat.interval.ms"), heartbeat, session, key("session.timeout.ms")),
	}
}

// checks are GroupCoordinatorConfig's requirements on one group type's
// assignment interval and its bounds.
func (a AssignmentInterval) checks(group string) []error {
	key := func(k string) string { return "group." + group + "." + k }
	return []error{
		atLeast(key("min.assignment.interval.ms"), a.Min, 0),
		wholeMillis(key("min.assignment.interval.ms"), a.Min),
		atLeast(key("max.assignment.interval.ms"), a.Max, a.Min),
		within(key("max.assignment.interval.ms"), a.Max, a.Min, time.Duration(1<<31-1)*time.Millisecond),
		wholeMillis(key("max.assignment.interval.ms"), a.Max),
		within(key("assignment.interval.ms"), a.Interval, a.Min, a.Max),
		wholeMillis(key("assignment.interval.ms"), a.Interval),
	}
}

func (a AssignmentInterval) ms() int32 { return int32(a.Interval.Milliseconds()) }

// Validate checks every field against Kafka's bounds; the error is a
// *ConfigError naming the key.
func (c Config) Validate() error {
	// In Kafka's order: the first failing check is the error.
	checks := slices.Concat(
		[]error{
			atLeast("offsets.topic.num.partitions", c.NumPartitions, 1),
			atLeast("offsets.retention.minutes", c.OffsetsRetention, time.Minute),
			atLeast("offsets.retention.check.interval.ms", c.OffsetsRetentionCheckInterval, time.Millisecond),
			wholeMillis("offsets.retention.check.interval.ms", c.OffsetsRetentionCheckInterval),
			atLeast("offset.metadata.max.bytes", c.OffsetMetadataMaxBytes, 0),
		},
		groupLiveness("consumer", c.ConsumerSessionTimeout, c.ConsumerMinSessionTimeout, c.ConsumerMaxSessionTimeout,
			c.ConsumerHeartbeatInterval, c.ConsumerMinHeartbeatInterval, c.ConsumerMaxHeartbeatInterval),
		[]error{
			atLeast("group.consumer.max.size", c.ConsumerMaxSize, 1),
		},
		c.ConsumerAssignmentInterval.checks("consumer"),
		groupLiveness("streams", c.StreamsSessionTimeout, c.StreamsMinSessionTimeout, c.StreamsMaxSessionTimeout,
			c.StreamsHeartbeatInterval, c.StreamsMinHeartbeatInterval, c.StreamsMaxHeartbeatInterval),
		[]error{
			atLeast("group.streams.max.size", c.StreamsMaxSize, 1),
			atLeast("group.streams.num.standby.replicas", c.StreamsNumStandbyReplicas, 0),
			atLeast("group.streams.max.standby.replicas", c.StreamsMaxStandbyReplicas, 0),
			atLeast("group.streams.initial.rebalance.delay.ms", c.StreamsInitialRebalanceDelay, 0),
			wholeMillis("group.streams.initial.rebalance.delay.ms", c.StreamsInitialRebalanceDelay),
		},
		c.StreamsAssignmentInterval.checks("streams"),
		[]error{
			atLeast("group.streams.min.task.offset.interval.ms", c.StreamsMinTaskOffsetInterval, time.Millisecond),
			wholeMillis("group.streams.min.task.offset.interval.ms", c.StreamsMinTaskOffsetInterval),
			atLeast("group.streams.task.offset.interval.ms", c.StreamsTaskOffsetInterval, c.StreamsMinTaskOffsetInterval),
			within("group.streams.task.offset.interval.ms", c.StreamsTaskOffsetInterval, c.StreamsMinTaskOffsetInterval, time.Duration(1<<31-1)*time.Millisecond),
			wholeMillis("group.streams.task.offset.interval.ms", c.StreamsTaskOffsetInterval),
			atLeast("group.streams.acceptable.recovery.lag", c.StreamsAcceptableRecoveryLag, 0),
		},
		groupLiveness("share", c.ShareSessionTimeout, c.ShareMinSessionTimeout, c.ShareMaxSessionTimeout,
			c.ShareHeartbeatInterval, c.ShareMinHeartbeatInterval, c.ShareMaxHeartbeatInterval),
		[]error{
			within("group.share.max.size", c.ShareMaxSize, 1, 1000),
		},
		c.ShareAssignmentInterval.checks("share"),
		[]error{
			atLeast("commit delay", c.CommitDelay, 0),
			atLeast("load delay", c.LoadDelay, 0),
		})
	for _, err := range checks {
		if err != nil {
			return err
		}
	}
	if c.StreamsNumStandbyReplicas > c.StreamsMaxStandbyReplicas {
		// GroupCoordinatorConfig's require on the two keys.
		return &ConfigError{Key: "group.streams.num.standby.replicas", Value: c.StreamsNumStandbyReplicas,
			Reason: "value must be less than or equal to group.streams.max.standby.replicas"}
	}
	if _, err := assignor.FromNames(c.ConsumerAssignors); err != nil {
		return &ConfigError{Key: "group.consumer.assignors", Value: c.ConsumerAssignors, Reason: err.Error()}
	}
	if !c.TopologyCleanupProtocol.Valid() {
		return &ConfigError{Key: "topology cleanup protocol", Value: c.TopologyCleanupProtocol, Reason: "value must be " + cleanupProtocolChoice()}
	}
	if c.OffsetsRetention%time.Minute != 0 {
		return &ConfigError{Key: "offsets.retention.minutes", Value: c.OffsetsRetention, Reason: "value must be a whole number of minutes"}
	}
	return nil
}

func (c Config) shardConfig() shard.Config {
	return shard.Config{
		OffsetsRetentionMs:              c.OffsetsRetention.Milliseconds(),
		OffsetsRetentionCheckIntervalMs: c.OffsetsRetentionCheckInterval.Milliseconds(),
		OffsetMetadataMaxBytes:          c.OffsetMetadataMaxBytes,
		ConsumerSessionTimeoutMs:        int32(c.ConsumerSessionTimeout.Milliseconds()),
		ConsumerHeartbeatIntervalMs:     int32(c.ConsumerHeartbeatInterval.Milliseconds()),
		ConsumerMaxSize:                 c.ConsumerMaxSize,
		ConsumerAssignors:               consumerAssignors(c.ConsumerAssignors),
		StreamsSessionTimeoutMs:         int32(c.StreamsSessionTimeout.Milliseconds()),
		StreamsHeartbeatIntervalMs:      int32(c.StreamsHeartbeatInterval.Milliseconds()),
		StreamsMaxSize:                  c.StreamsMaxSize,
		StreamsNumStandbyReplicas:       int32(c.StreamsNumStandbyReplicas),
		StreamsInitialRebalanceDelayMs:  int32(min(c.StreamsInitialRebalanceDelay.Milliseconds(), 1<<31-1)),
		ConsumerAssignmentIntervalMs:    c.ConsumerAssignmentInterval.ms(),
		ShareAssignmentIntervalMs:       c.ShareAssignmentInterval.ms(),
		StreamsAssignmentIntervalMs:     c.StreamsAssignmentInterval.ms(),
		StreamsTaskOffsetIntervalMs:     int32(c.StreamsTaskOffsetInterval.Milliseconds()),
		StreamsAcceptableRecoveryLag:    c.StreamsAcceptableRecoveryLag,
		StreamsTopologyUpdates:          c.StreamsTopologyUpdates,
		ShareSessionTimeoutMs:           int32(c.ShareSessionTimeout.Milliseconds()),
		ShareHeartbeatIntervalMs:        int32(c.ShareHeartbeatInterval.Milliseconds()),
		ShareMaxSize:                    c.ShareMaxSize,
		Classic:                         c.Classic,
	}
}

// consumerAssignors builds the registry of group.consumer.assignors;
// Validate has checked the names.
func consumerAssignors(names []string) *assignor.Registry {
	r, err := assignor.FromNames(names)
	if err != nil {
		return nil // the shard falls back to Kafka's default list
	}
	return r
}
