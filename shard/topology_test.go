package shard

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/kerr"
)

// Tests of the KIP-1331 shard operations (topology.go): the cleanup cycle's
// eligibility scan and its index, the v1 conditional clear, the v2 mark and
// finalize (PR #22777), the forward-only stored and failed epochs, and
// DeleteGroups' pre-delete read (docs/kip1331.md §2.4, §2.7, §2.9, §6.2, §6.3).
// Names follow Kafka's tests where Kafka has one.

var cleanupTopics = map[string]int32{"foo": 3, "bar": 1}

// newCleanupHarness is a shard with a topology plugin configured, so the
// sweep defers streams groups whose stored epoch is set.
func newCleanupHarness(t *testing.T) *harness {
	t.Helper()
	cfg := topologyUpdatesConfig()
	cfg.TopologyPluginConfigured = true
	return newHarness(t, cfg, cleanupTopics)
}

// emptyStreamsGroup creates streams group id the way clients do (a member
// joins with a topology at epoch 3, then leaves) and sets its stored
// description epoch unless stored is -1.
func emptyStreamsGroup(h *harness, id string, stored int32) {
	h.t.Helper()
	h.streamsJoin(id, "m1", topo(3, "foo"))
	h.streamsHeartbeat(id, "m1", -1)
	if stored != EpochNone {
		h.setStoredEpoch(id, stored)
	}
	st, ok := h.s.GroupState(id)
	require.True(h.t, ok, "group %s", id)
	require.Equal(h.t, StateEmpty, st, "group %s", id)
}

// setDescriptionEpochs replays a StreamsGroupMetadata record that keeps every
// field of group and sets both KIP-1331 epochs.
func setDescriptionEpochs(h *harness, group string, stored, failed int32) {
	h.t.Helper()
	d, ok := h.s.DescribeGroup(group)
	require.True(h.t, ok, "group %s", group)
	h.replay(&StreamsGroupMetadata{
		Group: group, Epoch: d.Epoch, MetadataHash: d.MetadataHash, ValidatedTopologyEpoch: d.ValidatedTopologyEpoch,
		StoredDescriptionTopologyEpoch: stored, FailedDescriptionTopologyEpoch: failed,
	})
}

// metadataWithEpochs is the StreamsGroupMetadata record a KIP-1331 write must
// produce for group: every field as it is now, with the two epochs replaced.
func metadataWithEpochs(t *testing.T, s *Shard, group string, stored, failed int32) *StreamsGroupMetadata {
	t.Helper()
	d, ok := s.DescribeGroup(group)
	require.True(t, ok, "group %s", group)
	return &StreamsGroupMetadata{
		Group: group, Epoch: d.Epoch, MetadataHash: d.MetadataHash, ValidatedTopologyEpoch: d.ValidatedTopologyEpoch,
		StoredDescriptionTopologyEpoch: stored, FailedDescriptionTopologyEpoch: failed,
	}
}

// storedEpochOf returns a group's stored description epoch.
func storedEpochOf(t *testing.T, s *Shard, group string) int32 {
	t.Helper()
	d, ok := s.DescribeGroup(group)
	require.True(t, ok, "group %s", group)
	return d.StoredDescriptionTopologyEpoch
}

// requireScanAgrees runs the indexed eligibility scan, requires it to equal Kafka's full
// scan, and returns it.
func requireScanAgrees(t *testing.T, s *Shard, format string, args ...any) []GroupEpoch {
	t.Helper()
	indexed := s.ListStreamsGroupsNeedingTopologyCleanup()
	require.Equal(t, s.listStreamsGroupsNeedingTopologyCleanupFullScan(), indexed, "%s: indexed scan vs full scan", fmt.Sprintf(format, args...))
	return indexed
}

// pureCall runs a shard operation and requires it to leave the shard unchanged;
// when it fails it must return no records.
func pureCall[T any](t *testing.T, s *Shard, what string, op func() (Result[T], error)) (Result[T], error) {
	t.Helper()
	before := s.Snapshot()
	res, err := op()
	requireSnapshotEqual(t, before, s.Snapshot(), "%s mutated the shard", what)
	if err != nil {
		require.Empty(t, res.Records, "failed %s returned records", what)
		require.Empty(t, res.Timers, "failed %s returned timers", what)
	}
	return res, err
}

// infallible adapts an operation that cannot fail to pureCall and elApply.
func infallible[T any](op func() Result[T]) func() (Result[T], error) {
	return func() (Result[T], error) { return op(), nil }
}

// commitTxnOffsets writes a pending transactional offset of producer for group
// (an admin commit: no member).
func commitTxnOffsets(h *harness, group string, producer int64, specs ...string) {
	h.t.Helper()
	res, err := h.s.CommitTransactionalOffsets(h.nowMs, TxnOffsetCommitRequest{
		GroupID: group, ProducerID: producer, MemberEpoch: -1, Topics: commitTopics(h.t, specs...),
	})
	mustApply(h, res, err)
}

func endTxnMarker(h *harness, group string, producer int64, commit bool) {
	h.t.Helper()
	res, err := h.s.EndTransaction(group, producer, commit)
	mustApply(h, res, err)
}

