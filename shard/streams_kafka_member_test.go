package shard

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// GroupMetadataManagerTest.testStreamsUpdatingMemberMetadataTriggersNewTargetAssignment:
// a member at its epoch heartbeats with a new process id and no topology;
// Kafka takes it (maybeUpdateProcessId), writes the member record, bumps
// the group epoch and computes a new target. A heartbeat that sends no
// process id (Kafka's null), a join included, keeps the stored one; a new
// client id is taken on any heartbeat too (setClientId).
func TestStreamsUpdatingMemberMetadataTriggersNewTargetAssignment(t *testing.T) {
	h := newHarness(t, testConfig(), map[string]int32{"foo": 6, "bar": 3})
	topology := &Topology{Epoch: 0, Subtopologies: []Subtopology{
		{ID: "subtopology1", SourceTopics: []string{"foo"}}, {ID: "subtopology2", SourceTopics: []string{"bar"}}}}
	beat := func(epoch int32, clientID, processID string, topo *Topology) (StreamsGroupHeartbeatResponse, []Record) {
		t.Helper()
		req := StreamsGroupHeartbeatRequest{RebalanceTimeoutMs: RebalanceTimeoutNotSent, GroupID: "fooup", MemberID: "m", MemberEpoch: epoch, ClientID: clientID,
			ProcessID: processID, Topology: topo, Version: 1}
		if epoch == 0 {
			req.RebalanceTimeoutMs = 1500
		} else {
			req.ActiveTasks, req.StandbyTasks, req.WarmupTasks = ownedTasksBy(h.s, "fooup", "m")
		}
		res, err := h.s.StreamsGroupHeartbeat(h.nowMs, req)
		return mustApply(h, res, err), res.Records
	}
	process := func() (string, string, int32) {
		d, ok := h.s.DescribeGroup("fooup")
		require.True(t, ok)
		return d.Members[0].ProcessID, d.Members[0].ClientID, d.Epoch
	}
	joined, _ := beat(0, "client", "process-id", topology)
	epoch := joined.MemberEpoch

	r, records := beat(epoch, "client", "process-id2", nil)
	assert.Equal(t, epoch+1, r.MemberEpoch, "the process id change bumps the group epoch and the member follows")
	require.NotEmpty(t, records)
	meta, ok := records[0].(*StreamsGroupMemberMetadata)
	require.True(t, ok, "the member record first:\n%s", formatRecords(records))
	assert.Equal(t, "process-id2", meta.ProcessID)
	gm, ok := records[1].(*StreamsGroupMetadata)
	require.True(t, ok, "then the group epoch:\n%s", formatRecords(records))
	assert.Equal(t, epoch+1, gm.Epoch)
	p, _, e := process()
	assert.Equal(t, "process-id2", p)
	assert.Equal(t, epoch+1, e)
	epoch = r.MemberEpoch

	r, records = beat(epoch, "client", "", nil)
	assert.Equal(t, epoch, r.MemberEpoch)
	assert.Empty(t, records, "no process id: kept, nothing written")
	r, _ = beat(0, "client", "", topology)
	p, _, _ = process()
	assert.Equal(t, "process-id2", p, "a rejoin without a process id keeps the stored one")
	epoch = r.MemberEpoch

	r, records = beat(epoch, "client2", "", nil)
	_, c, e := process()
	assert.Equal(t, "client2", c, "the client id is taken outside a join")
	assert.Equal(t, epoch+1, e)
	assert.NotEmpty(t, records)

	rebuilt := h.rebuild()
	d, _ := rebuilt.DescribeGroup("fooup")
	assert.Equal(t, "process-id2", d.Members[0].ProcessID, "replayed")
	assert.Equal(t, "client2", d.Members[0].ClientID, "replayed")
}

// GroupMetadataManagerTest.testStreamsGroupMemberRequestingShutdownApplication,
// the shard's half (the coordinator keeps the requester,
// coordinator/coordtest/testdata/streams_shutdown_application.txt): the
// requesting heartbeat answers SHUTDOWN_APPLICATION with Kafka's detail and
// writes nothing; a heartbeat told of a recorded requester answers it for
// that requester, last after the topic status; a leave answers no status
// but reports the requester.
func TestStreamsGroupMemberRequestingShutdownApplication(t *testing.T) {
	h := newHarness(t, testConfig(), map[string]int32{"foo": 6})
	e1 := h.streamsJoin("fooup", "m1", topo(1, "foo")).MemberEpoch
	h.streamsHeartbeat("fooup", "m1", e1)
	beat := func(member string, epoch int32, shutdown bool, recorded string) (StreamsGroupHeartbeatResponse, []Record) {
		t.Helper()
		req := StreamsGroupHeartbeatRequest{RebalanceTimeoutMs: RebalanceTimeoutNotSent, GroupID: "fooup", MemberID: member, MemberEpoch: epoch, ClientID: "client-" + member,
			Version: 1, ShutdownApplication: shutdown, ShutdownRequestMemberID: recorded}
		if epoch > 0 {
			req.ActiveTasks, req.StandbyTasks, req.WarmupTasks = ownedTasksBy(h.s, "fooup", member)
		}
		res, err := h.s.StreamsGroupHeartbeat(h.nowMs, req)
		return mustApply(h, res, err), res.Records
	}
	detail := "Streams group member m1 encountered a fatal error and requested a shutdown for the entire application."

	r, records := beat("m1", e1, false, "")
	assert.Empty(t, r.Status)
	assert.Empty(t, records, "an unchanged heartbeat writes nothing")
	assert.Empty(t, r.ShutdownRequestMemberID)

	r, records = beat("m1", e1, true, "")
	assert.Equal(t, []StreamsStatus{StatusShutdownApplication}, r.Status)
	assert.Equal(t, []string{detail}, r.StatusDetails)
	assert.Equal(t, "m1", r.ShutdownRequestMemberID)
	assert.Empty(t, records, "soft state: no record")

	r, _ = beat("m1", e1, true, "m0")
	assert.Equal(t, "m0", r.ShutdownRequestMemberID, "the first requester stays")
	assert.Contains(t, r.StatusDetails[0], "member m0 ")

	e2 := h.streamsJoin("fooup", "m2", topo(1, "foo")).MemberEpoch
	r, _ = beat("m2", e2, false, "m1")
	assert.Equal(t, StatusShutdownApplication, r.Status[len(r.Status)-1])
	assert.Equal(t, detail, r.StatusDetails[len(r.StatusDetails)-1])

	// Last, after the topic configuration's status.
	h.setTopics(map[string]int32{})
	r, _ = beat("m2", r.MemberEpoch, false, "m1")
	assert.Equal(t, []StreamsStatus{StatusMissingSourceTopics, StatusShutdownApplication}, r.Status)

	r, _ = beat("m2", -1, true, "")
	assert.Empty(t, r.Status, "streamsGroupLeave answers no status")
	assert.Equal(t, "m2", r.ShutdownRequestMemberID)
}
