package shard

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/kerr"
)

// Share-group membership and admin (docs/share-groups.md §2), as Kafka's
// GroupMetadataManagerTest proves them (§6 cases 19–23), rewritten against
// the shard's API. Kafka's classic-protocol cases (testClassicGroupJoinOnShareGroup,
// testClassicGroupSyncOnShareGroup, testClassicGroupLeaveOnShareGroup) have
// no counterpart: the shard does not model JoinGroup, SyncGroup or
// LeaveGroup.

var shareTopics = map[string]int32{"foo": 6, "bar": 3, "zar": 1}

// shareGroupsHarness builds one group of each type on shareTopics:
// "share-group" (member m1), "consumer-group" (m1), "streams-group" (m1) and
// the simple classic "classic-group" a memberless commit makes.
func shareGroupsHarness(t *testing.T, cfg Config) *harness {
	t.Helper()
	h := newHarness(t, cfg, shareTopics)
	h.shareJoin("share-group", "m1", "foo")
	h.consumerJoin("consumer-group", "m1", "foo")
	h.streamsJoin("streams-group", "m1", topo(1, "foo"))
	h.commit("classic-group", "", -1, testT, "foo-0")
	return h
}

// requireRefused runs op, requires an error wrapping want with the exact
// text wantText (when set), and requires that nothing changed: no records,
// no timers, an equal snapshot.
func requireRefused[T any](t *testing.T, h *harness, op func() (Result[T], error), want *kerr.Error, wantText string) {
	t.Helper()
	before := h.s.Snapshot()
	res, err := op()
	require.ErrorIs(t, err, want)
	if wantText != "" {
		assert.Equal(t, wantText, err.Error())
	}
	assert.Empty(t, res.Records, formatRecords(res.Records))
	assert.Empty(t, res.Timers)
	requireSnapshotEqual(t, before, h.s.Snapshot(), "a refused request changes nothing")
}

func shareHeartbeatOp(h *harness, req ShareGroupHeartbeatRequest) func() (Result[ShareGroupHeartbeatResponse], error) {
	return func() (Result[ShareGroupHeartbeatResponse], error) { return h.s.ShareGroupHeartbeat(h.nowMs, req) }
}

// TestShareGroupHeartbeatOnConsumerGroup proves Kafka's
// testShareGroupHeartbeatOnConsumerGroup and its streams and classic
// counterparts: a share heartbeat (join, heartbeat or leave) on a group of
// another type is GROUP_ID_NOT_FOUND, "Group X is not a share group.", and
// changes nothing.
func TestShareGroupHeartbeatOnConsumerGroup(t *testing.T) {
	tests := []struct {
		name  string
		group string
		epoch int32
	}{
		{"join consumer group", "consumer-group", 0},
		{"heartbeat consumer group", "consumer-group", 1},
		{"leave consumer group", "consumer-group", -1},
		{"join streams group", "streams-group", 0},
		{"heartbeat streams group", "streams-group", 1},
		{"leave streams group", "streams-group", -1},
		{"join empty classic group", "classic-group", 0},
		{"leave classic group", "classic-group", -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := shareGroupsHarness(t, testConfig())
			req := ShareGroupHeartbeatRequest{GroupID: tc.group, MemberID: "m1", MemberEpoch: tc.epoch}
			if tc.epoch == 0 {
				req.SubscribedTopicNames = []string{"foo"}
			}
			requireRefused(t, h, shareHeartbeatOp(h, req), kerr.GroupIDNotFound,
				"GROUP_ID_NOT_FOUND: Group "+tc.group+" is not a share group.")
		})
	}
}