// TestListStreamsGroupsNeedingTopologyCleanup proves Kafka's shard test of
// listStreamsGroupsNeedingTopologyCleanup (docs/kip1331.md §6.2): only streams
// groups that are empty, have a stored epoch (-2 included) and no offsets
// or open transaction are returned, with the observed epoch, and the index
// follows every replayed change that moves a group in or out.
func TestListStreamsGroupsNeedingTopologyCleanup(t *testing.T) {
	h := newCleanupHarness(t)
	h.consumerJoin("consumer", "c1", "foo")
	h.consumerHeartbeat("consumer", "c1", -1, nil)
	h.replay(&GroupMetadata{Group: "classic"})
	emptyStreamsGroup(h, "streams-eligible", 4)
	emptyStreamsGroup(h, "streams-uncertain", EpochUncertain)
	emptyStreamsGroup(h, "streams-zero", 0)
	emptyStreamsGroup(h, "streams-none", EpochNone)
	h.streamsJoin("streams-member", "m1", topo(3, "foo"))
	h.setStoredEpoch("streams-member", 3)
	emptyStreamsGroup(h, "streams-offsets", 5)
	h.commit("streams-offsets", "", -1, h.nowMs, "bar-0")
	emptyStreamsGroup(h, "streams-txn-abort", 6)
	commitTxnOffsets(h, "streams-txn-abort", 10, "bar-0")
	emptyStreamsGroup(h, "streams-txn-commit", 7)
	commitTxnOffsets(h, "streams-txn-commit", 11, "bar-0")
	for _, id := range []string{"consumer", "classic"} {
		st, ok := h.s.GroupState(id)
		require.True(t, ok, id)
		require.Equal(t, StateEmpty, st, id)
	}
	require.True(t, h.s.HasOpenTransaction("streams-txn-abort"))

	steps := []struct {
		name string
		do   func()
		want []GroupEpoch
	}{
		{"initial", func() {}, []GroupEpoch{{"streams-eligible", 4}, {"streams-uncertain", EpochUncertain}, {"streams-zero", 0}}},
		{"an aborted transaction leaves nothing", func() { endTxnMarker(h, "streams-txn-abort", 10, false) },
			[]GroupEpoch{{"streams-eligible", 4}, {"streams-txn-abort", 6}, {"streams-uncertain", EpochUncertain}, {"streams-zero", 0}}},
		{"a committed transaction leaves an offset", func() { endTxnMarker(h, "streams-txn-commit", 11, true) },
			[]GroupEpoch{{"streams-eligible", 4}, {"streams-txn-abort", 6}, {"streams-uncertain", EpochUncertain}, {"streams-zero", 0}}},
		{"the last member leaves", func() { h.streamsHeartbeat("streams-member", "m1", -1) },
			[]GroupEpoch{{"streams-eligible", 4}, {"streams-member", 3}, {"streams-txn-abort", 6}, {"streams-uncertain", EpochUncertain}, {"streams-zero", 0}}},
		{"the sweep expires the last offsets and defers the tombstones", func() {
			h.advance(testT + 60_000)
			sweep := h.s.CleanupGroupMetadata(h.nowMs)
			assert.Equal(t, []string{"streams-offsets/bar-0", "streams-txn-commit/bar-0"}, offsetTombstoneKeys(sweep.Records))
			assert.Equal(t, []string{"classic", "consumer", "streams-none"}, sweep.Response.GroupsDeleted)
			applyResult(h, sweep)
		}, []GroupEpoch{{"streams-eligible", 4}, {"streams-member", 3}, {"streams-offsets", 5}, {"streams-txn-abort", 6},
			{"streams-txn-commit", 7}, {"streams-uncertain", EpochUncertain}, {"streams-zero", 0}}},
		{"a stored epoch cleared, a member joined, an offset committed", func() {
			h.setStoredEpoch("streams-zero", EpochNone)
			h.streamsJoin("streams-eligible", "m2", topo(3, "foo"))
			h.commit("streams-offsets", "", -1, h.nowMs, "foo-1")
		}, []GroupEpoch{{"streams-member", 3}, {"streams-txn-abort", 6}, {"streams-txn-commit", 7}, {"streams-uncertain", EpochUncertain}}},
		{"a stored epoch rewritten", func() { h.setStoredEpoch("streams-member", 8) },
			[]GroupEpoch{{"streams-member", 8}, {"streams-txn-abort", 6}, {"streams-txn-commit", 7}, {"streams-uncertain", EpochUncertain}}},
		{"a deleted group", func() {
			res, err := h.s.DeleteGroups([]string{"streams-txn-abort"})
			mustApply(h, res, err)
		}, []GroupEpoch{{"streams-member", 8}, {"streams-txn-commit", 7}, {"streams-uncertain", EpochUncertain}}},
	}
	for _, step := range steps {
		step.do()
		before := h.s.Snapshot()
		got := requireScanAgrees(t, h.s, "%s", step.name)
		requireSnapshotEqual(t, before, h.s.Snapshot(), "%s: the scan mutated the shard", step.name)
		assert.Equal(t, step.want, got, step.name)
		requireIndexesConsistent(t, h.s, "%s", step.name)
		assert.Equal(t, got, h.rebuild().ListStreamsGroupsNeedingTopologyCleanup(), "%s: rebuilt shard", step.name)
	}
}

// TestClearStoredDescriptionTopologyEpoch proves PR #22622's
// clearStoredDescriptionTopologyEpoch cases (docs/kip1331.md §6.3): a matching
// epoch gives one StreamsGroupMetadata record with stored = -1 that keeps
// every other field (and the group then reads -1); a mismatch, a missing
// group, a group with nothing stored and a non-streams group give nothing.
func TestClearStoredDescriptionTopologyEpoch(t *testing.T) {
	tests := []struct {
		name        string
		setup       func(h *harness)
		observed    int32
		wantCleared bool
	}{
		{"epoch matches", func(h *harness) { emptyStreamsGroup(h, "foo", 4) }, 4, true},
		{"uncertain epoch matches", func(h *harness) { emptyStreamsGroup(h, "foo", EpochUncertain) }, EpochUncertain, true},
		{"epoch zero matches", func(h *harness) { emptyStreamsGroup(h, "foo", 0) }, 0, true},
		{"epoch mismatch", func(h *harness) { emptyStreamsGroup(h, "foo", 4) }, 3, false},
		{"epoch advanced past the observed one", func(h *harness) { emptyStreamsGroup(h, "foo", 5) }, 4, false},
		{"nothing stored", func(h *harness) { emptyStreamsGroup(h, "foo", EpochNone) }, EpochNone, false},
		{"missing group", func(h *harness) {}, 4, false},
		{"consumer group", func(h *harness) { h.consumerJoin("foo", "c1", "foo") }, 4, false},
		{"classic group", func(h *harness) { h.commit("foo", "", -1, h.nowMs, "foo-0") }, 4, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newCleanupHarness(t)
			tc.setup(h)
			if typ, ok := h.s.GroupType("foo"); ok && typ == Streams {
				setDescriptionEpochs(h, "foo", storedEpochOf(t, h.s, "foo"), 2)
			}
			res, err := pureCall(t, h.s, "ClearStoredDescriptionTopologyEpochBatch", infallible(func() Result[[]string] {
				return h.s.ClearStoredDescriptionTopologyEpochBatch([]GroupEpoch{{"foo", tc.observed}})
			}))
			require.NoError(t, err)
			assert.Empty(t, res.Timers)
			if !tc.wantCleared {
				assert.Empty(t, res.Records, formatRecords(res.Records))
				assert.Empty(t, res.Response)
				return
			}
			before, _ := h.s.DescribeGroup("foo")
			require.NotZero(t, before.Epoch, "the kept fields must not be zero, or keeping them proves nothing")
			require.NotZero(t, before.MetadataHash)
			require.NotZero(t, before.ValidatedTopologyEpoch)
			assert.Equal(t, []Record{&StreamsGroupMetadata{
				Group: "foo", Epoch: before.Epoch, MetadataHash: before.MetadataHash, ValidatedTopologyEpoch: before.ValidatedTopologyEpoch,
				StoredDescriptionTopologyEpoch: EpochNone, FailedDescriptionTopologyEpoch: 2,
			}}, res.Records)
			assert.Equal(t, []string{"foo"}, res.Response)
			require.Equal(t, []GroupEpoch{{"foo", tc.observed}}, requireScanAgrees(t, h.s, "before the clear"))

			applyResult(h, res)
			after, _ := h.s.DescribeGroup("foo")
			want := before
			want.StoredDescriptionTopologyEpoch = EpochNone
			assert.Equal(t, want, after, "only the stored epoch changes")
			assert.Empty(t, requireScanAgrees(t, h.s, "after the clear"))
			requireSnapshotEqual(t, h.s.Snapshot(), h.rebuild().Snapshot(), "rebuild")

			again, _ := pureCall(t, h.s, "ClearStoredDescriptionTopologyEpochBatch", infallible(func() Result[[]string] {
				return h.s.ClearStoredDescriptionTopologyEpochBatch([]GroupEpoch{{"foo", tc.observed}})
			}))
			assert.Empty(t, again.Records, "a repeated clear writes nothing")
		})
	}
}

