package coordinator

import (
	"maps"
	"time"

	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/shard"
)

// GroupConfig is a group's dynamic group config: the keys of Kafka's
// GroupConfig the coordinator acts on, each in milliseconds or a count as
// Kafka spells it. A nil field takes the broker's value. A group config
// names a group id, not a type, so it may hold the keys of every type; the
// group's type picks the ones that apply.
type GroupConfig struct {
	// ConsumerSessionTimeoutMs is consumer.session.timeout.ms, within
	// group.consumer.min/max.session.timeout.ms.
	ConsumerSessionTimeoutMs *int32
	// ConsumerHeartbeatIntervalMs is consumer.heartbeat.interval.ms, within
	// group.consumer.min/max.heartbeat.interval.ms.
	ConsumerHeartbeatIntervalMs *int32
	// ShareSessionTimeoutMs is share.session.timeout.ms, within
	// group.share.min/max.session.timeout.ms.
	ShareSessionTimeoutMs *int32
	// ShareHeartbeatIntervalMs is share.heartbeat.interval.ms, within
	// group.share.min/max.heartbeat.interval.ms.
	ShareHeartbeatIntervalMs *int32
	// StreamsSessionTimeoutMs is streams.session.timeout.ms, within
	// group.streams.min/max.session.timeout.ms.
	StreamsSessionTimeoutMs *int32
	// StreamsHeartbeatIntervalMs is streams.heartbeat.interval.ms, within
	// group.streams.min/max.heartbeat.interval.ms.
	StreamsHeartbeatIntervalMs *int32
	// StreamsNumStandbyReplicas is streams.num.standby.replicas (>= 0, at
	// most group.streams.max.standby.replicas), as SetStreamsGroupConfig
	// sets it.
	StreamsNumStandbyReplicas *int32
	// StreamsInitialRebalanceDelayMs is streams.initial.rebalance.delay.ms
	// (>= 0; 0 assigns a group that members join while empty at once).
	StreamsInitialRebalanceDelayMs *int32
}

// SetGroupConfig replaces a group's dynamic group config (every field nil
// removes it), as an IncrementalAlterConfigs on the GROUP resource does
// once its operations are applied. It validates as Kafka's
// GroupConfig.validate does (validateGroupConfig).
// Like the topic image the config is broker metadata: it survives shard
// moves and unloads and is installed on every hosted shard and on shards
// loaded later. A new session timeout or heartbeat interval takes effect
// at the group's next heartbeat (its answer and the session timer it
// re-arms); a new num.standby.replicas bumps the group epoch at the next
// heartbeat. Bad input is INVALID_GROUP_ID or INVALID_CONFIG and changes
// nothing.
func (c *Coordinator) SetGroupConfig(groupID string, gc GroupConfig) error {
	if groupID == "" {
		return kerr.InvalidGroupID.WithMessage("the group id is empty")
	}
	if err := c.validateGroupConfig(gc); err != nil {
		return err
	}
	standbys := maps.Clone(c.streamsStandbys)
	if standbys == nil {
		standbys = map[string]int32{}
	}
	if n := gc.StreamsNumStandbyReplicas; n != nil {
		standbys[groupID] = *n
	} else {
		delete(standbys, groupID)
	}
	timeouts := maps.Clone(c.groupTimeouts)
	if timeouts == nil {
		timeouts = map[string]shard.GroupTimeouts{}
	}
	if gt := gc.timeouts(); gt != (shard.GroupTimeouts{}) {
		timeouts[groupID] = gt
	} else {
		delete(timeouts, groupID)
	}
	if len(standbys) > shard.MaxStreamsGroupConfigs {
		return kerr.InvalidConfig.WithMessage("at most %d streams groups may have a group config", shard.MaxStreamsGroupConfigs)
	}
	if len(timeouts) > shard.MaxGroupTimeoutConfigs {
		return kerr.InvalidConfig.WithMessage("at most %d groups may have a timeout group config", shard.MaxGroupTimeoutConfigs)
	}
	// Replaced, never written in place: shards share them.
	c.streamsStandbys, c.groupTimeouts = standbys, timeouts
	for _, p := range c.sortedPartitions() {
		h := c.shards[p]
		if h.status != statusActive {
			continue
		}
		for _, s := range []*shard.Shard{h.latest, h.committed} {
			// Validated above, so neither refuses.
			_ = s.SetStreamsGroupConfigs(standbys)
			_ = s.SetGroupTimeouts(timeouts)
			if h.committed == h.latest {
				break
			}
		}
	}
	return nil
}

