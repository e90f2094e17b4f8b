package sim

import (
	"math"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/offsets"
)

// TestMinValueIDFamily proves every id of the family hashes to
// Integer.MIN_VALUE (with the checker's hash and the coordinator's), that
// the ids are distinct valid UTF-8, that the family ends where it says,
// and that both routings agree on them (Utils.abs maps MIN_VALUE to 0).
func TestMinValueIDFamily(t *testing.T) {
	seen := map[string]bool{}
	for k := 0; ; k++ {
		id := minValueID(k)
		if id == "" {
			assert.Equal(t, 19683, k, "3^9 ids")
			break
		}
		require.True(t, utf8.ValidString(id), id)
		require.False(t, seen[id], "duplicate %q", id)
		seen[id] = true
		require.Equal(t, int32(math.MinInt32), javaStringHash(id), id)
		require.Equal(t, int32(math.MinInt32), coordinator.JavaStringHashCode(id), id)
		require.Equal(t, int32(0), kafkaPartitionFor(id, 50), id)
		require.Equal(t, coordinator.PartitionFor(id, 50), kafkaPartitionFor(id, 50), id)
	}
}

// TestCheckerRoutingAgreesWithKafka proves the checker's own partitionFor
// agrees with the coordinator's on the workload's ids, including non-ASCII
// ids with characters outside the BMP.
func TestCheckerRoutingAgreesWithKafka(t *testing.T) {
	w := &world{}
	for _, label := range []string{"streams", "consumer", "share", "simple"} {
		for i := range 64 {
			id := w.groupID(label, i)
			for _, n := range []int32{1, 7, 50, 1000} {
				require.Equal(t, coordinator.PartitionFor(id, n), kafkaPartitionFor(id, n), "%q mod %d", id, n)
			}
		}
	}
	assert.Equal(t, int32(math.MinInt32), javaStringHash("polygenelubricants"), "Java's well-known MIN_VALUE string")
}

// TestCheckerExpiryPredicateAgreesWithKafka proves the checker's own expiry
// predicate is Kafka's: inclusive, and a legacy expire timestamp wins.
func TestCheckerExpiryPredicateAgreesWithKafka(t *testing.T) {
	for _, v := range []offsets.OffsetAndMetadata{
		{CommitTimestampMs: 1000, ExpireTimestampMs: -1},
		{CommitTimestampMs: 1000, ExpireTimestampMs: 1500},
		{CommitTimestampMs: 1000, ExpireTimestampMs: 5000},
	} {
		for _, now := range []int64{0, 1499, 1500, 1999, 2000, 2001, 4999, 5000} {
			assert.Equal(t, offsets.IsOffsetExpired(v, now, 1000), offsetExpired(v, now, 1000), "%+v now=%d", v, now)
		}
	}
	assert.True(t, offsetExpired(offsets.OffsetAndMetadata{CommitTimestampMs: 1000, ExpireTimestampMs: -1}, 2000, 1000), "inclusive")
	assert.True(t, offsetExpired(offsets.OffsetAndMetadata{CommitTimestampMs: 1000, ExpireTimestampMs: 1500}, 1500, 1000), "the expire timestamp wins")
}
