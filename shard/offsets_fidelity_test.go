package shard

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/offsets"
)

// Offset API answers checked against Kafka's group coordinator: the request
// version OffsetCommit's checks read, the simple group's commit rules, the
// empty group id, OffsetFetch of a share group and the metadata bound in
// Java characters. Each refused request is also checked to change nothing.

// tryCommit runs a commit of foo-0 at offset and applies it when accepted;
// a refused one must return no records and leave the shard as it was.
func tryCommit(t *testing.T, h *harness, req OffsetCommitRequest, offset int64) error {
	t.Helper()
	req.Topics = []OffsetCommitTopic{{Topic: "foo", Partitions: []OffsetCommitPartition{partitionAt(0, offset, "")}}}
	if req.RetentionTimeMs == 0 {
		req.RetentionTimeMs = -1
	}
	before := h.s.Snapshot()
	res, err := h.s.CommitOffsets(h.nowMs, req)
	if err != nil {
		require.Empty(t, res.Records, "a refused commit writes nothing")
		requireSnapshotEqual(t, before, h.s.Snapshot(), "a refused commit changes nothing")
		return err
	}
	applyResult(h, res)
	return res.Response.Err()
}

// tryTxnCommit is tryCommit for TxnOffsetCommit.
func tryTxnCommit(t *testing.T, h *harness, req TxnOffsetCommitRequest, offset int64) error {
	t.Helper()
	req.Topics = []OffsetCommitTopic{{Topic: "foo", Partitions: []OffsetCommitPartition{partitionAt(0, offset, "")}}}
	if req.ProducerID == 0 {
		req.ProducerID = 7
	}
	before := h.s.Snapshot()
	res, err := h.s.CommitTransactionalOffsets(h.nowMs, req)
	if err != nil {
		require.Empty(t, res.Records, "a refused commit writes nothing")
		requireSnapshotEqual(t, before, h.s.Snapshot(), "a refused commit changes nothing")
		return err
	}
	applyResult(h, res)
	return res.Response.Err()
}

func errName(err error) string { return kerr.Name(err) }

// TestClassicGroupValidateOffsetCommit reproduces the simple-group half of
// ClassicGroupTest.testValidateOffsetCommit, through
// OffsetMetadataManager.validateOffsetCommit and
// validateTransactionalOffsetCommit: on an EMPTY classic group without
// members a negative generation is accepted whatever member and instance
// ids come with it, and any other generation is UNKNOWN_MEMBER_ID (no member
// to validate, so ILLEGAL_GENERATION is never reached). A group that does not
// exist yet answers the same for a negative generation (it is created), and
// GROUP_ID_NOT_FOUND (v9+) or ILLEGAL_GENERATION (below v9, and
// TxnOffsetCommit) otherwise.
func TestClassicGroupValidateOffsetCommit(t *testing.T) {
	type committer struct {
		member, instance string
		generation       int32
	}
	rows := []struct {
		committer
		onSimple  string // answer on the existing simple group
		onMissing string // v9+ OffsetCommit answer on a group that does not exist
	}{
		{committer{"", "", -1}, "NONE", "NONE"},
		{committer{"foo", "", -1}, "NONE", "NONE"},
		{committer{"foo", "instance", -1}, "NONE", "NONE"},
		{committer{"", "instance", -1}, "NONE", "NONE"},
		{committer{"", "", 5}, "UNKNOWN_MEMBER_ID", "GROUP_ID_NOT_FOUND"},
		{committer{"foo", "", 0}, "UNKNOWN_MEMBER_ID", "GROUP_ID_NOT_FOUND"},
		{committer{"foo", "instance", 1}, "UNKNOWN_MEMBER_ID", "GROUP_ID_NOT_FOUND"},
	}
	for i, row := range rows {
		c := row.committer
		for _, kind := range []string{"v10", "v8", "v2", "latest", "txn"} {
			t.Run(fmt.Sprintf("%s/%+v", kind, c), func(t *testing.T) {
				h := newHarness(t, testConfig(), map[string]int32{"foo": 1})
				h.commit("simple", "", -1, h.nowMs, "foo-0")
				commit := func(group string, offset int64) error {
					if kind == "txn" {
						return tryTxnCommit(t, h, TxnOffsetCommitRequest{GroupID: group, MemberID: c.member,
							GroupInstanceID: c.instance, MemberEpoch: c.generation}, offset)
					}
					var v int16
					fmt.Sscanf(kind, "v%d", &v)
					return tryCommit(t, h, OffsetCommitRequest{GroupID: group, MemberID: c.member,
						GroupInstanceID: c.instance, MemberEpoch: c.generation, APIVersion: v}, offset)
				}
				assert.Equal(t, row.onSimple, errName(commit("simple", int64(200+i))), "existing simple group")
				wantMissing := row.onMissing
				if wantMissing == "GROUP_ID_NOT_FOUND" && (kind == "v8" || kind == "v2" || kind == "txn") {
					wantMissing = "ILLEGAL_GENERATION"
				}
				assert.Equal(t, wantMissing, errName(commit("missing", int64(300+i))), "group that does not exist")
				_, created := h.s.DescribeGroup("missing")
				assert.Equal(t, wantMissing == "NONE", created, "an accepted commit creates the simple group, a refused one does not")
				requireSnapshotEqual(t, h.s.Snapshot(), h.rebuild().Snapshot(), "rebuild")
			})
		}
	}
}