// TestConsumerGroupHeartbeatOnShareGroup proves Kafka's
// testConsumerGroupHeartbeatOnShareGroup and its streams counterpart: a
// consumer or streams heartbeat (join, heartbeat or leave) on a share group
// is GROUP_ID_NOT_FOUND with Kafka's message, and nothing converts the share
// group.
func TestConsumerGroupHeartbeatOnShareGroup(t *testing.T) {
	consumer := func(epoch int32) func(h *harness) (Result[struct{}], error) {
		return func(h *harness) (Result[struct{}], error) {
			req := ConsumerGroupHeartbeatRequest{RebalanceTimeoutMs: RebalanceTimeoutNotSent, GroupID: "share-group", MemberID: "m1", MemberEpoch: epoch}
			if epoch == 0 {
				req.RebalanceTimeoutMs, req.SubscribedTopicNames = 300_000, []string{"foo"}
			}
			res, err := h.s.ConsumerGroupHeartbeat(h.nowMs, req)
			return Result[struct{}]{Records: res.Records, Timers: res.Timers}, err
		}
	}
	streams := func(epoch int32) func(h *harness) (Result[struct{}], error) {
		return func(h *harness) (Result[struct{}], error) {
			req := StreamsGroupHeartbeatRequest{RebalanceTimeoutMs: RebalanceTimeoutNotSent, GroupID: "share-group", MemberID: "m1", MemberEpoch: epoch, Version: 1}
			if epoch == 0 {
				req.RebalanceTimeoutMs, req.Topology = 300_000, topo(1, "foo")
			}
			res, err := h.s.StreamsGroupHeartbeat(h.nowMs, req)
			return Result[struct{}]{Records: res.Records, Timers: res.Timers}, err
		}
	}
	const notConsumer, notStreams = "GROUP_ID_NOT_FOUND: Group share-group is not a consumer group.",
		"GROUP_ID_NOT_FOUND: Group share-group is not a streams group."
	tests := []struct {
		name string
		op   func(h *harness) (Result[struct{}], error)
		text string
	}{
		{"consumer join", consumer(0), notConsumer},
		{"consumer heartbeat", consumer(1), notConsumer},
		{"consumer leave", consumer(-1), notConsumer},
		{"streams join", streams(0), notStreams},
		{"streams heartbeat", streams(1), notStreams},
		{"streams leave", streams(-1), notStreams},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := shareGroupsHarness(t, testConfig())
			requireRefused(t, h, func() (Result[struct{}], error) { return tc.op(h) }, kerr.GroupIDNotFound, tc.text)
			typ, _ := h.s.GroupType("share-group")
			assert.Equal(t, Share, typ)
		})
	}
}

// TestOffsetCommitOnShareGroup proves docs/share-groups.md §2.6's last row: a
// share group has no committed offsets, so OffsetCommit (memberless, or as
// a share member at its epoch), TxnOffsetCommit and OffsetDelete on it are
// GROUP_ID_NOT_FOUND, "not a consumer group". (OffsetFetch answers no error:
// TestFetchOffsetsOfShareGroup.)
func TestOffsetCommitOnShareGroup(t *testing.T) {
	const text = "GROUP_ID_NOT_FOUND: Group share-group is not a consumer group."
	tests := []struct {
		name string
		op   func(h *harness) (Result[struct{}], error)
	}{
		{"memberless commit", func(h *harness) (Result[struct{}], error) {
			res, err := h.s.CommitOffsets(h.nowMs, OffsetCommitRequest{GroupID: "share-group", MemberEpoch: -1, RetentionTimeMs: -1, Topics: commitTopics(t, "foo-0")})
			return Result[struct{}]{Records: res.Records, Timers: res.Timers}, err
		}},
		{"commit as the share member", func(h *harness) (Result[struct{}], error) {
			res, err := h.s.CommitOffsets(h.nowMs, OffsetCommitRequest{GroupID: "share-group", MemberID: "m1", MemberEpoch: 1, RetentionTimeMs: -1, Topics: commitTopics(t, "foo-0")})
			return Result[struct{}]{Records: res.Records, Timers: res.Timers}, err
		}},
		{"transactional commit", func(h *harness) (Result[struct{}], error) {
			res, err := h.s.CommitTransactionalOffsets(h.nowMs, TxnOffsetCommitRequest{GroupID: "share-group", ProducerID: 1, MemberEpoch: -1, Topics: commitTopics(t, "foo-0")})
			return Result[struct{}]{Records: res.Records, Timers: res.Timers}, err
		}},
		{"offset delete", func(h *harness) (Result[struct{}], error) {
			res, err := h.s.DeleteOffsets("share-group", []TopicPartitions{{Topic: "foo", Partitions: []int32{0}}})
			return Result[struct{}]{Records: res.Records, Timers: res.Timers}, err
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := shareGroupsHarness(t, testConfig())
			requireRefused(t, h, func() (Result[struct{}], error) { return tc.op(h) }, kerr.GroupIDNotFound, text)
		})
	}
}

