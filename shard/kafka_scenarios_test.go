package shard

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/offsets"
)

// Kafka's group-coordinator tests (docs/kip1331.md §6.1–§6.3, docs/share-groups.md §2
// and §5) rewritten against the shard's API. Names follow Kafka's test names
// where Kafka has one.

var expiryTopics = map[string]int32{"firstTopic": 2, "secondTopic": 2, "otherTopic": 1, "foo": 3, "bar": 2, "baz": 1, "qux": 1}

// subscribedFn is the group's keepsOffsetsOf, the predicate Kafka's
// cleanupExpiredOffsets consults (isSubscribedToTopic, after the group's
// offset expiration condition).
func subscribedFn(t *testing.T, s *Shard, group string) func(string) bool {
	t.Helper()
	g := s.lookup(group)
	require.NotNil(t, g, "group %s", group)
	return g.keepsOffsetsOf
}

// TestCleanupExpiredOffsets proves Kafka's testCleanupExpiredOffsets for
// consumer and streams groups: subscribed topics never expire, the others
// expire one minute after their commit, and tombstones come in (topic,
// partition) order with allExpired once nothing is subscribed.
func TestCleanupExpiredOffsets(t *testing.T) {
	tests := []struct {
		name string
		// join makes member m1 subscribe to firstTopic and returns its epoch.
		join func(h *harness) int32
		// unsubscribe moves m1 off firstTopic (the member stays) and returns its epoch.
		unsubscribe func(h *harness, epoch int32) int32
		leave       func(h *harness, epoch int32)
		groupTombs  []RecordType
	}{
		{
			name: "consumer group",
			join: func(h *harness) int32 { return h.consumerJoin("group-id", "m1", "firstTopic").MemberEpoch },
			unsubscribe: func(h *harness, epoch int32) int32 {
				return h.consumerHeartbeat("group-id", "m1", epoch, []string{"otherTopic"}).MemberEpoch
			},
			leave:      func(h *harness, _ int32) { h.consumerHeartbeat("group-id", "m1", -1, nil) },
			groupTombs: []RecordType{TypeConsumerGroupTargetAssignmentMetadata, TypeConsumerGroupMetadata},
		},
		{
			name: "streams group",
			join: func(h *harness) int32 { return h.streamsJoin("group-id", "m1", topo(1, "firstTopic")).MemberEpoch },
			unsubscribe: func(h *harness, _ int32) int32 {
				return h.streamsJoin("group-id", "m1", topo(2, "otherTopic")).MemberEpoch
			},
			leave:      func(h *harness, _ int32) { h.streamsHeartbeat("group-id", "m1", -1) },
			groupTombs: []RecordType{TypeStreamsGroupTargetAssignmentMetadata, TypeStreamsGroupMetadata, TypeStreamsGroupTopology},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// The streams member moves off firstTopic by a topology upgrade.
			h := newHarness(t, topologyUpdatesConfig(), expiryTopics)
			epoch := tc.join(h)
			h.commit("group-id", "m1", epoch, testT, "firstTopic-0", "secondTopic-0")
			h.commit("group-id", "m1", epoch, testT+500, "secondTopic-1")

			res := h.s.CleanupGroupMetadata(testT + 60_000)
			assert.Equal(t, []string{"group-id/secondTopic-0"}, offsetTombstoneKeys(res.Records), formatRecords(res.Records))
			assert.Len(t, res.Records, 1, "no group tombstone while a member subscribes")
			_, allExpired := h.s.offsets.CleanupExpiredOffsets("group-id", testT+60_000, subscribedFn(t, h.s, "group-id"), nil)
			assert.False(t, allExpired)
			applyResult(h, res)

			res = h.s.CleanupGroupMetadata(testT + 60_500)
			assert.Equal(t, []string{"group-id/secondTopic-1"}, offsetTombstoneKeys(res.Records), formatRecords(res.Records))
			applyResult(h, res)
			_, ok := h.s.Offset("group-id", "firstTopic", 0)
			require.True(t, ok, "a subscribed topic's offset must not expire")

			h.nowMs = testT + 60_500
			epoch = tc.unsubscribe(h, epoch)
			h.commit("group-id", "m1", epoch, testT+500, "firstTopic-1", "secondTopic-0")

			keys, allExpired := h.s.offsets.CleanupExpiredOffsets("group-id", testT+60_500, subscribedFn(t, h.s, "group-id"), nil)
			assert.Equal(t, []offsets.Key{
				{Group: "group-id", Topic: "firstTopic", Partition: 0},
				{Group: "group-id", Topic: "firstTopic", Partition: 1},
				{Group: "group-id", Topic: "secondTopic", Partition: 0},
			}, keys)
			assert.True(t, allExpired)
			res = h.s.CleanupGroupMetadata(testT + 60_500)
			assert.Equal(t, []string{"group-id/firstTopic-0", "group-id/firstTopic-1", "group-id/secondTopic-0"},
				offsetTombstoneKeys(res.Records), formatRecords(res.Records))
			assert.Empty(t, res.Response.GroupsDeleted, "a group with a member is never tombstoned")
			applyResult(h, res)
			assert.Zero(t, h.s.GroupOffsetCount("group-id"))

			tc.leave(h, epoch)
			res = h.s.CleanupGroupMetadata(testT + 60_500)
			assert.Equal(t, tc.groupTombs, recordTypes(res.Records), formatRecords(res.Records))
			assert.Equal(t, []string{"group-id"}, res.Response.GroupsDeleted)
			applyResult(h, res)
			assert.Zero(t, h.s.NumGroups())
			requireSnapshotEqual(t, h.s.Snapshot(), h.rebuild().Snapshot(), "rebuild")
		})
	}
}

// TestCleanupExpiredOffsetsWithPendingTransactionalOffsets proves that an
// offset with a pending transactional offset never expires and holds the
// group back; once the transaction ends, the offset expires by its own commit
// time (the transactional one on commit, the old one on abort).
func TestCleanupExpiredOffsetsWithPendingTransactionalOffsets(t *testing.T) {
	tests := []struct {
		name         string
		commit       bool
		expiresAtMs  int64
		notExpiredMs int64
	}{
		{name: "commit", commit: true, expiresAtMs: testT + 60_500, notExpiredMs: testT + 60_499},
		{name: "abort", commit: false, expiresAtMs: testT + 60_000, notExpiredMs: testT + 59_999},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, testConfig(), expiryTopics)
			h.commit("group-id", "", -1, testT, "foo-0")
			res, err := h.s.CommitTransactionalOffsets(testT+500, TxnOffsetCommitRequest{
				GroupID: "group-id", ProducerID: 10, MemberEpoch: -1, Topics: commitTopics(t, "foo-0"),
			})
			mustApply(h, res, err)

			sweep := h.s.CleanupGroupMetadata(testT + 60_000)
			assert.Empty(t, sweep.Records, formatRecords(sweep.Records))
			keys, allExpired := h.s.offsets.CleanupExpiredOffsets("group-id", testT+60_000, subscribedFn(t, h.s, "group-id"), nil)
			assert.Empty(t, keys)
			assert.False(t, allExpired)
			assert.Equal(t, sweep, withVisited(h.s.cleanupGroupMetadataFullScan(testT+60_000), sweep.Response.GroupsVisited))

			end, err := h.s.EndTransaction("group-id", 10, tc.commit)
			mustApply(h, end, err)
			assert.Empty(t, h.s.CleanupGroupMetadata(tc.notExpiredMs).Records)
			sweep = h.s.CleanupGroupMetadata(tc.expiresAtMs)
			assert.Equal(t, []RecordType{TypeOffsetCommit, TypeGroupMetadata}, recordTypes(sweep.Records), formatRecords(sweep.Records))
			assert.Equal(t, []string{"group-id/foo-0"}, offsetTombstoneKeys(sweep.Records))
		})
	}
}