// TestOffsetCommitVersions reproduces the version checks of
// ConsumerGroupTest.testValidateOffsetCommit / StreamsGroupTest's and
// OffsetCommitRequestTest.testOffsetCommit(useNewProtocol = true) on the
// shard: a member of a consumer or streams group committing with
// OffsetCommit below v9 is UNSUPPORTED_VERSION with Kafka's message, after
// the member lookup (an unknown member is still UNKNOWN_MEMBER_ID) and
// before the epoch check; a transactional commit is exempt; v9+ and the
// zero version (latest) answer as before.
func TestOffsetCommitVersions(t *testing.T) {
	for _, typ := range []GroupType{Consumer, Streams} {
		t.Run(typ.String(), func(t *testing.T) {
			h := newHarness(t, testConfig(), map[string]int32{"foo": 1})
			var epoch int32
			protocol := "modern"
			if typ == Consumer {
				epoch = h.consumerJoin("grp", "m1", "foo").MemberEpoch
			} else {
				protocol = "streams"
				epoch = h.streamsJoin("grp", "m1", topo(1, "foo")).MemberEpoch
			}
			require.Positive(t, epoch)
			for _, v := range []int16{2, 3, 4, 5, 6, 7, 8, 9, 10, OffsetCommitLatestVersion} {
				modern := v == OffsetCommitLatestVersion || v >= 9
				commit := func(member string, e int32, offset int64) error {
					return tryCommit(t, h, OffsetCommitRequest{GroupID: "grp", MemberID: member, MemberEpoch: e, APIVersion: v}, offset)
				}
				err := commit("m1", epoch, 1000+int64(v))
				if modern {
					assert.NoError(t, err, "v%d: own epoch", v)
				} else {
					assert.ErrorIs(t, err, kerr.UnsupportedVersion, "v%d: own epoch", v)
					assert.Equal(t, "UNSUPPORTED_VERSION: OffsetCommit version 9 or above must be used by members using the "+protocol+" group protocol", err.Error())
				}
				want := "STALE_MEMBER_EPOCH"
				if !modern {
					want = "UNSUPPORTED_VERSION"
				}
				assert.Equal(t, want, errName(commit("m1", epoch+1, 99)), "v%d: epoch+1", v)
				assert.Equal(t, "UNKNOWN_MEMBER_ID", errName(commit("nobody", epoch, 99)), "v%d: the member lookup comes first", v)
				assert.Equal(t, "UNKNOWN_MEMBER_ID", errName(commit("", -1, 99)), "v%d: admin commit to a non-empty group", v)
				want = "GROUP_ID_NOT_FOUND"
				if !modern {
					want = "ILLEGAL_GENERATION"
				}
				err = tryCommit(t, h, OffsetCommitRequest{GroupID: "unknown", MemberID: "m1", MemberEpoch: epoch, APIVersion: v}, 99)
				assert.Equal(t, want, errName(err), "v%d: unknown group", v)
				err = tryCommit(t, h, OffsetCommitRequest{GroupID: "", MemberID: "m1", MemberEpoch: epoch, APIVersion: v}, 99)
				assert.Equal(t, want, errName(err), "v%d: the empty group id is a group that does not exist", v)
			}
			// Only the accepted commits wrote: the last is v0's (latest).
			v, ok := h.s.Offset("grp", "foo", 0)
			require.True(t, ok)
			assert.Equal(t, int64(1000), v.Offset)
			// TxnOffsetCommit has no version check.
			assert.NoError(t, tryTxnCommit(t, h, TxnOffsetCommitRequest{GroupID: "grp", MemberID: "m1", MemberEpoch: epoch}, 7))
			requireSnapshotEqual(t, h.s.Snapshot(), h.rebuild().Snapshot(), "rebuild")
		})
	}
}