// GroupConfig returns a group's dynamic config (nil fields where none is
// set).
func (c *Coordinator) GroupConfig(groupID string) GroupConfig {
	var gc GroupConfig
	if n, ok := c.streamsStandbys[groupID]; ok {
		gc.StreamsNumStandbyReplicas = &n
	}
	gt := c.groupTimeouts[groupID]
	opt := func(v int32) *int32 {
		if v == 0 {
			return nil
		}
		return &v
	}
	gc.ConsumerSessionTimeoutMs = opt(gt.ConsumerSessionTimeoutMs)
	gc.ConsumerHeartbeatIntervalMs = opt(gt.ConsumerHeartbeatIntervalMs)
	gc.ShareSessionTimeoutMs = opt(gt.ShareSessionTimeoutMs)
	gc.ShareHeartbeatIntervalMs = opt(gt.ShareHeartbeatIntervalMs)
	gc.StreamsSessionTimeoutMs = opt(gt.StreamsSessionTimeoutMs)
	gc.StreamsHeartbeatIntervalMs = opt(gt.StreamsHeartbeatIntervalMs)
	if gt.HasStreamsInitialRebalanceDelay {
		d := gt.StreamsInitialRebalanceDelayMs
		gc.StreamsInitialRebalanceDelayMs = &d
	}
	return gc
}

func (gc GroupConfig) timeouts() shard.GroupTimeouts {
	v := func(p *int32) int32 {
		if p == nil {
			return 0
		}
		return *p
	}
	gt := shard.GroupTimeouts{
		ConsumerSessionTimeoutMs: v(gc.ConsumerSessionTimeoutMs), ConsumerHeartbeatIntervalMs: v(gc.ConsumerHeartbeatIntervalMs),
		ShareSessionTimeoutMs: v(gc.ShareSessionTimeoutMs), ShareHeartbeatIntervalMs: v(gc.ShareHeartbeatIntervalMs),
		StreamsSessionTimeoutMs: v(gc.StreamsSessionTimeoutMs), StreamsHeartbeatIntervalMs: v(gc.StreamsHeartbeatIntervalMs),
	}
	if gc.StreamsInitialRebalanceDelayMs != nil {
		gt.StreamsInitialRebalanceDelayMs, gt.HasStreamsInitialRebalanceDelay = *gc.StreamsInitialRebalanceDelayMs, true
	}
	return gt
}

