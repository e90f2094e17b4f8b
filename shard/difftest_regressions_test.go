package shard

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStreamsHeartbeatBumpsWhenMissingInternalTopicsAreCreated reproduces
// the differential runner's streams-validated-epoch-bump against Kafka
// 4.4: a member joins while the topology's two internal topics are missing,
// the broker creates both (0 to 1 partition each), and the member's next
// heartbeat finds the topology ready and bumps the group epoch, as Kafka's
// streamsGroupHeartbeat does (the metadata hash and the validated topology
// epoch changed). The group's metadata hash used to be a plain sum of the
// topics' FNV-1a hashes, in which those two changes cancelled out.
func TestStreamsHeartbeatBumpsWhenMissingInternalTopicsAreCreated(t *testing.T) {
	cfg := DefaultConfig()
	cfg.StreamsInitialRebalanceDelayMs = 0
	s, err := New(0, cfg)
	require.NoError(t, err)
	require.NoError(t, s.SetTopics(map[string]int32{"t0": 3, "t1": 1}))
	topo := &Topology{Subtopologies: []Subtopology{
		{ID: "0", SourceTopics: []string{"t1"}, RepartitionSinkTopics: []string{"st0-rep"}},
		{ID: "1", RepartitionSourceTopics: []TopicInfo{{Name: "st0-rep"}}, StateChangelogTopics: []TopicInfo{{Name: "st0-agg-changelog"}}},
	}}
	var offset int64
	beat := func(epoch int32, topology *Topology) StreamsGroupHeartbeatResponse {
		t.Helper()
		req := StreamsGroupHeartbeatRequest{GroupID: "g", MemberID: "m", MemberEpoch: epoch, ProcessID: "p", Topology: topology,
			RebalanceTimeoutMs: 5000, ActiveTasks: []TaskIDs{}, StandbyTasks: []TaskIDs{}, WarmupTasks: []TaskIDs{}}
		res, err := s.StreamsGroupHeartbeat(0, req)
		require.NoError(t, err)
		require.NoError(t, s.ReplayAll(offset, res.Records))
		offset += int64(len(res.Records))
		return res.Response
	}
	first := beat(0, topo)
	require.Equal(t, []StreamsStatus{StatusMissingInternalTopics}, first.Status)
	before, _ := s.GroupEpoch("g")

	g := s.lookup("g")
	hashBefore := s.groupMetadataHash(g)
	require.NoError(t, s.SetTopics(map[string]int32{"t0": 3, "t1": 1, "st0-rep": 1, "st0-agg-changelog": 1}))
	assert.NotEqual(t, hashBefore, s.groupMetadataHash(g), "creating both internal topics changes the group's metadata hash")

	beat(first.MemberEpoch, nil)
	after, _ := s.GroupEpoch("g")
	assert.Equal(t, before+1, after, "the heartbeat after the topics exist bumps the group epoch")
	d, _ := s.DescribeGroup("g")
	assert.Equal(t, int32(0), d.ValidatedTopologyEpoch, "and records the topology as validated")
}