// withVisited returns r with GroupsVisited replaced, so Kafka's full scan
// (which visits every group) can be compared with the indexed sweep.
func withVisited(r Result[SweepResponse], visited int) Result[SweepResponse] {
	r.Response.GroupsVisited = visited
	return r
}

// TestCleanupExpiredOffsetsGroupHasNoOffsets proves Kafka's
// testCleanupExpiredOffsetsGroupHasNoOffsets and the groupHasNoOffsets cases
// of PR #22676: no offsets and no open transaction is "all expired"; a
// committed offset or an open transaction is not.
func TestCleanupExpiredOffsetsGroupHasNoOffsets(t *testing.T) {
	h := newHarness(t, testConfig(), expiryTopics)
	keys, allExpired := h.s.offsets.CleanupExpiredOffsets("unknown-group", testT, func(string) bool { return false }, nil)
	assert.Empty(t, keys)
	assert.True(t, allExpired, "an unknown group with no offsets is all expired")
	assert.Empty(t, h.s.CleanupGroupMetadata(testT).Records)

	tests := []struct {
		name  string
		setup func(h *harness)
		want  bool
	}{
		{name: "no offsets and no open transaction", setup: func(h *harness) {
			h.commit("g", "", -1, testT, "foo-0")
			res, err := h.s.DeleteOffsets("g", []TopicPartitions{{Topic: "foo", Partitions: []int32{0}}})
			mustApply(h, res, err)
		}, want: true},
		{name: "committed offset", setup: func(h *harness) { h.commit("g", "", -1, testT, "foo-0") }, want: false},
		{name: "open transaction only", setup: func(h *harness) {
			res, err := h.s.CommitTransactionalOffsets(testT, TxnOffsetCommitRequest{GroupID: "g", ProducerID: 3, MemberEpoch: -1, Topics: commitTopics(t, "foo-1")})
			mustApply(h, res, err)
		}, want: false},
		{name: "aborted transaction", setup: func(h *harness) {
			res, err := h.s.CommitTransactionalOffsets(testT, TxnOffsetCommitRequest{GroupID: "g", ProducerID: 3, MemberEpoch: -1, Topics: commitTopics(t, "foo-1")})
			mustApply(h, res, err)
			end, err := h.s.EndTransaction("g", 3, false)
			mustApply(h, end, err)
		}, want: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, testConfig(), expiryTopics)
			tc.setup(h)
			assert.Equal(t, tc.want, h.s.offsets.GroupHasNoOffsets("g"))
			assert.Equal(t, tc.want, slices.Contains(h.s.Snapshot().Deletable, "g"), "the deletable index agrees with groupHasNoOffsets")
		})
	}
}

// TestCleanupExpiredOffsetsLegacyExpireTimestamp proves that the expire
// timestamp of OffsetCommit v1–v4 (RetentionTimeMs) wins over
// offsets.retention.minutes in both directions, inclusively (docs/kip1331.md §3.2).
func TestCleanupExpiredOffsetsLegacyExpireTimestamp(t *testing.T) {
	tests := []struct {
		name        string
		retentionMs int64
		expiresAtMs int64
	}{
		{name: "broker default", retentionMs: -1, expiresAtMs: testT + 60_000},
		{name: "shorter than the default", retentionMs: 1_000, expiresAtMs: testT + 1_000},
		{name: "longer than the default", retentionMs: 120_000, expiresAtMs: testT + 120_000},
		// Only -1 means the broker default (OffsetMetadataManager.expireTimestampMs):
		// 0 expires at the next sweep, and a negative retention is a moment
		// already past.
		{name: "zero expires at once", retentionMs: 0, expiresAtMs: testT},
		{name: "negative expires at once", retentionMs: -5_000, expiresAtMs: testT - 5_000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, testConfig(), expiryTopics)
			res, err := h.s.CommitOffsets(testT, OffsetCommitRequest{
				GroupID: "group-id", MemberEpoch: -1, RetentionTimeMs: tc.retentionMs, Topics: commitTopics(t, "foo-0"),
			})
			mustApply(h, res, err)
			v, ok := h.s.Offset("group-id", "foo", 0)
			require.True(t, ok)
			if tc.retentionMs != DefaultRetentionTimeMs {
				assert.Equal(t, testT+tc.retentionMs, v.ExpireTimestampMs)
			} else {
				assert.Equal(t, offsets.NoExpireTimestamp, v.ExpireTimestampMs)
			}
			assert.Empty(t, h.s.CleanupGroupMetadata(tc.expiresAtMs-1).Records, "not expired 1 ms before")
			sweep := h.s.CleanupGroupMetadata(tc.expiresAtMs)
			assert.Equal(t, []string{"group-id/foo-0"}, offsetTombstoneKeys(sweep.Records))
			assert.Equal(t, []string{"group-id"}, sweep.Response.GroupsDeleted)
		})
	}
}

// Kafka's testCleanupGroupMetadata and testScheduleCleanupGroupMetadata are
// the scenario files coordinator/coordtest/testdata/cleanup_group_metadata.txt
// and sweep_and_timers.txt.

// TestCleanupGroupMetadataForShareGroup proves that the sweep skips share
// groups: an empty share group with nothing left is never tombstoned by it.
func TestCleanupGroupMetadataForShareGroup(t *testing.T) {
	h := newHarness(t, testConfig(), expiryTopics)
	h.shareJoin("share-group", "m1", "foo")
	h.shareHeartbeat("share-group", "m1", -1)
	state, ok := h.s.GroupState("share-group")
	require.True(t, ok)
	require.Equal(t, StateEmpty, state)

	for _, sweep := range []Result[SweepResponse]{h.s.CleanupGroupMetadata(testT + 1e9), h.s.cleanupGroupMetadataFullScan(testT + 1e9)} {
		assert.Empty(t, sweep.Records)
		assert.Empty(t, sweep.Response.GroupsDeleted)
		assert.Zero(t, sweep.Response.GroupsVisited, "share groups are not visited")
	}
	assert.NotContains(t, h.s.Snapshot().Deletable, "share-group")
}

// streamsGroupWithExpiredOffsets builds an empty streams group "streams"
// whose one offset (committed at T) expires at T+60s, with the stored
// description epoch set to stored.
func streamsGroupWithExpiredOffsets(t *testing.T, plugin bool, stored int32) *harness {
	cfg := testConfig()
	cfg.TopologyPluginConfigured = plugin
	h := newHarness(t, cfg, expiryTopics)
	epoch := h.streamsJoin("streams", "m1", topo(3, "foo")).MemberEpoch
	h.commit("streams", "m1", epoch, testT, "foo-0")
	h.streamsHeartbeat("streams", "m1", -1)
	h.setStoredEpoch("streams", stored)
	d, _ := h.s.DescribeGroup("streams")
	require.Equal(t, stored, d.StoredDescriptionTopologyEpoch)
	require.Equal(t, StateEmpty, d.State)
	return h
}

