package shard

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/offsets"
)

// TestEmptyClassicGroupOffsetsExpireFromStateTimestamp follows Kafka's
// ClassicGroup.offsetExpirationCondition (ClassicGroupTest's
// testOffsetExpirationCondition): the offsets of an Empty classic group with
// a protocol type expire counting the retention from when the group became
// Empty (its current state timestamp), not from their commit times. So an
// offset committed long ago to a group that became Empty recently is kept,
// and one committed just now to a group Empty for longer than the
// retention goes at the next sweep; a legacy expire timestamp still wins.
// The indexed sweep and Kafka's full scan agree.
func TestEmptyClassicGroupOffsetsExpireFromStateTimestamp(t *testing.T) {
	h := newHarness(t, testConfig(), map[string]int32{"foo": 3})
	retention := h.cfg.OffsetsRetentionMs
	commit := func(group string, p int32, atMs, expireMs int64) Record {
		return &OffsetCommit{Group: group, Topic: "foo", Partition: p, ProducerID: NoProducerID,
			Value: offsets.OffsetAndMetadata{Offset: 10, LeaderEpoch: -1, CommitTimestampMs: atMs, ExpireTimestampMs: expireMs}}
	}
	now := 10 * retention
	h.replay(
		// recent: Empty since just now, its offset committed long ago.
		&GroupMetadata{Group: "recent", ProtocolType: "consumer", Generation: 3, CurrentStateTimestampMs: now - 1},
		commit("recent", 0, now-2*retention, -1),
		// old: Empty for longer than the retention, a fresh commit and
		// one with a legacy expire timestamp in the future.
		&GroupMetadata{Group: "old", ProtocolType: "consumer", Generation: 3, CurrentStateTimestampMs: now - retention},
		commit("old", 0, now-1, -1),
		commit("old", 1, now-1, now+1),
		// simple: no protocol type, so commit times count.
		&GroupMetadata{Group: "simple", CurrentStateTimestampMs: now - retention},
		commit("simple", 0, now-1, -1),
	)
	sweep := h.s.CleanupGroupMetadata(now)
	full := h.s.cleanupGroupMetadataFullScan(now)
	require.Equal(t, formatRecords(full.Records), formatRecords(sweep.Records), "indexed sweep and full scan")
	assert.Equal(t, []string{"old/foo-0"}, offsetTombstoneKeys(sweep.Records))

	applyResult(h, sweep)
	_, ok := h.s.Offset("recent", "foo", 0)
	assert.True(t, ok, "kept: the group became Empty within the retention")
	requireSnapshotEqual(t, h.s.Snapshot(), h.rebuild().Snapshot(), "rebuild")
}