// shareGroupAtEpoch10 replays Kafka's testShareGroupLeavingMemberBumpsGroupEpoch
// group: epoch 10, assignment epoch 10, m1 (foo, bar) and m2 (foo, bar,
// zar) at member epoch 10 (previous 9), the metadata hash over foo, bar and
// zar.
func shareGroupAtEpoch10(t *testing.T) *harness {
	h := newHarness(t, testConfig(), shareTopics)
	hash := int64(fmix64(topicHash("foo", 6)) + fmix64(topicHash("bar", 3)) + fmix64(topicHash("zar", 1)))
	m1 := []TopicPartitions{{Topic: "bar", Partitions: []int32{0, 1}}, {Topic: "foo", Partitions: []int32{0, 1, 2}}}
	m2 := []TopicPartitions{{Topic: "bar", Partitions: []int32{2}}, {Topic: "foo", Partitions: []int32{3, 4, 5}}}
	h.replay(
		&ShareGroupMemberMetadata{Group: "fooup", MemberID: "m1", ClientID: "client", SubscribedTopics: []string{"bar", "foo"}},
		&ShareGroupMemberMetadata{Group: "fooup", MemberID: "m2", ClientID: "client", SubscribedTopics: []string{"bar", "foo", "zar"}},
		&ShareGroupMetadata{Group: "fooup", Epoch: 10, MetadataHash: hash},
		&ShareGroupTargetAssignmentMember{Group: "fooup", MemberID: "m1", Partitions: m1},
		&ShareGroupTargetAssignmentMember{Group: "fooup", MemberID: "m2", Partitions: m2},
		&ShareGroupTargetAssignmentMetadata{Group: "fooup", AssignmentEpoch: 10},
		&ShareGroupCurrentMemberAssignment{Group: "fooup", MemberID: "m1", MemberEpoch: 10, PreviousMemberEpoch: 9, Partitions: m1},
		&ShareGroupCurrentMemberAssignment{Group: "fooup", MemberID: "m2", MemberEpoch: 10, PreviousMemberEpoch: 9, Partitions: m2},
	)
	g := h.s.lookup("fooup")
	require.Equal(t, h.s.groupMetadataHash(g), g.metadataHash, "the replayed hash is the shard's own")
	return h
}

// TestShareGroupLeavingMemberBumpsGroupEpoch proves Kafka's
// testShareGroupLeavingMemberBumpsGroupEpoch: m2 leaves a group at epoch 10;
// the answer is epoch -1 and the write starts with m2's current-assignment,
// target-assignment and member-metadata tombstones, then the group epoch 11
// with the metadata hash recomputed without zar. (The shard then writes the
// new target assignment in the same write; Kafka waits for the next
// heartbeat.)
func TestShareGroupLeavingMemberBumpsGroupEpoch(t *testing.T) {
	tests := []struct {
		name string
		subs []string // Kafka's test sends the subscription with the leave
	}{
		{"leave", nil},
		{"leave with a subscription", []string{"foo", "bar"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := shareGroupAtEpoch10(t)
			res, err := h.s.ShareGroupHeartbeat(h.nowMs, ShareGroupHeartbeatRequest{
				GroupID: "fooup", MemberID: "m2", MemberEpoch: -1, SubscribedTopicNames: tc.subs,
			})
			require.NoError(t, err)
			assert.Equal(t, "m2", res.Response.MemberID)
			assert.Equal(t, int32(-1), res.Response.MemberEpoch)
			assert.False(t, res.Response.HasAssignment)
			require.GreaterOrEqual(t, len(res.Records), 4, formatRecords(res.Records))
			assert.Equal(t, []string{
				"ShareGroupCurrentMemberAssignment fooup member=m2 <tombstone>",
				"ShareGroupTargetAssignmentMember fooup member=m2 <tombstone>",
				"ShareGroupMemberMetadata fooup member=m2 <tombstone>",
			}, []string{Format(res.Records[0]), Format(res.Records[1]), Format(res.Records[2])})
			assert.Equal(t, &ShareGroupMetadata{Group: "fooup", Epoch: 11, MetadataHash: int64(fmix64(topicHash("foo", 6)) + fmix64(topicHash("bar", 3)))}, res.Records[3])
			for _, r := range res.Records[4:] {
				assert.Contains(t, []RecordType{TypeShareGroupTargetAssignmentMember, TypeShareGroupTargetAssignmentMetadata}, r.Type(), Format(r))
			}
			assert.Contains(t, res.Timers, TimerOp{Key: SessionTimeoutKey("fooup", "m2"), Cancel: true})

			applyResult(h, res)
			d, _ := h.s.DescribeGroup("fooup")
			assert.Equal(t, int32(11), d.Epoch)
			assert.False(t, h.s.HasMember("fooup", "m2"))
			assert.True(t, h.s.HasMember("fooup", "m1"))
			assert.Equal(t, StateStable, d.State)
			requireSnapshotEqual(t, h.s.Snapshot(), h.rebuild().Snapshot(), "rebuild")
		})
	}
}

