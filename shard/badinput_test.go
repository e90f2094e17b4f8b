package shard

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/offsets"
)

// Bad input, both halves: every public operation refuses invalid input with
// the right Kafka error, returns no records, and leaves the shard unchanged.

var (
	longGroupID   = strings.Repeat("g", GroupIDMaxBytes+1)
	longMemberID  = strings.Repeat("m", MemberIDMaxBytes+1)
	invalidUTF8   = "bad-\xff\xfe"
	longTopicName = strings.Repeat("t", 250)
)

// populated returns a harness with one group of each type, offsets and an
// open transaction, so bad input meets every kind of state.
func populated(t *testing.T) (h *harness, consumerEpoch int32) {
	t.Helper()
	h = newHarness(t, testConfig(), map[string]int32{"foo": 3, "bar": 2})
	consumerEpoch = h.consumerJoin("consumer-group", "m1", "foo").MemberEpoch
	h.commit("consumer-group", "m1", consumerEpoch, testT, "foo-0", "bar-1")
	h.streamsJoin("streams-group", "m1", topo(1, "foo"))
	h.shareJoin("share-group", "m1", "foo")
	h.commit("classic-group", "", -1, testT, "foo-0")
	res, err := h.s.CommitTransactionalOffsets(testT, TxnOffsetCommitRequest{
		GroupID: "classic-group", ProducerID: 5, MemberEpoch: -1, Topics: commitTopics(t, "foo-1"),
	})
	mustApply(h, res, err)
	h.consumerJoin("empty-consumer-group", "m1", "foo")
	h.consumerHeartbeat("empty-consumer-group", "m1", -1, nil)
	return h, consumerEpoch
}

// badCase is one invalid call: what it returns and the error it must wrap.
type badCase struct {
	name string
	call func(s *Shard) (records []Record, timers []TimerOp, err error)
	want *kerr.Error
}

func runBadCases(t *testing.T, h *harness, cases []badCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := h.s.Snapshot()
			records, timers, err := tc.call(h.s)
			require.Error(t, err)
			assert.ErrorIs(t, err, tc.want, "got %v", err)
			assert.Empty(t, records, "a failed operation returns no records")
			assert.Empty(t, timers, "a failed operation schedules nothing")
			requireSnapshotEqual(t, before, h.s.Snapshot(), "a failed operation changes nothing")
		})
	}
	requireIndexesConsistent(t, h.s, "after the bad cases")
	requireSnapshotEqual(t, h.s.Snapshot(), h.rebuild().Snapshot(), "rebuild after the bad cases")
}

func commitReq(group, member string, epoch int32, topics ...OffsetCommitTopic) OffsetCommitRequest {
	return OffsetCommitRequest{GroupID: group, MemberID: member, MemberEpoch: epoch, RetentionTimeMs: -1, Topics: topics}
}

func withVersion(v int16, req OffsetCommitRequest) OffsetCommitRequest {
	req.APIVersion = v
	return req
}

func partitionAt(p int32, offset int64, metadata string) OffsetCommitPartition {
	return OffsetCommitPartition{Partition: p, Offset: offset, LeaderEpoch: offsets.NoLeaderEpoch, Metadata: metadata}
}