// runStreamsDeferralCase sweeps a streams group whose offsets all expired and
// checks whether its tombstone is deferred (KIP-1331 §2.4).
func runStreamsDeferralCase(t *testing.T, plugin bool, stored int32, wantDeferred bool) {
	h := streamsGroupWithExpiredOffsets(t, plugin, stored)
	sweep := h.s.CleanupGroupMetadata(testT + 60_000)
	require.Equal(t, []string{"streams/foo-0"}, offsetTombstoneKeys(sweep.Records), "offsets expire either way")
	assert.Equal(t, sweep, withVisited(h.s.cleanupGroupMetadataFullScan(testT+60_000), sweep.Response.GroupsVisited))
	if wantDeferred {
		assert.Len(t, sweep.Records, 1, formatRecords(sweep.Records))
		assert.Equal(t, []string{"streams"}, sweep.Response.GroupsDeferred)
		assert.Empty(t, sweep.Response.GroupsDeleted)
		applyResult(h, sweep)
		d, ok := h.s.DescribeGroup("streams")
		require.True(t, ok, "the group record stays")
		assert.Equal(t, stored, d.StoredDescriptionTopologyEpoch)
		assert.Equal(t, []string{"streams"}, h.s.Snapshot().Eligible, "the group is a KIP-1331 cleanup candidate")
		again := h.s.CleanupGroupMetadata(testT + 120_000)
		assert.Empty(t, again.Records, "a later sweep keeps deferring")
		assert.Equal(t, []string{"streams"}, again.Response.GroupsDeferred)
		// The cleanup cycle's conditional clear, then the next sweep deletes it.
		h.setStoredEpoch("streams", EpochNone)
		assert.Empty(t, h.s.Snapshot().Eligible)
		final := h.s.CleanupGroupMetadata(testT + 120_000)
		assert.Equal(t, []string{"streams"}, final.Response.GroupsDeleted)
		return
	}
	assert.Equal(t, []RecordType{TypeOffsetCommit, TypeStreamsGroupTargetAssignmentMetadata, TypeStreamsGroupMetadata, TypeStreamsGroupTopology},
		recordTypes(sweep.Records), formatRecords(sweep.Records))
	for _, r := range sweep.Records[1:] {
		assert.True(t, isGroupTombstone(r), Format(r))
	}
	assert.Equal(t, []string{"streams"}, sweep.Response.GroupsDeleted)
	assert.Empty(t, sweep.Response.GroupsDeferred)
	applyResult(h, sweep)
	_, ok := h.s.GroupType("streams")
	assert.False(t, ok)
	requireSnapshotEqual(t, h.s.Snapshot(), h.rebuild().Snapshot(), "rebuild")
}

func isGroupTombstone(r Record) bool {
	switch r := r.(type) {
	case *StreamsGroupMetadata:
		return r.Tombstone
	case *StreamsGroupTargetAssignmentMetadata:
		return r.Tombstone
	case *StreamsGroupTopology:
		return r.Tombstone
	}
	return false
}

// TestCleanupGroupMetadataDefersStreamsGroupWithStoredTopologyEpoch proves
// the KIP-1331 deferral: with a plugin configured and a stored epoch set (a
// real epoch or the uncertain marker), offsets expire but the group record
// stays until the stored epoch is cleared.
func TestCleanupGroupMetadataDefersStreamsGroupWithStoredTopologyEpoch(t *testing.T) {
	for _, stored := range []int32{0, 3, EpochUncertain} {
		t.Run(fmt.Sprintf("stored=%d", stored), func(t *testing.T) { runStreamsDeferralCase(t, true, stored, true) })
	}
}

// TestCleanupGroupMetadataDeletesStreamsGroupWithoutStoredTopologyEpoch proves
// that with a plugin configured and stored == -1 the group is tombstoned.
func TestCleanupGroupMetadataDeletesStreamsGroupWithoutStoredTopologyEpoch(t *testing.T) {
	runStreamsDeferralCase(t, true, EpochNone, false)
}

// TestCleanupGroupMetadataIgnoresStoredTopologyEpochWhenNoPluginConfigured
// proves that without a plugin the stored epoch does not defer anything.
func TestCleanupGroupMetadataIgnoresStoredTopologyEpochWhenNoPluginConfigured(t *testing.T) {
	for _, stored := range []int32{3, EpochUncertain} {
		t.Run(fmt.Sprintf("stored=%d", stored), func(t *testing.T) { runStreamsDeferralCase(t, false, stored, false) })
	}
}

// TestClassicGroupMaybeDelete proves Kafka's testClassicGroupMaybeDelete for
// the simple groups offset commits create: one GroupMetadata tombstone, and
// nothing for an unknown id.
func TestClassicGroupMaybeDelete(t *testing.T) {
	h := newHarness(t, testConfig(), expiryTopics)
	h.commit("group-id", "", -1, testT, "foo-0")
	g := h.s.lookup("group-id")
	require.NotNil(t, g)
	require.Equal(t, Classic, g.typ)
	assert.Equal(t, []Record{&GroupMetadata{Group: "group-id", Tombstone: true}}, h.s.appendGroupTombstones(nil, g))
	assert.Empty(t, h.s.sweepGroups(testT+1e9, []string{"unknown-group"}).Records)

	res, err := h.s.DeleteGroups([]string{"group-id"})
	require.NoError(t, err)
	assert.Equal(t, []Record{
		&OffsetCommit{Group: "group-id", Topic: "foo", Partition: 0, ProducerID: NoProducerID, Tombstone: true},
		&GroupMetadata{Group: "group-id", Tombstone: true},
	}, res.Records)
	assert.Equal(t, []DeleteGroupResult{{GroupID: "group-id"}}, res.Response)
}

// TestConsumerGroupMaybeDelete proves Kafka's testConsumerGroupMaybeDelete:
// an empty consumer group gets the target-assignment-epoch and group-epoch
// tombstones (coordsim has no subscription-metadata record); a group with a
// member gets nothing.
func TestConsumerGroupMaybeDelete(t *testing.T) {
	h := newHarness(t, testConfig(), expiryTopics)
	h.consumerJoin("group-id", "m1", "foo")
	assert.Empty(t, h.s.sweepGroups(testT, []string{"group-id"}).Records, "a group with a member is not deleted")
	h.consumerHeartbeat("group-id", "m1", -1, nil)

	g := h.s.lookup("group-id")
	require.NotNil(t, g)
	want := []Record{
		&ConsumerGroupTargetAssignmentMetadata{Group: "group-id", Tombstone: true},
		&ConsumerGroupMetadata{Group: "group-id", Tombstone: true},
	}
	assert.Equal(t, want, h.s.appendGroupTombstones(nil, g))
	sweep := h.s.CleanupGroupMetadata(testT)
	assert.Equal(t, want, sweep.Records)
	applyResult(h, sweep)
	assert.Zero(t, h.s.NumGroups())
}

// TestStreamsGroupMetadataReplayRoundTripsTopologyDescriptionEpochs proves
// that replaying StreamsGroupMetadata applies the stored and failed epochs,
// that a group-epoch bump keeps them, and that out-of-range values are
// refused.
func TestStreamsGroupMetadataReplayRoundTripsTopologyDescriptionEpochs(t *testing.T) {
	tests := []struct {
		stored, failed int32
		wantErr        bool
	}{
		{stored: 5, failed: 7},
		{stored: EpochNone, failed: EpochNone},
		{stored: EpochUncertain, failed: 3},
		{stored: 0, failed: 0},
		{stored: -3, failed: EpochNone, wantErr: true},
		{stored: 1, failed: -2, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("stored=%d,failed=%d", tc.stored, tc.failed), func(t *testing.T) {
			h := newHarness(t, testConfig(), expiryTopics)
			h.streamsJoin("streams", "m1", topo(2, "foo"))
			before := h.s.Snapshot()
			rec := &StreamsGroupMetadata{Group: "streams", Epoch: 1, MetadataHash: 42, ValidatedTopologyEpoch: 2,
				StoredDescriptionTopologyEpoch: tc.stored, FailedDescriptionTopologyEpoch: tc.failed}
			if tc.wantErr {
				err := h.s.Replay(h.s.LastOffset()+1, rec)
				require.ErrorIs(t, err, ErrReplay)
				requireSnapshotEqual(t, before, h.s.Snapshot(), "a refused record changes nothing")
				return
			}
			h.replay(rec)
			d, _ := h.s.DescribeGroup("streams")
			assert.Equal(t, tc.stored, d.StoredDescriptionTopologyEpoch)
			assert.Equal(t, tc.failed, d.FailedDescriptionTopologyEpoch)
			assert.Equal(t, int64(42), d.MetadataHash)

			// A join bumps the group epoch; its StreamsGroupMetadata keeps both epochs.
			h.streamsJoin("streams", "m2", topo(2, "foo"))
			d, _ = h.s.DescribeGroup("streams")
			assert.Equal(t, int32(2), d.Epoch)
			assert.Equal(t, tc.stored, d.StoredDescriptionTopologyEpoch)
			assert.Equal(t, tc.failed, d.FailedDescriptionTopologyEpoch)
			requireSnapshotEqual(t, h.s.Snapshot(), h.rebuild().Snapshot(), "rebuild")
		})
	}
}