// TestClearStoredDescriptionTopologyEpochBatch proves PR #22676's batch
// form: one Result with one record per group whose epoch still matches, in
// the order observed, and nothing for the others.
func TestClearStoredDescriptionTopologyEpochBatch(t *testing.T) {
	h := newCleanupHarness(t)
	emptyStreamsGroup(h, "a", 4)
	emptyStreamsGroup(h, "b", EpochUncertain)
	emptyStreamsGroup(h, "c", 0)
	emptyStreamsGroup(h, "d", 5)
	h.consumerJoin("f", "c1", "foo")
	observed := []GroupEpoch{{"c", 0}, {"a", 4}, {"d", 4}, {"e", 4}, {"b", EpochUncertain}, {"f", 1}}

	want := []Record{
		metadataWithEpochs(t, h.s, "c", EpochNone, EpochNone),
		metadataWithEpochs(t, h.s, "a", EpochNone, EpochNone),
		metadataWithEpochs(t, h.s, "b", EpochNone, EpochNone),
	}
	res, _ := pureCall(t, h.s, "ClearStoredDescriptionTopologyEpochBatch", infallible(func() Result[[]string] {
		return h.s.ClearStoredDescriptionTopologyEpochBatch(observed)
	}))
	assert.Equal(t, want, res.Records)
	assert.Equal(t, []string{"c", "a", "b"}, res.Response)

	applyResult(h, res)
	for _, id := range []string{"a", "b", "c"} {
		assert.Equal(t, EpochNone, storedEpochOf(t, h.s, id), id)
	}
	assert.Equal(t, int32(5), storedEpochOf(t, h.s, "d"), "a mismatch is left alone")
	assert.Equal(t, []GroupEpoch{{"d", 5}}, requireScanAgrees(t, h.s, "after the clear"))
	requireSnapshotEqual(t, h.s.Snapshot(), h.rebuild().Snapshot(), "rebuild")
}

// TestMarkStoredDescriptionTopologyEpochUncertainBatchRechecksEligibility
// proves the v2 cycle's mark (PR #22777) re-checks each observed group
// against the latest state: a group that gained a member, an offset or an
// open transaction since the scan, whose stored epoch changed, or that was
// deleted, is neither marked nor returned; a group already at -2 is
// returned without a write.
func TestMarkStoredDescriptionTopologyEpochUncertainBatchRechecksEligibility(t *testing.T) {
	h := newCleanupHarness(t)
	for _, id := range []string{"committed", "deleted", "joined", "repushed", "steady", "transacting"} {
		emptyStreamsGroup(h, id, 4)
	}
	emptyStreamsGroup(h, "uncertain", EpochUncertain)
	observed := requireScanAgrees(t, h.s, "the scan")
	require.Len(t, observed, 7)

	h.commit("committed", "", -1, h.nowMs, "bar-0")
	res, err := h.s.DeleteGroups([]string{"deleted"})
	mustApply(h, res, err)
	h.streamsJoin("joined", "m2", topo(3, "foo"))
	h.setStoredEpoch("repushed", 5)
	commitTxnOffsets(h, "transacting", 10, "bar-0")

	stale := append(slices.Clone(observed), GroupEpoch{"steady", 3}) // an epoch the group no longer has
	mark, _ := pureCall(t, h.s, "MarkStoredDescriptionTopologyEpochUncertainBatch", infallible(func() Result[[]GroupEpoch] {
		return h.s.MarkStoredDescriptionTopologyEpochUncertainBatch(stale)
	}))
	assert.Equal(t, []GroupEpoch{{"steady", 4}, {"uncertain", EpochUncertain}}, mark.Response)
	assert.Equal(t, []Record{metadataWithEpochs(t, h.s, "steady", EpochUncertain, EpochNone)}, mark.Records)

	applyResult(h, mark)
	assert.Equal(t, EpochUncertain, storedEpochOf(t, h.s, "steady"))
	assert.Equal(t, int32(5), storedEpochOf(t, h.s, "repushed"))
	assert.Equal(t, int32(4), storedEpochOf(t, h.s, "joined"))
	assert.Equal(t, []GroupEpoch{{"repushed", 5}, {"steady", EpochUncertain}, {"uncertain", EpochUncertain}},
		requireScanAgrees(t, h.s, "after the mark"), "a marked group stays a cleanup candidate")

	again, _ := pureCall(t, h.s, "MarkStoredDescriptionTopologyEpochUncertainBatch", infallible(func() Result[[]GroupEpoch] {
		return h.s.MarkStoredDescriptionTopologyEpochUncertainBatch([]GroupEpoch{{"steady", 4}})
	}))
	assert.Empty(t, again.Records, "the observed epoch is gone once marked")
	assert.Empty(t, again.Response)
	requireSnapshotEqual(t, h.s.Snapshot(), h.rebuild().Snapshot(), "rebuild")
}

// TestMarkStoredDescriptionTopologyEpochUncertainForDelete proves the v2
// DeleteGroups mark ignores offsets and open transactions (DeleteGroups
// removes them) but still requires an empty streams group whose stored
// epoch equals the observed one, while the cycle's mark refuses the same
// groups for their offsets.
func TestMarkStoredDescriptionTopologyEpochUncertainForDelete(t *testing.T) {
	h := newCleanupHarness(t)
	emptyStreamsGroup(h, "with-offsets", 4)
	h.commit("with-offsets", "", -1, h.nowMs, "bar-0")
	emptyStreamsGroup(h, "with-txn", 2)
	commitTxnOffsets(h, "with-txn", 10, "bar-0")
	emptyStreamsGroup(h, "uncertain", EpochUncertain)
	h.commit("uncertain", "", -1, h.nowMs, "foo-0")
	h.streamsJoin("member", "m1", topo(3, "foo"))
	h.setStoredEpoch("member", 4)
	emptyStreamsGroup(h, "moved", 5)
	emptyStreamsGroup(h, "none", EpochNone)
	h.consumerJoin("consumer", "c1", "foo")
	h.consumerHeartbeat("consumer", "c1", -1, nil)

	ids := []string{"with-offsets", "with-txn", "uncertain", "member", "moved", "none", "missing", "consumer"}
	pre := h.s.StreamsGroupsWithStoredTopologyDescription(ids)
	require.Equal(t, []GroupEpoch{{"with-offsets", 4}, {"with-txn", 2}, {"uncertain", EpochUncertain}, {"moved", 5}}, pre,
		"the pre-delete read: empty streams groups with a stored epoch, in request order")
	observed := append(slices.Clone(pre), GroupEpoch{"member", 4}, GroupEpoch{"none", EpochNone}, GroupEpoch{"missing", 4}, GroupEpoch{"consumer", 4})
	observed[3].Epoch = 4 // "moved" was pushed to 5 after the read saw 4

	cycle, _ := pureCall(t, h.s, "MarkStoredDescriptionTopologyEpochUncertainBatch", infallible(func() Result[[]GroupEpoch] {
		return h.s.MarkStoredDescriptionTopologyEpochUncertainBatch(observed)
	}))
	assert.Empty(t, cycle.Records, "the cycle's mark requires no offsets")
	assert.Empty(t, cycle.Response)

	res, _ := pureCall(t, h.s, "MarkStoredDescriptionTopologyEpochUncertainForDelete", infallible(func() Result[[]GroupEpoch] {
		return h.s.MarkStoredDescriptionTopologyEpochUncertainForDelete(observed)
	}))
	assert.Equal(t, []GroupEpoch{{"with-offsets", 4}, {"with-txn", 2}, {"uncertain", EpochUncertain}}, res.Response)
	assert.Equal(t, []Record{
		metadataWithEpochs(t, h.s, "with-offsets", EpochUncertain, EpochNone),
		metadataWithEpochs(t, h.s, "with-txn", EpochUncertain, EpochNone),
	}, res.Records)
	applyResult(h, res)
	assert.Equal(t, EpochUncertain, storedEpochOf(t, h.s, "with-offsets"))
	assert.Equal(t, EpochUncertain, storedEpochOf(t, h.s, "with-txn"))
	assert.Equal(t, int32(4), storedEpochOf(t, h.s, "member"))
	assert.Equal(t, int32(5), storedEpochOf(t, h.s, "moved"))
	requireIndexesConsistent(t, h.s, "after the mark")
	requireSnapshotEqual(t, h.s.Snapshot(), h.rebuild().Snapshot(), "rebuild")
}