// validateGroupConfig is Kafka's GroupConfig.validate (trunk, with
// validateValues checking only the keys the group sets): ConfigDef's
// atLeast checks, then each set key's broker range, the standby maximum,
// and each session timeout above its heartbeat interval when either is
// set (the other taken from the broker), in Kafka's order and with its
// messages.
func (c *Coordinator) validateGroupConfig(gc GroupConfig) error {
	type key struct {
		name string
		v    *int32
		min  int32
	}
	for _, k := range []key{
		{"consumer.session.timeout.ms", gc.ConsumerSessionTimeoutMs, 1},
		{"consumer.heartbeat.interval.ms", gc.ConsumerHeartbeatIntervalMs, 1},
		{"share.session.timeout.ms", gc.ShareSessionTimeoutMs, 1},
		{"share.heartbeat.interval.ms", gc.ShareHeartbeatIntervalMs, 1},
		{"streams.session.timeout.ms", gc.StreamsSessionTimeoutMs, 1},
		{"streams.heartbeat.interval.ms", gc.StreamsHeartbeatIntervalMs, 1},
		{"streams.num.standby.replicas", gc.StreamsNumStandbyReplicas, 0},
		{"streams.initial.rebalance.delay.ms", gc.StreamsInitialRebalanceDelayMs, 0},
	} {
		if k.v != nil && *k.v < k.min {
			return kerr.InvalidConfig.WithMessage("Invalid value %d for configuration %s: Value must be at least %d", *k.v, k.name, k.min)
		}
	}
	cfg := c.cfg
	ms := func(d time.Duration) int64 { return d.Milliseconds() }
	type bound struct {
		key      string
		v        *int32
		min, max int64
	}
	for _, b := range []bound{
		{"consumer.heartbeat.interval.ms", gc.ConsumerHeartbeatIntervalMs, ms(cfg.ConsumerMinHeartbeatInterval), ms(cfg.ConsumerMaxHeartbeatInterval)},
		{"consumer.session.timeout.ms", gc.ConsumerSessionTimeoutMs, ms(cfg.ConsumerMinSessionTimeout), ms(cfg.ConsumerMaxSessionTimeout)},
		{"share.heartbeat.interval.ms", gc.ShareHeartbeatIntervalMs, ms(cfg.ShareMinHeartbeatInterval), ms(cfg.ShareMaxHeartbeatInterval)},
		{"share.session.timeout.ms", gc.ShareSessionTimeoutMs, ms(cfg.ShareMinSessionTimeout), ms(cfg.ShareMaxSessionTimeout)},
		{"streams.heartbeat.interval.ms", gc.StreamsHeartbeatIntervalMs, ms(cfg.StreamsMinHeartbeatInterval), ms(cfg.StreamsMaxHeartbeatInterval)},
		{"streams.session.timeout.ms", gc.StreamsSessionTimeoutMs, ms(cfg.StreamsMinSessionTimeout), ms(cfg.StreamsMaxSessionTimeout)},
	} {
		if b.v != nil && (int64(*b.v) < b.min || int64(*b.v) > b.max) {
			return kerr.InvalidConfig.WithMessage("%s must be in the range %d to %d inclusive.", b.key, b.min, b.max)
		}
	}
	if n := gc.StreamsNumStandbyReplicas; n != nil && int(*n) > cfg.StreamsMaxStandbyReplicas {
		return kerr.InvalidConfig.WithMessage("streams.num.standby.replicas must be less than or equal to %d", cfg.StreamsMaxStandbyReplicas)
	}
	type pair struct {
		sessionKey, heartbeatKey string
		session, heartbeat       *int32
		defSession, defHeartbeat time.Duration
	}
	for _, p := range []pair{
		{"consumer.session.timeout.ms", "consumer.heartbeat.interval.ms", gc.ConsumerSessionTimeoutMs, gc.ConsumerHeartbeatIntervalMs,
			cfg.ConsumerSessionTimeout, cfg.ConsumerHeartbeatInterval},
		{"share.session.timeout.ms", "share.heartbeat.interval.ms", gc.ShareSessionTimeoutMs, gc.ShareHeartbeatIntervalMs,
			cfg.ShareSessionTimeout, cfg.ShareHeartbeatInterval},
		{"streams.session.timeout.ms", "streams.heartbeat.interval.ms", gc.StreamsSessionTimeoutMs, gc.StreamsHeartbeatIntervalMs,
			cfg.StreamsSessionTimeout, cfg.StreamsHeartbeatInterval},
	} {
		if p.session == nil && p.heartbeat == nil {
			continue
		}
		session, heartbeat := ms(p.defSession), ms(p.defHeartbeat)
		if p.session != nil {
			session = int64(*p.session)
		}
		if p.heartbeat != nil {
			heartbeat = int64(*p.heartbeat)
		}
		if session <= heartbeat {
			return kerr.InvalidConfig.WithMessage("%s must be greater than %s", p.sessionKey, p.heartbeatKey)
		}
	}
	return nil
}
