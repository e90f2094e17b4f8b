package shard

import "github.com/coordsim/coordsim/kerr"

// GroupTimeouts is one group's dynamic session timeout and heartbeat
// interval group configs, per group type (Kafka's GroupConfig keys
// consumer.session.timeout.ms, consumer.heartbeat.interval.ms,
// share.session.timeout.ms, share.heartbeat.interval.ms,
// streams.session.timeout.ms and streams.heartbeat.interval.ms). A group
// config names a group id, not a type, so it holds all three pairs; the
// group's type picks one. 0 takes the broker's value. It also holds
// streams.initial.rebalance.delay.ms, read when a streams group is empty.
type GroupTimeouts struct {
	ConsumerSessionTimeoutMs, ConsumerHeartbeatIntervalMs int32
	ShareSessionTimeoutMs, ShareHeartbeatIntervalMs       int32
	StreamsSessionTimeoutMs, StreamsHeartbeatIntervalMs   int32
	// StreamsInitialRebalanceDelayMs is streams.initial.rebalance.delay.ms
	// when HasStreamsInitialRebalanceDelay (0 is a valid delay: none).
	StreamsInitialRebalanceDelayMs  int32
	HasStreamsInitialRebalanceDelay bool
	// ConsumerAssignmentIntervalMs, ShareAssignmentIntervalMs and
	// StreamsAssignmentIntervalMs are consumer.assignment.interval.ms and
	// its twins (assignment_interval.go); 0 is a valid interval.
	ConsumerAssignmentIntervalMs, ShareAssignmentIntervalMs, StreamsAssignmentIntervalMs OptionalMs
	// StreamsTaskOffsetIntervalMs and StreamsAcceptableRecoveryLag are
	// streams.task.offset.interval.ms and streams.acceptable.recovery.lag,
	// for the streams heartbeat's answer.
	StreamsTaskOffsetIntervalMs     OptionalMs
	StreamsAcceptableRecoveryLag    int64
	HasStreamsAcceptableRecoveryLag bool
}

// OptionalMs is a group config of milliseconds that may be unset.
type OptionalMs struct {
	Ms  int32
	Set bool
}

// MaxGroupTimeoutConfigs bounds the groups with a timeout group config.
const MaxGroupTimeoutConfigs = 100_000

// SetGroupTimeouts installs the groups' dynamic session timeout and
// heartbeat interval configs (group id → timeouts; a group not in the map,
// or a zero field, uses the Config value). Like the topic image they are
// broker metadata, not records: Kafka keeps group configs in the cluster
// metadata and GroupMetadataManager reads them at each heartbeat
// (consumerGroupSessionTimeoutMs, consumerGroupHeartbeatIntervalMs and
// their share and streams twins), so a change takes effect at the next
// heartbeat: its answer's HeartbeatIntervalMs and the session timer it
// re-arms. The bounds against the broker's group.*.min/max keys are the
// coordinator's to check (it holds them); a negative value is
// INVALID_CONFIG and changes nothing.
func (s *Shard) SetGroupTimeouts(timeouts map[string]GroupTimeouts) error {
	if len(timeouts) > MaxGroupTimeoutConfigs {
		return kerr.InvalidConfig.WithMessage("at most %d groups may have a timeout group config, got %d", MaxGroupTimeoutConfigs, len(timeouts))
	}
	var img map[string]GroupTimeouts
	if len(timeouts) > 0 {
		img = make(map[string]GroupTimeouts, len(timeouts))
	}
	for id, gt := range timeouts {
		for _, v := range [...]int32{gt.ConsumerSessionTimeoutMs, gt.ConsumerHeartbeatIntervalMs, gt.ShareSessionTimeoutMs,
			gt.ShareHeartbeatIntervalMs, gt.StreamsSessionTimeoutMs, gt.StreamsHeartbeatIntervalMs, gt.StreamsInitialRebalanceDelayMs,
			gt.ConsumerAssignmentIntervalMs.Ms, gt.ShareAssignmentIntervalMs.Ms, gt.StreamsAssignmentIntervalMs.Ms, gt.StreamsTaskOffsetIntervalMs.Ms} {
			if v < 0 {
				return kerr.InvalidConfig.WithMessage("group %s: a session timeout, heartbeat or assignment interval or delay must not be negative, got %d", id, v)
			}
		}
		for _, o := range [...]OptionalMs{gt.ConsumerAssignmentIntervalMs, gt.ShareAssignmentIntervalMs, gt.StreamsAssignmentIntervalMs, gt.StreamsTaskOffsetIntervalMs} {
			if !o.Set && o.Ms != 0 {
				return kerr.InvalidConfig.WithMessage("group %s: a value of %d ms that is not set", id, o.Ms)
			}
		}
		if gt.StreamsTaskOffsetIntervalMs.Set && gt.StreamsTaskOffsetIntervalMs.Ms < 1 {
			return kerr.InvalidConfig.WithMessage("group %s: streams.task.offset.interval.ms must be at least 1, got %d", id, gt.StreamsTaskOffsetIntervalMs.Ms)
		}
		if gt.StreamsAcceptableRecoveryLag < 0 {
			return kerr.InvalidConfig.WithMessage("group %s: streams.acceptable.recovery.lag must not be negative, got %d", id, gt.StreamsAcceptableRecoveryLag)
		}
		img[id] = gt
	}
	s.groupTimeouts = img
	return nil
}