// TestFinalizeStoredDescriptionTopologyEpochAfterDeleteBatch proves the v2
// cycle's last write: a group still at -2 goes to -1, a group whose stored
// epoch advanced (>= 0) goes back to -2, and a group at -1, a missing group
// or a non-streams group get nothing; every other field is kept.
func TestFinalizeStoredDescriptionTopologyEpochAfterDeleteBatch(t *testing.T) {
	h := newCleanupHarness(t)
	emptyStreamsGroup(h, "uncertain", EpochUncertain)
	setDescriptionEpochs(h, "uncertain", EpochUncertain, 1)
	h.streamsJoin("advanced", "m1", topo(3, "foo"))
	setDescriptionEpochs(h, "advanced", 7, 2)
	emptyStreamsGroup(h, "advanced-to-zero", 0)
	emptyStreamsGroup(h, "cleared", EpochNone)
	h.consumerJoin("consumer", "c1", "foo")

	ids := []string{"advanced", "cleared", "uncertain", "missing", "consumer", "advanced-to-zero"}
	res, _ := pureCall(t, h.s, "FinalizeStoredDescriptionTopologyEpochAfterDeleteBatch", infallible(func() Result[[]GroupEpoch] {
		return h.s.FinalizeStoredDescriptionTopologyEpochAfterDeleteBatch(ids)
	}))
	assert.Equal(t, []GroupEpoch{{"advanced", EpochUncertain}, {"uncertain", EpochNone}, {"advanced-to-zero", EpochUncertain}}, res.Response)
	assert.Equal(t, []Record{
		metadataWithEpochs(t, h.s, "advanced", EpochUncertain, 2),
		metadataWithEpochs(t, h.s, "uncertain", EpochNone, 1),
		metadataWithEpochs(t, h.s, "advanced-to-zero", EpochUncertain, EpochNone),
	}, res.Records)

	applyResult(h, res)
	assert.Equal(t, EpochNone, storedEpochOf(t, h.s, "uncertain"))
	assert.Equal(t, EpochUncertain, storedEpochOf(t, h.s, "advanced"))
	assert.Equal(t, EpochUncertain, storedEpochOf(t, h.s, "advanced-to-zero"))
	assert.Equal(t, EpochNone, storedEpochOf(t, h.s, "cleared"))
	assert.Equal(t, []GroupEpoch{{"advanced-to-zero", EpochUncertain}}, requireScanAgrees(t, h.s, "after finalize"),
		"a re-marked empty group is cleaned up again; a group at -1 is not")
	requireSnapshotEqual(t, h.s.Snapshot(), h.rebuild().Snapshot(), "rebuild")
}

// TestFinalizeStoredDescriptionTopologyEpochAfterConcurrentPush proves the
// v2 cycle closes the v1 data-loss race (docs/kip1331.md §1.8, §2.9) at the
// shard: scan, mark -2, a member joins and its push commits stored = 5
// while the delete runs, then finalize puts -2 back, so the group is
// solicited and cleaned up again, never left claiming a deleted row; the
// undisturbed group goes to -1 and the next sweep tombstones it.
func TestFinalizeStoredDescriptionTopologyEpochAfterConcurrentPush(t *testing.T) {
	h := newCleanupHarness(t)
	emptyStreamsGroup(h, "revived", 4)
	emptyStreamsGroup(h, "idle", 4)

	observed := requireScanAgrees(t, h.s, "the scan")
	require.Equal(t, []GroupEpoch{{"idle", 4}, {"revived", 4}}, observed)
	mark, _ := pureCall(t, h.s, "MarkStoredDescriptionTopologyEpochUncertainBatch", infallible(func() Result[[]GroupEpoch] {
		return h.s.MarkStoredDescriptionTopologyEpochUncertainBatch(observed)
	}))
	require.Equal(t, observed, applyResult(h, mark))

	// The plugin delete is in flight; a member joins and pushes epoch 5.
	h.streamsJoin("revived", "m2", topo(5, "foo"))
	res, err := pureCall(t, h.s, "SetStoredDescriptionTopologyEpoch", func() (Result[struct{}], error) {
		return h.s.SetStoredDescriptionTopologyEpoch("revived", 5)
	})
	mustApply(h, res, err)
	require.Equal(t, int32(5), storedEpochOf(t, h.s, "revived"), "a push moves -2 forward")

	// The v1 clear would do nothing here and leave "stored=5" over a deleted row.
	clear, _ := pureCall(t, h.s, "ClearStoredDescriptionTopologyEpochBatch", infallible(func() Result[[]string] {
		return h.s.ClearStoredDescriptionTopologyEpochBatch(observed)
	}))
	assert.Empty(t, clear.Response, "v1's conditional clear sees a mismatch for both")

	fin, _ := pureCall(t, h.s, "FinalizeStoredDescriptionTopologyEpochAfterDeleteBatch", infallible(func() Result[[]GroupEpoch] {
		return h.s.FinalizeStoredDescriptionTopologyEpochAfterDeleteBatch([]string{"idle", "revived"})
	}))
	assert.Equal(t, []GroupEpoch{{"idle", EpochNone}, {"revived", EpochUncertain}}, applyResult(h, fin))
	assert.Equal(t, EpochUncertain, storedEpochOf(t, h.s, "revived"))
	assert.Empty(t, requireScanAgrees(t, h.s, "after finalize"), "revived has a member; idle has nothing stored")

	sweep := h.s.CleanupGroupMetadata(h.nowMs)
	assert.Equal(t, []string{"idle"}, sweep.Response.GroupsDeleted)
	applyResult(h, sweep)
	h.streamsHeartbeat("revived", "m2", -1)
	assert.Equal(t, []GroupEpoch{{"revived", EpochUncertain}}, requireScanAgrees(t, h.s, "after the member left"))
	requireSnapshotEqual(t, h.s.Snapshot(), h.rebuild().Snapshot(), "rebuild")
}

