package shard

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/kerr"
)

// txnCommit writes pending transactional offsets of producerID for each
// "topic-partition" spec.
func (h *harness) txnCommit(group string, producerID int64, specs ...string) {
	h.t.Helper()
	res, err := h.s.CommitTransactionalOffsets(h.nowMs, TxnOffsetCommitRequest{
		GroupID: group, ProducerID: producerID, MemberEpoch: -1, Topics: commitTopics(h.t, specs...),
	})
	mustApply(h, res, err)
}

// offsetKeys lists "group/topic-partition" of every committed offset.
func offsetKeys(s *Shard) []string {
	var out []string
	for _, e := range s.Snapshot().Offsets {
		out = append(out, fmt.Sprintf("%s/%s-%d", e.Key.Group, e.Key.Topic, e.Key.Partition))
	}
	return out
}

// TestOnPartitionsDeleted is Kafka's OffsetMetadataManagerTest
// .testOnPartitionsDeleted: committed offsets of grp-0 (foo) and grp-1
// (bar) and pending transactional ones of grp-2 (foo, producer 100); the
// deleted partitions foo-1..3 and bar-1 get a tombstone per group, the
// others keep their offsets. grp-3 adds a partition both committed and
// pending: one tombstone removes both. The records replay to the same state.
func TestOnPartitionsDeleted(t *testing.T) {
	h := newHarness(t, testConfig(), map[string]int32{"foo": 4, "bar": 4})
	h.commit("grp-0", "", -1, testT, "foo-1", "foo-2", "foo-3")
	h.commit("grp-1", "", -1, testT, "bar-1", "bar-2", "bar-3")
	h.txnCommit("grp-2", 100, "foo-1", "foo-2", "foo-3")
	h.commit("grp-3", "", -1, testT, "foo-1", "foo-0")
	h.txnCommit("grp-3", 7, "foo-1")

	res, err := h.s.OnPartitionsDeleted([]TopicPartitions{
		{Topic: "foo", Partitions: []int32{1, 2, 3}},
		{Topic: "bar", Partitions: []int32{1}},
	})
	require.NoError(t, err)
	assert.Equal(t, []string{
		"grp-0/foo-1", "grp-0/foo-2", "grp-0/foo-3",
		"grp-1/bar-1",
		"grp-2/foo-1", "grp-2/foo-2", "grp-2/foo-3",
		"grp-3/foo-1",
	}, offsetTombstoneKeys(res.Records), "one tombstone per key, in (group, topic, partition) order")
	assert.Equal(t, len(res.Records), res.Response)
	assert.Empty(t, res.Timers)
	applyResult(h, res)

	assert.Equal(t, []string{"grp-1/bar-2", "grp-1/bar-3", "grp-3/foo-0"}, offsetKeys(h.s))
	assert.Zero(t, h.s.Snapshot().PendingCount, "the tombstones removed every pending offset")
	assert.Empty(t, h.s.Snapshot().OpenTxnGroups)
	for _, g := range []string{"grp-0", "grp-1", "grp-2", "grp-3"} {
		_, ok := h.s.DescribeGroup(g)
		assert.True(t, ok, "%s stays until the sweep removes it", g)
	}

	again, err := h.s.OnPartitionsDeleted([]TopicPartitions{{Topic: "foo", Partitions: []int32{1, 2, 3}}})
	require.NoError(t, err)
	assert.Empty(t, again.Records, "nothing left to delete")

	requireIndexesConsistent(t, h.s, "after the deletion")
	requireSnapshotEqual(t, h.s.Snapshot(), h.rebuild().Snapshot(), "replaying the tombstones")
}

// TestOnPartitionsDeletedPendingOnly: a partition with a pending offset and
// nothing committed still gets its tombstone (Kafka walks the pending
// transactional offsets too), and the transaction's later marker commits
// nothing on it.
func TestOnPartitionsDeletedPendingOnly(t *testing.T) {
	h := newHarness(t, testConfig(), map[string]int32{"foo": 2})
	h.txnCommit("txn", 9, "foo-0", "foo-1")
	res, err := h.s.OnPartitionsDeleted([]TopicPartitions{{Topic: "foo", Partitions: []int32{0}}})
	require.NoError(t, err)
	assert.Equal(t, []string{"txn/foo-0"}, offsetTombstoneKeys(res.Records))
	applyResult(h, res)
	end, err := h.s.EndTransaction("txn", 9, true)
	mustApply(h, end, err)
	assert.Equal(t, []string{"txn/foo-1"}, offsetKeys(h.s))
	requireSnapshotEqual(t, h.s.Snapshot(), h.rebuild().Snapshot(), "replay")
}

// TestOnPartitionsDeletedBadInput: each refusal names Kafka's error and
// changes nothing (runBadCases checks both halves).
func TestOnPartitionsDeletedBadInput(t *testing.T) {
	h, _ := populated(t)
	call := func(topics []TopicPartitions) func(s *Shard) ([]Record, []TimerOp, error) {
		return func(s *Shard) ([]Record, []TimerOp, error) {
			res, err := s.OnPartitionsDeleted(topics)
			return res.Records, res.Timers, err
		}
	}
	runBadCases(t, h, []badCase{
		{"empty topic name", call([]TopicPartitions{{Topic: "foo", Partitions: []int32{0}}, {Topic: "", Partitions: []int32{0}}}), kerr.InvalidTopicException},
		{"topic without partitions", call([]TopicPartitions{{Topic: "foo", Partitions: []int32{0}}, {Topic: "bar"}}), kerr.InvalidRequest},
		{"negative partition", call([]TopicPartitions{{Topic: "foo", Partitions: []int32{0, -1}}}), kerr.InvalidRequest},
	})
	// The valid call after them deletes what populated committed on foo-0.
	res, err := h.s.OnPartitionsDeleted([]TopicPartitions{{Topic: "foo", Partitions: []int32{0}}})
	require.NoError(t, err)
	assert.Equal(t, []string{"classic-group/foo-0", "consumer-group/foo-0"}, offsetTombstoneKeys(res.Records))
}
