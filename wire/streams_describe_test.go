package wire_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// StreamsGroupDescribe describes a ready group's configured topology, as
// Kafka's StreamsGroup.asDescribedGroup does with
// ConfiguredTopology.asStreamsGroupDescribeTopology: subtopologies sorted by
// id, internal topics sorted by name with their decided partition counts.
// Before the topology is validated it describes the stored topology
// (StreamsTopology.asStreamsGroupDescribeTopology): sorted too, with the
// counts the member sent (0).
func TestStreamsGroupDescribeConfiguredTopology(t *testing.T) {
	t.Parallel()
	const group = "describe-configured"
	_, send := streamsCoordinator(t, group)
	topology := kmsg.NewStreamsGroupHeartbeatRequestTopology()
	topology.Epoch = 1
	s1 := kmsg.NewStreamsGroupHeartbeatRequestTopologySubtopology()
	rp := kmsg.NewTopicInfo()
	rp.Topic = group + "-repartition"
	zc, cc := kmsg.NewTopicInfo(), kmsg.NewTopicInfo()
	zc.Topic, cc.Topic = group+"-z-changelog", group+"-counts-changelog"
	s1.SubtopologyID, s1.RepartitionSourceTopics, s1.StateChangelogTopics = "1", []kmsg.TopicInfo{rp}, []kmsg.TopicInfo{zc, cc}
	s0 := kmsg.NewStreamsGroupHeartbeatRequestTopologySubtopology()
	s0.SubtopologyID, s0.SourceTopics, s0.RepartitionSinkTopics = "0", []string{"in"}, []string{group + "-repartition"}
	topology.Subtopologies = []kmsg.StreamsGroupHeartbeatRequestTopologySubtopology{s1, s0} // "1" first

	describe := func() *kmsg.StreamsGroupDescribeResponseGroupTopology {
		t.Helper()
		g := describeStreamsGroup(t, send, group)
		require.NotNil(t, g.Topology)
		return g.Topology
	}
	shape := func(topo *kmsg.StreamsGroupDescribeResponseGroupTopology) (ids []string, internal map[string]int32, changelogs []string) {
		internal = map[string]int32{}
		for _, st := range topo.Subtopologies {
			ids = append(ids, st.SubtopologyID)
			for _, ti := range append(append([]kmsg.TopicInfo{}, st.RepartitionSourceTopics...), st.StateChangelogTopics...) {
				internal[ti.Topic] = ti.NumPartitions
			}
			for _, ti := range st.StateChangelogTopics {
				changelogs = append(changelogs, ti.Topic)
			}
		}
		return ids, internal, changelogs
	}

	join := streamsBeat(t, send, group, "a", 0, func(r *kmsg.StreamsGroupHeartbeatRequest) { r.Topology = &topology })
	require.NotEmpty(t, join.Status, "MISSING_INTERNAL_TOPICS: the wire creates them")
	ids, internal, changelogs := shape(describe())
	assert.Equal(t, []string{"0", "1"}, ids, "not ready: the stored topology, sorted")
	assert.Equal(t, map[string]int32{group + "-repartition": 0, group + "-z-changelog": 0, group + "-counts-changelog": 0}, internal)
	assert.Equal(t, []string{group + "-counts-changelog", group + "-z-changelog"}, changelogs)

	hb := streamsBeat(t, send, group, "a", join.MemberEpoch)
	require.Empty(t, hb.Status, "ready once the internal topics exist")
	ids, internal, changelogs = shape(describe())
	assert.Equal(t, []string{"0", "1"}, ids, "subtopologies by id")
	assert.Equal(t, map[string]int32{group + "-repartition": 2, group + "-z-changelog": 2, group + "-counts-changelog": 2}, internal,
		"ready: the configured topology with the decided counts")
	assert.Equal(t, []string{group + "-counts-changelog", group + "-z-changelog"}, changelogs, "internal topics by name")
}

// A static streams member's instance id and its reported task offsets come
// back in StreamsGroupDescribe (StreamsGroupMember.asStreamsGroupDescribeMember:
// offsets sorted by subtopology and partition); a static member that
// leaves with -2 stays in the group at epoch -2, and a join under a new
// member id with its instance id replaces it.
func TestStreamsGroupDescribeStaticMemberAndTaskOffsets(t *testing.T) {
	t.Parallel()
	const group = "describe-static"
	_, send := streamsCoordinator(t, group)
	inst := "instance-a"
	static := func(r *kmsg.StreamsGroupHeartbeatRequest) { r.InstanceID = &inst }
	offset := func(sub string, p int32, o int64) kmsg.TaskOffset {
		t := kmsg.NewTaskOffset()
		t.SubtopologyID, t.Partition, t.Offset = sub, p, o
		return t
	}
	describe := func() []kmsg.StreamsGroupDescribeResponseGroupMember {
		t.Helper()
		return describeStreamsGroup(t, send, group).Members
	}

	streamsBeat(t, send, group, "other", 0) // the group exists: the next join's report is kept
	streamsBeat(t, send, group, "a", 0, static, func(r *kmsg.StreamsGroupHeartbeatRequest) {
		r.TaskOffsets = []kmsg.TaskOffset{offset("0", 1, 7), offset("0", 0, 5)}
	})
	members := describe()
	require.Len(t, members, 2)
	a := members[0]
	require.Equal(t, "a", a.MemberID)
	require.NotNil(t, a.InstanceID)
	assert.Equal(t, inst, *a.InstanceID)
	assert.Equal(t, []kmsg.TaskOffset{offset("0", 0, 5), offset("0", 1, 7)}, a.TaskOffsets)
	assert.Empty(t, a.TaskEndOffsets)

	left := streamsBeat(t, send, group, "a", -2, static)
	assert.Equal(t, int32(-2), left.MemberEpoch)
	assert.Equal(t, int32(-2), describe()[0].MemberEpoch, "a static member that left stays, at -2")

	back := streamsBeat(t, send, group, "b", 0, static)
	assert.Equal(t, "b", back.MemberID)
	ids := []string{}
	for _, m := range describe() {
		ids = append(ids, m.MemberID)
	}
	assert.Equal(t, []string{"b", "other"}, ids, "b replaced a")
}

// describeStreamsGroup describes one streams group, which must answer
// without error.
func describeStreamsGroup(t *testing.T, send func(kmsg.Request) kmsg.Response, group string) kmsg.StreamsGroupDescribeResponseGroup {
	t.Helper()
	req := kmsg.NewPtrStreamsGroupDescribeRequest()
	req.Groups = []string{group}
	resp := send(req).(*kmsg.StreamsGroupDescribeResponse)
	require.Len(t, resp.Groups, 1)
	require.Zero(t, resp.Groups[0].ErrorCode, "%v", resp.Groups[0].ErrorMessage)
	return resp.Groups[0]
}