// TestEmptyGroupIDSimpleGroup proves "" is a group id like any other for
// OffsetCommit, OffsetFetch and DeleteGroups (GroupCoordinatorService
// refuses only null there, "for backwards compatibility") and for the
// sweep, on the live shard and on one rebuilt from its log after each step:
// an admin commit creates the simple group "", a fetch reads it, the sweep
// expires its offsets and tombstones it, a second commit recreates it and
// DeleteGroups deletes it. TxnOffsetCommit, EndTransaction and OffsetDelete
// keep refusing "" with INVALID_GROUP_ID (isGroupIdNotEmpty) and change
// nothing.
func TestEmptyGroupIDSimpleGroup(t *testing.T) {
	cfg := testConfig()
	h := newHarness(t, cfg, map[string]int32{"foo": 2})
	h.commit("other", "", -1, h.nowMs, "foo-0") // a neighbour that must stay
	check := func(step string) {
		t.Helper()
		requireIndexesConsistent(t, h.s, "%s", step)
		requireSnapshotEqual(t, h.s.Snapshot(), h.rebuild().Snapshot(), "rebuild after %s", step)
	}
	fetch := func() []FetchedOffset {
		t.Helper()
		out, err := h.s.FetchOffsets("", []TopicPartitions{{Topic: "foo", Partitions: []int32{0, 1, 5}}}, false)
		require.NoError(t, err)
		return out
	}
	unset := FetchedOffset{Topic: "foo", Offset: -1, LeaderEpoch: offsets.NoLeaderEpoch}
	at := func(p int32, offset int64) FetchedOffset {
		f := unset
		f.Partition, f.Offset = p, offset
		return f
	}

	assert.Equal(t, []FetchedOffset{at(0, -1), at(1, -1), at(5, -1)}, fetch(), "nothing committed yet")
	require.NoError(t, tryCommit(t, h, OffsetCommitRequest{GroupID: "", MemberEpoch: -1}, 42))
	d, ok := h.s.DescribeGroup("")
	require.True(t, ok, "the commit created the simple group \"\"")
	assert.Equal(t, Classic, d.Type)
	assert.Equal(t, []FetchedOffset{at(0, 42), at(1, -1), at(5, -1)}, fetch())
	all, err := h.s.FetchOffsets("", nil, false)
	require.NoError(t, err)
	assert.Equal(t, []FetchedOffset{at(0, 42)}, all)
	check("the commit")

	// The APIs that refuse "" still do, and change nothing.
	assert.ErrorIs(t, tryTxnCommit(t, h, TxnOffsetCommitRequest{GroupID: "", MemberEpoch: -1}, 1), kerr.InvalidGroupID)
	_, err = h.s.EndTransaction("", 7, true)
	assert.ErrorIs(t, err, kerr.InvalidGroupID)
	before := h.s.Snapshot()
	res, err := h.s.DeleteOffsets("", []TopicPartitions{{Topic: "foo", Partitions: []int32{0}}})
	assert.ErrorIs(t, err, kerr.InvalidGroupID)
	assert.Empty(t, res.Records)
	requireSnapshotEqual(t, before, h.s.Snapshot(), "a refused OffsetDelete changes nothing")

	// The sweep expires the offset and tombstones the group.
	h.nowMs += cfg.OffsetsRetentionMs + 1
	sweep := applyResult(h, h.s.CleanupGroupMetadata(h.nowMs))
	assert.Equal(t, []string{"", "other"}, sweep.GroupsDeleted)
	_, ok = h.s.DescribeGroup("")
	assert.False(t, ok, "the sweep deleted the simple group \"\"")
	assert.Equal(t, []FetchedOffset{at(0, -1), at(1, -1), at(5, -1)}, fetch())
	check("the sweep")

	// A new commit recreates it; DeleteGroups deletes it with its offsets.
	require.NoError(t, tryCommit(t, h, OffsetCommitRequest{GroupID: "", MemberEpoch: -1}, 43))
	h.commit("other", "", -1, h.nowMs, "foo-1")
	check("the second commit")
	del, err := h.s.DeleteGroups([]string{""})
	require.NoError(t, err)
	require.Len(t, del.Response, 1)
	require.NoError(t, del.Response[0].Err)
	assert.Equal(t, "OffsetCommit /foo-0 <tombstone>\nGroupMetadata  <tombstone>\n", formatRecords(del.Records))
	applyResult(h, del)
	_, ok = h.s.DescribeGroup("")
	assert.False(t, ok)
	_, ok = h.s.DescribeGroup("other")
	assert.True(t, ok, "the neighbour stays")
	check("DeleteGroups")
	del, err = h.s.DeleteGroups([]string{""})
	require.NoError(t, err)
	assert.ErrorIs(t, del.Response[0].Err, kerr.GroupIDNotFound, "deleted")
}

