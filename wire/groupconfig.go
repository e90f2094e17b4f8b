package wire

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/groupconfig"
	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/share"
	"github.com/coordsim/coordsim/sharebroker"
)

// Group configs (ConfigResource type GROUP, KIP-848/932/1071): what
// IncrementalAlterConfigs sets and DescribeConfigs reads. Kafka keeps them
// as strings in the cluster metadata; so does groupConfigs, the one copy
// of the cluster, from which each alteration builds the coordinators'
// coordinator.GroupConfig and the share plane's sharebroker.GroupConfig.
// Validation is package groupconfig (trunk's GroupConfig.validate: the names, then ConfigDef's
// parse in definition order, then validateValues' ranges in its order); this
// file only keeps the configs and translates them.

// SetShareAutoOffsetReset sets the share.auto.offset.reset of every share
// group without its own (the endpoint's default; Kafka has no broker key
// for it and always uses latest): latest, earliest or
// by_duration:<ISO-8601 duration>, validated as the group config is. A
// bad value is INVALID_CONFIG with Kafka's message and changes nothing.
func (c *Config) SetShareAutoOffsetReset(v string) error {
	reset, durationMs, err := groupconfig.ShareResetConfig(v)
	if err != nil {
		return err
	}
	c.Share.Defaults.AutoOffsetReset, c.Share.Defaults.AutoOffsetResetDurationMs = reset, durationMs
	return nil
}

// parsedGroupConfig is one group's validated config, as the coordinators
// and the share plane take it.
type parsedGroupConfig struct {
	coord coordinator.GroupConfig
	share sharebroker.GroupConfig
}

// groupConfigBounds are the broker ranges a group config is validated
// against: the coordinator's and the share plane's.
func (cl *Cluster) groupConfigBounds() groupconfig.Bounds {
	b := cl.cfg.Coordinator.GroupConfigBounds()
	maps.Copy(b.Ranges, groupconfig.ShareRanges())
	return b
}

// parseGroupConfig is GroupConfigManager.validate (GroupConfig.validate,
// in package groupconfig) on a group's whole new config, then its
// translation.
func (cl *Cluster) parseGroupConfig(props map[string]string) (parsedGroupConfig, error) {
	var out parsedGroupConfig
	p, err := groupconfig.Parse(props, cl.groupConfigBounds())
	if err != nil {
		return out, err
	}
	out.coord = coordinator.GroupConfigFromParsed(p)
	out.share.RenewDisabled = p.RenewDisabled
	out.share.RecordLockDurationMs = p.Ints[groupconfig.ShareRecordLockDurationMs]
	out.share.MaxDeliveryCount = int32(p.Ints[groupconfig.ShareDeliveryCountLimit])
	out.share.MaxRecordLocks = p.Ints[groupconfig.SharePartitionMaxRecordLocks]
	if p.AutoOffsetResetSet {
		out.share.AutoOffsetReset, out.share.AutoOffsetResetDurationMs, out.share.AutoOffsetResetSet = p.AutoOffsetReset, p.AutoOffsetResetDurationMs, true
	}
	return out, nil
}

// groupConfigStore is the cluster's group configs: group id → key → the
// value as set. mu also orders alterations, so the coordinators and the
// share plane see them in one order.
type groupConfigStore struct {
	mu      sync.Mutex
	configs map[string]map[string]string
}

// maxGroupConfigs bounds the groups with a config (the coordinator's and
// sharebroker's own bounds are higher).
const maxGroupConfigs = 10_000

// get returns a copy of a group's config.
func (s *groupConfigStore) get(group string) map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]string, len(s.configs[group]))
	for k, v := range s.configs[group] {
		out[k] = v
	}
	return out
}

// groups lists the groups with a config, sorted.
func (s *groupConfigStore) groups() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(maps.Keys(s.configs))
}