// TestSetStoredDescriptionTopologyEpochOnlyMovesForward proves PR #22616's
// forward-only rule for the stored epoch: a newer epoch is written keeping
// every other field, and a slow push's older or equal epoch writes nothing;
// -2 and -1 are below every real epoch.
func TestSetStoredDescriptionTopologyEpochOnlyMovesForward(t *testing.T) {
	tests := []struct {
		from, epoch int32
		wantWrite   bool
	}{
		{EpochNone, 0, true},
		{EpochUncertain, 0, true},
		{EpochNone, 3, true},
		{EpochUncertain, 3, true},
		{3, 5, true},
		{5, 3, false},
		{5, 5, false},
		{0, 0, false},
		{5, 0, false},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("from=%d,epoch=%d", tc.from, tc.epoch), func(t *testing.T) {
			h := newCleanupHarness(t)
			h.streamsJoin("foo", "m1", topo(3, "foo")) // a push comes from a live member
			setDescriptionEpochs(h, "foo", tc.from, 2)
			res, err := pureCall(t, h.s, "SetStoredDescriptionTopologyEpoch", func() (Result[struct{}], error) {
				return h.s.SetStoredDescriptionTopologyEpoch("foo", tc.epoch)
			})
			require.NoError(t, err)
			if !tc.wantWrite {
				assert.Empty(t, res.Records, formatRecords(res.Records))
				return
			}
			assert.Equal(t, []Record{metadataWithEpochs(t, h.s, "foo", tc.epoch, 2)}, res.Records)
			applyResult(h, res)
			assert.Equal(t, tc.epoch, storedEpochOf(t, h.s, "foo"))
			d, _ := h.s.DescribeGroup("foo")
			assert.Equal(t, int32(2), d.FailedDescriptionTopologyEpoch, "the failed epoch is kept")
		})
	}
}

// TestSetFailedDescriptionTopologyEpochOnlyMovesForward proves the failed
// epoch only moves forward too, and that writing it keeps the stored epoch.
func TestSetFailedDescriptionTopologyEpochOnlyMovesForward(t *testing.T) {
	tests := []struct {
		from, epoch int32
		wantWrite   bool
	}{
		{EpochNone, 0, true},
		{EpochNone, 4, true},
		{4, 6, true},
		{4, 4, false},
		{4, 2, false},
		{4, 0, false},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("from=%d,epoch=%d", tc.from, tc.epoch), func(t *testing.T) {
			h := newCleanupHarness(t)
			h.streamsJoin("foo", "m1", topo(3, "foo"))
			setDescriptionEpochs(h, "foo", EpochUncertain, tc.from)
			res, err := pureCall(t, h.s, "SetFailedDescriptionTopologyEpoch", func() (Result[struct{}], error) {
				return h.s.SetFailedDescriptionTopologyEpoch("foo", tc.epoch)
			})
			require.NoError(t, err)
			if !tc.wantWrite {
				assert.Empty(t, res.Records, formatRecords(res.Records))
				return
			}
			assert.Equal(t, []Record{metadataWithEpochs(t, h.s, "foo", EpochUncertain, tc.epoch)}, res.Records)
			applyResult(h, res)
			d, _ := h.s.DescribeGroup("foo")
			assert.Equal(t, tc.epoch, d.FailedDescriptionTopologyEpoch)
			assert.Equal(t, EpochUncertain, d.StoredDescriptionTopologyEpoch, "the stored epoch is kept")
		})
	}
}

// TestSetDescriptionTopologyEpochErrors proves that a negative epoch is
// INVALID_REQUEST, that an unknown or non-streams group is
// GROUP_ID_NOT_FOUND (for the push path's mark too), and that a failed call
// returns no records and leaves the shard unchanged.
func TestSetDescriptionTopologyEpochErrors(t *testing.T) {
	ops := []struct {
		name string
		op   func(s *Shard, group string, epoch int32) (Result[struct{}], error)
	}{
		{"SetStoredDescriptionTopologyEpoch", (*Shard).SetStoredDescriptionTopologyEpoch},
		{"SetFailedDescriptionTopologyEpoch", (*Shard).SetFailedDescriptionTopologyEpoch},
	}
	tests := []struct {
		group string
		epoch int32
		want  *kerr.Error
	}{
		{"streams", EpochNone, kerr.InvalidRequest},
		{"streams", EpochUncertain, kerr.InvalidRequest},
		{"streams", -7, kerr.InvalidRequest},
		{"missing", 3, kerr.GroupIDNotFound},
		{"consumer", 3, kerr.GroupIDNotFound},
		{"classic", 3, kerr.GroupIDNotFound},
	}
	h := newCleanupHarness(t)
	h.streamsJoin("streams", "m1", topo(3, "foo"))
	setDescriptionEpochs(h, "streams", 2, 1)
	h.consumerJoin("consumer", "c1", "foo")
	h.commit("classic", "", -1, h.nowMs, "foo-0")
	for _, o := range ops {
		for _, tc := range tests {
			t.Run(fmt.Sprintf("%s/%s/epoch=%d", o.name, tc.group, tc.epoch), func(t *testing.T) {
				_, err := pureCall(t, h.s, o.name, func() (Result[struct{}], error) { return o.op(h.s, tc.group, tc.epoch) })
				require.ErrorIs(t, err, tc.want)
			})
		}
	}
	for _, group := range []string{"missing", "consumer", "classic"} {
		t.Run("MarkStoredDescriptionTopologyEpochUncertain/"+group, func(t *testing.T) {
			_, err := pureCall(t, h.s, "MarkStoredDescriptionTopologyEpochUncertain", func() (Result[struct{}], error) {
				return h.s.MarkStoredDescriptionTopologyEpochUncertain(group)
			})
			require.ErrorIs(t, err, kerr.GroupIDNotFound)
		})
	}
}

// TestMarkStoredDescriptionTopologyEpochUncertain proves the v2 push path's
// first write: only a group with nothing stored (-1) is marked -2, keeping
// every other field; -2 and real epochs are left alone.
func TestMarkStoredDescriptionTopologyEpochUncertain(t *testing.T) {
	for _, tc := range []struct {
		from      int32
		wantWrite bool
	}{{EpochNone, true}, {EpochUncertain, false}, {0, false}, {4, false}} {
		t.Run(fmt.Sprintf("from=%d", tc.from), func(t *testing.T) {
			h := newCleanupHarness(t)
			h.streamsJoin("foo", "m1", topo(3, "foo"))
			setDescriptionEpochs(h, "foo", tc.from, 1)
			res, err := pureCall(t, h.s, "MarkStoredDescriptionTopologyEpochUncertain", func() (Result[struct{}], error) {
				return h.s.MarkStoredDescriptionTopologyEpochUncertain("foo")
			})
			require.NoError(t, err)
			if !tc.wantWrite {
				assert.Empty(t, res.Records, formatRecords(res.Records))
				return
			}
			assert.Equal(t, []Record{metadataWithEpochs(t, h.s, "foo", EpochUncertain, 1)}, res.Records)
			applyResult(h, res)
			assert.Equal(t, EpochUncertain, storedEpochOf(t, h.s, "foo"))
		})
	}
}

