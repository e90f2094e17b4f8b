package coordinator

import (
	"maps"
	"time"

	"github.com/coordsim/coordsim/groupconfig"
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
	// ConsumerAssignmentIntervalMs, ShareAssignmentIntervalMs and
	// StreamsAssignmentIntervalMs are consumer.assignment.interval.ms and
	// its twins (>= 0, within group.<type>.min/max.assignment.interval.ms;
	// 0 computes a target whenever the group epoch moves).
	ConsumerAssignmentIntervalMs, ShareAssignmentIntervalMs, StreamsAssignmentIntervalMs *int32
	// StreamsTaskOffsetIntervalMs is streams.task.offset.interval.ms (at
	// least group.streams.min.task.offset.interval.ms) and
	// StreamsAcceptableRecoveryLag streams.acceptable.recovery.lag (>= 0):
	// what the group's streams heartbeats answer.
	StreamsTaskOffsetIntervalMs  *int32
	StreamsAcceptableRecoveryLag *int64
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
	if gt := gc.ShardTimeouts(); gt != (shard.GroupTimeouts{}) {
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
	optional := func(o shard.OptionalMs) *int32 {
		if !o.Set {
			return nil
		}
		return &o.Ms
	}
	gc.ConsumerAssignmentIntervalMs = optional(gt.ConsumerAssignmentIntervalMs)
	gc.ShareAssignmentIntervalMs = optional(gt.ShareAssignmentIntervalMs)
	gc.StreamsAssignmentIntervalMs = optional(gt.StreamsAssignmentIntervalMs)
	gc.StreamsTaskOffsetIntervalMs = optional(gt.StreamsTaskOffsetIntervalMs)
	if gt.HasStreamsAcceptableRecoveryLag {
		lag := gt.StreamsAcceptableRecoveryLag
		gc.StreamsAcceptableRecoveryLag = &lag
	}
	return gc
}

// GroupConfigFromParsed is the coordinator's part of a validated group
// config (groupconfig.Parse).
func GroupConfigFromParsed(p groupconfig.Parsed) GroupConfig {
	return GroupConfig{
		ConsumerSessionTimeoutMs: p.Int32(groupconfig.ConsumerSessionTimeoutMs), ConsumerHeartbeatIntervalMs: p.Int32(groupconfig.ConsumerHeartbeatIntervalMs),
		ShareSessionTimeoutMs: p.Int32(groupconfig.ShareSessionTimeoutMs), ShareHeartbeatIntervalMs: p.Int32(groupconfig.ShareHeartbeatIntervalMs),
		StreamsSessionTimeoutMs: p.Int32(groupconfig.StreamsSessionTimeoutMs), StreamsHeartbeatIntervalMs: p.Int32(groupconfig.StreamsHeartbeatIntervalMs),
		StreamsNumStandbyReplicas: p.Int32(groupconfig.StreamsNumStandbyReplicas), StreamsInitialRebalanceDelayMs: p.Int32(groupconfig.StreamsInitialRebalanceDelayMs),
		ConsumerAssignmentIntervalMs: p.Int32(groupconfig.ConsumerAssignmentIntervalMs), ShareAssignmentIntervalMs: p.Int32(groupconfig.ShareAssignmentIntervalMs),
		StreamsAssignmentIntervalMs: p.Int32(groupconfig.StreamsAssignmentIntervalMs),
		StreamsTaskOffsetIntervalMs: p.Int32(groupconfig.StreamsTaskOffsetIntervalMs), StreamsAcceptableRecoveryLag: p.Int64(groupconfig.StreamsAcceptableRecoveryLag),
	}
}

// ShardTimeouts is the part of the config a shard reads
// (shard.SetGroupTimeouts); StreamsNumStandbyReplicas goes to
// shard.SetStreamsGroupConfigs.
func (gc GroupConfig) ShardTimeouts() shard.GroupTimeouts {
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
	optional := func(p *int32) shard.OptionalMs {
		if p == nil {
			return shard.OptionalMs{}
		}
		return shard.OptionalMs{Ms: *p, Set: true}
	}
	gt.ConsumerAssignmentIntervalMs = optional(gc.ConsumerAssignmentIntervalMs)
	gt.ShareAssignmentIntervalMs = optional(gc.ShareAssignmentIntervalMs)
	gt.StreamsAssignmentIntervalMs = optional(gc.StreamsAssignmentIntervalMs)
	gt.StreamsTaskOffsetIntervalMs = optional(gc.StreamsTaskOffsetIntervalMs)
	if gc.StreamsAcceptableRecoveryLag != nil {
		gt.StreamsAcceptableRecoveryLag, gt.HasStreamsAcceptableRecoveryLag = *gc.StreamsAcceptableRecoveryLag, true
	}
	return gt
}

// validateGroupConfig is Kafka's GroupConfig.validate (groupconfig's
// CheckAtLeast, then CheckValues over the keys the group sets), with its
// messages and in its order.
func (c *Coordinator) validateGroupConfig(gc GroupConfig) error {
	ints := map[string]int64{}
	for _, k := range []struct {
		name string
		v    *int32
	}{
		{groupconfig.ConsumerSessionTimeoutMs, gc.ConsumerSessionTimeoutMs},
		{groupconfig.ConsumerHeartbeatIntervalMs, gc.ConsumerHeartbeatIntervalMs},
		{groupconfig.ShareSessionTimeoutMs, gc.ShareSessionTimeoutMs},
		{groupconfig.ShareHeartbeatIntervalMs, gc.ShareHeartbeatIntervalMs},
		{groupconfig.StreamsSessionTimeoutMs, gc.StreamsSessionTimeoutMs},
		{groupconfig.StreamsHeartbeatIntervalMs, gc.StreamsHeartbeatIntervalMs},
		{groupconfig.StreamsNumStandbyReplicas, gc.StreamsNumStandbyReplicas},
		{groupconfig.StreamsInitialRebalanceDelayMs, gc.StreamsInitialRebalanceDelayMs},
		{groupconfig.ConsumerAssignmentIntervalMs, gc.ConsumerAssignmentIntervalMs},
		{groupconfig.ShareAssignmentIntervalMs, gc.ShareAssignmentIntervalMs},
		{groupconfig.StreamsAssignmentIntervalMs, gc.StreamsAssignmentIntervalMs},
		{groupconfig.StreamsTaskOffsetIntervalMs, gc.StreamsTaskOffsetIntervalMs},
	} {
		if k.v == nil {
			continue
		}
		if err := groupconfig.CheckAtLeast(k.name, int64(*k.v)); err != nil {
			return err
		}
		ints[k.name] = int64(*k.v)
	}
	if lag := gc.StreamsAcceptableRecoveryLag; lag != nil {
		if err := groupconfig.CheckAtLeast(groupconfig.StreamsAcceptableRecoveryLag, *lag); err != nil {
			return err
		}
		ints[groupconfig.StreamsAcceptableRecoveryLag] = *lag
	}
	return groupconfig.CheckValues(ints, c.cfg.GroupConfigBounds())
}

// GroupConfigBounds are the broker configs a group config is validated
// against (GroupConfig.validateValues): the session timeout and heartbeat
// interval ranges of each type, their broker values and the standby
// maximum. The share record keys' ranges (groupconfig.ShareRanges) the
// wire adds, as it also validates for the share plane.
func (cfg Config) GroupConfigBounds() groupconfig.Bounds {
	ms := func(d time.Duration) int64 { return d.Milliseconds() }
	return groupconfig.Bounds{
		Ranges: map[string]groupconfig.Range{
			groupconfig.ConsumerHeartbeatIntervalMs:  {Min: ms(cfg.ConsumerMinHeartbeatInterval), Max: ms(cfg.ConsumerMaxHeartbeatInterval)},
			groupconfig.ConsumerSessionTimeoutMs:     {Min: ms(cfg.ConsumerMinSessionTimeout), Max: ms(cfg.ConsumerMaxSessionTimeout)},
			groupconfig.ShareHeartbeatIntervalMs:     {Min: ms(cfg.ShareMinHeartbeatInterval), Max: ms(cfg.ShareMaxHeartbeatInterval)},
			groupconfig.ShareSessionTimeoutMs:        {Min: ms(cfg.ShareMinSessionTimeout), Max: ms(cfg.ShareMaxSessionTimeout)},
			groupconfig.StreamsHeartbeatIntervalMs:   {Min: ms(cfg.StreamsMinHeartbeatInterval), Max: ms(cfg.StreamsMaxHeartbeatInterval)},
			groupconfig.StreamsSessionTimeoutMs:      {Min: ms(cfg.StreamsMinSessionTimeout), Max: ms(cfg.StreamsMaxSessionTimeout)},
			groupconfig.ConsumerAssignmentIntervalMs: {Min: ms(cfg.ConsumerAssignmentInterval.Min), Max: ms(cfg.ConsumerAssignmentInterval.Max)},
			groupconfig.ShareAssignmentIntervalMs:    {Min: ms(cfg.ShareAssignmentInterval.Min), Max: ms(cfg.ShareAssignmentInterval.Max)},
			groupconfig.StreamsAssignmentIntervalMs:  {Min: ms(cfg.StreamsAssignmentInterval.Min), Max: ms(cfg.StreamsAssignmentInterval.Max)},
		},
		MaxStandbyReplicas:      int64(cfg.StreamsMaxStandbyReplicas),
		MinTaskOffsetIntervalMs: ms(cfg.StreamsMinTaskOffsetInterval),
		DefaultMs: map[string]int64{
			groupconfig.ConsumerSessionTimeoutMs: ms(cfg.ConsumerSessionTimeout), groupconfig.ConsumerHeartbeatIntervalMs: ms(cfg.ConsumerHeartbeatInterval),
			groupconfig.ShareSessionTimeoutMs: ms(cfg.ShareSessionTimeout), groupconfig.ShareHeartbeatIntervalMs: ms(cfg.ShareHeartbeatInterval),
			groupconfig.StreamsSessionTimeoutMs: ms(cfg.StreamsSessionTimeout), groupconfig.StreamsHeartbeatIntervalMs: ms(cfg.StreamsHeartbeatInterval),
		},
	}
}
