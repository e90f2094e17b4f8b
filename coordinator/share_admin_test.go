package coordinator_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/coordinator/coordtest"
	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/shard"
)

// TestShareGroupOffsetsAdmin proves the coordinator's AlterShareGroupOffsets
// and DeleteShareGroupOffsets (docs/share-groups.md §2.7) both ways: every bad
// request (bad group id, missing group, another type, a member present, an
// unknown partition, an unloaded or stopped coordinator) fails with its typed
// error and appends nothing; on an EMPTY share group the alter commits one
// group-epoch bump and answers the new epoch, and the delete appends nothing
// and answers the partition count.
func TestShareGroupOffsetsAdmin(t *testing.T) {
	h, err := coordtest.New(coordtest.WithTopics(map[string]int32{"foo": 2}))
	require.NoError(t, err)
	_, err = h.JoinShare("sg", "s1", "foo")
	require.NoError(t, err)
	_, err = h.JoinConsumer("cg", "c1", "foo")
	require.NoError(t, err)
	foo := []shard.TopicPartitions{{Topic: "foo", Partitions: []int32{0, 1}}}
	alter := func(group string, topics []shard.TopicPartitions) error {
		_, err := coordtest.Await(h, h.Coordinator.AlterShareGroupOffsets(group, topics))
		return err
	}
	del := func(group string, topics []shard.TopicPartitions) error {
		_, err := coordtest.Await(h, h.Coordinator.DeleteShareGroupOffsets(group, topics))
		return err
	}

	refusals := []struct {
		name   string
		group  string
		topics []shard.TopicPartitions
		want   *kerr.Error
	}{
		{"empty group id", "", foo, kerr.InvalidGroupID},
		{"no partition", "sg", nil, kerr.InvalidRequest},
		{"missing group", "nope", foo, kerr.GroupIDNotFound},
		{"consumer group", "cg", foo, kerr.GroupIDNotFound},
		{"member present", "sg", foo, kerr.NonEmptyGroup},
	}
	for _, op := range []struct {
		name string
		call func(string, []shard.TopicPartitions) error
	}{{"alter", alter}, {"delete", del}} {
		for _, tc := range refusals {
			if op.name == "alter" && tc.group == "nope" {
				continue // alter creates a missing share group (Kafka trunk's migration path)
			}
			want := tc.want
			if op.name == "delete" && tc.topics == nil {
				want = kerr.NonEmptyGroup // the delete checks the group alone when no topic is named
			}
			t.Run(op.name+"/"+tc.name, func(t *testing.T) {
				before := len(h.Records())
				require.ErrorIs(t, op.call(tc.group, tc.topics), want)
				assert.Len(t, h.Records(), before, "nothing appended")
			})
		}
	}

	_, err = coordtest.Await(h, h.Coordinator.ShareGroupHeartbeat(shard.ShareGroupHeartbeatRequest{GroupID: "sg", MemberID: "s1", MemberEpoch: -1}))
	require.NoError(t, err)
	before := len(h.Records())
	require.ErrorIs(t, alter("sg", []shard.TopicPartitions{{Topic: "foo", Partitions: []int32{2}}}), kerr.UnknownTopicOrPartition)
	require.Len(t, h.Records(), before, "an unknown partition appends nothing")

	epoch, err := coordtest.Await(h, h.Coordinator.AlterShareGroupOffsets("sg", foo))
	require.NoError(t, err)
	assert.Equal(t, int32(4), epoch, "created at 1, join 2, leave 3, alter 4")
	require.Len(t, h.Records(), before+2, "the epoch bump and the partitions recorded as initialising")
	assert.Equal(t, "ShareGroupMetadata sg epoch=4", shard.Format(h.Records()[before].Record))
	assert.Equal(t, "ShareGroupStatePartitionMetadata sg initializing=foo:0,1 initialized=-", shard.Format(h.Records()[before+1].Record))
	d, err := h.Group("sg")
	require.NoError(t, err)
	assert.Equal(t, int32(4), d.Epoch)
	assert.Equal(t, shard.StateEmpty, d.State)

	n, err := coordtest.Await(h, h.Coordinator.DeleteShareGroupOffsets("sg", foo))
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	require.Len(t, h.Records(), before+2, "delete appends nothing")
	require.NoError(t, h.CheckReplay())

	require.NoError(t, h.Coordinator.UnloadShard(h.Coordinator.PartitionFor("sg")))
	require.ErrorIs(t, alter("sg", foo), kerr.NotCoordinator)
	require.ErrorIs(t, del("sg", foo), kerr.NotCoordinator)
	h.Coordinator.Shutdown()
	require.ErrorIs(t, alter("sg", foo), kerr.CoordinatorNotAvailable)
	require.ErrorIs(t, del("sg", foo), kerr.CoordinatorNotAvailable)
}

// ExampleCoordinator_AlterShareGroupOffsets shows the admin flow: refused
// while the share group has a member, accepted once it is empty with the
// bumped group epoch, which the broker side uses as the new share-state
// epoch.
func ExampleCoordinator_AlterShareGroupOffsets() {
	h, err := coordtest.New(coordtest.WithTopics(map[string]int32{"foo": 2}))
	if err != nil {
		panic(err)
	}
	foo0 := []shard.TopicPartitions{{Topic: "foo", Partitions: []int32{0}}}
	if _, err := h.JoinShare("sg", "s1", "foo"); err != nil {
		panic(err)
	}
	_, err = coordtest.Await(h, h.Coordinator.AlterShareGroupOffsets("sg", foo0))
	fmt.Println(kerr.Name(err))
	if _, err := coordtest.Await(h, h.Coordinator.ShareGroupHeartbeat(shard.ShareGroupHeartbeatRequest{GroupID: "sg", MemberID: "s1", MemberEpoch: -1})); err != nil {
		panic(err)
	}
	epoch, err := coordtest.Await(h, h.Coordinator.AlterShareGroupOffsets("sg", foo0))
	fmt.Println(epoch, kerr.Name(err))
	// Output:
	// NON_EMPTY_GROUP
	// 4 NONE
}
