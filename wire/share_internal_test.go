package wire

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/coordsim/coordsim/sharebroker"
)

// TestRoundRobinStrategy is PartitionRotateStrategyTest.testRoundRobinStrategy:
// the partitions start at index epoch % len, epochs below 1 keep the order,
// and the caller's slice is left alone.
func TestRoundRobinStrategy(t *testing.T) {
	tp := func(p int32) sharebroker.TopicPartition {
		return sharebroker.TopicPartition{Topic: "foo", Partition: p}
	}
	in := []sharebroker.TopicPartition{tp(0), tp(1), tp(2), tp(3), tp(4)}
	for epoch, want := range map[int32][]int32{
		-1: {0, 1, 2, 3, 4}, 0: {0, 1, 2, 3, 4}, 1: {1, 2, 3, 4, 0}, 3: {3, 4, 0, 1, 2},
		5: {0, 1, 2, 3, 4}, 7: {2, 3, 4, 0, 1},
	} {
		var got []int32
		for _, p := range rotatePartitions(in, epoch) {
			got = append(got, p.Partition)
		}
		assert.Equal(t, want, got, "epoch %d", epoch)
	}
	assert.Equal(t, []sharebroker.TopicPartition{tp(0), tp(1), tp(2), tp(3), tp(4)}, in, "input untouched")
	assert.Equal(t, []sharebroker.TopicPartition{tp(7)}, rotatePartitions([]sharebroker.TopicPartition{tp(7)}, 3))
	assert.Empty(t, rotatePartitions(nil, 3))
}
