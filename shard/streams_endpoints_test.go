package shard

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestTaskSourcePartitionsKeepOnlyExistingPartitions proves the endpoint
// answer's partitions per source topic are Kafka 4.4's
// (EndpointToPartitionsManager.topicPartitionListForTask): the task ids
// below the topic's partition count, a topic left with none omitted. Task 1
// of a subtopology reading t0 (1 partition) and t1 (3) serves t1-1 only;
// tasks 0 and 2 serve t0-0 and t1-0, t1-2 (found by the differential runner,
// seed 74 of --streams: coordsim answered t0-1, a partition t0 does not
// have).
func TestTaskSourcePartitionsKeepOnlyExistingPartitions(t *testing.T) {
	h := newHarness(t, testConfig(), map[string]int32{"t0": 1, "t1": 3})
	tp := topo(0, "t0", "t1")
	assert.Equal(t, []TopicPartitions{{Topic: "t1", Partitions: []int32{1}}},
		h.s.taskSourcePartitions(tp, []TopicPartitions{{Topic: "0", Partitions: []int32{1}}}))
	assert.Equal(t, []TopicPartitions{{Topic: "t0", Partitions: []int32{0}}, {Topic: "t1", Partitions: []int32{0, 2}}},
		h.s.taskSourcePartitions(tp, []TopicPartitions{{Topic: "0", Partitions: []int32{2, 0}}}))
}