// TestStreamsMemberRemovalKeepsStoredValidatedTopologyEpoch reproduces a
// divergence the differential runner found against Kafka 4.4: a streams
// member's removal writes the group epoch record with the group's stored
// validatedTopologyEpoch (streamsGroupFenceMember), not one recomputed
// from the topic image, so topics created since the last heartbeat do not
// mark the topology validated on a leave.
func TestStreamsMemberRemovalKeepsStoredValidatedTopologyEpoch(t *testing.T) {
	cfg := DefaultConfig()
	cfg.StreamsInitialRebalanceDelayMs = 0
	s, err := New(0, cfg)
	require.NoError(t, err)
	require.NoError(t, s.SetTopics(map[string]int32{"in": 2}))
	topo := &Topology{Subtopologies: []Subtopology{{ID: "0", SourceTopics: []string{"in"}, StateChangelogTopics: []TopicInfo{{Name: "store-changelog"}}}}}
	var offset int64
	beat := func(member string, epoch int32, topology *Topology) []Record {
		t.Helper()
		req := StreamsGroupHeartbeatRequest{GroupID: "g", MemberID: member, MemberEpoch: epoch, ProcessID: "p", Topology: topology,
			RebalanceTimeoutMs: 5000}
		if epoch == 0 {
			req.ActiveTasks, req.StandbyTasks, req.WarmupTasks = []TaskIDs{}, []TaskIDs{}, []TaskIDs{}
		}
		res, err := s.StreamsGroupHeartbeat(0, req)
		require.NoError(t, err)
		require.NoError(t, s.ReplayAll(offset, res.Records))
		offset += int64(len(res.Records))
		return res.Records
	}
	beat("a", 0, topo)
	beat("b", 0, topo)
	d, _ := s.DescribeGroup("g")
	require.Equal(t, int32(-1), d.ValidatedTopologyEpoch, "the changelog topic is missing")

	require.NoError(t, s.SetTopics(map[string]int32{"in": 2, "store-changelog": 2}))
	var meta *StreamsGroupMetadata
	for _, r := range beat("b", LeaveGroupMemberEpoch, nil) {
		if m, ok := r.(*StreamsGroupMetadata); ok {
			meta = m
		}
	}
	require.NotNil(t, meta, "the leave bumps the group epoch")
	assert.Equal(t, int32(-1), meta.ValidatedTopologyEpoch, "the stored validated epoch, not the topic image's")
}

// TestStreamsRejoinWithoutEndpointClearsIt reproduces a divergence the
// differential runner found against Kafka 4.4: a streams member that
// (re)joins sets its user endpoint as sent (setUserEndpoint when joining),
// so a rejoin without one clears it, writes the member record, and, the
// endpoint having changed, bumps the group's endpoint information epoch; a
// heartbeat that sends none keeps it.
func TestStreamsRejoinWithoutEndpointClearsIt(t *testing.T) {
	cfg := DefaultConfig()
	cfg.StreamsInitialRebalanceDelayMs = 0
	s, err := New(0, cfg)
	require.NoError(t, err)
	require.NoError(t, s.SetTopics(map[string]int32{"in": 2}))
	topo := &Topology{Subtopologies: []Subtopology{{ID: "0", SourceTopics: []string{"in"}}}}
	var offset int64
	groupEndpointEpoch := InitialEndpointInformationEpoch
	beat := func(epoch int32, endpoint *Endpoint) (StreamsGroupHeartbeatResponse, *StreamsGroupMemberMetadata) {
		t.Helper()
		req := StreamsGroupHeartbeatRequest{GroupID: "g", MemberID: "m", MemberEpoch: epoch, ProcessID: "p", RebalanceTimeoutMs: 5000,
			UserEndpoint: endpoint, GroupEndpointInformationEpoch: groupEndpointEpoch}
		if epoch == 0 {
			req.Topology = topo
			req.ActiveTasks, req.StandbyTasks, req.WarmupTasks = []TaskIDs{}, []TaskIDs{}, []TaskIDs{}
		}
		res, err := s.StreamsGroupHeartbeat(0, req)
		require.NoError(t, err)
		require.NoError(t, s.ReplayAll(offset, res.Records))
		offset += int64(len(res.Records))
		groupEndpointEpoch = res.Response.GroupEndpointInformationEpoch
		var meta *StreamsGroupMemberMetadata
		for _, r := range res.Records {
			if m, ok := r.(*StreamsGroupMemberMetadata); ok {
				meta = m
			}
		}
		return res.Response, meta
	}
	r, _ := beat(0, &Endpoint{Host: "h", Port: 1})
	r, meta := beat(r.MemberEpoch, nil)
	assert.Nil(t, meta, "a heartbeat without an endpoint keeps it")
	before := groupEndpointEpoch

	_, meta = beat(0, nil)
	require.NotNil(t, meta, "the rejoin changes the member")
	assert.Nil(t, meta.UserEndpoint, "and clears its endpoint")
	assert.Equal(t, before+1, groupEndpointEpoch, "a changed endpoint bumps the endpoint information epoch")
}