// TestCommitOffsetsBadInput proves CommitOffsets and
// CommitTransactionalOffsets refuse invalid requests whole, with Kafka's
// errors, and change nothing. Per-partition refusals are in
// TestCommitOffsetsPerPartitionErrors.
func TestCommitOffsetsBadInput(t *testing.T) {
	h, epoch := populated(t)
	ok := OffsetCommitTopic{Topic: "foo", Partitions: []OffsetCommitPartition{partitionAt(0, 1, "")}}
	commit := func(req OffsetCommitRequest) func(s *Shard) ([]Record, []TimerOp, error) {
		return func(s *Shard) ([]Record, []TimerOp, error) {
			res, err := s.CommitOffsets(testT, req)
			return res.Records, res.Timers, err
		}
	}
	txn := func(req TxnOffsetCommitRequest) func(s *Shard) ([]Record, []TimerOp, error) {
		return func(s *Shard) ([]Record, []TimerOp, error) {
			res, err := s.CommitTransactionalOffsets(testT, req)
			return res.Records, res.Timers, err
		}
	}
	metadata := func(n int) OffsetCommitTopic {
		return OffsetCommitTopic{Topic: "foo", Partitions: []OffsetCommitPartition{partitionAt(0, 1, strings.Repeat("x", n))}}
	}
	cases := []badCase{
		{"oversized group id", commit(commitReq(longGroupID, "", -1, ok)), kerr.InvalidGroupID},
		{"invalid UTF-8 group id", commit(commitReq(invalidUTF8, "", -1, ok)), kerr.InvalidGroupID},
		{"invalid UTF-8 member id", commit(commitReq("consumer-group", invalidUTF8, epoch, ok)), kerr.InvalidRequest},
		{"oversized member id", commit(commitReq("consumer-group", longMemberID, epoch, ok)), kerr.InvalidRequest},
		{"member of a missing group", commit(commitReq("missing-group", "m1", 1, ok)), kerr.GroupIDNotFound},
		{"generation on a missing group", commit(commitReq("missing-group", "", 1, ok)), kerr.GroupIDNotFound},
		{"member and generation on a simple classic group", commit(commitReq("classic-group", "m1", 3, ok)), kerr.UnknownMemberID},
		{"generation on a simple classic group", commit(commitReq("classic-group", "", 3, ok)), kerr.UnknownMemberID},
		{"unsupported version 1", commit(withVersion(1, commitReq("classic-group", "", -1, ok))), kerr.UnsupportedVersion},
		{"negative version", commit(withVersion(-1, commitReq("classic-group", "", -1, ok))), kerr.UnsupportedVersion},
		{"v8: member of a consumer group", commit(withVersion(8, commitReq("consumer-group", "m1", epoch, ok))), kerr.UnsupportedVersion},
		{"v8: generation on a missing group", commit(withVersion(8, commitReq("missing-group", "", 1, ok))), kerr.IllegalGeneration},
		{"unknown member", commit(commitReq("consumer-group", "nobody", epoch, ok)), kerr.UnknownMemberID},
		{"empty member id with an epoch", commit(commitReq("consumer-group", "", epoch, ok)), kerr.UnknownMemberID},
		{"newer member epoch", commit(commitReq("consumer-group", "m1", epoch+1, ok)), kerr.StaleMemberEpoch},
		{"admin commit to a non-empty group", commit(commitReq("consumer-group", "", -1, ok)), kerr.UnknownMemberID},
		{"share group", commit(commitReq("share-group", "", -1, ok)), kerr.GroupIDNotFound},
		{"txn: negative producer id", txn(TxnOffsetCommitRequest{GroupID: "classic-group", ProducerID: -1, MemberEpoch: -1, Topics: []OffsetCommitTopic{ok}}), kerr.InvalidRequest},
		{"txn: empty group id", txn(TxnOffsetCommitRequest{GroupID: "", ProducerID: 1, MemberEpoch: -1, Topics: []OffsetCommitTopic{ok}}), kerr.InvalidGroupID},
		{"txn: invalid UTF-8 group id", txn(TxnOffsetCommitRequest{GroupID: invalidUTF8, ProducerID: 1, MemberEpoch: -1, Topics: []OffsetCommitTopic{ok}}), kerr.InvalidGroupID},
		{"txn: newer member epoch", txn(TxnOffsetCommitRequest{GroupID: "consumer-group", ProducerID: 1, MemberID: "m1", MemberEpoch: epoch + 5, Topics: []OffsetCommitTopic{ok}}), kerr.IllegalGeneration},
		{"txn: generation on a missing group", txn(TxnOffsetCommitRequest{GroupID: "missing-group", ProducerID: 1, MemberEpoch: 3, Topics: []OffsetCommitTopic{ok}}), kerr.IllegalGeneration},
		{"txn: unknown member", txn(TxnOffsetCommitRequest{GroupID: "consumer-group", ProducerID: 1, MemberID: "nobody", MemberEpoch: epoch, Topics: []OffsetCommitTopic{ok}}), kerr.UnknownMemberID},
		{"txn: generation on a simple classic group", txn(TxnOffsetCommitRequest{GroupID: "classic-group", ProducerID: 1, MemberID: "m1", MemberEpoch: 3, Topics: []OffsetCommitTopic{ok}}), kerr.UnknownMemberID},
		{"txn: epoch -1 with an instance id", txn(TxnOffsetCommitRequest{GroupID: "consumer-group", ProducerID: 1, GroupInstanceID: "i1", MemberEpoch: -1, Topics: []OffsetCommitTopic{ok}}), kerr.UnknownMemberID},
		{"txn: share group", txn(TxnOffsetCommitRequest{GroupID: "share-group", ProducerID: 1, MemberEpoch: -1, Topics: []OffsetCommitTopic{ok}}), kerr.GroupIDNotFound},
	}
	runBadCases(t, h, cases)

	// The boundaries are accepted: exactly 4096 bytes of metadata, a
	// 1024-byte group id.
	for _, req := range []OffsetCommitRequest{
		commitReq("classic-group", "", -1, metadata(offsets.MetadataMaxBytes)),
		commitReq(longGroupID[:GroupIDMaxBytes], "", -1, ok),
	} {
		res, err := h.s.CommitOffsets(testT, req)
		require.NoError(t, err)
		require.NoError(t, res.Response.Err())
		applyResult(h, res)
	}
}

// TestCommitOffsetsLegacyRetentionSaturates proves that a huge legacy
// retention keeps the offset instead of wrapping the expire timestamp into
// the negative "absent" range, which would fall back to the broker default.
func TestCommitOffsetsLegacyRetentionSaturates(t *testing.T) {
	h := newHarness(t, testConfig(), expiryTopics)
	res, err := h.s.CommitOffsets(testT, OffsetCommitRequest{
		GroupID: "g", MemberEpoch: -1, RetentionTimeMs: math.MaxInt64, Topics: commitTopics(t, "foo-0"),
	})
	mustApply(h, res, err)
	v, ok := h.s.Offset("g", "foo", 0)
	require.True(t, ok)
	assert.GreaterOrEqual(t, v.ExpireTimestampMs, testT, "the expire timestamp must not wrap")
	assert.Empty(t, h.s.CleanupGroupMetadata(testT+testConfig().OffsetsRetentionMs).Records,
		"a long legacy retention wins over the broker default")
	assert.Empty(t, h.s.CleanupGroupMetadata(math.MaxInt64-1).Records)
}

