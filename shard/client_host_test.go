package shard

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A share or streams member's client host, as Kafka's shareGroupHeartbeat
// and streamsGroupHeartbeat set it from the request context on every
// heartbeat (setClientHost(context.clientAddress())) and keep it on the
// member record (ShareGroupMemberMetadataValue.clientHost,
// StreamsGroupMemberMetadataValue.clientHost). The consumer member's is in
// migration_describe_test.go.

// memberRecordHost is the client host on the one member metadata record of
// records, failing when there is none.
func memberRecordHost(t *testing.T, records []Record) string {
	t.Helper()
	for _, r := range records {
		switch r := r.(type) {
		case *ShareGroupMemberMetadata:
			return r.ClientHost
		case *StreamsGroupMemberMetadata:
			return r.ClientHost
		}
	}
	require.Fail(t, "no member record", "%s", formatRecords(records))
	return ""
}

// TestShareHeartbeatWritesNewClientHost proves a share heartbeat from
// another address writes the member's record with it, without an epoch
// bump (hasMemberSubscriptionChanged writes the record, only a subscription
// change bumps), even on the steady path; the same address writes nothing;
// describe and replay keep the host.
func TestShareHeartbeatWritesNewClientHost(t *testing.T) {
	h := newHarness(t, testConfig(), map[string]int32{"t0": 2})
	beat := func(epoch int32, host string) Result[ShareGroupHeartbeatResponse] {
		t.Helper()
		res, err := h.s.ShareGroupHeartbeat(h.nowMs, ShareGroupHeartbeatRequest{GroupID: "g", MemberID: "m", MemberEpoch: epoch,
			ClientID: "client-m", ClientHost: host, SubscribedTopicNames: subscribedOnJoin(epoch)})
		require.NoError(t, err)
		return res
	}
	res := beat(0, "/10.0.0.1")
	assert.Equal(t, "/10.0.0.1", memberRecordHost(t, res.Records), "the join's record carries the host")
	epoch := applyResult(h, res).MemberEpoch
	res = beat(epoch, "/10.0.0.1")
	require.Empty(t, res.Records, "same host: %s", formatRecords(res.Records))
	before, _ := h.s.GroupEpoch("g")

	res = beat(epoch, "/10.0.0.9")
	require.Len(t, res.Records, 1, "the member record alone: %s", formatRecords(res.Records))
	assert.Equal(t, "/10.0.0.9", memberRecordHost(t, res.Records))
	require.Equal(t, epoch, applyResult(h, res).MemberEpoch)
	after, _ := h.s.GroupEpoch("g")
	assert.Equal(t, before, after, "no epoch bump")
	d, _ := h.s.DescribeGroup("g")
	require.Equal(t, "/10.0.0.9", d.Members[0].ClientHost)
	requireSnapshotEqual(t, h.s.Snapshot(), h.rebuild().Snapshot(), "replay")
	rd, _ := h.rebuild().DescribeGroup("g")
	assert.Equal(t, "/10.0.0.9", rd.Members[0].ClientHost, "replay keeps the host")
}

// TestStreamsHeartbeatWritesNewClientHost proves a streams heartbeat from
// another address writes the member's record with it and bumps the group
// epoch, as a changed client id does: Kafka's hasStreamsMemberMetadataChanged
// compares the whole member, and for a dynamic member any change
// recomputes the assignment. The same address writes nothing; describe and
// replay keep the host.
func TestStreamsHeartbeatWritesNewClientHost(t *testing.T) {
	h := newHarness(t, testConfig(), map[string]int32{"t0": 2})
	beat := func(epoch int32, host string) Result[StreamsGroupHeartbeatResponse] {
		t.Helper()
		req := StreamsGroupHeartbeatRequest{RebalanceTimeoutMs: RebalanceTimeoutNotSent, GroupID: "g", MemberID: "m", MemberEpoch: epoch, ProcessID: "process-m",
			ClientID: "client-m", ClientHost: host, Version: 1}
		if epoch == 0 {
			req.RebalanceTimeoutMs, req.Topology = 300_000, topo(0, "t0")
		} else {
			req.ActiveTasks, req.StandbyTasks, req.WarmupTasks = ownedTasksBy(h.s, "g", "m")
		}
		res, err := h.s.StreamsGroupHeartbeat(h.nowMs, req)
		require.NoError(t, err)
		return res
	}
	res := beat(0, "/10.0.0.1")
	assert.Equal(t, "/10.0.0.1", memberRecordHost(t, res.Records), "the join's record carries the host")
	epoch := applyResult(h, res).MemberEpoch
	epoch = applyResult(h, beat(epoch, "/10.0.0.1")).MemberEpoch
	res = beat(epoch, "/10.0.0.1")
	require.Empty(t, res.Records, "same host: %s", formatRecords(res.Records))
	before, _ := h.s.GroupEpoch("g")

	res = beat(epoch, "/10.0.0.9")
	assert.Equal(t, "/10.0.0.9", memberRecordHost(t, res.Records))
	applyResult(h, res)
	after, _ := h.s.GroupEpoch("g")
	assert.Equal(t, before+1, after, "the group epoch is bumped")
	d, _ := h.s.DescribeGroup("g")
	require.Equal(t, "/10.0.0.9", d.Members[0].ClientHost)
	requireSnapshotEqual(t, h.s.Snapshot(), h.rebuild().Snapshot(), "replay")
	rd, _ := h.rebuild().DescribeGroup("g")
	assert.Equal(t, "/10.0.0.9", rd.Members[0].ClientHost, "replay keeps the host")
}