// TestShareGroupStates proves Kafka's testShareGroupStates: a share group
// is EMPTY without members and STABLE with one, whatever the progress of
// its assignment. The same records make a consumer group ASSIGNING and
// RECONCILING on the way, which shows the steps do exercise those states.
func TestShareGroupStates(t *testing.T) {
	foo := func(ps ...int32) []TopicPartitions { return []TopicPartitions{{Topic: "foo", Partitions: ps}} }
	type step struct {
		name    string
		records map[GroupType][]Record
		want    map[GroupType]GroupState
	}
	steps := []step{
		{"group at epoch 10, no member", map[GroupType][]Record{
			Share:    {&ShareGroupMetadata{Group: "fooup", Epoch: 10}},
			Consumer: {&ConsumerGroupMetadata{Group: "fooup", Epoch: 10}},
		}, map[GroupType]GroupState{Share: StateEmpty, Consumer: StateEmpty}},
		{"member subscribes, group epoch 11", map[GroupType][]Record{
			Share:    {&ShareGroupMemberMetadata{Group: "fooup", MemberID: "m1", SubscribedTopics: []string{"foo"}}, &ShareGroupMetadata{Group: "fooup", Epoch: 11}},
			Consumer: {&ConsumerGroupMemberMetadata{Group: "fooup", MemberID: "m1", SubscribedTopics: []string{"foo"}}, &ConsumerGroupMetadata{Group: "fooup", Epoch: 11}},
		}, map[GroupType]GroupState{Share: StateStable, Consumer: StateAssigning}},
		{"target assignment at epoch 11", map[GroupType][]Record{
			Share:    {&ShareGroupTargetAssignmentMember{Group: "fooup", MemberID: "m1", Partitions: foo(1, 2, 3)}, &ShareGroupTargetAssignmentMetadata{Group: "fooup", AssignmentEpoch: 11}},
			Consumer: {&ConsumerGroupTargetAssignmentMember{Group: "fooup", MemberID: "m1", Partitions: foo(1, 2, 3)}, &ConsumerGroupTargetAssignmentMetadata{Group: "fooup", AssignmentEpoch: 11}},
		}, map[GroupType]GroupState{Share: StateStable, Consumer: StateReconciling}},
		{"member at epoch 11 with part of its target", map[GroupType][]Record{
			Share:    {&ShareGroupCurrentMemberAssignment{Group: "fooup", MemberID: "m1", MemberEpoch: 11, PreviousMemberEpoch: 10, Partitions: foo(1, 2)}},
			Consumer: {&ConsumerGroupCurrentMemberAssignment{Group: "fooup", MemberID: "m1", MemberEpoch: 11, PreviousMemberEpoch: 10, Partitions: foo(1, 2)}},
		}, map[GroupType]GroupState{Share: StateStable, Consumer: StateStable}},
		{"member with all of its target", map[GroupType][]Record{
			Share:    {&ShareGroupCurrentMemberAssignment{Group: "fooup", MemberID: "m1", MemberEpoch: 11, PreviousMemberEpoch: 10, Partitions: foo(1, 2, 3)}},
			Consumer: {&ConsumerGroupCurrentMemberAssignment{Group: "fooup", MemberID: "m1", MemberEpoch: 11, PreviousMemberEpoch: 10, Partitions: foo(1, 2, 3)}},
		}, map[GroupType]GroupState{Share: StateStable, Consumer: StateStable}},
		{"member leaves", map[GroupType][]Record{
			Share: {&ShareGroupCurrentMemberAssignment{Group: "fooup", MemberID: "m1", Tombstone: true},
				&ShareGroupTargetAssignmentMember{Group: "fooup", MemberID: "m1", Tombstone: true},
				&ShareGroupMemberMetadata{Group: "fooup", MemberID: "m1", Tombstone: true}},
			Consumer: {&ConsumerGroupCurrentMemberAssignment{Group: "fooup", MemberID: "m1", Tombstone: true},
				&ConsumerGroupTargetAssignmentMember{Group: "fooup", MemberID: "m1", Tombstone: true},
				&ConsumerGroupMemberMetadata{Group: "fooup", MemberID: "m1", Tombstone: true}},
		}, map[GroupType]GroupState{Share: StateEmpty, Consumer: StateEmpty}},
	}
	for _, typ := range []GroupType{Share, Consumer} {
		t.Run(typ.String(), func(t *testing.T) {
			h := newHarness(t, testConfig(), shareTopics)
			for _, st := range steps {
				h.replay(st.records[typ]...)
				state, ok := h.s.GroupState("fooup")
				require.True(t, ok, st.name)
				assert.Equal(t, st.want[typ], state, st.name)
				requireIndexesConsistent(t, h.s, "%s", st.name)
			}
		})
	}
}

