package shard

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCommitStoresNegativeOffsetAndLeaderEpoch proves a commit of a negative
// offset and a leader epoch below -1 is stored and fetched back as given, as
// Kafka 4.4's OffsetMetadataManager does (found by the differential runner
// against Kafka's GroupCoordinatorShard: coordsim refused the commit with
// INVALID_REQUEST).
func TestCommitStoresNegativeOffsetAndLeaderEpoch(t *testing.T) {
	h := newHarness(t, DefaultConfig(), map[string]int32{"foo": 2})
	res, err := h.s.CommitOffsets(testT, commitReq("simple", "", -1, OffsetCommitTopic{Topic: "foo", Partitions: []OffsetCommitPartition{
		{Partition: 0, Offset: -5, LeaderEpoch: -7},
		{Partition: 1, Offset: -1, LeaderEpoch: -1, Metadata: "reset"},
	}}))
	resp := mustApply(h, res, err)
	require.NoError(t, resp.Err())
	assert.Equal(t, 2, resp.Committed)

	got, err := h.s.FetchOffsets("simple", []TopicPartitions{{Topic: "foo", Partitions: []int32{0, 1}}}, false)
	require.NoError(t, err)
	assert.Equal(t, []FetchedOffset{
		{Topic: "foo", Partition: 0, Offset: -5, LeaderEpoch: -7},
		{Topic: "foo", Partition: 1, Offset: -1, LeaderEpoch: -1, Metadata: "reset"},
	}, got)
	assert.Equal(t, h.s.Snapshot(), h.rebuild().Snapshot(), "replay gives the same offsets")
}