// memberOps drives one group type through the same membership steps.
type memberOps struct {
	typ GroupType
	// heartbeat sends a heartbeat (epoch 0 joins with the default
	// subscription or topology) and returns what the shard answered.
	heartbeat func(s *Shard, nowMs int64, group, member string, epoch int32) (records []Record, timers []TimerOp, memberEpoch int32, err error)
}

var allMemberOps = []memberOps{
	{typ: Consumer, heartbeat: func(s *Shard, nowMs int64, group, member string, epoch int32) ([]Record, []TimerOp, int32, error) {
		req := ConsumerGroupHeartbeatRequest{RebalanceTimeoutMs: RebalanceTimeoutNotSent, GroupID: group, MemberID: member, MemberEpoch: epoch}
		if epoch == 0 {
			req.RebalanceTimeoutMs, req.SubscribedTopicNames = 300_000, []string{"foo"}
		} else if epoch > 0 {
			req.TopicPartitions = ownedBy(s, group, member)
		}
		res, err := s.ConsumerGroupHeartbeat(nowMs, req)
		return res.Records, res.Timers, res.Response.MemberEpoch, err
	}},
	{typ: Streams, heartbeat: func(s *Shard, nowMs int64, group, member string, epoch int32) ([]Record, []TimerOp, int32, error) {
		req := StreamsGroupHeartbeatRequest{RebalanceTimeoutMs: RebalanceTimeoutNotSent, GroupID: group, MemberID: member, MemberEpoch: epoch, Version: 1}
		if epoch == 0 {
			req.RebalanceTimeoutMs, req.Topology = 300_000, topo(1, "foo")
		} else if epoch > 0 {
			req.ActiveTasks, req.StandbyTasks, req.WarmupTasks = ownedTasksBy(s, group, member)
		}
		res, err := s.StreamsGroupHeartbeat(nowMs, req)
		return res.Records, res.Timers, res.Response.MemberEpoch, err
	}},
	{typ: Share, heartbeat: func(s *Shard, nowMs int64, group, member string, epoch int32) ([]Record, []TimerOp, int32, error) {
		req := ShareGroupHeartbeatRequest{GroupID: group, MemberID: member, MemberEpoch: epoch}
		if epoch == 0 {
			req.SubscribedTopicNames = []string{"foo"}
		}
		res, err := s.ShareGroupHeartbeat(nowMs, req)
		return res.Records, res.Timers, res.Response.MemberEpoch, err
	}},
}

// beat runs ops.heartbeat on h's shard at h.nowMs and applies the result.
func (ops memberOps) beat(h *harness, group, member string, epoch int32) int32 {
	h.t.Helper()
	if ops.typ == Share && epoch == 0 {
		// These scenarios start from share state already initialised, as
		// Kafka's share tests replay a ShareGroupStatePartitionMetadata
		// record first (share_init_test.go covers initialisation).
		h.initializedShareState(group, "foo")
	}
	records, timers, memberEpoch, err := ops.heartbeat(h.s, h.nowMs, group, member, epoch)
	require.NoError(h.t, err, "%s heartbeat %s/%s epoch %d", ops.typ, group, member, epoch)
	h.replay(records...)
	h.timers.apply(timers)
	return memberEpoch
}

// refuse runs ops.heartbeat, requires err to wrap want, no records and an
// unchanged shard.
func (ops memberOps) refuse(h *harness, group, member string, epoch int32, want *kerr.Error) error {
	h.t.Helper()
	before := h.s.Snapshot()
	records, timers, _, err := ops.heartbeat(h.s, h.nowMs, group, member, epoch)
	require.ErrorIs(h.t, err, want, "%s heartbeat %s/%s epoch %d", ops.typ, group, member, epoch)
	assert.Empty(h.t, records)
	assert.Empty(h.t, timers)
	requireSnapshotEqual(h.t, before, h.s.Snapshot(), "failed %s heartbeat", ops.typ)
	return err
}

// newGroupEpoch is a new group's epoch before its first member (Kafka
// 4.4's ModernGroup), so every type's first join lands on 2.
const newGroupEpoch int32 = 1

// TestMemberEpochValidation proves KIP-848's epoch rules for each type
// (Kafka's testConsumerGroupMemberEpochValidation and its share and streams
// counterparts): a newer epoch is fenced, an older epoch is accepted only
// when it is the previous one (for consumers, with owned partitions that are
// a subset of the assignment) or 0 (a rejoin), and an unknown member with a
// non-zero epoch gets UNKNOWN_MEMBER_ID. A consumer member asked to revoke
// needs a second heartbeat, which acknowledges the revocation, to reach the
// new epoch.
func TestMemberEpochValidation(t *testing.T) {
	for _, ops := range allMemberOps {
		t.Run(ops.typ.String(), func(t *testing.T) {
			h := newHarness(t, testConfig(), expiryTopics)
			o := newGroupEpoch
			e1 := ops.beat(h, "g", "m1", 0)
			require.Equal(t, 1+o, e1)
			ops.beat(h, "g", "m2", 0)       // group epoch 3
			e1 = ops.beat(h, "g", "m1", e1) // consumer: asked to revoke, still 2
			e1 = ops.beat(h, "g", "m1", e1) // m1: 3, previous 2
			ops.beat(h, "g", "m3", 0)       // group epoch 4
			e1 = ops.beat(h, "g", "m1", e1)
			e1 = ops.beat(h, "g", "m1", e1) // m1: 4, previous 3
			require.Equal(t, 3+o, e1)

			ops.refuse(h, "g", "m1", 4+o, kerr.FencedMemberEpoch)
			ops.refuse(h, "g", "m1", 1+o, kerr.FencedMemberEpoch)
			err := ops.refuse(h, "g", "unknown-member", 3+o, kerr.UnknownMemberID)
			assert.Contains(t, err.Error(), "UNKNOWN_MEMBER_ID")
			ops.refuse(h, "g", "unknown-member", -1, kerr.UnknownMemberID)

			assert.Equal(t, 3+o, ops.beat(h, "g", "m1", 2+o), "the previous epoch is accepted (lost response)")
			assert.Equal(t, 3+o, ops.beat(h, "g", "m1", 3+o))
			// Epoch 0 is a rejoin, accepted from a member that still exists
			// although it is neither its current nor its previous epoch:
			// Kafka trunk's throwIf{Consumer,Share,Streams}GroupMemberEpochIsInvalid
			// return early on it (testMemberCanRejoinWithEpochZeroInStableState,
			// testShareGroupMemberCanRejoinWithEpochZero,
			// testStreamsGroupMemberCanRejoinWithEpochZero). The member keeps
			// its epoch.
			assert.Equal(t, 3+o, ops.beat(h, "g", "m1", 0), "epoch 0 rejoins a member that exists")
			requireSnapshotEqual(t, h.s.Snapshot(), h.rebuild().Snapshot(), "rebuild")
		})
	}
}

