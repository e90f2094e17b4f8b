package coordinator

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
	// One store and one validation with SetGroupConfig: the other keys of
	// the group's config stay.
	all := c.GroupConfig(groupID)
	all.StreamsNumStandbyReplicas = gc.NumStandbyReplicas
	return c.SetGroupConfig(groupID, all)
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
