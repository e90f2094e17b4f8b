package live_test

import (
	"context"
	"fmt"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/coordinator/live"
	"github.com/coordsim/coordsim/shard"
)

// A driver on the wall clock: start it, commit an offset, read it back, and
// touch the coordinator directly through Do.
func Example() {
	d, err := live.New(coordinator.DefaultConfig(), live.Options{})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	if err := d.Start(ctx); err != nil {
		panic(err)
	}
	defer d.Stop()
	// The metadata image: a commit to a topic it does not hold is refused.
	if err := d.Do(ctx, func(c *coordinator.Coordinator) { err = c.SetTopics(map[string]int32{"payments": 3}) }); err != nil {
		panic(err)
	}
	if err != nil {
		panic(err)
	}

	r, err := d.CommitOffsets(ctx, shard.OffsetCommitRequest{GroupID: "orders", MemberEpoch: -1, RetentionTimeMs: -1,
		Topics: []shard.OffsetCommitTopic{{Topic: "payments", Partitions: []shard.OffsetCommitPartition{{Partition: 0, Offset: 42, LeaderEpoch: -1}}}}})
	if err != nil {
		panic(err)
	}
	fmt.Println("committed:", r.Committed)

	got, err := d.FetchOffsets(ctx, "orders", nil, false)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s-%d at %d\n", got[0].Topic, got[0].Partition, got[0].Offset)

	var partition int32
	_ = d.Do(ctx, func(c *coordinator.Coordinator) { partition = c.PartitionFor("orders") })
	fmt.Println("__consumer_offsets partition:", partition)
	// Output:
	// committed: 1
	// payments-0 at 42
	// __consumer_offsets partition: 31
}