// TestShareGroupMaxSizeConfigExceeded proves Kafka's
// testShareGroupMaxSizeConfigExceeded with group.share.max.size=3: the
// fourth member gets GROUP_MAX_SIZE_REACHED, and so does an unknown member
// with a non-zero epoch (Kafka checks the size before it looks the member
// up); the three members keep heartbeating and rejoining, and a freed place
// takes a new member. A consumer group keeps its own order (unknown member
// first), which this change leaves alone.
func TestShareGroupMaxSizeConfigExceeded(t *testing.T) {
	tests := []struct {
		name string
		typ  GroupType
		// before runs on the full group (m1..m3) before the heartbeat.
		before func(h *harness)
		member string
		epoch  int32
		want   *kerr.Error // nil: accepted
	}{
		{name: "fourth member joins", typ: Share, member: "m4", epoch: 0, want: kerr.GroupMaxSizeReached},
		{name: "unknown member with an epoch", typ: Share, member: "m4", epoch: 3, want: kerr.GroupMaxSizeReached},
		{name: "unknown member leaves", typ: Share, member: "m4", epoch: -1, want: kerr.UnknownMemberID},
		{name: "member rejoins", typ: Share, member: "m1", epoch: 0},
		{name: "member heartbeats", typ: Share, member: "m3", epoch: 4},
		{name: "fourth member joins once a place is free", typ: Share, member: "m4", epoch: 0,
			before: func(h *harness) { h.shareHeartbeat("fooup", "m2", -1) }},
		// throwIfConsumerGroupIsFull runs before the member lookup too.
		{name: "consumer: unknown member with an epoch", typ: Consumer, member: "m4", epoch: 3, want: kerr.GroupMaxSizeReached},
		{name: "consumer: fourth member joins", typ: Consumer, member: "m4", epoch: 0, want: kerr.GroupMaxSizeReached},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig()
			cfg.ShareMaxSize, cfg.ConsumerMaxSize = 3, 3
			h := newHarness(t, cfg, shareTopics)
			ops := allMemberOps[0]
			if tc.typ == Share {
				ops = allMemberOps[2]
			}
			require.Equal(t, tc.typ, ops.typ)
			for _, m := range []string{"m1", "m2", "m3"} {
				ops.beat(h, "fooup", m, 0)
			}
			if tc.before != nil {
				tc.before(h)
			}
			if tc.want != nil {
				ops.refuse(h, "fooup", tc.member, tc.epoch, tc.want)
				return
			}
			ops.beat(h, "fooup", tc.member, tc.epoch)
			assert.True(t, h.s.HasMember("fooup", tc.member))
			d, _ := h.s.DescribeGroup("fooup")
			assert.LessOrEqual(t, len(d.Members), 3)
		})
	}
}

// TestShareGroupMemberEpochValidation proves docs/share-groups.md §2.2 step 4 for
// share members (Kafka's throwIfShareGroupMemberEpochIsInvalid, which has no
// owned-partitions check): a greater epoch is FENCED_MEMBER_EPOCH, the
// previous epoch is accepted (its response may have been lost) and answered
// with the current one, an older epoch is FENCED_MEMBER_EPOCH, with Kafka's
// messages, and epoch 0 rejoins the member that exists with its current
// epoch and assignment (Kafka trunk's early return on 0;
// testShareGroupMemberCanRejoinWithEpochZero).
func TestShareGroupMemberEpochValidation(t *testing.T) {
	tests := []struct {
		name           string
		epoch          int32
		want           *kerr.Error
		wantMessage    string
		wantAssignment bool
	}{
		{name: "greater epoch", epoch: 5, want: kerr.FencedMemberEpoch,
			wantMessage: "FENCED_MEMBER_EPOCH: The share group member has a greater member epoch (5) than the one known by the group coordinator (4). The member must abandon all its partitions and rejoin."},
		{name: "previous epoch (lost response)", epoch: 3},
		{name: "current epoch", epoch: 4},
		{name: "older than previous", epoch: 2, want: kerr.FencedMemberEpoch,
			wantMessage: "FENCED_MEMBER_EPOCH: The share group member has a smaller member epoch (2) than the one known by the group coordinator (4), and it does not match the previous member epoch (3). The member must abandon all its partitions and rejoin."},
		{name: "rejoin with epoch 0", epoch: 0, wantAssignment: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, testConfig(), shareTopics)
			h.shareJoin("fooup", "m1", "foo") // group epoch 2 (a new group is at 1)
			h.shareJoin("fooup", "m2", "foo") // 3
			require.Equal(t, int32(3), h.shareHeartbeat("fooup", "m1", 2).MemberEpoch)
			h.shareJoin("fooup", "m3", "foo") // 4
			require.Equal(t, int32(4), h.shareHeartbeat("fooup", "m1", 3).MemberEpoch)
			d, _ := h.s.DescribeGroup("fooup")
			require.Equal(t, int32(3), d.Members[0].PreviousMemberEpoch)

			req := ShareGroupHeartbeatRequest{GroupID: "fooup", MemberID: "m1", MemberEpoch: tc.epoch}
			if tc.epoch == 0 {
				req.SubscribedTopicNames = []string{"foo"}
			}
			if tc.want != nil {
				requireRefused(t, h, shareHeartbeatOp(h, req), tc.want, tc.wantMessage)
				return
			}
			res, err := h.s.ShareGroupHeartbeat(h.nowMs, req)
			require.NoError(t, err)
			assert.Equal(t, int32(4), res.Response.MemberEpoch)
			assert.Equal(t, tc.wantAssignment, res.Response.HasAssignment)
			if tc.wantAssignment {
				assert.NotEmpty(t, res.Response.Assignment)
			}
			applyResult(h, res)
			requireSnapshotEqual(t, h.s.Snapshot(), h.rebuild().Snapshot(), "rebuild")
		})
	}
}

