package shard

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSetTopicsNilIsTheEmptyImage proves SetTopics(nil) installs the empty
// metadata image, exactly as an empty map does: every topic is unknown, a
// streams group with members whose source topics vanished is NOT_READY,
// nothing is written to the log, and installing the image again makes the
// group ready.
func TestSetTopicsNilIsTheEmptyImage(t *testing.T) {
	for name, empty := range map[string]map[string]int32{"nil": nil, "empty map": {}} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, testConfig(), map[string]int32{"foo": 3})
			h.streamsJoin("g", "m1", topo(1, "foo"))
			d, ok := h.s.DescribeGroup("g")
			require.True(t, ok)
			require.NotEqual(t, StateNotReady, d.State)
			logLen := len(h.log)

			h.setTopics(empty)
			assert.Zero(t, h.s.TopicPartitions("foo"), "no topic exists in the empty image")
			assert.Empty(t, h.s.Topics())
			d, _ = h.s.DescribeGroup("g")
			assert.Equal(t, StateNotReady, d.State, "the source topic is missing")
			assert.Len(t, h.log, logLen, "metadata is not a record")
			requireSnapshotEqual(t, h.rebuild().Snapshot(), h.s.Snapshot(), "a rebuild under the empty image")

			h.setTopics(map[string]int32{"foo": 3})
			d, _ = h.s.DescribeGroup("g")
			assert.NotEqual(t, StateNotReady, d.State, "the topic is back")
		})
	}
}