// alterGroupConfig validates a group's new config and, unless
// validateOnly, installs it on every broker's coordinator and on the share
// plane, then keeps it. change maps the current config to the new one (it
// runs under the store's lock, so alterations do not interleave).
func (cl *Cluster) alterGroupConfig(ctx context.Context, group string, validateOnly bool, change func(cur map[string]string) (map[string]string, error)) error {
	s := &cl.groupConfigs
	s.mu.Lock()
	defer s.mu.Unlock()
	cur := make(map[string]string, len(s.configs[group]))
	for k, v := range s.configs[group] {
		cur[k] = v
	}
	next, err := change(cur)
	if err != nil {
		return err
	}
	parsed, err := cl.parseGroupConfig(next)
	if err != nil {
		return err
	}
	if _, ok := s.configs[group]; !ok && len(next) > 0 && len(s.configs) >= maxGroupConfigs {
		return kerr.InvalidConfig.WithMessage("at most %d groups may have a group config", maxGroupConfigs)
	}
	if validateOnly {
		return nil
	}
	for _, b := range cl.brokers {
		var setErr error
		if err := b.driver.Do(ctx, func(c *coordinator.Coordinator) { setErr = c.SetGroupConfig(group, parsed.coord) }); err != nil {
			return err
		}
		if setErr != nil {
			// Validated above with the same bounds: a refusal here is a bug
			// between the two validations, and brokers may now disagree.
			cl.log.Error("a coordinator refused a validated group config", "broker", b.node, "group", group, "err", setErr)
			return setErr
		}
	}
	var shareErr error
	cl.share.with(func(b *sharebroker.Broker, _ int64) { shareErr = b.SetGroupConfig(group, parsed.share) })
	if shareErr != nil {
		cl.log.Error("the share plane refused a validated group config", "group", group, "err", shareErr)
		return shareErr
	}
	if s.configs == nil {
		s.configs = map[string]map[string]string{}
	}
	if len(next) == 0 {
		delete(s.configs, group)
	} else {
		s.configs[group] = next
	}
	return nil
}

// groupConfigDefault is the value a group without key k takes, as
// DescribeConfigs shows it: the broker's (extractGroupConfigMap).
func (cl *Cluster) groupConfigDefault(k groupconfig.Key) string {
	cc := cl.cfg.Coordinator
	sd := cl.cfg.Share.Defaults
	ms := func(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) }
	or := func(v, def int64) string {
		if v == 0 {
			v = def
		}
		return strconv.FormatInt(v, 10)
	}
	switch k.Name {
	case "consumer.session.timeout.ms":
		return ms(cc.ConsumerSessionTimeout)
	case "consumer.heartbeat.interval.ms":
		return ms(cc.ConsumerHeartbeatInterval)
	case "share.session.timeout.ms":
		return ms(cc.ShareSessionTimeout)
	case "share.heartbeat.interval.ms":
		return ms(cc.ShareHeartbeatInterval)
	case "share.record.lock.duration.ms":
		return or(sd.RecordLockDurationMs, share.DefaultRecordLockDurationMs)
	case "share.delivery.count.limit":
		return or(int64(sd.MaxDeliveryCount), int64(share.DefaultMaxDeliveryCount))
	case "share.partition.max.record.locks":
		return or(sd.MaxInFlightRecords, share.DefaultMaxInFlightRecords)
	case "share.auto.offset.reset":
		switch sd.AutoOffsetReset {
		case share.ResetEarliest:
			return "earliest"
		case share.ResetByDuration:
			return "by_duration:" + groupconfig.FormatDurationMs(sd.AutoOffsetResetDurationMs)
		}
		return "latest"
	case "share.isolation.level":
		return "read_uncommitted"
	case "share.renew.acknowledge.enable":
		return strconv.FormatBool(!sd.RenewDisabled)
	case "streams.session.timeout.ms":
		return ms(cc.StreamsSessionTimeout)
	case "streams.heartbeat.interval.ms":
		return ms(cc.StreamsHeartbeatInterval)
	case "streams.num.standby.replicas":
		return strconv.Itoa(cc.StreamsNumStandbyReplicas)
	case "streams.initial.rebalance.delay.ms":
		return ms(cc.StreamsInitialRebalanceDelay)
	case groupconfig.ConsumerAssignmentIntervalMs:
		return ms(cc.ConsumerAssignmentInterval.Interval)
	case groupconfig.ShareAssignmentIntervalMs:
		return ms(cc.ShareAssignmentInterval.Interval)
	case groupconfig.StreamsAssignmentIntervalMs:
		return ms(cc.StreamsAssignmentInterval.Interval)
	case groupconfig.StreamsTaskOffsetIntervalMs:
		return ms(cc.StreamsTaskOffsetInterval)
	case groupconfig.StreamsAcceptableRecoveryLag:
		return strconv.FormatInt(cc.StreamsAcceptableRecoveryLag, 10)
	}
	return ""
}
