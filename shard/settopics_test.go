package shard

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSetTopicsNilIsTheEmptyImage proves SetTopics(nil) installs the empty
// metadata image, exactly as an empty map does: every topic is unknown,
// nothing is written to the log, a streams group with members whose source
// topics vanished is NOT_READY at its next heartbeat (the state follows the
// topology the last heartbeat validated), and once the image is back the
// next heartbeat makes the group ready again.
func TestSetTopicsNilIsTheEmptyImage(t *testing.T) {
	for name, empty := range map[string]map[string]int32{"nil": nil, "empty map": {}} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, testConfig(), map[string]int32{"foo": 3})
			epoch := h.streamsJoin("g", "m1", topo(1, "foo")).MemberEpoch
			d, ok := h.s.DescribeGroup("g")
			require.True(t, ok)
			require.NotEqual(t, StateNotReady, d.State)
			logLen := len(h.log)

			h.setTopics(empty)
			assert.Zero(t, h.s.TopicPartitions("foo"), "no topic exists in the empty image")
			assert.Empty(t, h.s.Topics())
			d, _ = h.s.DescribeGroup("g")
			assert.NotEqual(t, StateNotReady, d.State, "no heartbeat has seen the image yet")
			assert.Len(t, h.log, logLen, "metadata is not a record")
			requireSnapshotEqual(t, h.rebuild().Snapshot(), h.s.Snapshot(), "a rebuild under the empty image")
			epoch = h.streamsHeartbeat("g", "m1", epoch).MemberEpoch
			d, _ = h.s.DescribeGroup("g")
			assert.Equal(t, StateNotReady, d.State, "the source topic is missing")

			h.setTopics(map[string]int32{"foo": 3})
			h.streamsHeartbeat("g", "m1", epoch)
			d, _ = h.s.DescribeGroup("g")
			assert.NotEqual(t, StateNotReady, d.State, "the topic is back")
		})
	}
}