// TestStreamsGroupsWithStoredTopologyDescription proves DeleteGroups'
// pre-delete read (docs/kip1331.md §2.7): of the listed ids, in request order,
// the empty streams groups whose stored epoch is not -1, offsets or not.
func TestStreamsGroupsWithStoredTopologyDescription(t *testing.T) {
	h := newCleanupHarness(t)
	emptyStreamsGroup(h, "a", 4)
	emptyStreamsGroup(h, "b", EpochNone)
	h.streamsJoin("c", "m1", topo(3, "foo"))
	h.setStoredEpoch("c", 3)
	emptyStreamsGroup(h, "f", EpochUncertain)
	h.commit("f", "", -1, h.nowMs, "foo-0")
	h.consumerJoin("e", "c1", "foo")
	h.consumerHeartbeat("e", "c1", -1, nil)
	assert.Equal(t, []GroupEpoch{{"f", EpochUncertain}, {"a", 4}},
		h.s.StreamsGroupsWithStoredTopologyDescription([]string{"f", "b", "c", "d", "e", "a"}))
	assert.Empty(t, h.s.StreamsGroupsWithStoredTopologyDescription(nil))
}

// eligibilityWorkload drives random operations against one shard and
// checks the eligibility index against Kafka's full scan after each.
type eligibilityWorkload struct {
	t      *testing.T
	h      *harness
	r      *rand.Rand
	seed   uint64
	step   int
	trace  []string
	epochs map[string]int32 // "group/member" → the member epoch the shard last answered
	seen   map[string]int   // how often each interesting case happened, for the non-vacuity check
}

var (
	elGroups  = []string{"g0", "g1", "g2", "g3", "g4", "g5"}
	elMembers = []string{"m0", "m1"}
	// elTopologies weights joins towards the first topology; the second
	// epoch makes later joins bump the group's topology.
	elTopologies = []*Topology{topo(1, "t0"), topo(1, "t0"), topo(2, "t0", "t1")}
	elSpecs      = []string{"t0-0", "t0-1", "t1-0", "t1-1"}
)

const elTraceMax = 30 // operations kept for the failure report

func newEligibilityWorkload(t *testing.T, seed uint64, seen map[string]int) *eligibilityWorkload {
	r := rand.New(rand.NewPCG(seed, 0x1331))
	cfg := testConfig()
	cfg.OffsetsRetentionMs = 20_000
	cfg.OffsetsRetentionCheckIntervalMs = 3_000
	cfg.ConsumerSessionTimeoutMs, cfg.StreamsSessionTimeoutMs = 9_000, 8_000
	cfg.TopologyPluginConfigured = r.IntN(4) != 0
	h := newHarness(t, cfg, map[string]int32{"t0": 2, "t1": 2})
	h.timers.apply(h.s.OnLoaded(h.nowMs))
	return &eligibilityWorkload{t: t, h: h, r: r, seed: seed, epochs: map[string]int32{}, seen: seen}
}

func (w *eligibilityWorkload) ctx() string { return fmt.Sprintf("seed=%d step=%d", w.seed, w.step) }

func (w *eligibilityWorkload) note(format string, args ...any) {
	w.trace = append(w.trace, fmt.Sprintf("%4d t=%d ", w.step, w.h.nowMs)+fmt.Sprintf(format, args...))
	if len(w.trace) > elTraceMax {
		w.trace = w.trace[1:]
	}
}

func (w *eligibilityWorkload) pick(xs []string) string { return xs[w.r.IntN(len(xs))] }

// randomEpoch is a stored-epoch value: -2, -1 or 0..5.
func (w *eligibilityWorkload) randomEpoch() int32 { return int32(w.r.IntN(8)) - 2 }

// elApply runs op, which must not mutate the shard and must return no
// records when it fails, then appends and replays its result.
func elApply[T any](w *eligibilityWorkload, what string, op func() (Result[T], error)) (T, bool) {
	w.t.Helper()
	before := w.h.s.Snapshot()
	res, err := op()
	requireSnapshotEqual(w.t, before, w.h.s.Snapshot(), "%s: %s mutated the shard", w.ctx(), what)
	if err != nil {
		require.Empty(w.t, res.Records, "%s: failed %s returned records", w.ctx(), what)
		var zero T
		return zero, false
	}
	return applyResult(w.h, res), true
}

