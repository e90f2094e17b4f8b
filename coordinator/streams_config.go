package coordinator

import (
	"maps"

	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/shard"
)

// StreamsGroupConfig is a streams group's dynamic group config, the
// streams.* keys of Kafka's GroupConfig that coordsim models. A nil field
// takes the broker's value.
type StreamsGroupConfig struct {
	// NumStandbyReplicas is streams.num.standby.replicas: the standby
	// replicas of each stateful task (>= 0, at most
	// group.streams.max.standby.replicas); nil for the broker's
	// group.streams.num.standby.replicas.
	NumStandbyReplicas *int32
}

// SetStreamsGroupConfig sets (or, with every field nil, removes) a streams
// group's dynamic config, as an IncrementalAlterConfigs on the group
// resource does: Kafka's GroupConfig.validate with its messages, kept by
// the broker like the topic image (it survives shard moves and unloads) and
// installed on every hosted shard and on shards loaded later. A change
// bumps the group epoch at the group's next heartbeat, as Kafka's
// lastAssignmentConfigs check does. Bad input is
// INVALID_GROUP_ID or INVALID_CONFIG and changes nothing.
func (c *Coordinator) SetStreamsGroupConfig(groupID string, gc StreamsGroupConfig) error {
	if groupID == "" {
		return kerr.InvalidGroupID.WithMessage("the group id is empty")
	}
	next := maps.Clone(c.streamsStandbys)
	if next == nil {
		next = map[string]int32{}
	}
	if n := gc.NumStandbyReplicas; n != nil {
		if *n < 0 {
			return kerr.InvalidConfig.WithMessage("Invalid value %d for configuration streams.num.standby.replicas: Value must be at least 0", *n)
		}
		if int(*n) > c.cfg.StreamsMaxStandbyReplicas {
			return kerr.InvalidConfig.WithMessage("streams.num.standby.replicas must be less than or equal to group.streams.max.standby.replicas")
		}
		next[groupID] = *n
	} else {
		delete(next, groupID)
	}
	if len(next) > shard.MaxStreamsGroupConfigs {
		return kerr.InvalidConfig.WithMessage("at most %d streams groups may have a group config", shard.MaxStreamsGroupConfigs)
	}
	c.streamsStandbys = next // replaced, never written in place: shards share it
	for _, p := range c.sortedPartitions() {
		h := c.shards[p]
		if h.status != statusActive {
			continue
		}
		_ = h.latest.SetStreamsGroupConfigs(next) // validated above
		if h.committed != h.latest {
			_ = h.committed.SetStreamsGroupConfigs(next)
		}
	}
	return nil
}

// StreamsGroupConfig returns the dynamic config of a streams group (nil
// fields where none is set).
func (c *Coordinator) StreamsGroupConfig(groupID string) StreamsGroupConfig {
	var gc StreamsGroupConfig
	if n, ok := c.streamsStandbys[groupID]; ok {
		gc.NumStandbyReplicas = &n
	}
	return gc
}