// sessionTimeoutMs is the group's session timeout: its group config for
// its type, else the broker's (GroupMetadataManager.consumerGroupSessionTimeoutMs,
// shareGroupSessionTimeoutMs, streamsGroupSessionTimeoutMs).
func (s *Shard) sessionTimeoutMs(typ GroupType, groupID string) int32 {
	if gt, ok := s.groupTimeouts[groupID]; ok {
		if v := groupKinds[typ].setting(gt.StreamsSessionTimeoutMs, gt.ShareSessionTimeoutMs, gt.ConsumerSessionTimeoutMs); v > 0 {
			return v
		}
	}
	return groupKinds[typ].setting(s.cfg.StreamsSessionTimeoutMs, s.cfg.ShareSessionTimeoutMs, s.cfg.ConsumerSessionTimeoutMs)
}

// heartbeatIntervalMs is the group's heartbeat interval: its group config
// for its type, else the broker's (GroupMetadataManager.consumerGroupHeartbeatIntervalMs
// and its twins).
func (s *Shard) heartbeatIntervalMs(typ GroupType, groupID string) int32 {
	if gt, ok := s.groupTimeouts[groupID]; ok {
		if v := groupKinds[typ].setting(gt.StreamsHeartbeatIntervalMs, gt.ShareHeartbeatIntervalMs, gt.ConsumerHeartbeatIntervalMs); v > 0 {
			return v
		}
	}
	return groupKinds[typ].setting(s.cfg.StreamsHeartbeatIntervalMs, s.cfg.ShareHeartbeatIntervalMs, s.cfg.ConsumerHeartbeatIntervalMs)
}

// streamsInitialRebalanceDelayMs is the group's initial rebalance delay:
// its streams.initial.rebalance.delay.ms, else the broker's
// group.streams.initial.rebalance.delay.ms.
func (s *Shard) streamsInitialRebalanceDelayMs(groupID string) int32 {
	if gt, ok := s.groupTimeouts[groupID]; ok && gt.HasStreamsInitialRebalanceDelay {
		return gt.StreamsInitialRebalanceDelayMs
	}
	return s.cfg.StreamsInitialRebalanceDelayMs
}

// streamsTaskOffsetIntervalMs is the group's streams.task.offset.interval.ms,
// else the broker's (GroupMetadataManager.streamsGroupTaskOffsetIntervalMs).
func (s *Shard) streamsTaskOffsetIntervalMs(groupID string) int32 {
	if gt, ok := s.groupTimeouts[groupID]; ok && gt.StreamsTaskOffsetIntervalMs.Set {
		return gt.StreamsTaskOffsetIntervalMs.Ms
	}
	return s.cfg.StreamsTaskOffsetIntervalMs
}

// streamsAcceptableRecoveryLag is the group's streams.acceptable.recovery.lag,
// else the broker's (GroupMetadataManager.streamsGroupAcceptableRecoveryLag).
func (s *Shard) streamsAcceptableRecoveryLag(groupID string) int64 {
	if gt, ok := s.groupTimeouts[groupID]; ok && gt.HasStreamsAcceptableRecoveryLag {
		return gt.StreamsAcceptableRecoveryLag
	}
	return s.cfg.StreamsAcceptableRecoveryLag
}