// emptyShareGroup builds share group "fooup" at group epoch 3 with no
// members left (m1 joined and left), next to shareGroupsHarness's groups.
func emptyShareGroup(t *testing.T) *harness {
	t.Helper()
	h := shareGroupsHarness(t, testConfig())
	h.shareJoin("fooup", "m1", "foo", "bar")
	h.shareHeartbeat("fooup", "m1", -1)
	d, _ := h.s.DescribeGroup("fooup")
	require.Equal(t, StateEmpty, d.State)
	require.Equal(t, int32(3), d.Epoch)
	return h
}

// TestDeleteGroupsOnShareGroup proves docs/share-groups.md §2.7's
// deleteShareGroups rule: an EMPTY share group is tombstoned (target
// assignment metadata, then group metadata, as Kafka's
// testShareGroupDeleteTombstones minus the share-state record coordsim does
// not model); a share group with a member is NON_EMPTY_GROUP and nothing is
// written.
func TestDeleteGroupsOnShareGroup(t *testing.T) {
	tests := []struct {
		name    string
		group   string
		wantErr *kerr.Error
		want    []string
	}{
		{name: "empty share group", group: "fooup", want: []string{
			"ShareGroupTargetAssignmentMetadata fooup <tombstone>",
			"ShareGroupStatePartitionMetadata fooup <tombstone>",
			"ShareGroupMetadata fooup <tombstone>",
		}},
		{name: "share group with a member", group: "share-group", wantErr: kerr.NonEmptyGroup},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := emptyShareGroup(t)
			before := h.s.Snapshot()
			res, err := h.s.DeleteGroups([]string{tc.group})
			require.NoError(t, err)
			require.Len(t, res.Response, 1)
			if tc.wantErr != nil {
				require.ErrorIs(t, res.Response[0].Err, tc.wantErr)
				assert.Empty(t, res.Records, formatRecords(res.Records))
				requireSnapshotEqual(t, before, h.s.Snapshot(), "a refused delete changes nothing")
				return
			}
			require.NoError(t, res.Response[0].Err)
			var got []string
			for _, r := range res.Records {
				got = append(got, Format(r))
			}
			assert.Equal(t, tc.want, got)
			applyResult(h, res)
			_, ok := h.s.DescribeGroup(tc.group)
			assert.False(t, ok, "the group is gone")
			requireSnapshotEqual(t, h.s.Snapshot(), h.rebuild().Snapshot(), "rebuild")
		})
	}
}