// TestFetchOffsetsOfShareGroup reproduces OffsetMetadataManager.fetchOffsets
// and fetchAllOffsets on a share group: ShareGroup.validateOffsetFetch throws
// GroupIdNotFoundException, which both catch, so the answer has no error:
// offset -1 for each listed partition, nothing for "all topics".
func TestFetchOffsetsOfShareGroup(t *testing.T) {
	h := newHarness(t, testConfig(), map[string]int32{"foo": 2})
	h.shareJoin("sg", "m1", "foo")
	listed, err := h.s.OffsetFetch(OffsetFetchRequest{GroupID: "sg", MemberEpoch: -1,
		Topics: []TopicPartitions{{Topic: "foo", Partitions: []int32{0, 1}}}})
	require.NoError(t, err)
	assert.Equal(t, []FetchedOffset{
		{Topic: "foo", Partition: 0, Offset: -1, LeaderEpoch: offsets.NoLeaderEpoch},
		{Topic: "foo", Partition: 1, Offset: -1, LeaderEpoch: offsets.NoLeaderEpoch},
	}, listed)
	all, err := h.s.OffsetFetch(OffsetFetchRequest{GroupID: "sg", MemberID: "m1", MemberEpoch: 1})
	require.NoError(t, err)
	assert.Empty(t, all)
	// A consumer group still checks the member.
	h.consumerJoin("cg", "m1", "foo")
	_, err = h.s.OffsetFetch(OffsetFetchRequest{GroupID: "cg", MemberID: "nobody", MemberEpoch: 1})
	assert.ErrorIs(t, err, kerr.UnknownMemberID)
}

