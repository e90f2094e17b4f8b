package shard

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/kerr"
)

// statefulTopo is a one-subtopology topology with a state store.
func statefulTopo(epoch int32, source string) *Topology {
	return &Topology{Epoch: epoch, Subtopologies: []Subtopology{{ID: "0", SourceTopics: []string{source},
		StateChangelogTopics: []TopicInfo{{Name: "app-store-changelog"}}}}}
}

// targetOf returns a member's active and standby targets.
func targetOf(t *testing.T, s *Shard, group, member string) (active, standby []TopicPartitions) {
	t.Helper()
	g := s.lookup(group)
	require.NotNil(t, g)
	m := g.members[member]
	require.NotNil(t, m, "member %s", member)
	return m.target, m.streamsPart().targetStandby
}

func TestStreamsAssignor_StandbysFollowTheGroupConfig(t *testing.T) {
	// With the broker's group.streams.num.standby.replicas at 1, a second
	// process gets the standby of each task the first runs; a group config
	// of 0 for the group removes them at its next assignment; a negative
	// group config is INVALID_CONFIG and changes nothing.
	cfg := testConfig()
	cfg.StreamsNumStandbyReplicas = 1
	h := newHarness(t, cfg, map[string]int32{"in": 2, "app-store-changelog": 2})
	h.streamsJoin("app", "a", statefulTopo(1, "in"))
	h.streamsJoin("app", "b", statefulTopo(1, "in"))
	aActive, aStandby := targetOf(t, h.s, "app", "a")
	bActive, bStandby := targetOf(t, h.s, "app", "b")
	assert.Equal(t, aActive, bStandby, "b stands by for a's tasks")
	assert.Equal(t, bActive, aStandby, "a stands by for b's tasks")
	assert.Len(t, aActive, 1)

	err := h.s.SetStreamsGroupConfigs(map[string]int32{"app": -1})
	require.ErrorIs(t, err, kerr.InvalidConfig)
	assert.Empty(t, h.s.streamsStandbys, "the refused config changed nothing")
	require.NoError(t, h.s.SetStreamsGroupConfigs(map[string]int32{"app": 0}))
	h.streamsJoin("app", "c", statefulTopo(1, "in"))
	for _, id := range []string{"a", "b", "c"} {
		_, standby := targetOf(t, h.s, "app", id)
		assert.Empty(t, standby, "member %s", id)
	}
}

func TestStreamsAssignor_GroupConfigChangeBumpsTheGroupEpoch(t *testing.T) {
	// Kafka's lastAssignmentConfigs: the group epoch record keeps the
	// num.standby.replicas of its bump, and a steady member's heartbeat
	// that sees another value bumps the group epoch; the value survives a
	// rebuild from the log.
	h := newHarness(t, testConfig(), map[string]int32{"in": 2, "app-store-changelog": 2})
	h.streamsJoin("app", "a", statefulTopo(1, "in"))
	r := h.streamsHeartbeat("app", "a", 2)
	require.Equal(t, int32(2), r.MemberEpoch, "steady")
	d, _ := h.s.DescribeGroup("app")
	assert.Equal(t, int32(0), d.LastNumStandbyReplicas)

	require.NoError(t, h.s.SetStreamsGroupConfigs(map[string]int32{"app": 1}))
	r = h.streamsHeartbeat("app", "a", 2)
	assert.Equal(t, int32(3), r.MemberEpoch, "the changed config bumps the group epoch")
	d, _ = h.s.DescribeGroup("app")
	assert.Equal(t, int32(1), d.LastNumStandbyReplicas)
	r = h.streamsHeartbeat("app", "a", 3)
	assert.Equal(t, int32(3), r.MemberEpoch, "steady again")

	rebuilt := h.rebuild()
	rd, _ := rebuilt.DescribeGroup("app")
	assert.Equal(t, int32(1), rd.LastNumStandbyReplicas)
	requireSnapshotEqual(t, h.s.Snapshot(), rebuilt.Snapshot(), "rebuilt")
}
