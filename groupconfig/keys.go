package groupconfig

import (
	"strconv"
	"strings"
)

// Type is a ConfigDef type, valued as DescribeConfigs' ConfigType id.
type Type int8

// The ConfigDef types of the keys served.
const (
	Boolean Type = 1
	String  Type = 2
	Int     Type = 3
	Long    Type = 5
)

// Key is one GroupConfig key coordsim acts on.
type Key struct {
	// Name is the key, as Kafka spells it.
	Name string
	// Type is its ConfigDef type.
	Type Type
	// Min is ConfigDef's atLeast for an Int key.
	Min int64
	// Synonym is the broker key whose value a group without the key takes
	// (GroupConfig.ALL_GROUP_CONFIG_SYNONYMS), "" when none.
	Synonym string
	// Internal is a key Kafka defines with defineInternal: DescribeConfigs
	// lists it only when the group config sets it.
	Internal bool
	// validate is a String key's ConfigDef validator: the reason after
	// "Invalid value V for configuration K: ", or "".
	validate func(v string) string
}

// The key names, as Kafka spells them.
const (
	ConsumerSessionTimeoutMs       = "consumer.session.timeout.ms"
	ConsumerHeartbeatIntervalMs    = "consumer.heartbeat.interval.ms"
	ShareSessionTimeoutMs          = "share.session.timeout.ms"
	ShareHeartbeatIntervalMs       = "share.heartbeat.interval.ms"
	ShareRecordLockDurationMs      = "share.record.lock.duration.ms"
	ShareDeliveryCountLimit        = "share.delivery.count.limit"
	SharePartitionMaxRecordLocks   = "share.partition.max.record.locks"
	ShareAutoOffsetReset           = "share.auto.offset.reset"
	ShareIsolationLevel            = "share.isolation.level"
	ShareRenewAcknowledgeEnable    = "share.renew.acknowledge.enable"
	StreamsSessionTimeoutMs        = "streams.session.timeout.ms"
	StreamsHeartbeatIntervalMs     = "streams.heartbeat.interval.ms"
	StreamsNumStandbyReplicas      = "streams.num.standby.replicas"
	StreamsInitialRebalanceDelayMs = "streams.initial.rebalance.delay.ms"
	ConsumerAssignmentIntervalMs   = "consumer.assignment.interval.ms"
	ShareAssignmentIntervalMs      = "share.assignment.interval.ms"
	StreamsAssignmentIntervalMs    = "streams.assignment.interval.ms"
	StreamsTaskOffsetIntervalMs    = "streams.task.offset.interval.ms"
	StreamsAcceptableRecoveryLag   = "streams.acceptable.recovery.lag"
)

// Keys are the keys served, in GroupConfig.CONFIG_DEF's order (the order
// ConfigDef.parse reports the first bad value in).
var Keys = []Key{
	{Name: ConsumerSessionTimeoutMs, Type: Int, Min: 1, Synonym: "group.consumer.session.timeout.ms"},
	{Name: ConsumerHeartbeatIntervalMs, Type: Int, Min: 1, Synonym: "group.consumer.heartbeat.interval.ms"},
	{Name: ConsumerAssignmentIntervalMs, Type: Int, Min: 0, Synonym: "group.consumer.assignment.interval.ms"},
	{Name: ShareSessionTimeoutMs, Type: Int, Min: 1, Synonym: "group.share.session.timeout.ms"},
	{Name: ShareHeartbeatIntervalMs, Type: Int, Min: 1, Synonym: "group.share.heartbeat.interval.ms"},
	{Name: ShareRecordLockDurationMs, Type: Int, Min: 1000, Synonym: "group.share.record.lock.duration.ms"},
	{Name: ShareDeliveryCountLimit, Type: Int, Min: 2, Synonym: "group.share.delivery.count.limit"},
	{Name: SharePartitionMaxRecordLocks, Type: Int, Min: 100, Synonym: "group.share.partition.max.record.locks"},
	{Name: ShareAutoOffsetReset, Type: String, validate: ValidateShareAutoOffsetReset},
	{Name: ShareIsolationLevel, Type: String, validate: validateIsolationLevel},
	{Name: ShareRenewAcknowledgeEnable, Type: Boolean},
	{Name: ShareAssignmentIntervalMs, Type: Int, Min: 0, Synonym: "group.share.assignment.interval.ms"},
	{Name: StreamsSessionTimeoutMs, Type: Int, Min: 1, Synonym: "group.streams.session.timeout.ms"},
	{Name: StreamsHeartbeatIntervalMs, Type: Int, Min: 1, Synonym: "group.streams.heartbeat.interval.ms"},
	{Name: StreamsNumStandbyReplicas, Type: Int, Min: 0, Synonym: "group.streams.num.standby.replicas"},
	{Name: StreamsInitialRebalanceDelayMs, Type: Int, Min: 0, Synonym: "group.streams.initial.rebalance.delay.ms"},
	{Name: StreamsAssignmentIntervalMs, Type: Int, Min: 0, Synonym: "group.streams.assignment.interval.ms"},
	{Name: StreamsTaskOffsetIntervalMs, Type: Int, Min: 1, Synonym: "group.streams.task.offset.interval.ms", Internal: true},
	{Name: StreamsAcceptableRecoveryLag, Type: Long, Min: 0, Synonym: "group.streams.acceptable.recovery.lag", Internal: true},
}

// Unmodelled are trunk's other GroupConfig keys: coordsim has no assignor
// offloading (it computes targets inline) and no warm-up replicas, so
// setting one is INVALID_CONFIG rather than a silent no-op. The share dead-letter queue is modelled by sharebroker
// but not on the wire (see wire's groupconfig.go for why).
var Unmodelled = []string{
	"consumer.assignor.offload.enable", "share.assignor.offload.enable", "streams.assignor.offload.enable",
	"streams.num.warmup.replicas",
	"errors.deadletterqueue.topic.name", "errors.deadletterqueue.copy.record.enable",
}

// KeyOf returns the served key named name.
func KeyOf(name string) (Key, bool) {
	for _, k := range Keys {
		if k.Name == name {
			return k, true
		}
	}
	return Key{}, false
}

// Normalize is the value as DescribeConfigs shows a set key:
// ConfigDef.convertToString of the parsed value.
func (k Key) Normalize(raw string) string {
	v := strings.TrimSpace(raw)
	switch k.Type {
	case Int:
		if n, err := strconv.ParseInt(v, 10, 32); err == nil {
			return strconv.FormatInt(n, 10)
		}
	case Long:
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			return strconv.FormatInt(n, 10)
		}
	case Boolean:
		return strings.ToLower(v)
	}
	return v
}

func validateIsolationLevel(v string) string {
	if v == "read_committed" || v == "read_uncommitted" {
		return ""
	}
	return "String must be one of: read_committed, read_uncommitted"
}
