package difftest

import (
	"maps"
	"slices"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/groupconfig"
	"github.com/coordsim/coordsim/shard"
)

// SetGroupConfig replaces a group's dynamic group config (no props: none),
// as an IncrementalAlterConfigs on the GROUP resource does once validated.
// Kafka validates it with GroupConfig.validate and its GroupConfigManager
// serves it to the shard; coordsim validates with package groupconfig and
// installs it on the shard (shard.SetGroupTimeouts,
// SetStreamsGroupConfigs). Group configs are cluster metadata, not
// records: a reload keeps them.
type SetGroupConfig struct {
	GroupID string            `json:"groupId"`
	Props   map[string]string `json:"props"`
}

func (SetGroupConfig) Name() string { return "group_config" }

func (o SetGroupConfig) oracle(topicIDs) map[string]any {
	props := map[string]any{}
	for k, v := range o.Props {
		props[k] = v
	}
	return map[string]any{"groupId": o.GroupID, "props": props}
}

func (o SetGroupConfig) run(d *driver) Outcome {
	b := coordinator.DefaultConfig().GroupConfigBounds()
	maps.Copy(b.Ranges, groupconfig.ShareRanges())
	p, err := groupconfig.Parse(o.Props, b)
	if err != nil {
		return errOutcome(err)
	}
	if d.groupConfigs == nil {
		d.groupConfigs = map[string]coordinator.GroupConfig{}
	}
	d.groupConfigs[o.GroupID] = coordinator.GroupConfigFromParsed(p)
	if err := d.installGroupConfigs(d.s); err != nil {
		return Outcome{Bad: err.Error()}
	}
	return Outcome{Records: []any{}}
}

// installGroupConfigs gives s the driver's group configs.
func (d *driver) installGroupConfigs(s *shard.Shard) error {
	timeouts, standbys := map[string]shard.GroupTimeouts{}, map[string]int32{}
	for id, gc := range d.groupConfigs {
		if gt := gc.ShardTimeouts(); gt != (shard.GroupTimeouts{}) {
			timeouts[id] = gt
		}
		if n := gc.StreamsNumStandbyReplicas; n != nil {
			standbys[id] = *n
		}
	}
	if err := s.SetGroupTimeouts(timeouts); err != nil {
		return err
	}
	return s.SetStreamsGroupConfigs(standbys)
}

// groupConfigValues are the values the generator sets per key: in range
// and out of it (the broker's default bounds), and now and then one that
// does not parse.
var groupConfigValues = map[string][]string{
	groupconfig.ConsumerSessionTimeoutMs:       {"45000", "50000", "60000", "44999"},
	groupconfig.ConsumerHeartbeatIntervalMs:    {"5000", "8000", "15000", "16000"},
	groupconfig.ConsumerAssignmentIntervalMs:   {"0", "500", "3000", "15001"},
	groupconfig.ShareSessionTimeoutMs:          {"45000", "55000", "70000"},
	groupconfig.ShareHeartbeatIntervalMs:       {"5000", "10000", "4000"},
	groupconfig.ShareAssignmentIntervalMs:      {"0", "2000", "-1"},
	groupconfig.StreamsSessionTimeoutMs:        {"45000", "50000", "soon"},
	groupconfig.StreamsHeartbeatIntervalMs:     {"5000", "7000", "15000"},
	groupconfig.StreamsNumStandbyReplicas:      {"0", "1", "2", "3"},
	groupconfig.StreamsInitialRebalanceDelayMs: {"0", "1000", "5000"},
	groupconfig.StreamsAssignmentIntervalMs:    {"0", "1000", "5000"},
	groupconfig.StreamsTaskOffsetIntervalMs:    {"15000", "20000", "14999"},
	groupconfig.StreamsAcceptableRecoveryLag:   {"0", "5000", "9223372036854775807"},
}

// groupConfigKeys are groupConfigValues' keys, sorted: the generator draws
// from a fixed order, never a map's.
var groupConfigKeys = slices.Sorted(maps.Keys(groupConfigValues))

// groupConfig draws a group config for one of the generator's groups: up
// to three keys (none removes the config).
func (g *generator) groupConfig() Op {
	op := SetGroupConfig{GroupID: g.pick([]string{"cg0", "cg1", "sg0", streamsGroup}), Props: map[string]string{}}
	for range g.rng.IntN(4) {
		k := groupConfigKeys[g.rng.IntN(len(groupConfigKeys))]
		vals := groupConfigValues[k]
		op.Props[k] = vals[g.rng.IntN(len(vals))]
	}
	return op
}
