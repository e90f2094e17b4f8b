package groupconfig

import (
	"slices"
	"strconv"
	"strings"

	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/share"
)

// Range is a broker's inclusive bounds for one key (validateValues).
type Range struct{ Min, Max int64 }

// Bounds are the broker configs GroupConfig.validateValues checks a group
// config against. A key without a Range is not range-checked.
type Bounds struct {
	// Ranges maps a key to its broker range (group.consumer.min/max.*,
	// group.share.min/max.*, group.streams.min/max.*).
	Ranges map[string]Range
	// MaxStandbyReplicas is group.streams.max.standby.replicas.
	MaxStandbyReplicas int64
	// MinTaskOffsetIntervalMs is group.streams.min.task.offset.interval.ms.
	MinTaskOffsetIntervalMs int64
	// DefaultMs maps each session timeout and heartbeat interval key to
	// the broker's value, which a group config setting only the other
	// one of the pair is compared against.
	DefaultMs map[string]int64
}

// rangeOrder is validateValues' order of the range checks (the first
// failure is the one reported).
// StreamsNumStandbyReplicas stands for its maximum check,
// StreamsTaskOffsetIntervalMs for its minimum check.
var rangeOrder = []string{
	ConsumerHeartbeatIntervalMs, ConsumerSessionTimeoutMs, ConsumerAssignmentIntervalMs,
	ShareHeartbeatIntervalMs, ShareSessionTimeoutMs,
	ShareRecordLockDurationMs, ShareDeliveryCountLimit, SharePartitionMaxRecordLocks, ShareAssignmentIntervalMs,
	StreamsHeartbeatIntervalMs, StreamsSessionTimeoutMs, StreamsNumStandbyReplicas, StreamsAssignmentIntervalMs,
	StreamsTaskOffsetIntervalMs,
}

// sessionPairs are the session timeouts that must stay above their
// heartbeat intervals, in validateValues' order.
var sessionPairs = [][2]string{
	{ConsumerSessionTimeoutMs, ConsumerHeartbeatIntervalMs},
	{ShareSessionTimeoutMs, ShareHeartbeatIntervalMs},
	{StreamsSessionTimeoutMs, StreamsHeartbeatIntervalMs},
}

// Parsed is one group's validated config.
type Parsed struct {
	// Ints holds every Int key set, parsed.
	Ints map[string]int64
	// AutoOffsetReset and AutoOffsetResetDurationMs are
	// share.auto.offset.reset in package share's form (ShareReset), when
	// AutoOffsetResetSet.
	AutoOffsetReset           share.AutoOffsetReset
	AutoOffsetResetDurationMs int64
	AutoOffsetResetSet        bool
	// RenewDisabled is share.renew.acknowledge.enable=false.
	RenewDisabled bool
}

// Int64 returns a Long key's value, nil when the config does not set it.
func (p Parsed) Int64(name string) *int64 {
	n, ok := p.Ints[name]
	if !ok {
		return nil
	}
	return &n
}

// Int32 returns an Int key's value, nil when the config does not set it.
func (p Parsed) Int32(name string) *int32 {
	n, ok := p.Ints[name]
	if !ok {
		return nil
	}
	v := int32(n)
	return &v
}

// configError is INVALID_CONFIG with a ConfigException's message.
func configError(format string, args ...any) error {
	return kerr.InvalidConfig.WithMessage(format, args...)
}

// invalidValue is ConfigDef's refusal of a String key's value v, with its
// validator's reason.
func invalidValue(v, name, reason string) error {
	return configError("Invalid value %s for configuration %s: %s", v, name, reason)
}