// TestAlterShareGroupOffsets proves the accepted half of
// AlterShareGroupOffsets on an EMPTY share group: one ShareGroupMetadata
// record with the group epoch + 1 and the metadata hash kept, the new epoch
// in the response, the group still EMPTY; the next join moves on from the
// bumped epoch.
func TestAlterShareGroupOffsets(t *testing.T) {
	tests := []struct {
		name   string
		topics []TopicPartitions
	}{
		{"one partition", []TopicPartitions{{Topic: "foo", Partitions: []int32{0}}}},
		{"two topics", []TopicPartitions{{Topic: "foo", Partitions: []int32{5, 0}}, {Topic: "zar", Partitions: []int32{0}}}},
		{"a topic the group never read", []TopicPartitions{{Topic: "zar", Partitions: []int32{0}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := emptyShareGroup(t)
			g := h.s.lookup("fooup")
			res, err := h.s.AlterShareGroupOffsets(h.nowMs, "fooup", tc.topics)
			require.NoError(t, err)
			assert.Equal(t, int32(4), res.Response)
			want := distinctTopicPartitions(tc.topics)
			assert.Equal(t, []Record{&ShareGroupMetadata{Group: "fooup", Epoch: 4, MetadataHash: g.metadataHash},
				&ShareGroupStatePartitionMetadata{Group: "fooup", Initializing: combineTopicPartitions(g.shareState.initializing, want),
					Initialized: g.shareState.initialized, TimestampMs: h.nowMs}}, res.Records)
			require.Len(t, res.Timers, 1, "the partitions' initialisation is scheduled")
			assert.Equal(t, want, res.Timers[0].Task.Partitions)
			applyResult(h, res)
			d, _ := h.s.DescribeGroup("fooup")
			assert.Equal(t, int32(4), d.Epoch)
			assert.Equal(t, StateEmpty, d.State)
			requireIndexesConsistent(t, h.s, "after alter")
			requireSnapshotEqual(t, h.s.Snapshot(), h.rebuild().Snapshot(), "rebuild")

			assert.Equal(t, int32(5), h.shareJoin("fooup", "m2", "foo").MemberEpoch, "the next join bumps past the altered epoch")
			d, _ = h.s.DescribeGroup("fooup")
			assert.Equal(t, int32(5), d.AssignmentEpoch)
		})
	}
}

// TestAlterShareGroupOffsetsCreatesMissingGroup proves Kafka trunk's
// migration path: altering the offsets of a group that does not exist yet
// creates it as an EMPTY share group at epoch 1, so its start offsets can be
// set before the first member joins; the partitions are still checked.
func TestAlterShareGroupOffsetsCreatesMissingGroup(t *testing.T) {
	h := emptyShareGroup(t)
	res, err := h.s.AlterShareGroupOffsets(h.nowMs, "migrated", []TopicPartitions{{Topic: "foo", Partitions: []int32{0, 1}}})
	require.NoError(t, err)
	assert.Equal(t, int32(1), res.Response)
	assert.Equal(t, []Record{&ShareGroupMetadata{Group: "migrated", Epoch: 1}, &ShareGroupStatePartitionMetadata{Group: "migrated",
		Initializing: []TopicPartitions{{Topic: "foo", Partitions: []int32{0, 1}}}, TimestampMs: h.nowMs}}, res.Records)
	applyResult(h, res)
	d, ok := h.s.DescribeGroup("migrated")
	require.True(t, ok)
	assert.Equal(t, Share, d.Type)
	assert.Equal(t, StateEmpty, d.State)
	requireSnapshotEqual(t, h.s.Snapshot(), h.rebuild().Snapshot(), "rebuild")
	assert.Equal(t, int32(2), h.shareJoin("migrated", "m1", "foo").MemberEpoch, "the first member joins past it")

	before := h.s.Snapshot()
	_, err = h.s.AlterShareGroupOffsets(h.nowMs, "other", []TopicPartitions{{Topic: "nope", Partitions: []int32{0}}})
	require.ErrorIs(t, err, kerr.UnknownTopicOrPartition, "an unknown topic still refuses the creation")
	requireSnapshotEqual(t, before, h.s.Snapshot(), "nothing created")
	_, ok = h.s.DescribeGroup("other")
	assert.False(t, ok)
}

// TestDeleteShareGroupOffsets proves the accepted half of
// DeleteShareGroupOffsets: on an EMPTY share group it writes nothing and
// answers the number of distinct partitions named.
func TestDeleteShareGroupOffsets(t *testing.T) {
	tests := []struct {
		name   string
		topics []TopicPartitions
		want   int
	}{
		{"one partition", []TopicPartitions{{Topic: "foo", Partitions: []int32{0}}}, 1},
		{"two topics", []TopicPartitions{{Topic: "foo", Partitions: []int32{0, 1}}, {Topic: "bar", Partitions: []int32{2}}}, 3},
		{"a partition named twice", []TopicPartitions{{Topic: "foo", Partitions: []int32{0, 0}}, {Topic: "foo", Partitions: []int32{0, 4}}}, 2},
		{"no topic: the group alone is checked", nil, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := emptyShareGroup(t)
			before := h.s.Snapshot()
			res, err := h.s.DeleteShareGroupOffsets("fooup", tc.topics)
			require.NoError(t, err)
			assert.Equal(t, tc.want, res.Response)
			assert.Empty(t, res.Records)
			assert.Empty(t, res.Timers)
			requireSnapshotEqual(t, before, h.s.Snapshot(), "delete writes nothing")
		})
	}
}