// TestOffsetOperationsBadInput proves EndTransaction, FetchOffsets,
// DeleteOffsets and DeleteGroups refuse invalid input with Kafka's errors and
// change nothing.
func TestOffsetOperationsBadInput(t *testing.T) {
	h, _ := populated(t)
	endTxn := func(group string, producer int64) func(s *Shard) ([]Record, []TimerOp, error) {
		return func(s *Shard) ([]Record, []TimerOp, error) {
			res, err := s.EndTransaction(group, producer, true)
			return res.Records, res.Timers, err
		}
	}
	fetch := func(group string, topics []TopicPartitions, stable bool) func(s *Shard) ([]Record, []TimerOp, error) {
		return func(s *Shard) ([]Record, []TimerOp, error) {
			out, err := s.FetchOffsets(group, topics, stable)
			assert.Nil(t, out, "a failed fetch returns no offsets")
			return nil, nil, err
		}
	}
	deleteOffsets := func(group string, topics []TopicPartitions) func(s *Shard) ([]Record, []TimerOp, error) {
		return func(s *Shard) ([]Record, []TimerOp, error) {
			res, err := s.DeleteOffsets(group, topics)
			assert.Zero(t, res.Response, "a failed delete answers nothing")
			return res.Records, res.Timers, err
		}
	}
	foo0 := []TopicPartitions{{Topic: "foo", Partitions: []int32{0}}}
	cases := []badCase{
		{"end txn: empty group id", endTxn("", 5), kerr.InvalidGroupID},
		{"end txn: oversized group id", endTxn(longGroupID, 5), kerr.InvalidGroupID},
		{"end txn: invalid UTF-8 group id", endTxn(invalidUTF8, 5), kerr.InvalidGroupID},
		{"end txn: negative producer id", endTxn("classic-group", -1), kerr.InvalidRequest},
		{"fetch: invalid UTF-8 group id", fetch(invalidUTF8, foo0, false), kerr.InvalidGroupID},
		{"delete offsets: empty group id", deleteOffsets("", foo0), kerr.InvalidGroupID},
		{"delete offsets: oversized group id", deleteOffsets(longGroupID, foo0), kerr.InvalidGroupID},
		{"delete offsets: missing group", deleteOffsets("missing-group", foo0), kerr.GroupIDNotFound},
		{"delete offsets: share group", deleteOffsets("share-group", foo0), kerr.GroupIDNotFound},
	}
	runBadCases(t, h, cases)

	// Fetch without requireStable does not fail on the pending offset; the
	// stable fetch of every committed offset does not see the pending-only one.
	out, err := h.s.FetchOffsets("classic-group", []TopicPartitions{{Topic: "foo", Partitions: []int32{0, 1, -1}}}, false)
	require.NoError(t, err)
	assert.Equal(t, []FetchedOffset{
		{Topic: "foo", Partition: 0, Offset: 100, LeaderEpoch: offsets.NoLeaderEpoch},
		{Topic: "foo", Partition: 1, Offset: -1, LeaderEpoch: offsets.NoLeaderEpoch},
		{Topic: "foo", Partition: -1, Offset: -1, LeaderEpoch: offsets.NoLeaderEpoch},
	}, out)

	// DeleteGroups answers per group and writes records only for the valid ones.
	before := h.s.Snapshot()
	res, err := h.s.DeleteGroups([]string{"", longGroupID, invalidUTF8, "missing-group", "consumer-group", "share-group", "streams-group"})
	require.NoError(t, err)
	assert.Empty(t, res.Records)
	wants := []*kerr.Error{kerr.GroupIDNotFound, kerr.InvalidGroupID, kerr.InvalidGroupID, kerr.GroupIDNotFound, kerr.NonEmptyGroup, kerr.NonEmptyGroup, kerr.NonEmptyGroup}
	require.Len(t, res.Response, len(wants))
	for i, want := range wants {
		assert.ErrorIs(t, res.Response[i].Err, want, "group %q", res.Response[i].GroupID)
	}
	requireSnapshotEqual(t, before, h.s.Snapshot(), "DeleteGroups with only bad ids")

	res, err = h.s.DeleteGroups([]string{"missing-group", "empty-consumer-group", "empty-consumer-group"})
	require.NoError(t, err)
	assert.ErrorIs(t, res.Response[0].Err, kerr.GroupIDNotFound)
	assert.NoError(t, res.Response[1].Err)
	assert.NoError(t, res.Response[2].Err, "a duplicate is answered again")
	assert.Equal(t, []Record{
		&ConsumerGroupTargetAssignmentMetadata{Group: "empty-consumer-group", Tombstone: true},
		&ConsumerGroupMetadata{Group: "empty-consumer-group", Tombstone: true},
	}, res.Records, "but deleted once")
}

// TestDeleteGroupAllOffsetsWithPendingTransactionalOffsets proves Kafka's
// deleteAllOffsets rule: every committed offset gets a tombstone, and a
// pending transactional offset gets one only when its partition has no
// committed offset, so no partition is tombstoned twice.
func TestDeleteGroupAllOffsetsWithPendingTransactionalOffsets(t *testing.T) {
	h := newHarness(t, testConfig(), expiryTopics)
	h.commit("foo", "", -1, testT, "bar-0", "bar-1", "baz-0")
	for _, spec := range []string{"bar-0", "baz-0", "qux-0"} {
		res, err := h.s.CommitTransactionalOffsets(testT, TxnOffsetCommitRequest{GroupID: "foo", ProducerID: 10, MemberEpoch: -1, Topics: commitTopics(t, spec)})
		mustApply(h, res, err)
	}
	res, err := h.s.DeleteGroups([]string{"foo"})
	require.NoError(t, err)
	assert.Equal(t, []string{"foo/bar-0", "foo/bar-1", "foo/baz-0", "foo/qux-0"}, offsetTombstoneKeys(res.Records), formatRecords(res.Records))
	assert.Equal(t, TypeGroupMetadata, res.Records[len(res.Records)-1].Type())
	applyResult(h, res)
	assert.Zero(t, h.s.OffsetCount())
	assert.Zero(t, h.s.Snapshot().PendingCount)
	assert.False(t, h.s.HasOpenTransaction("foo"))
	assert.Zero(t, h.s.NumGroups())
}