// TestLeavingMemberBumpsGroupEpoch proves, for each type (Kafka's
// testLeavingMemberBumpsGroupEpoch and testShareGroupLeavingMemberBumpsGroupEpoch),
// that a leave answers epoch -1 and writes the member's current-assignment,
// target-assignment and metadata tombstones, then the bumped group epoch,
// and cancels its session timer.
func TestLeavingMemberBumpsGroupEpoch(t *testing.T) {
	wantTombs := map[GroupType][]RecordType{
		Consumer: {TypeConsumerGroupCurrentMemberAssignment, TypeConsumerGroupTargetAssignmentMember, TypeConsumerGroupMemberMetadata, TypeConsumerGroupMetadata},
		Streams:  {TypeStreamsGroupCurrentMemberAssignment, TypeStreamsGroupTargetAssignmentMember, TypeStreamsGroupMemberMetadata, TypeStreamsGroupMetadata},
		Share:    {TypeShareGroupCurrentMemberAssignment, TypeShareGroupTargetAssignmentMember, TypeShareGroupMemberMetadata, TypeShareGroupMetadata},
	}
	for _, ops := range allMemberOps {
		t.Run(ops.typ.String(), func(t *testing.T) {
			h := newHarness(t, testConfig(), expiryTopics)
			ops.beat(h, "g", "m1", 0)
			ops.beat(h, "g", "m2", 0)
			o := newGroupEpoch
			d, _ := h.s.DescribeGroup("g")
			require.Equal(t, 2+o, d.Epoch)

			records, timers, epoch, err := ops.heartbeat(h.s, h.nowMs, "g", "m1", -1)
			require.NoError(t, err)
			assert.Equal(t, int32(-1), epoch)
			require.GreaterOrEqual(t, len(records), 4, formatRecords(records))
			assert.Equal(t, wantTombs[ops.typ], recordTypes(records[:4]), formatRecords(records))
			for _, r := range records[:3] {
				assert.Contains(t, Format(r), "member=m1 <tombstone>")
			}
			assert.Contains(t, Format(records[3]), fmt.Sprintf("epoch=%d", 3+o))
			assert.Contains(t, timers, TimerOp{Key: SessionTimeoutKey("g", "m1"), Cancel: true})
			h.replay(records...)
			h.timers.apply(timers)
			assert.False(t, h.s.HasMember("g", "m1"))
			d, _ = h.s.DescribeGroup("g")
			assert.Equal(t, 3+o, d.Epoch)
			_, armed := h.timers.deadline(SessionTimeoutKey("g", "m1"))
			assert.False(t, armed)
		})
	}
}

// TestSessionTimeoutExpiration proves, for each type (Kafka's
// testSessionTimeoutExpiration and testSessionTimeoutExpirationForShareMember,
// whose share story is also coordinator/coordtest/testdata/share_session_timeout.txt),
// that a member who stops heartbeating is fenced by its session timer
// exactly at the deadline with the group epoch bumped, and that a heartbeat
// pushes the deadline back.
func TestSessionTimeoutExpiration(t *testing.T) {
	for _, ops := range allMemberOps {
		t.Run(ops.typ.String(), func(t *testing.T) {
			h := newHarness(t, testConfig(), expiryTopics)
			e := ops.beat(h, "g", "m1", 0)
			key := SessionTimeoutKey("g", "m1")
			deadline, ok := h.timers.deadline(key)
			require.True(t, ok)
			assert.Equal(t, testT+45_000, deadline)

			h.advance(testT + 20_000)
			ops.beat(h, "g", "m1", e)
			deadline, _ = h.timers.deadline(key)
			assert.Equal(t, testT+65_000, deadline, "a heartbeat re-arms the session timer")

			h.advance(testT + 64_999)
			require.True(t, h.s.HasMember("g", "m1"))
			h.advance(testT + 65_000)
			assert.False(t, h.s.HasMember("g", "m1"), "fenced at the deadline")
			d, _ := h.s.DescribeGroup("g")
			assert.Equal(t, 2+newGroupEpoch, d.Epoch)
			assert.Equal(t, StateEmpty, d.State)
			ops.refuse(h, "g", "m1", e, kerr.UnknownMemberID)

			// A stale timer for a member that is gone does nothing.
			assert.Empty(t, h.s.RunTimer(testT+70_000, Task{Kind: TaskSessionTimeout, Type: ops.typ, GroupID: "g", MemberID: "m1"}).Records)
			assert.Empty(t, h.s.RunTimer(testT+70_000, Task{Kind: TaskSessionTimeout, Type: ops.typ, GroupID: "missing", MemberID: "m1"}).Records)
		})
	}
}

// TestGroupMaxSizeReached proves that a new member beyond the group's
// maximum size gets GROUP_MAX_SIZE_REACHED while existing members may still
// rejoin.
func TestGroupMaxSizeReached(t *testing.T) {
	for _, ops := range allMemberOps {
		t.Run(ops.typ.String(), func(t *testing.T) {
			cfg := testConfig()
			cfg.ConsumerMaxSize, cfg.StreamsMaxSize, cfg.ShareMaxSize = 2, 2, 2
			h := newHarness(t, cfg, expiryTopics)
			ops.beat(h, "g", "m1", 0)
			ops.beat(h, "g", "m2", 0)
			ops.refuse(h, "g", "m3", 0, kerr.GroupMaxSizeReached)
			ops.beat(h, "g", "m1", 0)
			ops.beat(h, "g", "m2", -1)
			ops.beat(h, "g", "m3", 0)
		})
	}
}

// TestGroupIdNotFoundOnCrossTypeAccess proves docs/share-groups.md §2.6 and
// docs/kip1331.md §5: one group id has one type, and touching it with another
// type's request is GROUP_ID_NOT_FOUND with Kafka's message.
func TestGroupIdNotFoundOnCrossTypeAccess(t *testing.T) {
	h := newHarness(t, testConfig(), expiryTopics)
	h.consumerJoin("consumer-group", "m1", "foo")
	h.shareJoin("share-group", "m1", "foo")
	h.streamsJoin("streams-group", "m1", topo(1, "foo"))
	h.commit("classic-group", "", -1, testT, "foo-0")

	consumerJoin := func(group string) error {
		_, err := h.s.ConsumerGroupHeartbeat(testT, ConsumerGroupHeartbeatRequest{GroupID: group, MemberID: "x", RebalanceTimeoutMs: 1, SubscribedTopicNames: []string{"foo"}})
		return err
	}
	shareJoin := func(group string) error {
		_, err := h.s.ShareGroupHeartbeat(testT, ShareGroupHeartbeatRequest{GroupID: group, MemberID: "x", SubscribedTopicNames: []string{"foo"}})
		return err
	}
	streamsJoin := func(group string) error {
		_, err := h.s.StreamsGroupHeartbeat(testT, StreamsGroupHeartbeatRequest{GroupID: group, MemberID: "x", RebalanceTimeoutMs: 1, Topology: topo(1, "foo")})
		return err
	}
	tests := []struct {
		name    string
		call    func() error
		message string
	}{
		{"testConsumerGroupHeartbeatOnShareGroup", func() error { return consumerJoin("share-group") }, "Group share-group is not a consumer group."},
		{"testConsumerGroupHeartbeatOnStreamsGroup", func() error { return consumerJoin("streams-group") }, "Group streams-group is not a consumer group."},
		{"testShareGroupHeartbeatOnConsumerGroup", func() error { return shareJoin("consumer-group") }, "Group consumer-group is not a share group."},
		{"testShareGroupHeartbeatOnStreamsGroup", func() error { return shareJoin("streams-group") }, "Group streams-group is not a share group."},
		{"testShareGroupHeartbeatOnClassicGroup", func() error { return shareJoin("classic-group") }, "Group classic-group is not a share group."},
		{"testStreamsGroupHeartbeatOnConsumerGroup", func() error { return streamsJoin("consumer-group") }, "Group consumer-group is not a streams group."},
		{"testStreamsGroupHeartbeatOnShareGroup", func() error { return streamsJoin("share-group") }, "Group share-group is not a streams group."},
		{"consumer heartbeat (not a join) on share group", func() error {
			_, err := h.s.ConsumerGroupHeartbeat(testT, ConsumerGroupHeartbeatRequest{RebalanceTimeoutMs: RebalanceTimeoutNotSent, GroupID: "share-group", MemberID: "m1", MemberEpoch: 1})
			return err
		}, "Group share-group is not a consumer group."},
		{"consumer leave on classic group", func() error {
			_, err := h.s.ConsumerGroupHeartbeat(testT, ConsumerGroupHeartbeatRequest{RebalanceTimeoutMs: RebalanceTimeoutNotSent, GroupID: "classic-group", MemberID: "m1", MemberEpoch: -1})
			return err
		}, "Group classic-group is not a consumer group."},
		{"testOffsetCommitOnShareGroup", func() error {
			_, err := h.s.CommitOffsets(testT, OffsetCommitRequest{GroupID: "share-group", MemberEpoch: -1, RetentionTimeMs: -1, Topics: commitTopics(t, "foo-0")})
			return err
		}, "Group share-group is not a consumer group."},
		{"transactional offset commit on share group", func() error {
			_, err := h.s.CommitTransactionalOffsets(testT, TxnOffsetCommitRequest{GroupID: "share-group", ProducerID: 1, MemberEpoch: -1, Topics: commitTopics(t, "foo-0")})
			return err
		}, "Group share-group is not a consumer group."},
		{"offset delete on share group", func() error {
			_, err := h.s.DeleteOffsets("share-group", []TopicPartitions{{Topic: "foo", Partitions: []int32{0}}})
			return err
		}, "Group share-group is not a consumer group."},
		{"streams heartbeat on missing group", func() error {
			_, err := h.s.StreamsGroupHeartbeat(testT, StreamsGroupHeartbeatRequest{RebalanceTimeoutMs: RebalanceTimeoutNotSent, GroupID: "missing", MemberID: "x", MemberEpoch: 3})
			return err
		}, "Streams group missing not found."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := h.s.Snapshot()
			err := tc.call()
			require.ErrorIs(t, err, kerr.GroupIDNotFound)
			assert.Equal(t, "GROUP_ID_NOT_FOUND: "+tc.message, err.Error())
			requireSnapshotEqual(t, before, h.s.Snapshot(), "a refused request changes nothing")
		})
	}
}

