package coordinator_test

import (
	"fmt"
	"time"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/shard"
)

// fixedClock is the smallest Clock: a time that moves only when told.
type fixedClock struct{ now time.Time }

func (c *fixedClock) Now() time.Time { return c.now }

// A broker's coordinator built by hand: start it, load the partition that
// owns the group, commit an offset and poll until the write is committed
// (the future completes at the high watermark), then read it back from
// committed state.
func ExampleNew() {
	clock := &fixedClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	cfg := coordinator.DefaultConfig()
	c, err := coordinator.New(cfg, coordinator.Options{Clock: clock})
	if err != nil {
		panic(err)
	}
	_ = c.Startup()
	_ = c.SetTopics(map[string]int32{"orders": 3})
	p := c.PartitionFor("payments-app")
	_ = c.LoadShard(p)

	f := c.CommitOffsets(shard.OffsetCommitRequest{GroupID: "payments-app", MemberEpoch: -1, RetentionTimeMs: -1,
		Topics: []shard.OffsetCommitTopic{{Topic: "orders", Partitions: []shard.OffsetCommitPartition{{Partition: 1, Offset: 99, LeaderEpoch: -1}}}}})
	for !f.Done() {
		c.Poll()
	}
	_, err = f.Result()
	offs, _ := c.FetchOffsets("payments-app", nil, false)
	fmt.Printf("partition %d, commit error %v, offset %s-%d = %d\n", p, err, offs[0].Topic, offs[0].Partition, offs[0].Offset)
	// Output: partition 41, commit error <nil>, offset orders-1 = 99
}