// TestHeartbeatBadInput proves the three heartbeats refuse malformed
// requests (Kafka's throwIf*HeartbeatRequestIsInvalid) and requests that do
// not fit the group, with Kafka's errors, and change nothing.
func TestHeartbeatBadInput(t *testing.T) {
	h, epoch := populated(t)
	consumer := func(req ConsumerGroupHeartbeatRequest) func(s *Shard) ([]Record, []TimerOp, error) {
		return func(s *Shard) ([]Record, []TimerOp, error) {
			res, err := s.ConsumerGroupHeartbeat(testT, req)
			return res.Records, res.Timers, err
		}
	}
	share := func(req ShareGroupHeartbeatRequest) func(s *Shard) ([]Record, []TimerOp, error) {
		return func(s *Shard) ([]Record, []TimerOp, error) {
			res, err := s.ShareGroupHeartbeat(testT, req)
			return res.Records, res.Timers, err
		}
	}
	streams := func(req StreamsGroupHeartbeatRequest) func(s *Shard) ([]Record, []TimerOp, error) {
		return func(s *Shard) ([]Record, []TimerOp, error) {
			res, err := s.StreamsGroupHeartbeat(testT, req)
			return res.Records, res.Timers, err
		}
	}
	cjoin := func(group, member string) ConsumerGroupHeartbeatRequest {
		return ConsumerGroupHeartbeatRequest{GroupID: group, MemberID: member, RebalanceTimeoutMs: 1000, SubscribedTopicNames: []string{"foo"}}
	}
	sjoin := func(group, member string, tp *Topology) StreamsGroupHeartbeatRequest {
		return StreamsGroupHeartbeatRequest{GroupID: group, MemberID: member, RebalanceTimeoutMs: 1000, Topology: tp}
	}
	with := func(r ConsumerGroupHeartbeatRequest, f func(*ConsumerGroupHeartbeatRequest)) ConsumerGroupHeartbeatRequest {
		f(&r)
		return r
	}
	twoSubs := &Topology{Epoch: 1, Subtopologies: []Subtopology{{ID: "a", SourceTopics: []string{"foo"}}, {ID: "a", SourceTopics: []string{"bar"}}}}
	cases := []badCase{
		{"consumer: empty group id", consumer(cjoin("", "m9")), kerr.InvalidRequest},
		{"consumer: oversized group id", consumer(cjoin(longGroupID, "m9")), kerr.InvalidRequest},
		{"consumer: invalid UTF-8 group id", consumer(cjoin(invalidUTF8, "m9")), kerr.InvalidRequest},
		{"consumer: empty member id", consumer(cjoin("consumer-group", "")), kerr.InvalidRequest},
		{"consumer: oversized member id", consumer(cjoin("consumer-group", longMemberID)), kerr.InvalidRequest},
		{"consumer: invalid UTF-8 member id", consumer(cjoin("consumer-group", invalidUTF8)), kerr.InvalidRequest},
		{"consumer: epoch -3", consumer(with(cjoin("consumer-group", "m1"), func(r *ConsumerGroupHeartbeatRequest) { r.MemberEpoch = -3 })), kerr.InvalidRequest},
		{"consumer: epoch MinInt32", consumer(with(cjoin("consumer-group", "m1"), func(r *ConsumerGroupHeartbeatRequest) { r.MemberEpoch = math.MinInt32 })), kerr.InvalidRequest},
		{"consumer: join without rebalance timeout", consumer(with(cjoin("consumer-group", "m9"), func(r *ConsumerGroupHeartbeatRequest) { r.RebalanceTimeoutMs = RebalanceTimeoutNotSent })), kerr.InvalidRequest},
		{"consumer: join without subscription", consumer(with(cjoin("consumer-group", "m9"), func(r *ConsumerGroupHeartbeatRequest) { r.SubscribedTopicNames = nil })), kerr.InvalidRequest},
		{"consumer: empty topic name", consumer(with(cjoin("consumer-group", "m9"), func(r *ConsumerGroupHeartbeatRequest) { r.SubscribedTopicNames = []string{"foo", ""} })), kerr.InvalidRequest},
		{"consumer: topic name too long", consumer(with(cjoin("consumer-group", "m9"), func(r *ConsumerGroupHeartbeatRequest) { r.SubscribedTopicNames = []string{longTopicName} })), kerr.InvalidRequest},
		{"consumer: topic name with NUL", consumer(with(cjoin("consumer-group", "m9"), func(r *ConsumerGroupHeartbeatRequest) { r.SubscribedTopicNames = []string{"a\x00b"} })), kerr.InvalidRequest},
		{"consumer: unsupported server assignor", consumer(with(cjoin("consumer-group", "m9"), func(r *ConsumerGroupHeartbeatRequest) { r.ServerAssignor = ptr("sticky") })), kerr.UnsupportedAssignor},
		{"consumer: unsupported server assignor on a heartbeat", consumer(ConsumerGroupHeartbeatRequest{RebalanceTimeoutMs: RebalanceTimeoutNotSent, GroupID: "consumer-group", MemberID: "m1", MemberEpoch: epoch, ServerAssignor: ptr("")}), kerr.UnsupportedAssignor},
		{"consumer: invalid regex", consumer(with(cjoin("consumer-group", "m9"), func(r *ConsumerGroupHeartbeatRequest) { r.SubscribedTopicRegex = ptr("foo(") })), kerr.InvalidRegularExpression},
		{"consumer: invalid regex on a heartbeat", consumer(ConsumerGroupHeartbeatRequest{RebalanceTimeoutMs: RebalanceTimeoutNotSent, GroupID: "consumer-group", MemberID: "m1", MemberEpoch: epoch, SubscribedTopicRegex: ptr("*")}), kerr.InvalidRegularExpression},
		{"consumer: unknown member", consumer(ConsumerGroupHeartbeatRequest{RebalanceTimeoutMs: RebalanceTimeoutNotSent, GroupID: "consumer-group", MemberID: "nobody", MemberEpoch: epoch}), kerr.UnknownMemberID},
		{"consumer: unknown member leaves", consumer(ConsumerGroupHeartbeatRequest{RebalanceTimeoutMs: RebalanceTimeoutNotSent, GroupID: "consumer-group", MemberID: "nobody", MemberEpoch: -1}), kerr.UnknownMemberID},
		{"consumer: missing group", consumer(ConsumerGroupHeartbeatRequest{RebalanceTimeoutMs: RebalanceTimeoutNotSent, GroupID: "missing-group", MemberID: "m1", MemberEpoch: 4}), kerr.GroupIDNotFound},
		{"consumer: newer epoch", consumer(ConsumerGroupHeartbeatRequest{RebalanceTimeoutMs: RebalanceTimeoutNotSent, GroupID: "consumer-group", MemberID: "m1", MemberEpoch: epoch + 1}), kerr.FencedMemberEpoch},
		{"consumer: share group", consumer(cjoin("share-group", "m9")), kerr.GroupIDNotFound},
		{"consumer: streams group", consumer(cjoin("streams-group", "m9")), kerr.GroupIDNotFound},
		{"share: empty group id", share(ShareGroupHeartbeatRequest{MemberID: "m9", SubscribedTopicNames: []string{"foo"}}), kerr.InvalidRequest},
		{"share: empty member id", share(ShareGroupHeartbeatRequest{GroupID: "share-group", SubscribedTopicNames: []string{"foo"}}), kerr.InvalidRequest},
		{"share: join without subscription", share(ShareGroupHeartbeatRequest{GroupID: "share-group", MemberID: "m9"}), kerr.InvalidRequest},
		{"share: epoch -3", share(ShareGroupHeartbeatRequest{GroupID: "share-group", MemberID: "m1", MemberEpoch: -3}), kerr.InvalidRequest},
		{"share: unknown member", share(ShareGroupHeartbeatRequest{GroupID: "share-group", MemberID: "nobody", MemberEpoch: 1}), kerr.UnknownMemberID},
		{"share: newer epoch", share(ShareGroupHeartbeatRequest{GroupID: "share-group", MemberID: "m1", MemberEpoch: 9}), kerr.FencedMemberEpoch},
		{"share: consumer group", share(ShareGroupHeartbeatRequest{GroupID: "consumer-group", MemberID: "m9", SubscribedTopicNames: []string{"foo"}}), kerr.GroupIDNotFound},
		{"share: empty classic group", share(ShareGroupHeartbeatRequest{GroupID: "classic-group", MemberID: "m9", SubscribedTopicNames: []string{"foo"}}), kerr.GroupIDNotFound},
		{"streams: empty group id", streams(sjoin("", "m9", topo(1, "foo"))), kerr.InvalidRequest},
		{"streams: invalid UTF-8 group id", streams(sjoin(invalidUTF8, "m9", topo(1, "foo"))), kerr.InvalidRequest},
		{"streams: empty member id", streams(sjoin("streams-group", "", topo(1, "foo"))), kerr.InvalidRequest},
		{"streams: nil topology on join", streams(sjoin("streams-group", "m9", nil)), kerr.InvalidRequest},
		{"streams: topology on a heartbeat", streams(StreamsGroupHeartbeatRequest{RebalanceTimeoutMs: RebalanceTimeoutNotSent, GroupID: "streams-group", MemberID: "m1", MemberEpoch: 1, Topology: topo(1, "foo")}), kerr.InvalidRequest},
		{"streams: join without rebalance timeout", streams(StreamsGroupHeartbeatRequest{RebalanceTimeoutMs: RebalanceTimeoutNotSent, GroupID: "streams-group", MemberID: "m9", Topology: topo(1, "foo")}), kerr.InvalidRequest},
		{"streams: negative topology epoch", streams(sjoin("streams-group", "m9", topo(-1, "foo"))), kerr.InvalidRequest},
		{"streams: no subtopologies", streams(sjoin("streams-group", "m9", &Topology{Epoch: 1})), kerr.StreamsInvalidTopology},
		{"streams: subtopology without id", streams(sjoin("streams-group", "m9", &Topology{Epoch: 1, Subtopologies: []Subtopology{{SourceTopics: []string{"foo"}}}})), kerr.StreamsInvalidTopology},
		{"streams: duplicate subtopology id", streams(sjoin("streams-group", "m9", twoSubs)), kerr.StreamsInvalidTopology},
		{"streams: subtopology without sources", streams(sjoin("streams-group", "m9", topo(1))), kerr.StreamsInvalidTopology},
		{"streams: empty source topic", streams(sjoin("streams-group", "m9", topo(1, ""))), kerr.InvalidTopicException},
		{"streams: changed topology at the same epoch", streams(sjoin("streams-group", "m9", topo(1, "bar"))), kerr.InvalidRequest},
		{"streams: topology at a higher epoch", streams(sjoin("streams-group", "m9", topo(2, "foo"))), kerr.InvalidRequest},
		{"streams: epoch -3", streams(StreamsGroupHeartbeatRequest{RebalanceTimeoutMs: RebalanceTimeoutNotSent, GroupID: "streams-group", MemberID: "m1", MemberEpoch: -3}), kerr.InvalidRequest},
		{"streams: unknown member", streams(StreamsGroupHeartbeatRequest{RebalanceTimeoutMs: RebalanceTimeoutNotSent, GroupID: "streams-group", MemberID: "nobody", MemberEpoch: 1}), kerr.UnknownMemberID},
		{"streams: newer epoch", streams(StreamsGroupHeartbeatRequest{RebalanceTimeoutMs: RebalanceTimeoutNotSent, GroupID: "streams-group", MemberID: "m1", MemberEpoch: 3}), kerr.FencedMemberEpoch},
		{"streams: missing group", streams(StreamsGroupHeartbeatRequest{RebalanceTimeoutMs: RebalanceTimeoutNotSent, GroupID: "missing-group", MemberID: "m1", MemberEpoch: 2}), kerr.GroupIDNotFound},
		{"streams: consumer group", streams(sjoin("consumer-group", "m9", topo(1, "foo"))), kerr.GroupIDNotFound},
	}
	runBadCases(t, h, cases)
}