// TestConsumerGroupHeartbeatWithEmptyClassicGroup proves that a consumer or
// streams join converts an empty (simple) classic group: the GroupMetadata
// tombstone comes first, and the group's offsets survive the conversion.
func TestConsumerGroupHeartbeatWithEmptyClassicGroup(t *testing.T) {
	tests := []struct {
		name string
		join func(h *harness)
		typ  GroupType
	}{
		{name: "consumer", typ: Consumer, join: func(h *harness) { h.consumerJoin("group-id", "m1", "foo") }},
		{name: "streams", typ: Streams, join: func(h *harness) { h.streamsJoin("group-id", "m1", topo(1, "foo")) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, testConfig(), expiryTopics)
			h.commit("group-id", "", -1, testT, "foo-0", "secondTopic-1")
			typ, _ := h.s.GroupType("group-id")
			require.Equal(t, Classic, typ)
			first := len(h.log)
			tc.join(h)
			require.Greater(t, len(h.log), first)
			assert.Equal(t, &GroupMetadata{Group: "group-id", Tombstone: true}, h.log[first], "the classic tombstone comes first")
			typ, _ = h.s.GroupType("group-id")
			assert.Equal(t, tc.typ, typ)
			assert.Equal(t, 2, h.s.GroupOffsetCount("group-id"), "offsets survive the conversion")
			v, ok := h.s.Offset("group-id", "foo", 0)
			require.True(t, ok)
			assert.Equal(t, int64(100), v.Offset)
			requireSnapshotEqual(t, h.s.Snapshot(), h.rebuild().Snapshot(), "rebuild")
		})
	}
}

// TestStreamsGroupStates proves the streams state derivation (docs/kip1331.md §5,
// StreamsGroup.maybeUpdateGroupState): EMPTY without members, NOT_READY
// while the topology's epoch is not the validated one (a source topic was
// missing at the last heartbeat, with MISSING_SOURCE_TOPICS), RECONCILING
// while a member lags the target epoch, STABLE once all caught up, EMPTY
// again after the last leave. A topic change shows at the next heartbeat,
// which validates the topology again, not at once.
func TestStreamsGroupStates(t *testing.T) {
	h := newHarness(t, testConfig(), map[string]int32{"foo": 2})
	state := func() GroupState {
		st, ok := h.s.GroupState("streams")
		require.True(t, ok)
		return st
	}
	resp := h.streamsJoin("streams", "m1", topo(1, "input"))
	assert.Equal(t, StateNotReady, state())
	assert.Contains(t, resp.Status, StatusMissingSourceTopics)
	assert.Empty(t, resp.ActiveTasks)

	h.setTopics(map[string]int32{"foo": 2, "input": 4})
	assert.Equal(t, StateNotReady, state(), "the state waits for a heartbeat to validate the topology")
	r1 := h.streamsHeartbeat("streams", "m1", resp.MemberEpoch)
	e1 := r1.MemberEpoch
	assert.Equal(t, StateStable, state())
	assert.Equal(t, []TaskIDs{{SubtopologyID: "0", Partitions: []int32{0, 1, 2, 3}}}, r1.ActiveTasks,
		"the topic that appeared is assigned at the next heartbeat")

	resp2 := h.streamsJoin("streams", "m2", topo(1, "input"))
	assert.NotContains(t, resp2.Status, StatusMissingSourceTopics)
	assert.Equal(t, StateReconciling, state(), "m1 has not caught up with the new target")
	r1 = h.streamsHeartbeat("streams", "m1", e1)
	assert.Equal(t, StateReconciling, state(), "m1 must revoke the tasks m2 takes")
	assert.Equal(t, e1, r1.MemberEpoch, "m1 stays at its epoch until it acknowledges")
	r1 = h.streamsHeartbeat("streams", "m1", e1)
	assert.Equal(t, resp2.MemberEpoch, r1.MemberEpoch)
	h.streamsHeartbeat("streams", "m2", resp2.MemberEpoch) // takes the released tasks
	assert.Equal(t, StateStable, state())
	d, _ := h.s.DescribeGroup("streams")
	total := 0
	for _, m := range d.Members {
		total += countPartitions(tasksToPartitions(m.ActiveTasks))
	}
	assert.Equal(t, 4, total, "every task of the ready topology is assigned once")

	h.setTopics(map[string]int32{"foo": 2})
	assert.Equal(t, StateStable, state(), "until a heartbeat sees it, the missing topic changes nothing")
	h.streamsHeartbeat("streams", "m1", r1.MemberEpoch)
	assert.Equal(t, StateNotReady, state(), "a source topic that disappeared makes the group NOT_READY at the next heartbeat")
	h.streamsHeartbeat("streams", "m2", -1)
	h.streamsHeartbeat("streams", "m1", -1)
	assert.Equal(t, StateEmpty, state())
	assert.Equal(t, 1, h.s.GroupCount(Streams, StateEmpty))
	requireSnapshotEqual(t, h.s.Snapshot(), h.rebuild().Snapshot(), "rebuild")
}

// TestStreamsGroupHeartbeatStaleTopology proves that a member running an
// older topology epoch than the group's gets the STALE_TOPOLOGY status and
// no tasks, and loses it once it rejoins with the current topology.
func TestStreamsGroupHeartbeatStaleTopology(t *testing.T) {
	h := newHarness(t, topologyUpdatesConfig(), map[string]int32{"input": 2, "input2": 2})
	r1 := h.streamsJoin("streams", "m1", topo(1, "input"))
	assert.NotContains(t, r1.Status, StatusStaleTopology)
	h.streamsJoin("streams", "m2", topo(2, "input", "input2"))
	d, _ := h.s.DescribeGroup("streams")
	require.Equal(t, int32(2), d.Topology.Epoch, "a newer topology epoch replaces the group's topology")

	r1 = h.streamsHeartbeat("streams", "m1", r1.MemberEpoch)
	assert.Contains(t, r1.Status, StatusStaleTopology)
	assert.Empty(t, r1.ActiveTasks)
	late := h.streamsJoin("streams", "m3", topo(1, "input"))
	assert.Contains(t, late.Status, StatusStaleTopology, "joining with an older epoch is stale too")

	r1 = h.streamsJoin("streams", "m1", topo(2, "input", "input2"))
	assert.NotContains(t, r1.Status, StatusStaleTopology)
	requireSnapshotEqual(t, h.s.Snapshot(), h.rebuild().Snapshot(), "rebuild")
}