// Parse is GroupConfig.validate on a group's whole new config: the names
// (validateNames; a Kafka key coordsim does not model is refused rather
// than ignored), ConfigDef's parse in definition order, then CheckValues.
// Errors are INVALID_CONFIG with Kafka's messages.
func Parse(props map[string]string, b Bounds) (Parsed, error) {
	out := Parsed{Ints: map[string]int64{}}
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if _, ok := KeyOf(name); !ok && !slices.Contains(Unmodelled, name) {
			return out, configError("Unknown group config name: %s", name)
		}
	}
	for _, name := range names {
		if slices.Contains(Unmodelled, name) {
			return out, configError("Group config %s is not modelled by coordsim.", name)
		}
	}
	for _, k := range Keys {
		raw, ok := props[k.Name]
		if !ok {
			continue
		}
		v := strings.TrimSpace(raw)
		switch k.Type {
		case Int, Long:
			bits, typ := 32, "INT"
			if k.Type == Long {
				bits, typ = 64, "LONG"
			}
			n, err := strconv.ParseInt(v, 10, bits)
			if err != nil {
				return out, configError("Invalid value %s for configuration %s: Not a number of type %s", raw, k.Name, typ)
			}
			if err := CheckAtLeast(k.Name, n); err != nil {
				return out, err
			}
			out.Ints[k.Name] = n
		case Boolean:
			if !strings.EqualFold(v, "true") && !strings.EqualFold(v, "false") {
				return out, configError("Invalid value %s for configuration %s: Expected value to be either true or false", raw, k.Name)
			}
			out.RenewDisabled = strings.EqualFold(v, "false")
		case String:
			if reason := k.validate(v); reason != "" {
				return out, invalidValue(v, k.Name, reason)
			}
		}
	}
	if err := CheckValues(out.Ints, b); err != nil {
		return out, err
	}
	if v, ok := props[ShareAutoOffsetReset]; ok {
		out.AutoOffsetReset, out.AutoOffsetResetDurationMs, _ = ShareReset(strings.TrimSpace(v)) // validated above
		out.AutoOffsetResetSet = true
	}
	return out, nil
}

// CheckAtLeast is ConfigDef's atLeast check of an Int key (a key that is
// not an Int key passes).
func CheckAtLeast(name string, v int64) error {
	if k, ok := KeyOf(name); ok && (k.Type == Int || k.Type == Long) && v < k.Min {
		return configError("Invalid value %d for configuration %s: Value must be at least %d", v, name, k.Min)
	}
	return nil
}

// CheckValues is GroupConfig.validateValues over the Int keys a group
// sets: each within its broker range, in trunk's order, the standby
// maximum, then each session timeout above its heartbeat interval when
// either is set (the other taken from the broker).
func CheckValues(ints map[string]int64, b Bounds) error {
	for _, key := range rangeOrder {
		v, ok := ints[key]
		if !ok {
			continue
		}
		switch key {
		case StreamsNumStandbyReplicas:
			if v > b.MaxStandbyReplicas {
				return configError("%s must be less than or equal to %d", key, b.MaxStandbyReplicas)
			}
			continue
		case StreamsTaskOffsetIntervalMs:
			if v < b.MinTaskOffsetIntervalMs {
				return configError("%s must be greater than or equal to %d", key, b.MinTaskOffsetIntervalMs)
			}
			continue
		}
		if r, bounded := b.Ranges[key]; bounded && (v < r.Min || v > r.Max) {
			return configError("%s must be in the range %d to %d inclusive.", key, r.Min, r.Max)
		}
	}
	for _, p := range sessionPairs {
		s, sok := ints[p[0]]
		h, hok := ints[p[1]]
		if !sok && !hok {
			continue
		}
		if !sok {
			s = b.DefaultMs[p[0]]
		}
		if !hok {
			h = b.DefaultMs[p[1]]
		}
		if s <= h {
			return configError("%s must be greater than %s", p[0], p[1])
		}
	}
	return nil
}

// Kafka's broker bounds on the share record keys of a group config
// (group.share.min/max.delivery.count.limit,
// group.share.min/max.record.lock.duration.ms and
// group.share.min/max.partition.max.record.locks at their defaults, which
// coordsim does not let an operator change).
const (
	ShareDeliveryCountLimitMin      = 2
	ShareDeliveryCountLimitMax      = 10
	ShareRecordLockDurationMinMs    = 15_000
	ShareRecordLockDurationMaxMs    = 60_000
	SharePartitionMaxRecordLocksMin = 100
	SharePartitionMaxRecordLocksMax = 10_000
)

// ShareRanges returns the share record keys' Ranges, for Bounds.
func ShareRanges() map[string]Range {
	return map[string]Range{
		ShareRecordLockDurationMs:    {Min: ShareRecordLockDurationMinMs, Max: ShareRecordLockDurationMaxMs},
		ShareDeliveryCountLimit:      {Min: ShareDeliveryCountLimitMin, Max: ShareDeliveryCountLimitMax},
		SharePartitionMaxRecordLocks: {Min: SharePartitionMaxRecordLocksMin, Max: SharePartitionMaxRecordLocksMax},
	}
}