// TestStreamsGroupHeartbeatDoesNotRetainRequestTopology proves that the
// shard copies the topology a join brings: a caller reusing its Topology
// value afterwards cannot change the group (or the log) without a record.
func TestStreamsGroupHeartbeatDoesNotRetainRequestTopology(t *testing.T) {
	h := newHarness(t, testConfig(), expiryTopics)
	tp := &Topology{Epoch: 1, Subtopologies: []Subtopology{{ID: "0", SourceTopics: []string{"foo"}, RepartitionSourceTopics: []TopicInfo{{Name: "bar", Partitions: 2}}}}}
	res, err := h.s.StreamsGroupHeartbeat(testT, StreamsGroupHeartbeatRequest{GroupID: "g", MemberID: "m1", RebalanceTimeoutMs: 1, Topology: tp})
	require.NoError(t, err)
	tp.Subtopologies[0].ID = "mutated"
	tp.Subtopologies[0].SourceTopics[0] = "mutated"
	tp.Subtopologies[0].RepartitionSourceTopics[0].Name = "mutated"
	applyResult(h, res)
	d, _ := h.s.DescribeGroup("g")
	assert.Equal(t, &Topology{Epoch: 1, Subtopologies: []Subtopology{{ID: "0", SourceTopics: []string{"foo"}, RepartitionSourceTopics: []TopicInfo{{Name: "bar", Partitions: 2}}}}}, d.Topology)
}