// TestStreamsGroupHeartbeatTopologyUpdatesNotSupported proves Kafka trunk's
// maybeUpdateTopology: a different topology at the group's epoch and any
// topology at a higher epoch are INVALID_REQUEST "Topology updates are not
// supported yet." and change nothing; an older epoch joins stale; the
// group's own topology joins.
func TestStreamsGroupHeartbeatTopologyUpdatesNotSupported(t *testing.T) {
	h := newHarness(t, testConfig(), map[string]int32{"input": 2, "other": 1})
	h.streamsJoin("streams", "m1", topo(2, "input"))
	for _, tp := range []*Topology{topo(2, "other"), topo(3, "input"), topo(3, "other")} {
		before := h.s.Snapshot()
		res, err := h.s.StreamsGroupHeartbeat(testT, StreamsGroupHeartbeatRequest{
			GroupID: "streams", MemberID: "m2", RebalanceTimeoutMs: 1, Topology: tp,
		})
		require.ErrorIs(t, err, kerr.InvalidRequest, "topology %+v", tp)
		assert.ErrorContains(t, err, "Topology updates are not supported yet.")
		assert.Empty(t, res.Records)
		requireSnapshotEqual(t, before, h.s.Snapshot(), "refused")
	}
	stale := h.streamsJoin("streams", "m2", topo(1, "other"))
	assert.Contains(t, stale.Status, StatusStaleTopology)
	d, _ := h.s.DescribeGroup("streams")
	assert.Equal(t, topo(2, "input"), d.Topology, "an older epoch leaves the group's topology alone")
	same := h.streamsJoin("streams", "m3", topo(2, "input"))
	assert.NotContains(t, same.Status, StatusStaleTopology)
}

// TestStreamsGroupHeartbeatInvalidTopologyEpoch proves that, with the
// StreamsTopologyUpdates opt-in, a changed topology at the group's current
// epoch is STREAMS_INVALID_TOPOLOGY_EPOCH and changes nothing.
func TestStreamsGroupHeartbeatInvalidTopologyEpoch(t *testing.T) {
	h := newHarness(t, topologyUpdatesConfig(), map[string]int32{"input": 2, "other": 1})
	h.streamsJoin("streams", "m1", topo(1, "input"))
	before := h.s.Snapshot()
	res, err := h.s.StreamsGroupHeartbeat(testT, StreamsGroupHeartbeatRequest{
		GroupID: "streams", MemberID: "m2", RebalanceTimeoutMs: 1, Topology: topo(1, "other"),
	})
	require.ErrorIs(t, err, kerr.StreamsInvalidTopologyEpoch)
	assert.Empty(t, res.Records)
	requireSnapshotEqual(t, before, h.s.Snapshot(), "refused")
	h.streamsJoin("streams", "m2", topo(1, "input")) // the same topology is fine
}

// TestConsumerGroupOffsetCommitMemberEpochValidation proves KIP-848's offset
// commit rules (Kafka's testConsumerGroupOffsetCommitWithStaleMemberEpoch and
// friends) for consumer and streams groups.
func TestConsumerGroupOffsetCommitMemberEpochValidation(t *testing.T) {
	type commitCase struct {
		name    string
		member  string
		epoch   func(cur, prev int32) int32
		specs   []string
		wantErr *kerr.Error
	}
	cur := func(c, _ int32) int32 { return c }
	common := []commitCase{
		{name: "current epoch", member: "m1", epoch: cur, specs: []string{"foo-0"}},
		{name: "newer epoch", member: "m1", epoch: func(c, _ int32) int32 { return c + 1 }, specs: []string{"foo-0"}, wantErr: kerr.StaleMemberEpoch},
		{name: "unknown member", member: "nobody", epoch: cur, specs: []string{"foo-0"}, wantErr: kerr.UnknownMemberID},
		{name: "admin commit to a non-empty group", member: "", epoch: func(int32, int32) int32 { return -1 }, specs: []string{"foo-0"}, wantErr: kerr.UnknownMemberID},
		{name: "older epoch than the previous one", member: "m1", epoch: func(_, p int32) int32 { return p - 1 }, specs: []string{"foo-0"}, wantErr: kerr.StaleMemberEpoch},
	}
	tests := []struct {
		name  string
		setup func(h *harness) (cur, prev int32, owned string)
		extra []commitCase
		leave func(h *harness, epoch int32)
	}{
		{
			name: "consumer",
			setup: func(h *harness) (int32, int32, string) {
				e := h.consumerJoin("g", "m1", "foo").MemberEpoch
				h.consumerJoin("g", "m2", "foo")
				h.consumerHeartbeat("g", "m1", e, nil) // asked to revoke half
				r := h.consumerHeartbeat("g", "m1", e, nil)
				require.Equal(h.t, e, r.MemberEpoch-1)
				owned := r.Assignment[0]
				return r.MemberEpoch, e, fmt.Sprintf("%s-%d", owned.Topic, owned.Partitions[0])
			},
			leave: func(h *harness, epoch int32) {
				h.consumerHeartbeat("g", "m1", -1, nil)
				h.consumerHeartbeat("g", "m2", -1, nil)
			},
		},
		{
			name: "streams",
			setup: func(h *harness) (int32, int32, string) {
				e := h.streamsJoin("g", "m1", topo(1, "foo")).MemberEpoch
				h.streamsJoin("g", "m2", topo(1, "foo"))
				h.streamsHeartbeat("g", "m1", e) // asked to revoke half
				r := h.streamsHeartbeat("g", "m1", e)
				require.Equal(h.t, e, r.MemberEpoch-1)
				// Subtopology "0" reads foo: task 0_p commits foo-p.
				return r.MemberEpoch, e, fmt.Sprintf("foo-%d", r.ActiveTasks[0].Partitions[0])
			},
			leave: func(h *harness, epoch int32) {
				h.streamsHeartbeat("g", "m1", -1)
				h.streamsHeartbeat("g", "m2", -1)
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, testConfig(), expiryTopics)
			c, p, owned := tc.setup(h)
			cases := append([]commitCase(nil), common...)
			cases = append(cases,
				commitCase{name: "previous epoch on an owned partition", member: "m1", epoch: func(_, p int32) int32 { return p }, specs: []string{owned}},
				commitCase{name: "previous epoch on a partition not owned", member: "m1", epoch: func(_, p int32) int32 { return p }, specs: []string{"secondTopic-0"}, wantErr: kerr.StaleMemberEpoch},
			)
			for _, cc := range cases {
				before := h.s.Snapshot()
				res, err := h.s.CommitOffsets(testT, OffsetCommitRequest{
					GroupID: "g", MemberID: cc.member, MemberEpoch: cc.epoch(c, p), RetentionTimeMs: -1, Topics: commitTopics(t, cc.specs...),
				})
				if cc.wantErr != nil {
					assert.ErrorIs(t, err, cc.wantErr, cc.name)
					assert.Empty(t, res.Records, cc.name)
				} else {
					assert.NoError(t, err, cc.name)
					assert.Len(t, res.Records, 1, cc.name)
				}
				requireSnapshotEqual(t, before, h.s.Snapshot(), "%s", cc.name)
			}
			tc.leave(h, c)
			h.commit("g", "", -1, testT, "foo-1") // admin commit to the now empty group
			_, ok := h.s.Offset("g", "foo", 1)
			assert.True(t, ok)
		})
	}
}