// TestOffsetMetadataMaxSizeCountsJavaChars reproduces
// OffsetMetadataManager.isMetadataInvalid: offset.metadata.max.bytes bounds
// metadata.length(), Java's count of UTF-16 code units, for OffsetCommit and
// TxnOffsetCommit alike. 4096 "é" (8192 UTF-8 bytes) fit; 2048 "😀" (a
// surrogate pair each, 4096 units) fit, one more does not; 4097 ASCII
// characters do not.
func TestOffsetMetadataMaxSizeCountsJavaChars(t *testing.T) {
	max := offsets.MetadataMaxBytes
	cases := []struct {
		name     string
		metadata string
		tooLarge bool
	}{
		{"4096 two-byte chars", strings.Repeat("é", max), false},
		{"4097 two-byte chars", strings.Repeat("é", max+1), true},
		{"2048 surrogate pairs", strings.Repeat("😀", max/2), false},
		{"2048 surrogate pairs and one char", strings.Repeat("😀", max/2) + "x", true},
		{"4096 ASCII chars", strings.Repeat("x", max), false},
		{"4097 ASCII chars", strings.Repeat("x", max+1), true},
	}
	for _, tc := range cases {
		for _, txn := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/txn=%v", tc.name, txn), func(t *testing.T) {
				h := newHarness(t, testConfig(), map[string]int32{"foo": 1})
				topics := []OffsetCommitTopic{{Topic: "foo", Partitions: []OffsetCommitPartition{partitionAt(0, 5, tc.metadata)}}}
				var res Result[OffsetCommitResponse]
				var err error
				if txn {
					res, err = h.s.CommitTransactionalOffsets(h.nowMs, TxnOffsetCommitRequest{GroupID: "g", ProducerID: 3, MemberEpoch: -1, Topics: topics})
				} else {
					res, err = h.s.CommitOffsets(h.nowMs, OffsetCommitRequest{GroupID: "g", MemberEpoch: -1, RetentionTimeMs: -1, Topics: topics})
				}
				require.NoError(t, err)
				if tc.tooLarge {
					assert.ErrorIs(t, res.Response.Err(), kerr.OffsetMetadataTooLarge)
					assert.Empty(t, res.Records, "a refused partition writes nothing")
					return
				}
				require.NoError(t, res.Response.Err())
				require.Len(t, res.Records, 1)
				assert.Equal(t, tc.metadata, res.Records[0].(*OffsetCommit).Value.Metadata)
			})
		}
	}
	assert.Equal(t, 3, javaStringLength("a\xffb"), "an invalid byte is one U+FFFD")
}

// TestTxnOffsetCommitByNameAtOlderEpochIsRefused proves Kafka 4.4's answer
// to a TxnOffsetCommit at an older member epoch of a consumer-protocol
// member: by topic name (v0-5) it is ILLEGAL_GENERATION even for a
// partition assigned at that epoch (the assignment-epoch check looks the
// partition up by topic id, and a request by name reaches it with
// Uuid.ZERO_UUID); by topic id (v6+) the KIP-1251 check applies, as for
// OffsetCommit. The difftest's txn-commit-by-name-older-epoch has Kafka's
// own answer.
func TestTxnOffsetCommitByNameAtOlderEpochIsRefused(t *testing.T) {
	h := newHarness(t, testConfig(), map[string]int32{"foo": 2, "bar": 4})
	first := h.consumerJoin("g", "m1", "foo")
	require.Len(t, first.Assignment, 1, "m1 owns foo at its first epoch")
	h.consumerJoin("g", "m2", "bar")
	second := h.consumerHeartbeat("g", "m1", first.MemberEpoch, nil)
	require.Greater(t, second.MemberEpoch, first.MemberEpoch, "m1 moved to the new epoch, keeping foo")

	err := tryTxnCommit(t, h, TxnOffsetCommitRequest{GroupID: "g", MemberID: "m1", MemberEpoch: first.MemberEpoch}, 5)
	assert.Equal(t, "ILLEGAL_GENERATION", errName(err), "by name, at the older epoch")
	err = tryTxnCommit(t, h, TxnOffsetCommitRequest{GroupID: "g", MemberID: "m1", MemberEpoch: first.MemberEpoch, TopicIDs: true}, 5)
	assert.NoError(t, err, "by id, foo-0 was assigned at that epoch")
	err = tryTxnCommit(t, h, TxnOffsetCommitRequest{GroupID: "g", MemberID: "m1", MemberEpoch: second.MemberEpoch}, 6)
	assert.NoError(t, err, "by name at the current epoch: no partition check")
	err = tryCommit(t, h, OffsetCommitRequest{GroupID: "g", MemberID: "m1", MemberEpoch: first.MemberEpoch}, 7)
	assert.NoError(t, err, "OffsetCommit by name: KafkaApis fills the topic ids in")
	requireSnapshotEqual(t, h.s.Snapshot(), h.rebuild().Snapshot(), "rebuild")
}