// TestSetTopicsBadInput proves that SetTopics refuses invalid names and
// partition counts and then keeps the old image.
func TestSetTopicsBadInput(t *testing.T) {
	h, _ := populated(t)
	cases := []badCase{
		{"empty name", nil, kerr.InvalidTopicException},
		{"name too long", nil, kerr.InvalidTopicException},
		{"NUL in name", nil, kerr.InvalidTopicException},
		{"zero partitions", nil, kerr.InvalidRequest},
		{"negative partitions", nil, kerr.InvalidRequest},
	}
	images := []map[string]int32{
		{"foo": 3, "": 1},
		{"foo": 3, longTopicName: 1},
		{"foo": 3, "a\x00": 1},
		{"foo": 3, "bar": 0},
		{"foo": 3, "bar": -2},
	}
	for i := range cases {
		img := images[i]
		cases[i].call = func(s *Shard) ([]Record, []TimerOp, error) { return nil, nil, s.SetTopics(img) }
	}
	runBadCases(t, h, cases)
	assert.Equal(t, int32(3), h.s.TopicPartitions("foo"))
	assert.Equal(t, int32(2), h.s.TopicPartitions("bar"), "the old image stays")
}

// TestNewBadInput proves New refuses a negative partition and every invalid
// configuration field.
func TestNewBadInput(t *testing.T) {
	tests := []struct {
		name      string
		partition int32
		mutate    func(*Config)
	}{
		{"negative partition", -1, func(*Config) {}},
		{"zero retention", 0, func(c *Config) { c.OffsetsRetentionMs = 0 }},
		{"zero check interval", 0, func(c *Config) { c.OffsetsRetentionCheckIntervalMs = 0 }},
		{"negative metadata max", 0, func(c *Config) { c.OffsetMetadataMaxBytes = -1 }},
		{"zero consumer session timeout", 0, func(c *Config) { c.ConsumerSessionTimeoutMs = 0 }},
		{"zero streams session timeout", 0, func(c *Config) { c.StreamsSessionTimeoutMs = 0 }},
		{"zero share session timeout", 0, func(c *Config) { c.ShareSessionTimeoutMs = 0 }},
		{"zero heartbeat interval", 0, func(c *Config) { c.ShareHeartbeatIntervalMs = 0 }},
		{"zero max size", 0, func(c *Config) { c.StreamsMaxSize = 0 }},
		{"negative standby replicas", 0, func(c *Config) { c.StreamsNumStandbyReplicas = -1 }},
		{"zero config", 0, func(c *Config) { *c = Config{} }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			tc.mutate(&cfg)
			s, err := New(tc.partition, cfg)
			assert.Error(t, err)
			assert.Nil(t, s)
		})
	}
	s, err := New(0, DefaultConfig())
	require.NoError(t, err)
	assert.Equal(t, int64(-1), s.LastOffset())
}