// TestReplayAppliesEveryRequestField proves that what a request carries
// reaches the replayed state (replay equality alone cannot see a field that
// replay drops on both sides): member metadata, epochs and assignments of
// each type, and every field of a committed offset.
func TestReplayAppliesEveryRequestField(t *testing.T) {
	h := newHarness(t, testConfig(), map[string]int32{"foo": 2, "bar": 1})
	res, err := h.s.ConsumerGroupHeartbeat(testT, ConsumerGroupHeartbeatRequest{
		GroupID: "consumer", MemberID: "m1", ClientID: "client-a", RebalanceTimeoutMs: 12_345,
		SubscribedTopicNames: []string{"foo", "bar", "foo"},
	})
	mustApply(h, res, err)
	sres, err := h.s.StreamsGroupHeartbeat(testT, StreamsGroupHeartbeatRequest{
		GroupID: "streams", MemberID: "s1", ProcessID: "proc-1", ClientID: "client-b", RebalanceTimeoutMs: 2_000, Topology: topo(4, "foo"),
	})
	mustApply(h, sres, err)
	h.initializedShareState("share", "bar")
	shres, err := h.s.ShareGroupHeartbeat(testT, ShareGroupHeartbeatRequest{
		GroupID: "share", MemberID: "x1", ClientID: "client-c", SubscribedTopicNames: []string{"bar"},
	})
	mustApply(h, shres, err)

	all := []TopicPartitions{{Topic: "bar", Partitions: []int32{0}}, {Topic: "foo", Partitions: []int32{0, 1}}}
	d, _ := h.s.DescribeGroup("consumer")
	assert.Equal(t, []MemberDescription{{MemberID: "m1", ClientID: "client-a", SubscribedTopics: []string{"bar", "foo"},
		RebalanceTimeoutMs: 12_345, MemberEpoch: 2, Assignment: all, TargetAssignment: all, AssignmentEpochs: [][]int32{{2}, {2, 2}}}}, d.Members)
	assert.Equal(t, int32(2), d.Epoch)
	assert.Equal(t, int32(2), d.AssignmentEpoch)
	assert.Equal(t, StateStable, d.State)

	tasks := []TaskIDs{{SubtopologyID: "0", Partitions: []int32{0, 1}}}
	d, _ = h.s.DescribeGroup("streams")
	assert.Equal(t, []MemberDescription{{MemberID: "s1", ClientID: "client-b", ProcessID: "proc-1", RebalanceTimeoutMs: 2_000,
		TopologyEpoch: 4, MemberEpoch: 2, ActiveTasks: tasks, TargetActiveTasks: tasks, AssignmentEpochs: [][]int32{{2, 2}}}}, d.Members)
	assert.Equal(t, topo(4, "foo"), d.Topology)
	assert.Equal(t, int32(4), d.ValidatedTopologyEpoch)
	assert.Equal(t, []TaskIDs(tasks), sres.Response.ActiveTasks)

	bar := []TopicPartitions{{Topic: "bar", Partitions: []int32{0}}}
	d, _ = h.s.DescribeGroup("share")
	assert.Equal(t, []MemberDescription{{MemberID: "x1", ClientID: "client-c", SubscribedTopics: []string{"bar"},
		MemberEpoch: 2, Assignment: bar, TargetAssignment: bar}}, d.Members)
	assert.Equal(t, bar, shres.Response.Assignment)

	cres, err := h.s.CommitOffsets(testT+7, OffsetCommitRequest{GroupID: "consumer", MemberID: "m1", MemberEpoch: 2, RetentionTimeMs: 500,
		Topics: []OffsetCommitTopic{{Topic: "foo", Partitions: []OffsetCommitPartition{{Partition: 1, Offset: 42, LeaderEpoch: 9, Metadata: "meta"}}}}})
	mustApply(h, cres, err)
	v, ok := h.s.Offset("consumer", "foo", 1)
	require.True(t, ok)
	assert.Equal(t, offsets.OffsetAndMetadata{Offset: 42, LeaderEpoch: 9, Metadata: "meta", CommitTimestampMs: testT + 7, ExpireTimestampMs: testT + 507}, v)
	fetched, err := h.s.FetchOffsets("consumer", nil, true)
	require.NoError(t, err)
	assert.Equal(t, []FetchedOffset{{Topic: "foo", Partition: 1, Offset: 42, LeaderEpoch: 9, Metadata: "meta"}}, fetched)
}

// TestGroupEpochBumpsWhenSubscribedTopicMetadataChanges proves, for each
// type, that a partition-count change of a topic the group reads bumps the
// group epoch at the next heartbeat and gets the new partitions assigned,
// while a change to a topic nobody reads bumps nothing.
func TestGroupEpochBumpsWhenSubscribedTopicMetadataChanges(t *testing.T) {
	for _, ops := range allMemberOps {
		t.Run(ops.typ.String(), func(t *testing.T) {
			h := newHarness(t, testConfig(), map[string]int32{"foo": 2})
			e := ops.beat(h, "g", "m1", 0)
			require.Equal(t, e, ops.beat(h, "g", "m1", e), "nothing changed")
			h.setTopics(map[string]int32{"foo": 2, "unrelated": 7})
			require.Equal(t, e, ops.beat(h, "g", "m1", e), "a topic nobody reads changes nothing")

			h.setTopics(map[string]int32{"foo": 5, "unrelated": 7})
			e2 := ops.beat(h, "g", "m1", e)
			assert.Equal(t, e+1, e2, "the member moves to the bumped epoch")
			want := e + 1
			if ops.typ == Share {
				// Only the initialised partitions are assigned: the new
				// ones once their state is initialised, at the next
				// heartbeat and epoch (share_init.go).
				h.advance(h.nowMs)
				want++
				assert.Equal(t, want, ops.beat(h, "g", "m1", e2))
			}
			d, _ := h.s.DescribeGroup("g")
			assert.Equal(t, want, d.Epoch)
			require.Len(t, d.Members, 1)
			got := d.Members[0].Assignment
			if ops.typ == Streams {
				got = tasksToPartitions(d.Members[0].ActiveTasks)
			}
			assert.Equal(t, 5, countPartitions(got), "all five partitions are assigned: %s", FormatAssignment(got))
			requireSnapshotEqual(t, h.s.Snapshot(), h.rebuild().Snapshot(), "rebuild")
		})
	}
}

// TestOnLoadedArmsSessionTimeouts proves that a new owner, loading the shard
// from its log, arms the sweep and one session timer per member counted from
// the load, so members that never heartbeat to it are fenced.
func TestOnLoadedArmsSessionTimeouts(t *testing.T) {
	h := newHarness(t, testConfig(), expiryTopics)
	h.consumerJoin("consumer", "m1", "foo")
	h.consumerJoin("consumer", "m2", "foo")
	h.streamsJoin("streams", "m1", topo(1, "foo"))
	h.shareJoin("share", "m1", "foo")

	loaded := newHarness(t, testConfig(), expiryTopics)
	loaded.replay(h.log...)
	loaded.nowMs = testT + 100_000
	ops := loaded.s.OnLoaded(loaded.nowMs)
	var keys []string
	for _, op := range ops {
		keys = append(keys, op.Key)
		if op.Key != SweepTimerKey {
			assert.Equal(t, loaded.nowMs+45_000, op.DeadlineMs, op.Key)
			assert.Equal(t, TaskSessionTimeout, op.Task.Kind)
		}
	}
	// Each group's members in its TimelineHashMap's order, as Kafka's
	// onLoaded walks them: m2 hashes to a lower slot than m1.
	assert.Equal(t, []string{SweepTimerKey, SessionTimeoutKey("consumer", "m2"), SessionTimeoutKey("consumer", "m1"),
		SessionTimeoutKey("share", "m1"), SessionTimeoutKey("streams", "m1")}, keys)
	loaded.timers.apply(ops)
	loaded.advance(loaded.nowMs + 45_000)
	for _, g := range []string{"consumer", "streams", "share"} {
		st, _ := loaded.s.GroupState(g)
		assert.Equal(t, StateEmpty, st, g)
	}
	requireSnapshotEqual(t, loaded.s.Snapshot(), loaded.rebuild().Snapshot(), "rebuild")
}
