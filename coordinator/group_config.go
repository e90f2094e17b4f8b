package coordinator

import (
	"maps"

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
	// group.share.min/max.session.timeout.ms (45000 and 60000).
	ShareSessionTimeoutMs *int32
	// ShareHeartbeatIntervalMs is share.heartbeat.interval.ms, within
	// group.share.min/max.heartbeat.interval.ms (5000 and 15000).
	ShareHeartbeatIntervalMs *int32
	// StreamsSessionTimeoutMs is streams.session.timeout.ms, within
	// group.streams.min/max.session.timeout.ms (45000 and 60000).
	StreamsSessionTimeoutMs *int32
	// StreamsHeartbeatIntervalMs is streams.heartbeat.interval.ms, within
	// group.streams.min/max.heartbeat.interval.ms (5000 and 15000).
	StreamsHeartbeatIntervalMs *int32
	// StreamsNumStandbyReplicas is streams.num.standby.replicas (>= 0, at
	// most group.streams.max.standby.replicas), as SetStreamsGroupConfig
	// sets it.
	StreamsNumStandbyReplicas *int32
}

// The share and streams bounds coordsim does not make configurable:
// Kafka's defaults of group.share.min/max.session.timeout.ms,
// group.share.min/max.heartbeat.interval.ms and their streams twins (the
// values Config.Validate holds ShareSessionTimeout and the others to).
const (
	shareStreamsMinSessionTimeoutMs    = 45_000
	shareStreamsMaxSessionTimeoutMs    = 60_000
	shareStreamsMinHeartbeatIntervalMs = 5_000
	shareStreamsMaxHeartbeatIntervalMs = 15_000
)

// SetGroupConfig replaces a group's dynamic group config (every field nil
// removes it), as an IncrementalAlterConfigs on the GROUP resource does
// once its operations are applied. It validates as Kafka's
// GroupConfig.validate does, the group's values merged over the broker's:
// each key at least 1 (0 for streams.num.standby.replicas), then the
// consumer, share and streams bounds, the standby maximum, and each
// session timeout above its heartbeat interval, with Kafka's messages.
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
	return gc
}

func (gc GroupConfig) timeouts() shard.GroupTimeouts {
	v := func(p *int32) int32 {
		if p == nil {
			return 0
		}
		return *p
	}
	return shard.GroupTimeouts{
		ConsumerSessionTimeoutMs: v(gc.ConsumerSessionTimeoutMs), ConsumerHeartbeatIntervalMs: v(gc.ConsumerHeartbeatIntervalMs),
		ShareSessionTimeoutMs: v(gc.ShareSessionTimeoutMs), ShareHeartbeatIntervalMs: v(gc.ShareHeartbeatIntervalMs),
		StreamsSessionTimeoutMs: v(gc.StreamsSessionTimeoutMs), StreamsHeartbeatIntervalMs: v(gc.StreamsHeartbeatIntervalMs),
	}
}

// validateGroupConfig is Kafka's GroupConfig.validate: ConfigDef's
// atLeast checks, then validateValues on the values merged over the
// broker's, in Kafka's order and with its messages.
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
	} {
		if k.v != nil && *k.v < k.min {
			return kerr.InvalidConfig.WithMessage("Invalid value %d for configuration %s: Value must be at least %d", *k.v, k.name, k.min)
		}
	}
	or := func(p *int32, d int64) int64 {
		if p == nil {
			return d
		}
		return int64(*p)
	}
	cfg := c.cfg
	consumerHB := or(gc.ConsumerHeartbeatIntervalMs, cfg.ConsumerHeartbeatInterval.Milliseconds())
	consumerST := or(gc.ConsumerSessionTimeoutMs, cfg.ConsumerSessionTimeout.Milliseconds())
	shareHB := or(gc.ShareHeartbeatIntervalMs, cfg.ShareHeartbeatInterval.Milliseconds())
	shareST := or(gc.ShareSessionTimeoutMs, cfg.ShareSessionTimeout.Milliseconds())
	streamsHB := or(gc.StreamsHeartbeatIntervalMs, cfg.StreamsHeartbeatInterval.Milliseconds())
	streamsST := or(gc.StreamsSessionTimeoutMs, cfg.StreamsSessionTimeout.Milliseconds())
	standbys := or(gc.StreamsNumStandbyReplicas, int64(cfg.StreamsNumStandbyReplicas))
	type bound struct {
		key      string
		v        int64
		min, max int64
		minKey   string
		maxKey   string
	}
	for _, b := range []bound{
		{"consumer.heartbeat.interval.ms", consumerHB, cfg.ConsumerMinHeartbeatInterval.Milliseconds(), cfg.ConsumerMaxHeartbeatInterval.Milliseconds(),
			"group.consumer.min.heartbeat.interval.ms", "group.consumer.max.heartbeat.interval.ms"},
		{"consumer.session.timeout.ms", consumerST, cfg.ConsumerMinSessionTimeout.Milliseconds(), cfg.ConsumerMaxSessionTimeout.Milliseconds(),
			"group.consumer.min.session.timeout.ms", "group.consumer.max.session.timeout.ms"},
		{"share.heartbeat.interval.ms", shareHB, shareStreamsMinHeartbeatIntervalMs, shareStreamsMaxHeartbeatIntervalMs,
			"group.share.min.heartbeat.interval.ms", "group.share.max.heartbeat.interval.ms"},
		{"share.session.timeout.ms", shareST, shareStreamsMinSessionTimeoutMs, shareStreamsMaxSessionTimeoutMs,
			"group.share.min.session.timeout.ms", "group.share.max.session.timeout.ms"},
		{"streams.heartbeat.interval.ms", streamsHB, shareStreamsMinHeartbeatIntervalMs, shareStreamsMaxHeartbeatIntervalMs,
			"group.streams.min.heartbeat.interval.ms", "group.streams.max.heartbeat.interval.ms"},
		{"streams.session.timeout.ms", streamsST, shareStreamsMinSessionTimeoutMs, shareStreamsMaxSessionTimeoutMs,
			"group.streams.min.session.timeout.ms", "group.streams.max.session.timeout.ms"},
	} {
		if b.v < b.min {
			return kerr.InvalidConfig.WithMessage("%s must be greater than or equal to %s", b.key, b.minKey)
		}
		if b.v > b.max {
			return kerr.InvalidConfig.WithMessage("%s must be less than or equal to %s", b.key, b.maxKey)
		}
	}
	if standbys > int64(cfg.StreamsMaxStandbyReplicas) {
		return kerr.InvalidConfig.WithMessage("streams.num.standby.replicas must be less than or equal to group.streams.max.standby.replicas")
	}
	if consumerST <= consumerHB {
		return kerr.InvalidConfig.WithMessage("consumer.session.timeout.ms must be greater than consumer.heartbeat.interval.ms")
	}
	if shareST <= shareHB {
		return kerr.InvalidConfig.WithMessage("share.session.timeout.ms must be greater than share.heartbeat.interval.ms")
	}
	if streamsST <= streamsHB {
		return kerr.InvalidConfig.WithMessage("streams.session.timeout.ms must be greater than streams.heartbeat.interval.ms")
	}
	return nil
}