// unknownRecord is a Record of a type Replay does not know.
type unknownRecord struct{}

func (unknownRecord) Type() RecordType { return typeEnd }
func (unknownRecord) GroupID() string  { return "consumer-group" }

// TestReplayBadInput proves that Replay refuses records it cannot apply
// (Kafka's IllegalStateException) with ErrReplay and changes nothing, not
// even the last offset.
func TestReplayBadInput(t *testing.T) {
	h, _ := populated(t)
	okTopo := Topology{Epoch: 1, Subtopologies: []Subtopology{{ID: "0", SourceTopics: []string{"foo"}}}}
	tests := []struct {
		name   string
		record Record
		offset int64 // 0 means the next offset
	}{
		{name: "nil record", record: nil},
		{name: "typed nil record", record: (*OffsetCommit)(nil)},
		{name: "typed nil streams metadata", record: (*StreamsGroupMetadata)(nil)},
		{name: "unknown record type", record: unknownRecord{}},
		{name: "offset not after the last", record: &ConsumerGroupMetadata{Group: "x", Epoch: 1}, offset: -1},
		{name: "offset commit: empty topic", record: &OffsetCommit{Group: "g", Partition: 0}},
		{name: "offset commit: negative partition", record: &OffsetCommit{Group: "g", Topic: "foo", Partition: -1}},
		{name: "end txn: empty group", record: &EndTransactionMarker{ProducerID: 5, Commit: true}},
		{name: "group metadata on a consumer group", record: &GroupMetadata{Group: "consumer-group"}},
		{name: "group metadata tombstone on a share group", record: &GroupMetadata{Group: "share-group", Tombstone: true}},
		{name: "consumer metadata: empty group", record: &ConsumerGroupMetadata{Epoch: 1}},
		{name: "consumer metadata on a streams group", record: &ConsumerGroupMetadata{Group: "streams-group", Epoch: 1}},
		{name: "consumer tombstone with members", record: &ConsumerGroupMetadata{Group: "consumer-group", Tombstone: true}},
		{name: "consumer tombstone on a classic group", record: &ConsumerGroupMetadata{Group: "classic-group", Tombstone: true}},
		{name: "share tombstone with members", record: &ShareGroupMetadata{Group: "share-group", Tombstone: true}},
		{name: "streams tombstone with members", record: &StreamsGroupMetadata{Group: "streams-group", Tombstone: true}},
		{name: "streams metadata on a share group", record: &StreamsGroupMetadata{Group: "share-group", StoredDescriptionTopologyEpoch: -1, FailedDescriptionTopologyEpoch: -1}},
		{name: "streams metadata: stored epoch -3", record: &StreamsGroupMetadata{Group: "streams-group", StoredDescriptionTopologyEpoch: -3, FailedDescriptionTopologyEpoch: -1}},
		{name: "streams metadata: failed epoch -2", record: &StreamsGroupMetadata{Group: "streams-group", StoredDescriptionTopologyEpoch: -1, FailedDescriptionTopologyEpoch: -2}},
		{name: "streams metadata on a consumer group", record: &StreamsGroupMetadata{Group: "consumer-group"}},
		{name: "assignment epoch on another type", record: &ShareGroupTargetAssignmentMetadata{Group: "consumer-group", AssignmentEpoch: 1}},
		{name: "assignment epoch tombstone on another type", record: &StreamsGroupTargetAssignmentMetadata{Group: "consumer-group", Tombstone: true}},
		{name: "member metadata: empty member id", record: &ConsumerGroupMemberMetadata{Group: "consumer-group"}},
		{name: "member metadata: empty group", record: &ConsumerGroupMemberMetadata{MemberID: "m1"}},
		{name: "member metadata on another type", record: &ShareGroupMemberMetadata{Group: "consumer-group", MemberID: "m1"}},
		{name: "member tombstone on another type", record: &StreamsGroupMemberMetadata{Group: "consumer-group", MemberID: "m1", Tombstone: true}},
		{name: "target member: empty member id", record: &ConsumerGroupTargetAssignmentMember{Group: "consumer-group"}},
		{name: "target member on another type", record: &ConsumerGroupTargetAssignmentMember{Group: "share-group", MemberID: "m1"}},
		{name: "target member tombstone on another type", record: &ShareGroupTargetAssignmentMember{Group: "streams-group", MemberID: "nobody", Tombstone: true}},
		{name: "current member: empty member id", record: &StreamsGroupCurrentMemberAssignment{Group: "streams-group"}},
		{name: "current member on another type", record: &StreamsGroupCurrentMemberAssignment{Group: "classic-group", MemberID: "m1"}},
		{name: "topology: invalid", record: &StreamsGroupTopology{Group: "streams-group", Topology: Topology{Epoch: 1}}},
		{name: "topology: negative epoch", record: &StreamsGroupTopology{Group: "streams-group", Topology: Topology{Epoch: -1, Subtopologies: okTopo.Subtopologies}}},
		{name: "topology on a consumer group", record: &StreamsGroupTopology{Group: "consumer-group", Topology: okTopo}},
		{name: "topology tombstone on a consumer group", record: &StreamsGroupTopology{Group: "consumer-group", Tombstone: true}},
		{name: "topology: empty group", record: &StreamsGroupTopology{Topology: okTopo}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := h.s.Snapshot()
			offset := h.s.LastOffset() + 1
			if tc.offset != 0 {
				offset = h.s.LastOffset() + tc.offset
			}
			err := h.s.Replay(offset, tc.record)
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrReplay), "got %v", err)
			requireSnapshotEqual(t, before, h.s.Snapshot(), "a refused record changes nothing")
		})
	}
	requireIndexesConsistent(t, h.s, "after the refused records")
}