// perturb turns a scan into what a cycle might hold by the time it writes:
// some epochs wrong, some entries dropped, a stray group, another order.
func (w *eligibilityWorkload) perturb(observed []GroupEpoch) []GroupEpoch {
	var out []GroupEpoch
	for _, ge := range observed {
		switch w.r.IntN(6) {
		case 0:
			continue
		case 1:
			ge.Epoch = w.randomEpoch()
		}
		out = append(out, ge)
	}
	if w.r.IntN(2) == 0 {
		out = append(out, GroupEpoch{w.pick(elGroups), w.randomEpoch()})
	}
	w.r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// elGroupState is a group's stored epoch, member count and whether it is a
// streams group, before an operation.
type elGroupState struct {
	stored  int32
	members int
	streams bool
}

func (w *eligibilityWorkload) states() map[string]elGroupState {
	out := map[string]elGroupState{}
	for _, id := range elGroups {
		if d, ok := w.h.s.DescribeGroup(id); ok {
			out[id] = elGroupState{d.StoredDescriptionTopologyEpoch, len(d.Members), d.Type == Streams}
		}
	}
	return out
}

func (w *eligibilityWorkload) randomSpecs() []string {
	specs := []string{w.pick(elSpecs)}
	if w.r.IntN(2) == 0 {
		specs = append(specs, w.pick(elSpecs))
	}
	return slices.Compact(slices.Sorted(slices.Values(specs)))
}

// knownMember returns a member of group the workload believes joined.
func (w *eligibilityWorkload) knownMember(group string) (string, int32, bool) {
	for _, m := range elMembers {
		if e, ok := w.epochs[group+"/"+m]; ok {
			return m, e, true
		}
	}
	return "", 0, false
}

// heartbeat joins (unknown member), heartbeats or leaves, and remembers the
// epoch the shard answered.
func (w *eligibilityWorkload) heartbeat(streams bool) {
	group, member := w.pick(elGroups), w.pick(elMembers)
	key := group + "/" + member
	known, joined := w.epochs[key]
	epoch := known
	switch {
	case !joined:
		epoch = 0
	case w.r.IntN(3) == 0:
		epoch = -1
	}
	var resp int32
	var ok bool
	if streams {
		req := StreamsGroupHeartbeatRequest{GroupID: group, MemberID: member, MemberEpoch: epoch, ProcessID: "p-" + member, RebalanceTimeoutMs: 1_000, Version: 1}
		if epoch == 0 {
			req.Topology = elTopologies[w.r.IntN(len(elTopologies))]
		}
		w.note("streams heartbeat %s epoch=%d topology=%s", key, epoch, FormatTopology(req.Topology))
		var r StreamsGroupHeartbeatResponse
		r, ok = elApply(w, "StreamsGroupHeartbeat", func() (Result[StreamsGroupHeartbeatResponse], error) {
			return w.h.s.StreamsGroupHeartbeat(w.h.nowMs, req)
		})
		resp = r.MemberEpoch
	} else {
		req := ConsumerGroupHeartbeatRequest{RebalanceTimeoutMs: RebalanceTimeoutNotSent, GroupID: group, MemberID: member, MemberEpoch: epoch, ClientID: "c"}
		if epoch > 0 {
			req.TopicPartitions = ownedBy(w.h.s, group, member)
		}
		if epoch == 0 {
			req.SubscribedTopicNames, req.RebalanceTimeoutMs = []string{w.pick([]string{"t0", "t1"})}, 1_000
		}
		w.note("consumer heartbeat %s epoch=%d", key, epoch)
		var r ConsumerGroupHeartbeatResponse
		r, ok = elApply(w, "ConsumerGroupHeartbeat", func() (Result[ConsumerGroupHeartbeatResponse], error) {
			return w.h.s.ConsumerGroupHeartbeat(w.h.nowMs, req)
		})
		resp = r.MemberEpoch
	}
	if !ok || resp < 0 {
		delete(w.epochs, key) // fenced by a session timeout, left, or refused: join again next time
		return
	}
	w.epochs[key] = resp
}

// do performs one random operation.
func (w *eligibilityWorkload) do() {
	t, h := w.t, w.h
	switch op := w.r.IntN(20); op {
	case 0, 1, 2:
		w.heartbeat(true)
	case 3:
		w.heartbeat(false)
	case 4, 5:
		group := w.pick(elGroups)
		req := OffsetCommitRequest{GroupID: group, MemberEpoch: -1, RetentionTimeMs: -1, Topics: commitTopics(t, w.randomSpecs()...)}
		if m, e, ok := w.knownMember(group); ok && w.r.IntN(2) == 0 {
			req.MemberID, req.MemberEpoch = m, e
		}
		w.note("commit %s member=%q epoch=%d", group, req.MemberID, req.MemberEpoch)
		elApply(w, "CommitOffsets", func() (Result[OffsetCommitResponse], error) { return h.s.CommitOffsets(h.nowMs, req) })
	case 6:
		group, producer := w.pick(elGroups), int64(1+w.r.IntN(3))
		req := TxnOffsetCommitRequest{GroupID: group, ProducerID: producer, MemberEpoch: -1, Topics: commitTopics(t, w.randomSpecs()...)}
		w.note("txn commit %s producer=%d", group, producer)
		elApply(w, "CommitTransactionalOffsets", func() (Result[OffsetCommitResponse], error) {
			return h.s.CommitTransactionalOffsets(h.nowMs, req)
		})
	case 7:
		group, producer, commit := w.pick(elGroups), int64(1+w.r.IntN(3)), w.r.IntN(2) == 0
		w.note("end txn %s producer=%d commit=%v", group, producer, commit)
		elApply(w, "EndTransaction", func() (Result[struct{}], error) { return h.s.EndTransaction(group, producer, commit) })
	case 8:
		// Timers fire through RunTimer: sweeps and session timeouts.
		to := h.nowMs + 1 + int64(w.r.IntN(12_000))
		w.note("advance to %d", to)
		h.advance(to)
	case 9:
		w.note("sweep")
		sweep := h.s.CleanupGroupMetadata(h.nowMs)
		w.seen["sweep deferred a group"] += len(sweep.Response.GroupsDeferred)
		elApply(w, "CleanupGroupMetadata", infallible(func() Result[SweepResponse] { return sweep }))
	case 10, 11:
		group, stored := w.pick(elGroups), w.randomEpoch()
		typ, exists := h.s.GroupType(group)
		switch {
		case exists && typ == Streams:
			d, _ := h.s.DescribeGroup(group)
			w.note("replay StreamsGroupMetadata %s stored=%d", group, stored)
			h.replay(&StreamsGroupMetadata{Group: group, Epoch: d.Epoch, MetadataHash: d.MetadataHash,
				ValidatedTopologyEpoch: d.ValidatedTopologyEpoch, StoredDescriptionTopologyEpoch: stored, FailedDescriptionTopologyEpoch: d.FailedDescriptionTopologyEpoch})
		case !exists:
			// A group record with no members, as a log from another broker may hold.
			w.note("replay new StreamsGroupMetadata %s stored=%d", group, stored)
			h.replay(&StreamsGroupMetadata{Group: group, Epoch: int32(w.r.IntN(3)), StoredDescriptionTopologyEpoch: stored, FailedDescriptionTopologyEpoch: int32(w.r.IntN(4)) - 1})
		}
	case 12:
		pre, observed := w.states(), w.perturb(h.s.ListStreamsGroupsNeedingTopologyCleanup())
		w.note("clear %v", observed)
		cleared, _ := elApply(w, "ClearStoredDescriptionTopologyEpochBatch", infallible(func() Result[[]string] {
			return h.s.ClearStoredDescriptionTopologyEpochBatch(observed)
		}))
		for _, id := range cleared {
			// docs/invariants.md invariant 2: only the observed epoch is ever cleared.
			require.True(t, slices.Contains(observed, GroupEpoch{id, pre[id].stored}) && pre[id].stored != EpochNone && pre[id].streams,
				"%s: cleared %s at %+v, observed %v", w.ctx(), id, pre[id], observed)
			require.Equal(t, EpochNone, storedEpochOf(t, h.s, id))
			w.seen["clear wrote"]++
		}
	case 13:
		eligible := h.s.ListStreamsGroupsNeedingTopologyCleanup()
		observed := w.perturb(eligible)
		w.note("mark %v", observed)
		marked, _ := elApply(w, "MarkStoredDescriptionTopologyEpochUncertainBatch", infallible(func() Result[[]GroupEpoch] {
			return h.s.MarkStoredDescriptionTopologyEpochUncertainBatch(observed)
		}))
		for _, ge := range marked {
			require.True(t, slices.Contains(eligible, ge), "%s: marked %v, which was not eligible at that epoch: %v", w.ctx(), ge, eligible)
			require.Equal(t, EpochUncertain, storedEpochOf(t, h.s, ge.GroupID))
			w.seen["mark marked"]++
		}
	case 14:
		pre := w.states()
		ids := slices.Clone(elGroups)
		w.r.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
		observed := w.perturb(h.s.StreamsGroupsWithStoredTopologyDescription(ids[:1+w.r.IntN(len(ids))]))
		w.note("mark for delete %v", observed)
		marked, _ := elApply(w, "MarkStoredDescriptionTopologyEpochUncertainForDelete", infallible(func() Result[[]GroupEpoch] {
			return h.s.MarkStoredDescriptionTopologyEpochUncertainForDelete(observed)
		}))
		for _, ge := range marked {
			p := pre[ge.GroupID]
			require.True(t, p.streams && p.members == 0 && p.stored == ge.Epoch && ge.Epoch != EpochNone,
				"%s: marked %v for delete from %+v", w.ctx(), ge, p)
			w.seen["mark for delete marked"]++
		}
	case 15:
		pre := w.states()
		ids := slices.Clone(elGroups)
		w.r.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
		ids = append(ids[:w.r.IntN(len(ids)+1)], "absent")
		w.note("finalize %v", ids)
		final, _ := elApply(w, "FinalizeStoredDescriptionTopologyEpochAfterDeleteBatch", infallible(func() Result[[]GroupEpoch] {
			return h.s.FinalizeStoredDescriptionTopologyEpochAfterDeleteBatch(ids)
		}))
		for _, ge := range final {
			p := pre[ge.GroupID]
			want := EpochNone
			if p.stored >= 0 {
				want = EpochUncertain
			}
			require.True(t, p.streams && p.stored != EpochNone && ge.Epoch == want, "%s: finalize %v from %+v", w.ctx(), ge, p)
			w.seen[fmt.Sprintf("finalize to %d", ge.Epoch)]++
		}
	case 16, 17:
		group, epoch, failed := w.pick(elGroups), int32(w.r.IntN(9))-2, w.r.IntN(3) == 0
		pre := w.states()[group]
		w.note("set stored/failed=%v %s %d", failed, group, epoch)
		op := h.s.SetStoredDescriptionTopologyEpoch
		if failed {
			op = h.s.SetFailedDescriptionTopologyEpoch
		}
		_, ok := elApply(w, "SetStored/FailedDescriptionTopologyEpoch", func() (Result[struct{}], error) { return op(group, epoch) })
		require.Equal(t, pre.streams && epoch >= 0, ok, "%s: set %s %d from %+v", w.ctx(), group, epoch, pre)
		if ok && !failed {
			require.Equal(t, max(storedRank(pre.stored), int64(epoch)), storedRank(storedEpochOf(t, h.s, group)), "%s: forward only", w.ctx())
			w.seen["set stored"]++
		}
	case 18:
		group := w.pick(elGroups)
		w.note("push-path mark %s", group)
		elApply(w, "MarkStoredDescriptionTopologyEpochUncertain", func() (Result[struct{}], error) {
			return h.s.MarkStoredDescriptionTopologyEpochUncertain(group)
		})
	case 19:
		group := w.pick(elGroups)
		w.note("delete group %s", group)
		elApply(w, "DeleteGroups", func() (Result[[]DeleteGroupResult], error) { return h.s.DeleteGroups([]string{group}) })
	}
}

// check requires the index to equal Kafka's full scan, and a shard rebuilt
// from the log to hold the same index.
func (w *eligibilityWorkload) check() {
	t, s := w.t, w.h.s
	indexed := s.ListStreamsGroupsNeedingTopologyCleanup()
	require.Equal(t, s.listStreamsGroupsNeedingTopologyCleanupFullScan(), indexed, "%s: indexed scan differs from the full scan", w.ctx())
	rebuilt := w.h.rebuild()
	require.Equal(t, s.Snapshot().Eligible, rebuilt.Snapshot().Eligible, "%s: rebuilt shard's eligibility index", w.ctx())
	require.Equal(t, indexed, rebuilt.ListStreamsGroupsNeedingTopologyCleanup(), "%s: rebuilt shard's scan", w.ctx())
	if len(indexed) > 0 {
		w.seen["eligible"]++
	}
	s.groups.Ascend(func(g *group) bool {
		if g.typ == Streams && len(g.members) == 0 && g.storedEpoch != EpochNone && !s.offsets.GroupHasNoOffsets(g.id) {
			if s.offsets.HasOpenTransaction(g.id) {
				w.seen["excluded by an open transaction"]++
			} else {
				w.seen["excluded by offsets"]++
			}
		}
		if g.typ == Streams && len(g.members) > 0 && g.storedEpoch != EpochNone {
			w.seen["excluded by members"]++
		}
		return true
	})
}

// TestEligibilityIndexMatchesFullScanRandomWorkloads proves that the
// eligibility index maintained on replay always equals Kafka's
// scan-every-group listStreamsGroupsNeedingTopologyCleanup, and survives a
// rebuild from the log, over 200 seeded random workloads of joins, leaves,
// offset commits, transactions, sweeps, session timeouts, deletions,
// replayed stored epochs and the KIP-1331 writes.
func TestEligibilityIndexMatchesFullScanRandomWorkloads(t *testing.T) {
	const steps = 120
	seeds := uint64(propertySeeds(200))
	seen := map[string]int{}
	for seed := uint64(1); seed <= seeds; seed++ {
		name := fmt.Sprintf("seed=%d", seed)
		ok := t.Run(name, func(t *testing.T) {
			w := newEligibilityWorkload(t, seed, seen)
			defer func() {
				if t.Failed() {
					t.Logf("seed %d failed at step %d; recent operations:\n%s", seed, w.step, strings.Join(w.trace, "\n"))
				}
			}()
			for w.step = 0; w.step < steps; w.step++ {
				w.do()
				w.check()
			}
			requireSnapshotEqual(t, w.h.s.Snapshot(), w.h.rebuild().Snapshot(), "%s: replay equality", w.ctx())
			requireIndexesConsistent(t, w.h.s, "%s", w.ctx())
		})
		if !ok {
			t.Fatalf("seed %d failed; rerun with -run 'TestEligibilityIndexMatchesFullScanRandomWorkloads/%s'", seed, name)
		}
	}
	for _, want := range []string{
		"eligible", "excluded by offsets", "excluded by an open transaction", "excluded by members",
		"sweep deferred a group", "clear wrote", "mark marked", "mark for delete marked",
		"finalize to -1", "finalize to -2", "set stored",
	} {
		assert.Positive(t, seen[want], "the workload never hit %q; seen: %v", want, slices.Sorted(maps.Keys(seen)))
	}
}

// TestReSolicitStoredDescriptionTopologyEpochAfterFailedDeleteBatch proves
// the v2 answer to a delete whose outcome is unknown: a group whose stored
// epoch advanced during the delete goes back to -2 (solicited again, since
// the store may have applied the delete), while -2 and -1 stay as they are
// and other groups are untouched.
func TestReSolicitStoredDescriptionTopologyEpochAfterFailedDeleteBatch(t *testing.T) {
	h := newCleanupHarness(t)
	emptyStreamsGroup(h, "uncertain", EpochUncertain)
	h.streamsJoin("advanced", "m1", topo(1, "foo"))
	setDescriptionEpochs(h, "advanced", 1, EpochNone)
	emptyStreamsGroup(h, "cleared", EpochNone)
	h.consumerJoin("consumer", "c1", "foo")

	ids := []string{"advanced", "cleared", "uncertain", "missing", "consumer"}
	res, _ := pureCall(t, h.s, "ReSolicitStoredDescriptionTopologyEpochAfterFailedDeleteBatch", infallible(func() Result[[]GroupEpoch] {
		return h.s.ReSolicitStoredDescriptionTopologyEpochAfterFailedDeleteBatch(ids)
	}))
	assert.Equal(t, []GroupEpoch{{"advanced", EpochUncertain}}, res.Response)
	assert.Equal(t, []Record{metadataWithEpochs(t, h.s, "advanced", EpochUncertain, EpochNone)}, res.Records)

	applyResult(h, res)
	assert.Equal(t, EpochUncertain, storedEpochOf(t, h.s, "advanced"))
	assert.Equal(t, EpochUncertain, storedEpochOf(t, h.s, "uncertain"))
	assert.Equal(t, EpochNone, storedEpochOf(t, h.s, "cleared"))
	requireSnapshotEqual(t, h.s.Snapshot(), h.rebuild().Snapshot(), "rebuild")
}