// TestShareGroupOffsetsAdminRefusals proves the refused half of both share
// offsets admin operations: each bad request gets its typed error and
// changes nothing. Malformed requests are refused first, then the group
// (missing, of another type, not EMPTY), then partitions the metadata image
// does not have.
func TestShareGroupOffsetsAdminRefusals(t *testing.T) {
	foo0 := []TopicPartitions{{Topic: "foo", Partitions: []int32{0}}}
	tests := []struct {
		name   string
		group  string
		topics []TopicPartitions
		want   *kerr.Error
		text   string
		// deleteWant, when set, is the delete's answer where it differs:
		// the delete accepts a request naming no topic.
		deleteWant *kerr.Error
	}{
		{name: "empty group id", group: "", topics: foo0, want: kerr.InvalidGroupID},
		{name: "no topic", group: "fooup", want: kerr.InvalidRequest},
		{name: "empty topic name", group: "fooup", topics: []TopicPartitions{{Topic: "", Partitions: []int32{0}}}, want: kerr.InvalidTopicException},
		{name: "topic without partitions", group: "fooup", topics: []TopicPartitions{{Topic: "foo"}}, want: kerr.InvalidRequest},
		{name: "negative partition", group: "fooup", topics: []TopicPartitions{{Topic: "foo", Partitions: []int32{-1}}}, want: kerr.UnknownTopicOrPartition},
		{name: "more partitions than the limit", group: "fooup", topics: []TopicPartitions{{Topic: "foo", Partitions: make([]int32, shareOffsetsAdminPartitionsMax+1)}}, want: kerr.InvalidRequest},
		{name: "malformed request on a non-empty group", group: "share-group", topics: []TopicPartitions{{Topic: "foo"}}, want: kerr.InvalidRequest},
		{name: "no topic on a non-empty group", group: "share-group", topics: []TopicPartitions{}, want: kerr.InvalidRequest, deleteWant: kerr.NonEmptyGroup},
		{name: "no topic on a missing group", group: "missing", topics: []TopicPartitions{}, want: kerr.InvalidRequest, deleteWant: kerr.GroupIDNotFound},
		{name: "missing group", group: "missing", topics: foo0, want: kerr.GroupIDNotFound, text: "GROUP_ID_NOT_FOUND: Group missing not found."},
		{name: "consumer group", group: "consumer-group", topics: foo0, want: kerr.GroupIDNotFound, text: "GROUP_ID_NOT_FOUND: Group consumer-group is not a share group."},
		{name: "streams group", group: "streams-group", topics: foo0, want: kerr.GroupIDNotFound, text: "GROUP_ID_NOT_FOUND: Group streams-group is not a share group."},
		{name: "classic group", group: "classic-group", topics: foo0, want: kerr.GroupIDNotFound, text: "GROUP_ID_NOT_FOUND: Group classic-group is not a share group."},
		{name: "share group with a member", group: "share-group", topics: foo0, want: kerr.NonEmptyGroup},
		{name: "non-empty group and unknown topic", group: "share-group", topics: []TopicPartitions{{Topic: "nope", Partitions: []int32{0}}}, want: kerr.NonEmptyGroup},
		{name: "unknown topic", group: "fooup", topics: []TopicPartitions{{Topic: "nope", Partitions: []int32{0}}}, want: kerr.UnknownTopicOrPartition},
		{name: "partition beyond the topic", group: "fooup", topics: []TopicPartitions{{Topic: "foo", Partitions: []int32{0, 6}}}, want: kerr.UnknownTopicOrPartition},
	}
	ops := []struct {
		name string
		call func(s *Shard, group string, topics []TopicPartitions) (Result[struct{}], error)
	}{
		{"alter", func(s *Shard, group string, topics []TopicPartitions) (Result[struct{}], error) {
			res, err := s.AlterShareGroupOffsets(0, group, topics)
			return Result[struct{}]{Records: res.Records, Timers: res.Timers}, err
		}},
		{"delete", func(s *Shard, group string, topics []TopicPartitions) (Result[struct{}], error) {
			res, err := s.DeleteShareGroupOffsets(group, topics)
			return Result[struct{}]{Records: res.Records, Timers: res.Timers}, err
		}},
	}
	for _, op := range ops {
		for _, tc := range tests {
			if op.name == "alter" && tc.group == "missing" {
				continue // alter creates a missing group: TestAlterShareGroupOffsetsCreatesMissingGroup
			}
			if op.name == "delete" && tc.topics == nil {
				continue // delete checks the group alone: TestDeleteShareGroupOffsets
			}
			t.Run(op.name+"/"+tc.name, func(t *testing.T) {
				h := emptyShareGroup(t)
				want := tc.want
				if op.name == "delete" && tc.deleteWant != nil {
					want = tc.deleteWant
				}
				requireRefused(t, h, func() (Result[struct{}], error) { return op.call(h.s, tc.group, tc.topics) }, want, tc.text)
			})
		}
	}
}

// TestShareGroupsSkippedByTopologyCleanup proves that the KIP-1331 cleanup
// cycle never sees a share group: an EMPTY share group with nothing left is
// neither eligible (indexed or full scan) nor reported by DeleteGroups'
// pre-delete read, and the conditional clears write nothing for it.
func TestShareGroupsSkippedByTopologyCleanup(t *testing.T) {
	cfg := testConfig()
	cfg.TopologyPluginConfigured = true
	h := newHarness(t, cfg, shareTopics)
	h.shareJoin("fooup", "m1", "foo")
	h.shareHeartbeat("fooup", "m1", -1)
	state, _ := h.s.GroupState("fooup")
	require.Equal(t, StateEmpty, state)

	assert.Empty(t, h.s.ListStreamsGroupsNeedingTopologyCleanup())
	assert.Empty(t, h.s.listStreamsGroupsNeedingTopologyCleanupFullScan())
	assert.Empty(t, h.s.StreamsGroupsWithStoredTopologyDescription([]string{"fooup"}))
	assert.Empty(t, h.s.ClearStoredDescriptionTopologyEpochBatch([]GroupEpoch{{GroupID: "fooup", Epoch: 0}}).Records)
	assert.Empty(t, h.s.MarkStoredDescriptionTopologyEpochUncertainBatch([]GroupEpoch{{GroupID: "fooup", Epoch: 0}}).Records)
	assert.Empty(t, h.s.Snapshot().Eligible)
}