func ptr[T any](v T) *T { return &v }

// TestReplayRefusesASecondActiveOwner proves the check that consumer
// partitions and streams active tasks share (checkActiveClaims, Kafka's
// addPartitionEpochs and addTaskProcessId): a current-assignment record that
// lists a partition or active task twice, or claims one another member still
// holds, is refused with ErrReplay and changes nothing, while the holder
// itself may list what it holds.
func TestReplayRefusesASecondActiveOwner(t *testing.T) {
	consumer := func(member string, epoch int32, assigned, pending []int32) Record {
		return &ConsumerGroupCurrentMemberAssignment{Group: "consumer-group", MemberID: member, MemberEpoch: epoch,
			Partitions: []TopicPartitions{{Topic: "foo", Partitions: assigned}}, PartitionsPendingRevocation: []TopicPartitions{{Topic: "foo", Partitions: pending}}}
	}
	streams := func(member string, assigned, pending []int32) Record {
		return &StreamsGroupCurrentMemberAssignment{Group: "streams-group", MemberID: member, MemberEpoch: 9,
			ActiveTasks: []TaskIDs{{SubtopologyID: "0", Partitions: assigned}}, ActiveTasksPendingRevocation: []TaskIDs{{SubtopologyID: "0", Partitions: pending}}}
	}
	tests := []struct {
		name    string
		record  func(consumerEpoch int32) Record
		wantErr string // "" means the record is applied
	}{
		{name: "consumer: another member's partition",
			record:  func(int32) Record { return consumer("m2", 5, []int32{0}, nil) },
			wantErr: "cannot set the epoch of foo-0 to 5 because the partition is still owned at epoch"},
		{name: "consumer: another member's partition, pending revocation",
			record:  func(int32) Record { return consumer("m2", 5, nil, []int32{2}) },
			wantErr: "cannot set the epoch of foo-2 to 5 because the partition is still owned at epoch"},
		{name: "consumer: a partition listed twice",
			record:  func(e int32) Record { return consumer("m1", e, []int32{1, 1}, nil) },
			wantErr: "partition foo-1 is listed twice"},
		{name: "consumer: a partition both assigned and pending revocation",
			record:  func(e int32) Record { return consumer("m1", e, []int32{0}, []int32{0}) },
			wantErr: "partition foo-0 is listed twice"},
		{name: "consumer: the holder lists its own partitions",
			record: func(e int32) Record { return consumer("m1", e+1, []int32{0, 1}, []int32{2}) }},
		{name: "streams: another member's active task",
			record:  func(int32) Record { return streams("m2", []int32{0}, nil) },
			wantErr: "cannot set the owner of active task 0_0 to m2 because the task is still owned by member m1"},
		{name: "streams: another member's active task, pending revocation",
			record:  func(int32) Record { return streams("m2", nil, []int32{2}) },
			wantErr: "cannot set the owner of active task 0_2 to m2 because the task is still owned by member m1"},
		{name: "streams: an active task listed twice",
			record:  func(int32) Record { return streams("m1", []int32{1, 1}, nil) },
			wantErr: "active task 0_1 is listed twice"},
		{name: "streams: an active task both assigned and pending revocation",
			record:  func(int32) Record { return streams("m1", []int32{2}, []int32{2}) },
			wantErr: "active task 0_2 is listed twice"},
		{name: "streams: the holder lists its own tasks",
			record: func(int32) Record { return streams("m1", []int32{0, 1}, []int32{2}) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, consumerEpoch := populated(t)
			for p := range int32(3) {
				require.Equal(t, consumerEpoch, h.s.lookup("consumer-group").partitionEpochs[topicPartition{"foo", p}], "m1 holds foo-%d", p)
				require.Equal(t, "m1", h.s.lookup("streams-group").activeTaskOwners[topicPartition{"0", p}], "m1 holds task 0_%d", p)
			}
			before := h.s.Snapshot()
			err := h.s.Replay(h.s.LastOffset()+1, tc.record(consumerEpoch))
			if tc.wantErr == "" {
				require.NoError(t, err)
				requireIndexesConsistent(t, h.s, "after the holder's record")
				return
			}
			require.ErrorIs(t, err, ErrReplay)
			assert.ErrorContains(t, err, tc.wantErr)
			requireSnapshotEqual(t, before, h.s.Snapshot(), "a refused record changes nothing")
		})
	}
}
